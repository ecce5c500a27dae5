/*
 * Fuzz target: the Chakra execution-trace reader and writer (model/graph/talb-chakra-trace.h),
 * the communicator-group file (talb-chakra-comm-groups.h), and the graph built from what they
 * accept (talb-chakra-graph.h).
 *
 * The first input byte says how the rest is used (bits 0-1: 1 to 4 ranks; bit 2: 2 iterations;
 * bit 3: the first piece is a communicator-group file; bit 4: nodes wait for their ctrl_deps); the
 * rest is split at each "\xffRNK" into pieces: the group file if any, then one rank's file each
 * (missing ones empty).
 *
 * Invariants:
 *  - reading never aborts: bad bytes give "f.R.et: ..." and no nodes; a bad group file
 *    "g.json:LINE: ..." and no groups;
 *  - what is accepted, written back, reads back equal (rank files and group files);
 *  - building the graph either fails with a message naming a rank's file, the group file or
 *    the prefix, and an empty graph, or gives a graph that Validate() accepts, with the trace's
 *    ranks and iterations and every node of a rank's file but its metadata nodes.
 */
#include "talb-fuzz.h"

#include "ns3/talb-chakra-comm-groups.h"
#include "ns3/talb-chakra-graph.h"
#include "ns3/talb-chakra-trace.h"

#include <string>
#include <vector>

namespace
{

bool
StartsWith(const std::string& s, const std::string& prefix)
{
    return s.compare(0, prefix.size(), prefix) == 0;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    using namespace talb::graph;
    if (size == 0)
    {
        return 0;
    }
    const uint32_t nRanks = 1 + (data[0] & 3);
    ChakraRun run;
    run.iterations = 1 + ((data[0] >> 2) & 1);
    const bool withGroups = data[0] & 8;
    run.waitForCtrlDeps = data[0] & 16;
    std::vector<std::string> pieces(1);
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    const std::string separator = "\xffRNK";
    for (std::size_t pos = 0;;)
    {
        std::size_t next = text.find(separator, pos);
        pieces.back() += text.substr(pos, next == std::string::npos ? next : next - pos);
        if (next == std::string::npos)
        {
            break;
        }
        pieces.emplace_back();
        pos = next + separator.size();
    }
    pieces.resize(nRanks + (withGroups ? 1 : 0));

    std::string error;
    ChakraCommGroups groups;
    if (withGroups)
    {
        if (!ReadChakraCommGroups(pieces[0], "g.json", &groups, &error))
        {
            TALB_FUZZ_CHECK(StartsWith(error, "g.json:") && groups.groups.empty());
            return 0;
        }
        ChakraCommGroups again;
        TALB_FUZZ_CHECK(
            ReadChakraCommGroups(WriteChakraCommGroups(groups), "copy", &again, &error));
        TALB_FUZZ_CHECK(again == groups);
    }
    ChakraTrace trace;
    std::size_t kept = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        const std::string name = "f." + std::to_string(r) + ".et";
        ChakraRankTrace rank;
        if (!ReadChakraRank(pieces[r + (withGroups ? 1 : 0)], name, &rank, &error))
        {
            TALB_FUZZ_CHECK(StartsWith(error, name + ": ") || StartsWith(error, name + ":node "));
            TALB_FUZZ_CHECK(rank.nodes.empty() && rank.version.empty());
            return 0;
        }
        ChakraRankTrace again;
        TALB_FUZZ_CHECK(ReadChakraRank(WriteChakraRank(rank), "copy", &again, &error));
        TALB_FUZZ_CHECK(again == rank);
        for (const ChakraNode& n : rank.nodes)
        {
            kept += n.type != ChakraNodeType::kMetadata;
        }
        trace.ranks.push_back(std::move(rank));
        trace.files.push_back(name);
    }

    Graph g;
    if (!BuildChakraGraph(trace, withGroups ? &groups : nullptr, "g.json", run, "f", &g, &error))
    {
        TALB_FUZZ_CHECK(StartsWith(error, "f.") || StartsWith(error, "f: ") ||
                        StartsWith(error, "g.json"));
        TALB_FUZZ_CHECK(g.nRanks == 0 && g.ranks.empty() && g.groups.empty());
        return 0;
    }
    TALB_FUZZ_CHECK(talb::graph::Validate(g, "fuzz").empty());
    TALB_FUZZ_CHECK(g.nRanks == nRanks && g.iterations == run.iterations);
    std::size_t nodes = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        for (const Node& n : g.ranks[r])
        {
            TALB_FUZZ_CHECK(n.iteration < run.iterations);
            // Iterations after the first start with one zero-time node per rank with nodes.
            nodes += n.iteration == 0;
        }
    }
    TALB_FUZZ_CHECK(nodes == kept);
    return 0;
}
