#include "talb-agent-options.h"

#include "talb-text.h"

#include <cstdlib>
#include <sstream>

namespace talb
{

namespace
{

bool
ParseDscpMap(const std::string& text, uint8_t* dscp, std::string* error)
{
    std::vector<std::string> items = Split(text, ',');
    if (items.size() > TALB_NUM_PRIORITIES)
    {
        *error = "--dscp-map: more than 8 values in '" + text + "'";
        return false;
    }
    if (items.size() != TALB_NUM_PRIORITIES || text.back() == ',')
    {
        *error = "--dscp-map: needs exactly 8 comma-separated values (priority 0..7), got '" +
                 text + "'";
        return false;
    }
    uint8_t values[TALB_NUM_PRIORITIES];
    for (unsigned n = 0; n < TALB_NUM_PRIORITIES; ++n)
    {
        uint64_t v;
        if (!ParseUnsigned(items[n], 0, 63, &v))
        {
            *error = "--dscp-map: value " + std::to_string(n) + " ('" + items[n] +
                     "') is not a DSCP 0..63";
            return false;
        }
        values[n] = static_cast<uint8_t>(v);
    }
    for (unsigned p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        dscp[p] = values[p];
    }
    return true;
}

} // namespace

std::string
AgentUsage(const std::string& prog)
{
    std::ostringstream os;
    os << "usage: " << prog << " [EAL args] -- --host-port=P --wire-port=P [options]\n"
       << "Bridges a host-side port and a wire-side port. Host->wire TCP data packets of\n"
       << "connections seen from their SYN get the TaLB IPv4 option + DSCP of the tensor owning\n"
       << "their first payload byte; wire->host packets lose the option. Anything else passes\n"
       << "untouched and is counted.\n"
       << "  --host-port=P          ethdev port id or device name on the host side (e.g.\n"
       << "                         net_tap0, net_af_packet0)\n"
       << "  --wire-port=P          ethdev port id or device name on the wire side\n"
       << "  --dscp-map=d0,...,d7   DSCP for priorities 0..7 (default the wire table:\n"
       << "                         46,40,32,24,16,12,10,8)\n"
       << "  --dscp-only            set the DSCP only, never insert the IPv4 option\n"
       << "  --mtu=N                wire MTU, 68..9600 (default 1500): a packet that the option\n"
       << "                         would push past it gets the DSCP only, counted 'oversize'\n"
       << "  --max-flows=N          tracked connection directions, 1..4194304 (default 4096)\n"
       << "  --stats-interval=SEC   seconds between stats lines, 0 = none (default 1)\n"
       << "  --idle-sleep-us=N      sleep N us when neither port received anything (after\n"
       << "                         sending what is buffered): 0 busy-polls (the default),\n"
       << "                         1..10000 lets DPDK processes share a few cores\n"
       << "  --help                 this text\n"
       << "SIGINT/SIGTERM stop it; it prints final counters, last line:\n"
       << "  talb-agent final: rx=.. tx=.. tagged=.. untracked=.. malformed=.. oversize=..\n"
       << "                    stripped=.. passthrough=.. evicted=.. drops=..\n";
    return os.str();
}

bool
ParseAgentOptions(int argc, char** argv, AgentOptions* options, std::string* error)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        std::string name = arg.substr(0, arg.find('='));
        bool hasValue = arg.find('=') != std::string::npos;
        std::string value = hasValue ? arg.substr(arg.find('=') + 1) : "";
        uint64_t v;
        if (name == "--help" && !hasValue)
        {
            options->help = true;
        }
        else if (name == "--dscp-only" && !hasValue)
        {
            options->tagger.dscpOnly = true;
        }
        else if (!hasValue && (name == "--host-port" || name == "--wire-port" ||
                               name == "--dscp-map" || name == "--mtu" || name == "--max-flows" ||
                               name == "--stats-interval" || name == "--idle-sleep-us"))
        {
            *error = name + ": needs a value (" + name + "=...)";
            return false;
        }
        else if (name == "--host-port" || name == "--wire-port")
        {
            if (value.empty())
            {
                *error = name + ": empty port";
                return false;
            }
            (name == "--host-port" ? options->hostPort : options->wirePort) = value;
        }
        else if (name == "--dscp-map")
        {
            if (!ParseDscpMap(value, options->tagger.dscp, error))
            {
                return false;
            }
        }
        else if (name == "--mtu")
        {
            if (!ParseUnsigned(value, 68, 9600, &v))
            {
                *error = "--mtu: '" + value + "' is not a number in 68..9600";
                return false;
            }
            options->tagger.mtu = static_cast<uint32_t>(v);
        }
        else if (name == "--max-flows")
        {
            if (!ParseUnsigned(value, 1, 1u << 22, &v))
            {
                *error = "--max-flows: '" + value + "' is not a number in 1..4194304";
                return false;
            }
            options->tagger.maxFlows = static_cast<uint32_t>(v);
        }
        else if (name == "--stats-interval")
        {
            if (!ParseUnsigned(value, 0, 3600, &v))
            {
                *error = "--stats-interval: '" + value + "' is not a number of seconds in 0..3600";
                return false;
            }
            options->statsInterval = static_cast<uint32_t>(v);
        }
        else if (name == "--idle-sleep-us")
        {
            if (!ParseUnsigned(value, 0, 10000, &v))
            {
                *error = "--idle-sleep-us: '" + value + "' is not a number in 0..10000";
                return false;
            }
            options->idleSleepUs = static_cast<uint32_t>(v);
        }
        else
        {
            *error = "unknown argument '" + arg + "'";
            return false;
        }
    }
    if (options->help)
    {
        return true;
    }
    if (options->hostPort.empty() || options->wirePort.empty())
    {
        *error = "--host-port and --wire-port are required";
        return false;
    }
    if (options->hostPort == options->wirePort)
    {
        *error = "--host-port and --wire-port name the same port '" + options->hostPort + "'";
        return false;
    }
    return true;
}

} // namespace talb
