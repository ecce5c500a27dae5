/*
 * Fuzz target: the AICB/SimAI workload reader and writer (model/graph/talb-aicb-workload.h), and
 * the execution graph built from what it accepts.
 *
 * The first input byte picks how the graph is built (bits 0-3: ranks 0 = the file's all_gpus,
 * else 1-15; bits 4-5: the first 0 = all, 1, 2 or 3 layer lines; bit 6: 1 or 2 iterations); the
 * rest is the file.
 *
 * Invariants:
 *  - reading never aborts: malformed text gives an error "PATH:LINE: ..." with LINE within the
 *    file, and no layers;
 *  - an accepted workload has its declared number of layer lines, each collective with bytes
 *    and each NONE without, line numbers increasing;
 *  - written back with WriteAicbWorkload() it reads back equal;
 *  - building its graph either fails with "PATH: ..." and an empty graph, or gives a graph that
 *    Validate() accepts, with the ranks asked for, every collective's tensor id 3 x its layer
 *    + column, and (built again from the re-read workload) the same nodes.
 */
#include "talb-fuzz.h"

#include "ns3/talb-aicb-workload.h"

#include <fstream>
#include <sstream>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static talb::fuzz::TempFile file(".txt");
    if (size == 0)
    {
        return 0;
    }
    talb::graph::AicbRun run;
    run.ranks = data[0] & 15;
    run.layers = (data[0] >> 4) & 3;
    run.iterations = 1 + ((data[0] >> 6) & 1);
    run.maxRanks = 64; // small graphs: the fuzzer's memory limit
    std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    file.Write(text.data(), text.size());

    talb::graph::AicbWorkload w;
    std::string error;
    if (!talb::graph::ReadAicbWorkloadFile(file.Path(), &w, &error))
    {
        talb::fuzz::CheckErrorAt(error, file.Path(), text);
        TALB_FUZZ_CHECK(w.layers.empty());
        return 0;
    }
    TALB_FUZZ_CHECK(!w.layers.empty() && w.layers.size() <= talb::graph::kAicbMaxLayers);
    uint32_t line = 0;
    for (const talb::graph::AicbLayer& l : w.layers)
    {
        TALB_FUZZ_CHECK(l.line > line);
        line = l.line;
        for (const talb::graph::AicbPass* p : {&l.fwd, &l.ig, &l.wg})
        {
            TALB_FUZZ_CHECK((p->comm == talb::graph::AicbComm::kNone) == (p->bytes == 0));
        }
    }

    std::ostringstream out;
    talb::graph::WriteAicbWorkload(w, out);
    std::istringstream in(out.str());
    talb::graph::AicbWorkload again;
    TALB_FUZZ_CHECK(talb::graph::ReadAicbWorkload(in, "copy", &again, &error));
    TALB_FUZZ_CHECK(again == w);

    talb::graph::Graph g;
    if (!talb::graph::BuildAicbGraph(w, run, file.Path(), &g, &error))
    {
        TALB_FUZZ_CHECK(error.compare(0, file.Path().size() + 2, file.Path() + ": ") == 0);
        TALB_FUZZ_CHECK(g.nRanks == 0 && g.ranks.empty());
        return 0;
    }
    TALB_FUZZ_CHECK(talb::graph::Validate(g, "fuzz").empty());
    TALB_FUZZ_CHECK(g.nRanks == (run.ranks != 0 ? run.ranks : w.allGpus));
    for (const auto& nodes : g.ranks)
    {
        for (const talb::graph::Node& n : nodes)
        {
            TALB_FUZZ_CHECK(n.layer < w.layers.size());
            TALB_FUZZ_CHECK(run.layers == 0 || n.layer < run.layers);
            if (n.kind == talb::graph::NodeKind::kCollective)
            {
                TALB_FUZZ_CHECK(n.tensor / 3 == n.layer && n.bytes > 0);
            }
        }
    }
    talb::graph::Graph g2;
    TALB_FUZZ_CHECK(talb::graph::BuildAicbGraph(again, run, file.Path(), &g2, &error));
    TALB_FUZZ_CHECK(g2.labels == g.labels && g2.groups.size() == g.groups.size());
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        TALB_FUZZ_CHECK(g2.ranks[r].size() == g.ranks[r].size());
        for (size_t i = 0; i < g.ranks[r].size(); ++i)
        {
            const talb::graph::Node& a = g.ranks[r][i];
            const talb::graph::Node& b = g2.ranks[r][i];
            TALB_FUZZ_CHECK(a.kind == b.kind && a.group == b.group && a.bytes == b.bytes &&
                            a.durationNs == b.durationNs && a.deps == b.deps &&
                            a.tensor == b.tensor);
        }
    }
    return 0;
}
