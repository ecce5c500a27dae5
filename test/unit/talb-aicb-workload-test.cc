// The AICB/SimAI workload reader and writer (model/graph/talb-aicb-workload.h): good files, the
// graph they give (groups, tensor ids, classes, bytes, dependencies), round trips, and one
// message per kind of bad input naming the file, the line and what is wrong.
#include "ns3/talb-aicb-workload.h"
#include "ns3/talb-exec-graph.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace talb::graph;

namespace
{

/// A workload as AICB's current writer lays it out: TP 2 on 8 GPUs (DP 4), three layers.
const char* const kSmall =
    "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 ep: 1 pp: 1 vpp: 2 ga: 1 "
    "all_gpus: 8 checkpoints: 0 checkpoint_initiates: 0 pp_comm: 0\n"
    "3\n"
    "embedding\t-1\t1000\tALLREDUCE\t4096\t2000\tNONE\t0\t3000\tNONE\t0\t100\n"
    "attention\t-1\t4000\tALLREDUCE\t8192\t5000\tALLREDUCE\t8192\t6000\tALLREDUCE\t65536\t100\n"
    "grad_norm\t-1\t1\tNONE\t0\t1\tNONE\t0\t1\tREDUCESCATTER_DP_EP\t32768\t0\n";

AicbWorkload
Read(const std::string& text)
{
    std::istringstream in(text);
    AicbWorkload w;
    std::string error;
    EXPECT_TRUE(ReadAicbWorkload(in, "w.txt", &w, &error)) << error;
    return w;
}

std::string
ReadError(const std::string& text)
{
    std::istringstream in(text);
    AicbWorkload w;
    std::string error;
    EXPECT_FALSE(ReadAicbWorkload(in, "w.txt", &w, &error)) << text;
    EXPECT_TRUE(w.layers.empty());
    return error;
}

std::string
BuildError(const AicbWorkload& w, AicbRun run)
{
    Graph g;
    std::string error;
    EXPECT_FALSE(BuildAicbGraph(w, run, "w.txt", &g, &error));
    EXPECT_EQ(g.nRanks, 0u);
    return error;
}

Graph
Build(const AicbWorkload& w, AicbRun run)
{
    Graph g;
    std::string error;
    EXPECT_TRUE(BuildAicbGraph(w, run, "w.txt", &g, &error)) << error;
    EXPECT_TRUE(Validate(g, "w.txt").empty());
    return g;
}

/// Every field of two graphs, node by node.
void
ExpectSameGraph(const Graph& a, const Graph& b)
{
    ASSERT_EQ(a.nRanks, b.nRanks);
    EXPECT_EQ(a.iterations, b.iterations);
    EXPECT_EQ(a.labels, b.labels);
    ASSERT_EQ(a.groups.size(), b.groups.size());
    for (std::size_t i = 0; i < a.groups.size(); ++i)
    {
        EXPECT_EQ(a.groups[i].name, b.groups[i].name);
        EXPECT_EQ(a.groups[i].cls, b.groups[i].cls);
        EXPECT_EQ(a.groups[i].ranks, b.groups[i].ranks);
    }
    for (uint32_t r = 0; r < a.nRanks; ++r)
    {
        ASSERT_EQ(a.ranks[r].size(), b.ranks[r].size());
        for (std::size_t i = 0; i < a.ranks[r].size(); ++i)
        {
            const Node& x = a.ranks[r][i];
            const Node& y = b.ranks[r][i];
            EXPECT_TRUE(std::tie(x.kind,
                                 x.coll,
                                 x.cls,
                                 x.priority,
                                 x.group,
                                 x.root,
                                 x.label,
                                 x.layer,
                                 x.tensor,
                                 x.iteration,
                                 x.durationNs,
                                 x.bytes,
                                 x.deps) == std::tie(y.kind,
                                                     y.coll,
                                                     y.cls,
                                                     y.priority,
                                                     y.group,
                                                     y.root,
                                                     y.label,
                                                     y.layer,
                                                     y.tensor,
                                                     y.iteration,
                                                     y.durationNs,
                                                     y.bytes,
                                                     y.deps))
                << "rank " << r << " node " << i;
        }
    }
}

} // namespace

