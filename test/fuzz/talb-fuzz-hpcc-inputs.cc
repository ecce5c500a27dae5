/*
 * Fuzz target: the readers of HPCC's and ConWeave's input files (helper/talb-hpcc-inputs.h), the
 * text of --topologyFile and --flowFile. The bytes are read as a topology file, and as a flow
 * file both against that topology (when accepted) and against host indices.
 *
 * Invariants:
 *  - parsing never aborts: malformed text gives an error that starts with "NAME:LINE: ", LINE
 *    at least 1 and at most the number of lines + 1, and leaves the output untouched;
 *  - an accepted topology is a leaf-spine fabric: at least one leaf, spine and host per leaf,
 *    hostOfNode a one-to-one map onto the hosts 0 .. leaves x hostsPerLeaf - 1, positive rates,
 *    every rate override on a link inside the fabric and at a rate other than fabricRate;
 *  - accepted flows go between two different hosts of the fabric, with at least one byte and a
 *    start at or after 0, as many as the first line announced.
 */
#include "talb-fuzz.h"

#include "ns3/talb-hpcc-inputs.h"

#include <set>
#include <string>

namespace
{

/// The error format of every talb file reader, with a line inside the text.
void
CheckError(const std::string& error, const std::string& name, const std::string& text)
{
    TALB_FUZZ_CHECK(error.compare(0, name.size() + 1, name + ":") == 0);
    size_t colon = error.find(": ", name.size() + 1);
    TALB_FUZZ_CHECK(colon != std::string::npos);
    std::string line = error.substr(name.size() + 1, colon - name.size() - 1);
    TALB_FUZZ_CHECK(!line.empty() && line.size() < 12 &&
                    line.find_first_not_of("0123456789") == std::string::npos);
    size_t lines = 1 + std::count(text.begin(), text.end(), '\n');
    TALB_FUZZ_CHECK(std::stoul(line) >= 1 && std::stoul(line) <= lines);
}

void
CheckFlows(const std::string& text, const std::map<uint32_t, uint32_t>* hostOfNode, uint32_t nHosts)
{
    const std::string name = "fuzz-flows.txt";
    std::vector<ns3::TalbHpccFlow> flows(1);
    std::string error = ns3::TalbHpccFlows::Parse(text, name, hostOfNode, nHosts, &flows);
    if (!error.empty())
    {
        CheckError(error, name, text);
        TALB_FUZZ_CHECK(flows.size() == 1); // untouched
        return;
    }
    TALB_FUZZ_CHECK(!flows.empty());
    for (const auto& f : flows)
    {
        TALB_FUZZ_CHECK(f.src < nHosts && f.dst < nHosts && f.src != f.dst);
        TALB_FUZZ_CHECK(f.sizeBytes >= 1 && !f.start.IsStrictlyNegative());
        TALB_FUZZ_CHECK(f.pg <= 7 && f.dport <= 65535 && f.line >= 1);
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string name = "fuzz-topology.txt";
    std::string text(reinterpret_cast<const char*>(data), size);
    ns3::TalbHpccTopology t;
    t.leaves = 12345;
    std::string error = ns3::TalbHpccTopology::Parse(text, name, &t);
    if (!error.empty())
    {
        CheckError(error, name, text);
        TALB_FUZZ_CHECK(t.leaves == 12345 && t.hostOfNode.empty());
        CheckFlows(text, nullptr, 64);
        return 0;
    }
    TALB_FUZZ_CHECK(t.leaves >= 1 && t.spines >= 1 && t.hostsPerLeaf >= 1);
    uint64_t hosts = uint64_t(t.leaves) * t.hostsPerLeaf;
    TALB_FUZZ_CHECK(t.hostOfNode.size() == hosts);
    std::set<uint32_t> seen;
    for (const auto& [node, host] : t.hostOfNode)
    {
        TALB_FUZZ_CHECK(host < hosts && seen.insert(host).second);
    }
    TALB_FUZZ_CHECK(t.hostRate.GetBitRate() > 0 && t.fabricRate.GetBitRate() > 0);
    TALB_FUZZ_CHECK(!t.linkDelay.IsStrictlyNegative());
    for (const auto& r : t.linkRates)
    {
        TALB_FUZZ_CHECK(r.leaf < t.leaves && r.spine < t.spines);
        TALB_FUZZ_CHECK(r.rate.GetBitRate() > 0 && r.rate != t.fabricRate);
    }
    CheckFlows(text, &t.hostOfNode, static_cast<uint32_t>(hosts));
    return 0;
}
