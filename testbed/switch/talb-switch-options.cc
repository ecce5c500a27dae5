#include "talb-switch-options.h"

#include "talb-text.h"

#include <functional>
#include <map>
#include <sstream>

namespace talb
{

namespace
{

/// The spellings of --labels, in the order messages list them.
const struct
{
    const char* name;
    LabelSource value;
} kLabelSources[] = {{"option", LabelSource::kOption}, {"dscp", LabelSource::kDscp}};

/// \return --labels's spelling of \p source
const char*
LabelName(LabelSource source)
{
    for (const auto& s : kLabelSources)
    {
        if (s.value == source)
        {
            return s.name;
        }
    }
    return "?";
}

/// An option that takes a value: stores \p value, or sets the error naming option \p name.
using Setter = std::function<bool(const std::string& name, const std::string& value)>;

/// \return the setter of a number in [\p lo, \p hi], stored by \p set
Setter
Number(uint64_t lo, uint64_t hi, std::function<void(uint64_t)> set, std::string* error)
{
    return [=](const std::string& name, const std::string& value) {
        uint64_t v;
        if (!ParseUnsigned(value, lo, hi, &v))
        {
            *error = name + ": '" + value + "' is not a number in " + std::to_string(lo) + ".." +
                     std::to_string(hi);
            return false;
        }
        set(v);
        return true;
    };
}

/// \return the setter of a balancer's name: any (--lb), or one that can be a fallback, and
/// "none" too where allowed
Setter
PolicyName(std::string* field, bool fallback, bool noneAllowed, std::string* error)
{
    return [=](const std::string& name, const std::string& value) {
        const PolicyKind* kind = FindPolicyKind(value);
        if (!(noneAllowed && value == "none") && (!kind || (fallback && !kind->canBeFallback)))
        {
            *error = name + ": '" + value + "' is not one of " + (noneAllowed ? "none, " : "") +
                     PolicyNames(fallback);
            return false;
        }
        *field = value;
        return true;
    };
}

/// \return the options that take a value, apart from the policies' settings
std::map<std::string, Setter>
ValueOptions(SwitchOptions* o, std::string* error)
{
    PolicyOptions* p = &o->policy;
    PipelineConfig* pipe = &o->pipeline;
    return {
        {"--config",
         [o, error](const std::string& name, const std::string& value) {
             if (value.empty())
             {
                 *error = name + ": empty file name";
                 return false;
             }
             o->config = value;
             return true;
         }},
        {"--lb", PolicyName(&p->name, false, false, error)},
        {"--fallback", PolicyName(&p->fallback, true, false, error)},
        {"--gobackn-fallback", PolicyName(&p->goBackNFallback, true, true, error)},
        {"--labels",
         [pipe, error](const std::string& name, const std::string& value) {
             for (const auto& s : kLabelSources)
             {
                 if (value == s.name)
                 {
                     pipe->labels = s.value;
                     return true;
                 }
             }
             *error = name + ": '" + value + "' is not option or dscp";
             return false;
         }},
        {"--line-rate",
         [pipe, error](const std::string& name, const std::string& value) {
             if (!ParseRate(value, &pipe->lineRateBps))
             {
                 *error = name + ": '" + value + "' is not a rate such as 10Gbps";
                 return false;
             }
             return true;
         }},
        {"--seed",
         Number(
             0,
             UINT64_MAX >> 1,
             [p](uint64_t v) { p->seed = v; },
             error)},
        {"--switch-id",
         Number(
             0,
             UINT32_MAX,
             [p](uint64_t v) { p->switchId = uint32_t(v); },
             error)},
        {"--ecn-threshold",
         Number(
             0,
             1ull << 32,
             [pipe](uint64_t v) { pipe->egress.ecnThresholdBytes = v; },
             error)},
        {"--buffer",
         Number(
             2048,
             1ull << 32,
             [pipe](uint64_t v) { pipe->egress.bufferBytes = v; },
             error)},
        {"--band-scheduling",
         [pipe, error](const std::string& name, const std::string& value) {
             if (value != "strict" && value != "dwrr")
             {
                 *error = name + ": '" + value + "' is not strict or dwrr";
                 return false;
             }
             pipe->egress.dwrrBands = value == "dwrr";
             return true;
         }},
        {"--strict-bands",
         Number(
             0,
             TALB_NUM_PRIORITIES,
             [pipe](uint64_t v) { pipe->egress.strictBands = uint8_t(v); },
             error)},
        {"--band-weights",
         [pipe, error](const std::string& name, const std::string& value) {
             // The simulator's BandWeights syntax, read by the same code.
             if (talb::lb::BandDrr::ParseWeights(value.c_str(), pipe->egress.bandWeights) !=
                 talb::lb::BandDrr::kWeightsOk)
             {
                 *error = name + ": '" + value + "' is not eight weights 1..1000, one per band";
                 return false;
             }
             return true;
         }},
        {"--burst-us",
         Number(
             1,
             1000000,
             [pipe](uint64_t v) { pipe->shaperBurstUs = uint32_t(v); },
             error)},
        {"--mtu",
         Number(
             68,
             9600,
             [o](uint64_t v) { o->mtu = uint32_t(v); },
             error)},
        {"--stats-interval",
         Number(
             0,
             3600,
             [o](uint64_t v) { o->statsInterval = uint32_t(v); },
             error)},
        {"--idle-sleep-us",
         Number(
             0,
             10000,
             [o](uint64_t v) { o->idleSleepUs = uint32_t(v); },
             error)},
    };
}

/// An option that takes no value, and what it sets.
struct Flag
{
    const char* name;
    void (*set)(SwitchOptions* o);
};

const Flag kFlags[] = {
    {"--no-ecn", [](SwitchOptions* o) { o->pipeline.egress.ecn = false; }},
    {"--push-out", [](SwitchOptions* o) { o->pipeline.egress.pushOut = true; }},
};

/// \return the option of kFlags named \p name, or nullptr
const Flag*
FindFlag(const std::string& name)
{
    for (const Flag& flag : kFlags)
    {
        if (name == flag.name)
        {
            return &flag;
        }
    }
    return nullptr;
}

/**
 * Parses one argument, --name=value or a --flag.
 * \return false with *error naming it when it is unknown or its value is refused
 */
bool
ParseArgument(const std::string& arg,
              const std::map<std::string, Setter>& options,
              SwitchOptions* o,
              std::string* error)
{
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
    auto option = options.find(name);
    if (eq == std::string::npos)
    {
        if (name == "--help")
        {
            o->help = true;
            return true;
        }
        if (const Flag* flag = FindFlag(name))
        {
            flag->set(o);
            return true;
        }
        // Every policy flag refuses an empty value: this only asks whether it is one.
        bool ok = true;
        bool known = option != options.end() || ParsePolicyFlag(name, "", &o->policy, &ok, error);
        *error =
            known ? name + ": needs a value (" + name + "=...)" : "unknown argument '" + arg + "'";
        return false;
    }
    if (option != options.end())
    {
        return option->second(name, value);
    }
    bool ok = false;
    if (ParsePolicyFlag(name, value, &o->policy, &ok, error))
    {
        return ok;
    }
    if (FindFlag(name))
    {
        *error = name + ": takes no value ('" + arg + "')";
        return false;
    }
    *error = "unknown argument '" + arg + "'";
    return false;
}

} // namespace

std::string
SwitchUsage(const std::string& prog)
{
    // The defaults are those of the options' structs; the policies' flags and their defaults
    // come from the policies' settings tables (the decision core's Configs).
    const SwitchOptions d;
    const PolicyOptions& p = d.policy;
    std::ostringstream os;
    os << "usage: " << prog << " [EAL args] -- --config=FILE [options]\n"
       << "A software leaf or spine switch: forwards IPv4 by destination prefix; where a route\n"
       << "has several ports the load balancer chooses per packet (the simulator's decision\n"
       << "code); each port queues in 8 strict-priority bands by TaLB priority or DSCP, marks\n"
       << "ECN, and may be shaped to a rate. Frames are forwarded unchanged (no MAC rewrite).\n"
       << "  --config=FILE            ports and routes: 'port <id> <device> [rate=R] [ecn=B]\n"
       << "                           [buffer=B]', 'route <a.b.c.d>/<len> <port>[,<port>..]\n"
       << "                           [leaf=N] [hostport=N]' ('#' comments; hostport: a host's\n"
       << "                           port under its leaf, on its /32, which pin reads)\n"
       << "  --lb=NAME                load balancer: " << PolicyNames() << "\n"
       << "                           (default " << p.name
       << "; talb is TaLB v2, talb-v1 the first design)\n"
       << "  --labels=option|dscp     label source: the TaLB IPv4 option (tensor, priority,\n"
       << "                           FIRST/LAST), or the DSCP alone (priority; the flow stands\n"
       << "                           for its tensor) (default " << LabelName(d.pipeline.labels)
       << ")\n"
       << "  --fallback=NAME          the TaLB versions' policy for unlabelled packets\n"
       << "                           (default " << p.fallback << "): " << PolicyNames(true) << "\n"
       << "  --gobackn-fallback=NAME  their policy for unlabelled RoCEv2 data (UDP to 4791,\n"
       << "                           128 B or more: a reordering costs it a go-back-N window),\n"
       << "                           or 'none' (then --fallback's) (default " << p.goBackNFallback
       << ")\n"
       << "  --seed=N                 seed of the load balancer's random source (default " << p.seed
       << ")\n"
       << "  --switch-id=N            decorrelates ECMP hashing between switches (default "
       << p.switchId << ")\n"
       << "The load balancers' settings, the simulator's attributes of the same name (range;\n"
       << "default); times in microseconds:\n";
    WritePolicyFlagsUsage(os);
    os << "Ports:\n"
       << "  --ecn-threshold=B        marking threshold in bytes for ports without ecn=\n"
       << "                           (default " << d.pipeline.egress.ecnThresholdBytes << ": "
       << d.pipeline.egress.ecnThresholdBytes / d.mtu << " full-size packets)\n"
       << "  --no-ecn                 never mark\n"
       << "  --buffer=B               egress buffer in bytes for ports without buffer=\n"
       << "                           (default " << d.pipeline.egress.bufferBytes << ")\n"
       << "  --push-out               a packet that finds its port's buffer full drops the\n"
       << "                           oldest packets of lower bands instead, the lowest band\n"
       << "                           first, where that makes room (as the simulator's pushOut;\n"
       << "                           with dwrr never the untagged band 7); default drop-tail\n"
       << "  --band-scheduling=S      between the eight bands: strict (the most urgent\n"
       << "                           first, the default) or dwrr (the bands from\n"
       << "                           --strict-bands on share by DWRR, as the simulator's\n"
       << "                           BandScheduling=Dwrr)\n"
       << "  --strict-bands=N         dwrr: bands 0..N-1 served strictly first, 0..8\n"
       << "                           (default " << unsigned(d.pipeline.egress.strictBands) << ")\n"
       << "  --band-weights=W0,..,W7  dwrr: each band's weight, 1..1000 (default all 1)\n"
       << "  --line-rate=R            DRE capacity of unshaped ports (default "
       << FormatRate(d.pipeline.lineRateBps) << ")\n"
       << "  --burst-us=N             a shaped port's bucket depth in microseconds of its rate\n"
       << "                           (at least 4 frames), 1..1000000 (default "
       << d.pipeline.shaperBurstUs << ")\n"
       << "  --mtu=N                  ports' MTU, 68..9600 (default " << d.mtu << ")\n"
       << "  --stats-interval=SEC     seconds between stats lines, 0 = none (default "
       << d.statsInterval << ")\n"
       << "  --idle-sleep-us=N        when a pass over the ports moved nothing, sleep up to N\n"
       << "                           us (less when a shaped packet may leave sooner); 0 =\n"
       << "                           busy-poll, the default; 1..10000\n"
       << "  --help                   this text\n"
       << "SIGINT/SIGTERM stop it; it prints final counters, last line:\n"
       << "  talb-switch final: rx=.. tx=.. queued=.. labelled=.. unlabelled=.. malformed=..\n"
       << "                     not_ipv4=.. no_route=.. queue_drops=.. pushed_out=..\n"
       << "                     discarded=.. marked=.. selections=.. reroutes=.. evictions=..\n"
       << "                     missed=..\n"
       << "  (rx = tx + not_ipv4 + no_route + queue_drops + pushed_out + discarded)\n";
    return os.str();
}

bool
ParseSwitchOptions(int argc, char** argv, SwitchOptions* o, std::string* error)
{
    const std::map<std::string, Setter> options = ValueOptions(o, error);
    for (int i = 1; i < argc; ++i)
    {
        if (!ParseArgument(argv[i], options, o, error))
        {
            return false;
        }
    }
    if (!o->help && o->config.empty())
    {
        *error = "--config is required";
        return false;
    }
    if (!CheckPolicyOptions(o->policy, error))
    {
        return false;
    }
    o->pipeline.maxFrameBytes = o->mtu + 22;
    return true;
}

} // namespace talb