TEST(AicbWorkload, ReadsTheHeaderAndTheLayers)
{
    AicbWorkload w = Read(kSmall);
    EXPECT_EQ(w.kind, AicbKind::kTransformerFwdInBckwd);
    EXPECT_EQ(w.tp, 2u);
    EXPECT_EQ(w.ep, 1u);
    EXPECT_EQ(w.pp, 1u);
    EXPECT_EQ(w.vpp, 2u);
    EXPECT_EQ(w.allGpus, 8u);
    ASSERT_EQ(w.layers.size(), 3u);
    EXPECT_EQ(w.layers[1].name, "attention");
    EXPECT_EQ(w.layers[1].line, 4u);
    EXPECT_EQ(w.layers[1].fwd.computeNs, 4000u);
    EXPECT_EQ(w.layers[1].ig.comm, AicbComm::kAllReduce);
    EXPECT_EQ(w.layers[1].wg.bytes, 65536u);
    EXPECT_EQ(w.layers[1].updateNs, 100u);
    EXPECT_EQ(w.layers[2].wg.comm, AicbComm::kReduceScatter);
    EXPECT_EQ(w.layers[2].wg.group, AicbGroup::kDpEp);
}

TEST(AicbWorkload, GraphHasMegatronGroupsTensorIdsAndBytes)
{
    Graph g = Build(Read(kSmall), AicbRun{0, 0, 2});
    ASSERT_EQ(g.nRanks, 8u);
    // tp groups of adjacent ranks, dp groups strided by tp; ep 1 makes edp the dp groups.
    std::vector<std::pair<std::string, std::vector<uint32_t>>> groups;
    for (const Group& group : g.groups)
    {
        groups.emplace_back(group.name, group.ranks);
    }
    std::vector<std::pair<std::string, std::vector<uint32_t>>> expected = {
        {"tp0", {0, 1}},
        {"tp1", {2, 3}},
        {"tp2", {4, 5}},
        {"tp3", {6, 7}},
        {"dp0", {0, 2, 4, 6}},
        {"dp1", {1, 3, 5, 7}},
        {"edp0", {0, 2, 4, 6}},
        {"edp1", {1, 3, 5, 7}},
    };
    EXPECT_EQ(groups, expected);
    // Per rank and iteration: fwd ALLREDUCE x2 (tp), ig ALLREDUCE (tp), wg ALLREDUCE (dp),
    // wg REDUCESCATTER (edp).
    uint64_t bytes[4] = {0, 0, 0, 0}; // tensor, data by group kind: tp, dp, edp
    uint32_t collectives = 0;
    for (const Node& n : g.ranks[3])
    {
        if (n.kind != NodeKind::kCollective)
        {
            continue;
        }
        ++collectives;
        EXPECT_EQ(n.priority, kPriorityByRule);
        EXPECT_EQ(n.tensor / 3, n.layer);
        const std::string& name = g.groups[n.group].name;
        bytes[name[0] == 't' ? 0 : name[0] == 'd' ? 1 : 2] += n.bytes;
        EXPECT_EQ(n.cls, name[0] == 't' ? CommClass::kTensor : CommClass::kData);
    }
    EXPECT_EQ(collectives, 2u * 5);
    EXPECT_EQ(bytes[0], 2u * (4096 + 8192 + 8192));
    EXPECT_EQ(bytes[1], 2u * 65536);
    EXPECT_EQ(bytes[2], 2u * 32768);
    // Tensor ids: 3 x line + column, in issue order: forward through the lines, then backward
    // from the last (line 2's weight gradient before line 1's input and weight gradients).
    std::vector<uint32_t> tensors;
    for (const Node& n : g.ranks[0])
    {
        if (n.kind == NodeKind::kCollective && n.iteration == 0)
        {
            tensors.push_back(n.tensor);
        }
    }
    EXPECT_EQ(tensors, (std::vector<uint32_t>{0, 3, 8, 4, 5}));
}

TEST(AicbWorkload, ForwardWaitsForTheWeightGradientOfTheIterationBefore)
{
    Graph g = Build(Read(kSmall), AicbRun{0, 0, 2});
    const std::vector<Node>& nodes = g.ranks[0];
    uint32_t wg = Node::kNone;
    uint32_t fwd = Node::kNone;
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        const std::string& label = g.labels[nodes[i].label];
        if (nodes[i].iteration == 0 && label == "attention.update" && wg == Node::kNone && i > 0 &&
            g.labels[nodes[i - 1].label] == "attention.wg.all_reduce")
        {
            wg = i; // the update after the weight-gradient all-reduce
        }
        if (nodes[i].iteration == 1 && label == "attention.fwd")
        {
            fwd = i;
        }
    }
    ASSERT_NE(wg, Node::kNone);
    ASSERT_NE(fwd, Node::kNone);
    EXPECT_NE(std::find(nodes[fwd].deps.begin(), nodes[fwd].deps.end(), wg), nodes[fwd].deps.end());
    // Compute times: the file's, in ns.
    EXPECT_EQ(nodes[fwd].durationNs, 4000u);
}

TEST(AicbWorkload, RoundTripGivesTheSameWorkloadAndGraph)
{
    for (const char* text :
         {kSmall,
          "DATA\n2\nconv1 -1 5 NONE 0 6 NONE 0 7 ALLREDUCE 1000 0\n"
          "fc -1 5 NONE 0 6 NONE 0 7 ALLREDUCE 2000 3\n",
          "MICRO\n1\nmicro_test -1 1 NONE 0 1 NONE 0 1 ALLTOALL 4096 1\n",
          "HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 2 all_gpus: 8 pp_comm: 0.0\n1\n"
          "moe 7 1 ALLTOALL_EP 4096 2 ALLGATHER_EP 4096 3 ALLREDUCE_DP_EP 512 0\n"})
    {
        AicbWorkload w = Read(text);
        std::ostringstream out;
        WriteAicbWorkload(w, out);
        AicbWorkload again = Read(out.str());
        EXPECT_TRUE(w == again) << out.str();
        AicbRun run{w.allGpus == 0 ? 4u : 0u, 0, 2};
        ExpectSameGraph(Build(w, run), Build(again, run));
    }
}

TEST(AicbWorkload, ReadsTheCommittedAicbSamples)
{
    struct Sample
    {
        const char* file;
        uint32_t layers;
        uint32_t ranks;
    };

    for (const Sample& s : {Sample{"L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100.txt", 76, 8},
                            Sample{"L7B-D1-C02_Llama7B_deepspeed_zero3_A100.txt", 12, 8},
                            Sample{"all_reduce.txt", 19, 8}})
    {
        AicbWorkload w;
        std::string error;
        std::string path = std::string(TALB_SOURCE_DIR) + "/test/data/aicb/" + s.file;
        ASSERT_TRUE(ReadAicbWorkloadFile(path, &w, &error)) << error;
        EXPECT_EQ(w.layers.size(), s.layers) << s.file;
        EXPECT_EQ(w.allGpus, 0u) << "the older form gives no all_gpus";
        // The older form does not say the ranks: the job must.
        EXPECT_NE(BuildError(w, AicbRun{}).find("workers=N"), std::string::npos);
        Graph g = Build(w, AicbRun{s.ranks, 0, 1});
        EXPECT_EQ(g.nRanks, s.ranks);
    }
}

TEST(AicbWorkload, TakesTheFirstLayersOnly)
{
    Graph all = Build(Read(kSmall), AicbRun{0, 0, 1});
    Graph first = Build(Read(kSmall), AicbRun{0, 1, 1});
    for (const Node& n : first.ranks[0])
    {
        EXPECT_EQ(n.layer, 0u);
    }
    EXPECT_LT(first.ranks[0].size(), all.ranks[0].size());
    EXPECT_NE(BuildError(Read(kSmall), AicbRun{0, 4, 1}).find("layers=4 but the file has 3"),
              std::string::npos);
}

TEST(AicbWorkload, GroupsOfOneRankMoveNothing)
{
    // tp 1: the tensor-parallel collectives are no-ops (as in SimAI), data-parallel ones stay.
    Graph g = Build(Read("HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 "
                         "all_gpus: 4\n1\nl -1 1 ALLREDUCE 64 1 NONE 0 1 ALLGATHER 64 0\n"),
                    AicbRun{});
    uint32_t collectives = 0;
    for (const Node& n : g.ranks[0])
    {
        collectives += n.kind == NodeKind::kCollective;
    }
    EXPECT_EQ(collectives, 1u);
    ASSERT_EQ(g.groups.size(), 1u);
    EXPECT_EQ(g.groups[0].name, "dp0");
}

TEST(AicbWorkload, BadInputNamesTheFileLineAndWhatIsWrong)
{
    const std::string h = "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 2 "
                          "all_gpus: 8\n";
    const std::string good = "l -1 1 ALLREDUCE 64 1 NONE 0 1 NONE 0 0\n";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "w.txt:1: empty file"},
        {"\n  \n", "w.txt:2: empty file"},
        {"HYBRID_TRANSFORMERS model_parallel_NPU_group: 2\n1\n" + good,
         "w.txt:1: first word 'HYBRID_TRANSFORMERS'"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group:\n1\n" + good,
         "w.txt:1: 'model_parallel_NPU_group:' without a value"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 0\n1\n" + good,
         "w.txt:1: 'model_parallel_NPU_group: 0': not an integer in [1, 4294967295]"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 4294967296\n1\n" + good,
         "w.txt:1: 'model_parallel_NPU_group: 4294967296'"},
        {"HYBRID_TRANSFORMER tp: 2\n1\n" + good, "w.txt:1: unknown key 'tp:'"},
        {"HYBRID_TRANSFORMER_FWD_IN_BCKWD checkpoints: 1 3\n1\n" + good,
         "w.txt:1: 'checkpoints: 1': activation recomputation"},
        {"DATA parallel\n1\n" + good, "w.txt:1: 'parallel' after DATA"},
        {h, "w.txt:1: truncated: the file ends before the number"},
        {h + "0\n", "w.txt:2: '0': expected the number of layer lines alone"},
        {h + "2 3\n", "w.txt:2: '2 ...': expected the number of layer lines alone"},
        {h + "99999999\n", "w.txt:2: '99999999'"},
        {h + "2\n" + good, "w.txt:3: truncated: the file ends after 1 layer lines of the 2"},
        {h + "1\n" + good + good, "w.txt:4: more layer lines than the 1 announced"},
        {h + "1\nl -1 1 ALLREDUCE 64 1 NONE 0 1 NONE 0\n", "w.txt:3: 11 fields, a layer line"},
        {h + "1\nl x 1 ALLREDUCE 64 1 NONE 0 1 NONE 0 0\n", "w.txt:3: reserved 'x'"},
        {h + "1\nl -1 -1 ALLREDUCE 64 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward compute time '-1': not a time in ns"},
        {h + "1\nl -1 9223372036854775808 NONE 0 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward compute time '9223372036854775808'"},
        {h + "1\nl -1 9223372036854775807 NONE 0 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: the file's compute and update times add up to more than"},
        {h + "1\nl -1 1 ALLREDUCE 18446744073709551616 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward size '18446744073709551616': not a byte count"},
        {h + "2\n" + "l -1 1 ALLREDUCE 18446744073709551615 1 NONE 0 1 NONE 0 0\n" + good,
         "w.txt:4: forward size '64': the file's sizes add up to more than 2^64 - 1"},
        {h + "1\nl -1 1 ALLREDUCEALLTOALL 64 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward collective 'ALLREDUCEALLTOALL': unknown"},
        {h + "1\nl -1 1 ALLREDUCE_TP 64 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward collective 'ALLREDUCE_TP': unknown"},
        {h + "1\nl -1 1 NONE_EP 0 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward collective 'NONE_EP': unknown"},
        {h + "1\nl -1 1 NONE 64 1 NONE 0 1 NONE 0 0\n",
         "w.txt:3: forward size '64': a size for no collective"},
        {h + "1\nl -1 1 NONE 0 1 NONE 0 1 ALLGATHER 0 0\n",
         "w.txt:3: weight-gradient size '0': a collective of 0 bytes"},
        {h + "1\nl -1 1 NONE 0 1 NONE 0 1 NONE 0 x\n", "w.txt:3: update time 'x'"},
        {"DATA\n1\nl -1 1 NONE 0 1 ALLREDUCE 8 1 ALLREDUCE 8 0\n",
         "w.txt:3: DATA parallelism communicates weight gradients only"},
    };
    for (const auto& [text, message] : cases)
    {
        EXPECT_EQ(ReadError(text).rfind(message, 0), 0u)
            << "input:\n"
            << text << "\nmessage: " << ReadError(text);
    }
}

TEST(AicbWorkload, BuildRefusesWhatItCannotRun)
{
    const std::string layer = "1\nl -1 1 ALLREDUCE_EP 64 1 NONE 0 1 NONE 0 0\n";
    const std::vector<std::tuple<std::string, AicbRun, std::string>> cases = {
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 pp: 2 all_gpus: 8\n",
         {},
         "w.txt: pp: 2: pipeline parallelism is not modelled"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8\n",
         {4, 0, 1},
         "w.txt: 4 ranks asked for but the file's all_gpus is 8"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 3 all_gpus: 8\n",
         {},
         "w.txt: 8 ranks are not a multiple of model_parallel_NPU_group 3"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 ep: 3 all_gpus: 8\n", {}, "w.txt: "},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 8\n",
         {0, 0, 0},
         "w.txt: 0 iterations"},
        {"HYBRID_TRANSFORMER model_parallel_NPU_group: 2 all_gpus: 4000000000\n",
         {},
         "w.txt: 4000000000 ranks: more than the 65536 a workload job may have"},
    };
    for (const auto& [header, run, message] : cases)
    {
        std::string error = BuildError(Read(header + layer), run);
        EXPECT_EQ(error.rfind(message, 0), 0u) << error;
    }
    // Iterations that make a rank's time pass 64 bits.
    AicbWorkload big = Read("DATA\n1\nl -1 4611686018427387904 NONE 0 1 NONE 0 1 NONE 0 0\n");
    EXPECT_NE(BuildError(big, AicbRun{2, 0, 2}).find("2 iterations of 2 ranks"), std::string::npos);
    // A job whose bytes over all ranks pass 64 bits (found by fuzz:aicb): each rank's fit.
    AicbWorkload wide = Read("DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 4611686018427387904 0\n");
    EXPECT_NE(BuildError(wide, AicbRun{4, 0, 1}).find("the job's bytes, pass 64 bits"),
              std::string::npos);
    Build(wide, AicbRun{3, 0, 1});
}
