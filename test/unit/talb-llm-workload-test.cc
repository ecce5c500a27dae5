// The LLM workload generator's graphs: bytes per class against the analytic formulas, the 1F1B
// order, dependencies, validity, node counts, compute totals and generation time.
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-ideal-replay.h"
#include "ns3/talb-llm-analytic.h"
#include "ns3/talb-llm-routing.h"
#include "ns3/talb-llm-workload.h"

#include <algorithm>
#include <chrono>
#include <deque>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace talb::graph;

namespace
{

LlmJobConfig
Base(uint32_t tp, uint32_t pp, uint32_t dp)
{
    LlmJobConfig c;
    EXPECT_TRUE(LlmDevicePreset("h100-sxm", &c.device, nullptr));
    c.parallelism.tp = tp;
    c.parallelism.pp = pp;
    c.parallelism.dp = dp;
    c.globalBatch = 8 * dp; // 8 micro-batches
    c.bucketParams = 300000;
    c.iterations = 2;
    return c;
}

/// Llama-like: gated MLP, RMSNorm, grouped-query attention, untied embeddings.
LlmJobConfig
Dense(uint32_t tp, uint32_t pp, uint32_t dp)
{
    LlmJobConfig c = Base(tp, pp, dp);
    LlmModel& m = c.model;
    m.name = "tiny-llama";
    m.layers = 4;
    m.hidden = 512;
    m.ffnHidden = 1408;
    m.heads = 8;
    m.kvHeads = 4;
    m.seqLength = 256;
    m.vocab = 1000;
    m.gatedMlp = true;
    m.norm = LlmNorm::kRmsNorm;
    return c;
}

/// GPT-like: biases, LayerNorm, learned positions, tied embeddings.
LlmJobConfig
Gpt(uint32_t tp, uint32_t pp, uint32_t dp)
{
    LlmJobConfig c = Base(tp, pp, dp);
    LlmModel& m = c.model;
    m.name = "tiny-gpt";
    m.layers = 4;
    m.hidden = 256;
    m.ffnHidden = 1024;
    m.heads = 4;
    m.kvHeads = 4;
    m.seqLength = 128;
    m.vocab = 1000;
    m.linearBias = true;
    m.learnedPositions = true;
    m.tiedEmbeddings = true;
    return c;
}

/// Mixtral-like, MoE every second layer, skewed routing with a capacity factor.
LlmJobConfig
Moe(uint32_t tp, uint32_t pp, uint32_t dp, uint32_t ep)
{
    LlmJobConfig c = Dense(tp, pp, dp);
    LlmModel& m = c.model;
    m.name = "tiny-moe";
    m.experts = 8;
    m.topK = 2;
    m.moeFfnHidden = 512;
    m.moeLayerFreq = 2;
    m.routingSkew = 1.2;
    m.capacityFactor = 1.25;
    c.parallelism.ep = ep;
    return c;
}

Graph
Build(const LlmJobConfig& c)
{
    Graph g;
    std::string error;
    EXPECT_TRUE(BuildLlmGraph(c, &g, &error)) << error;
    return g;
}

std::string
Label(const Graph& g, const Node& n)
{
    return n.label == Node::kNone ? "" : g.labels[n.label];
}

/// \return per iteration and rank, the node bytes by class (receives left out)
std::vector<std::vector<LlmClassBytes>>
GraphBytes(const Graph& g)
{
    std::vector<std::vector<LlmClassBytes>> bytes(g.iterations,
                                                  std::vector<LlmClassBytes>(g.nRanks));
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        for (const Node& n : g.ranks[r])
        {
            if (n.kind == NodeKind::kCompute || n.kind == NodeKind::kRecv)
            {
                continue;
            }
            LlmClassBytes& b = bytes[n.iteration][r];
            uint64_t* field[] = {&b.tensor, &b.expert, &b.pipeline, &b.data};
            EXPECT_LT(static_cast<int>(n.cls), 4) << Label(g, n);
            *field[static_cast<int>(n.cls)] += n.bytes;
        }
    }
    return bytes;
}

/**
 * Runs \p g with zero-time operations and strict matching: a collective completes when every
 * member has reached its k-th operation on the group, a message when both its send and its
 * receive are ready (rendezvous). \return the nodes that never completed (0: no deadlock)
 */
uint64_t
Stuck(const Graph& g)
{
    using Ref = std::pair<uint32_t, uint32_t>;
    std::vector<std::vector<std::vector<uint32_t>>> succ(g.nRanks);
    std::vector<std::vector<uint32_t>> pending(g.nRanks), ordinal(g.nRanks);
    std::deque<Ref> ready;
    uint64_t total = 0;
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        const std::vector<Node>& nodes = g.ranks[r];
        succ[r].resize(nodes.size());
        pending[r].resize(nodes.size());
        ordinal[r].resize(nodes.size());
        std::map<uint32_t, uint32_t> count;
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            for (uint32_t d : nodes[i].deps)
            {
                succ[r][d].push_back(i);
            }
            pending[r][i] = nodes[i].deps.size();
            ordinal[r][i] = nodes[i].kind == NodeKind::kCollective ? count[nodes[i].group]++ : 0;
            if (pending[r][i] == 0)
            {
                ready.emplace_back(r, i);
            }
        }
        total += nodes.size();
    }
    std::map<std::pair<uint32_t, uint32_t>, std::vector<Ref>> arrived;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::vector<Ref>> messages;
    uint64_t done = 0;
    auto complete = [&](Ref x) {
        ++done;
        for (uint32_t s : succ[x.first][x.second])
        {
            if (--pending[x.first][s] == 0)
            {
                ready.emplace_back(x.first, s);
            }
        }
    };
    while (!ready.empty())
    {
        Ref x = ready.front();
        ready.pop_front();
        const Node& n = g.ranks[x.first][x.second];
        std::vector<Ref>* wait = nullptr;
        size_t needed = 1;
        if (n.kind == NodeKind::kCollective)
        {
            wait = &arrived[{n.group, ordinal[x.first][x.second]}];
            needed = g.groups[n.group].ranks.size();
        }
        else if (n.kind == NodeKind::kSend || n.kind == NodeKind::kRecv)
        {
            bool send = n.kind == NodeKind::kSend;
            wait = &messages[{send ? x.first : n.peer, send ? n.peer : x.first, n.tag}];
            needed = 2;
        }
        if (!wait)
        {
            complete(x);
            continue;
        }
        wait->push_back(x);
        if (wait->size() == needed)
        {
            for (Ref y : *wait)
            {
                complete(y);
            }
        }
    }
    return total - done;
}

/// Build, validate, run and compare with LlmAnalyticBytes, for every rank and iteration.
void
ExpectMatchesAnalytic(const LlmJobConfig& c, const std::string& what)
{
    SCOPED_TRACE(what);
    Graph g = Build(c);
    std::vector<std::string> problems = Validate(g, what);
    EXPECT_TRUE(problems.empty()) << problems.front();
    EXPECT_EQ(Stuck(g), 0u);
    std::vector<LlmClassBytes> analytic;
    std::string error;
    ASSERT_TRUE(LlmAnalyticBytes(c, &analytic, &error)) << error;
    std::vector<std::vector<LlmClassBytes>> bytes = GraphBytes(g);
    for (uint32_t it = 0; it < g.iterations; ++it)
    {
        for (uint32_t r = 0; r < g.nRanks; ++r)
        {
            EXPECT_EQ(bytes[it][r].tensor, analytic[r].tensor) << "rank " << r;
            EXPECT_EQ(bytes[it][r].expert, analytic[r].expert) << "rank " << r;
            EXPECT_EQ(bytes[it][r].pipeline, analytic[r].pipeline) << "rank " << r;
            EXPECT_EQ(bytes[it][r].data, analytic[r].data) << "rank " << r;
        }
    }
}

std::string
Shape(const LlmJobConfig& c)
{
    std::ostringstream os;
    os << c.model.name << " tp" << c.parallelism.tp << " pp" << c.parallelism.pp << " dp"
       << c.parallelism.dp << " ep" << c.parallelism.ep << (c.sequenceParallel ? " sp" : "")
       << (c.distributedOptimizer ? " distopt" : "") << (c.zero3 ? " zero3" : "");
    return os.str();
}

} // namespace

TEST(TalbLlmWorkload, DenseBytesMatchTheFormulas)
{
    const uint32_t shapes[][3] = {{1, 1, 4}, {2, 2, 2}, {4, 2, 1}, {2, 1, 3}, {1, 4, 2}};
    for (auto [tp, pp, dp] : shapes)
    {
        for (int options = 0; options < 4; ++options)
        {
            LlmJobConfig c = Dense(tp, pp, dp);
            c.sequenceParallel = options & 1;
            c.distributedOptimizer = options & 2;
            ExpectMatchesAnalytic(c, Shape(c));
        }
        LlmJobConfig z = Dense(tp, pp, dp);
        z.distributedOptimizer = false;
        z.zero3 = true;
        ExpectMatchesAnalytic(z, Shape(z));
    }
}

TEST(TalbLlmWorkload, GptBytesMatchTheFormulas)
{
    // Tied embeddings: their gradient all-reduce between the end stages when pp > 1.
    for (auto [tp, pp, dp] : {std::make_tuple(2u, 2u, 2u), std::make_tuple(2u, 1u, 2u)})
    {
        for (bool sp : {false, true})
        {
            LlmJobConfig c = Gpt(tp, pp, dp);
            c.sequenceParallel = sp;
            ExpectMatchesAnalytic(c, Shape(c));
            c.distributedOptimizer = false;
            ExpectMatchesAnalytic(c, Shape(c));
        }
    }
    LlmJobConfig z = Gpt(2, 1, 4);
    z.distributedOptimizer = false;
    z.zero3 = true;
    ExpectMatchesAnalytic(z, Shape(z));
}

TEST(TalbLlmWorkload, MoeBytesMatchTheFormulas)
{
    const uint32_t shapes[][4] = {{2, 2, 4, 2},
                                  {1, 1, 4, 4},
                                  {2, 1, 4, 4},
                                  {1, 2, 2, 2},
                                  {2, 2, 2, 1}};
    for (auto [tp, pp, dp, ep] : shapes)
    {
        LlmJobConfig c = Moe(tp, pp, dp, ep);
        ExpectMatchesAnalytic(c, Shape(c));
        c.distributedOptimizer = false;
        ExpectMatchesAnalytic(c, Shape(c));
        c.zero3 = true;
        ExpectMatchesAnalytic(c, Shape(c));
    }
    LlmJobConfig padded = Moe(2, 1, 4, 4);
    padded.moePadToCapacity = true;
    ExpectMatchesAnalytic(padded, "pad to capacity");
    LlmJobConfig dropless = Moe(2, 1, 4, 4);
    dropless.model.capacityFactor = 0;
    dropless.model.routingSkew = 3;
    ExpectMatchesAnalytic(dropless, "dropless, skew 3");
}

TEST(TalbLlmWorkload, AllToAllSplitsFollowTheRouting)
{
    LlmJobConfig c = Moe(1, 1, 4, 4);
    c.model.capacityFactor = 0;
    c.model.routingSkew = 2;
    Graph g = Build(c);
    // Rank r owns experts 2r, 2r + 1; its dispatch sends each owner what it routes there, and
    // its combine returns to each source what that source sent it.
    std::vector<uint64_t> sent = LlmExpertTokens(c.model, 256, 1, c.seed, false);
    uint64_t token = 512 * 2;
    for (uint32_t r = 0; r < 4; ++r)
    {
        for (const Node& n : g.ranks[r])
        {
            if (n.iteration != 0 || n.microbatch != 0 || n.coll != CollType::kAllToAll ||
                n.kind != NodeKind::kCollective || n.layer != 1)
            {
                continue;
            }
            const std::vector<uint64_t>& split = g.peerBytes.at(n.peerBytes);
            std::string label = Label(g, n);
            for (uint32_t p = 0; p < 4; ++p)
            {
                uint64_t expect =
                    label == "L1.moe.a2a_dispatch" || label == "L1.moe.bwd.a2a_combine"
                        ? (sent[2 * p] + sent[2 * p + 1]) * token
                        : (sent[2 * r] + sent[2 * r + 1]) * token;
                EXPECT_EQ(split[p], expect) << label << " rank " << r << " to " << p;
            }
        }
    }
}

// Megatron's 1F1B with pp = 4 and 8 micro-batches: stage s runs 3 - s warm-up forwards.
TEST(TalbLlmWorkload, OneForwardOneBackwardOrder)
{
    LlmJobConfig c = Dense(1, 4, 1);
    c.iterations = 1;
    Graph g = Build(c);
    const char* expected[] = {
        "F0 F1 F2 F3 B0 F4 B1 F5 B2 F6 B3 F7 B4 B5 B6 B7",
        "F0 F1 F2 B0 F3 B1 F4 B2 F5 B3 F6 B4 F7 B5 B6 B7",
        "F0 F1 B0 F2 B1 F3 B2 F4 B3 F5 B4 F6 B5 F7 B6 B7",
        "F0 B0 F1 B1 F2 B2 F3 B3 F4 B4 F5 B5 F6 B6 F7 B7",
    };
    for (uint32_t stage = 0; stage < 4; ++stage)
    {
        std::string layer = "L" + std::to_string(stage + 1) + ".attn.";
        std::string order;
        uint32_t lastCompute = Node::kNone;
        const std::vector<Node>& nodes = g.ranks[stage];
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            if (nodes[i].kind != NodeKind::kCompute)
            {
                continue;
            }
            if (lastCompute != Node::kNone) // one compute stream, in schedule order
            {
                EXPECT_NE(std::find(nodes[i].deps.begin(), nodes[i].deps.end(), lastCompute),
                          nodes[i].deps.end());
            }
            lastCompute = i;
            std::string label = Label(g, nodes[i]);
            if (label == layer + "fwd" || label == layer + "dgrad")
            {
                order += std::string(order.empty() ? "" : " ") +
                         (label == layer + "fwd" ? "F" : "B") + std::to_string(nodes[i].microbatch);
            }
        }
        EXPECT_EQ(order, expected[stage]) << "stage " << stage;
    }
}

namespace
{

/// \return whether node \p to of \p nodes is reachable backwards from \p from through deps
bool
DependsOn(const std::vector<Node>& nodes, uint32_t from, uint32_t to)
{
    std::vector<bool> seen(nodes.size(), false);
    std::vector<uint32_t> stack{from};
    while (!stack.empty())
    {
        uint32_t i = stack.back();
        stack.pop_back();
        if (i == to)
        {
            return true;
        }
        for (uint32_t d : nodes[i].deps)
        {
            if (!seen[d])
            {
                seen[d] = true;
                stack.push_back(d);
            }
        }
    }
    return false;
}

/// \return the index of the node of (label, iteration, micro-batch), or kNone
uint32_t
Find(const Graph& g, uint32_t rank, const std::string& label, uint32_t it, uint32_t mb)
{
    const std::vector<Node>& nodes = g.ranks[rank];
    for (uint32_t i = 0; i < nodes.size(); ++i)
    {
        if (Label(g, nodes[i]) == label && nodes[i].iteration == it && nodes[i].microbatch == mb)
        {
            return i;
        }
    }
    return Node::kNone;
}

} // namespace

TEST(TalbLlmWorkload, NoComputeBeforeItsInputs)
{
    LlmJobConfig c = Moe(2, 2, 4, 2); // layers 1, 2 on stage 0 (1 MoE), 3, 4 on stage 1
    Graph g = Build(c);
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        for (uint32_t i = 0; i < g.ranks[r].size(); ++i)
        {
            for (uint32_t d : g.ranks[r][i].deps)
            {
                ASSERT_LT(d, i) << "rank " << r; // emitted in a valid order
            }
        }
    }
    // Rank 2 (tp 0, dp 1, stage 0) and rank 10 (its next stage).
    uint32_t first = 2, second = 10;
    for (uint32_t mb = 0; mb < 8; ++mb)
    {
        const std::vector<Node>& a = g.ranks[first];
        const std::vector<Node>& b = g.ranks[second];
        uint32_t recv = Find(g, second, "pp.fwd.recv", 0, mb);
        ASSERT_NE(recv, Node::kNone);
        EXPECT_TRUE(DependsOn(b, Find(g, second, "L3.attn.fwd", 0, mb), recv));
        EXPECT_TRUE(DependsOn(b,
                              Find(g, second, "L3.moe.router", 0, mb),
                              Find(g, second, "L3.attn.tp_rs", 0, mb)));
        EXPECT_TRUE(DependsOn(b,
                              Find(g, second, "L3.moe.experts", 0, mb),
                              Find(g, second, "L3.moe.a2a_dispatch", 0, mb)));
        EXPECT_TRUE(DependsOn(b,
                              Find(g, second, "out.fwd", 0, mb),
                              Find(g, second, "L4.mlp.tp_rs", 0, mb)));
        uint32_t grad = Find(g, first, "pp.bwd.recv", 0, mb);
        EXPECT_TRUE(DependsOn(a, Find(g, first, "L2.mlp.dgrad", 0, mb), grad));
        EXPECT_TRUE(DependsOn(a,
                              Find(g, first, "L1.attn.dgrad", 0, mb),
                              Find(g, first, "L1.moe.bwd.a2a_dispatch", 0, mb)));
        EXPECT_TRUE(DependsOn(a,
                              Find(g, first, "L1.attn.dgrad", 0, mb),
                              Find(g, first, "L1.attn.fwd", 0, mb)));
    }
    // The next iteration starts after the optimizer step, on parameters all-gathered after it.
    for (uint32_t r : {first, second})
    {
        const std::vector<Node>& n = g.ranks[r];
        uint32_t step = Find(g, r, "optim.step", 0, 0);
        ASSERT_NE(step, Node::kNone);
        std::string layer = r == first ? "L1" : "L3";
        uint32_t next = Find(g, r, layer + ".attn.fwd", 1, 0);
        EXPECT_TRUE(DependsOn(n, next, step));
        bool gathered = false;
        for (uint32_t d : n[next].deps)
        {
            gathered |= Label(g, n[d]).rfind("dp.param_ag.b", 0) == 0 && n[d].iteration == 0;
        }
        EXPECT_TRUE(gathered) << layer;
        // The gradients synchronised before the step: every bucket's reduce-scatter.
        for (uint32_t i = 0; i < step; ++i)
        {
            std::string label = Label(g, n[i]);
            if (label.find(".grad_rs.b") != std::string::npos)
            {
                EXPECT_TRUE(DependsOn(n, step, i)) << label;
                EXPECT_EQ(n[i].microbatch, 7u) << label; // the last micro-batch's backward
            }
        }
    }
}

TEST(TalbLlmWorkload, NodeCountsAndGroups)
{
    LlmJobConfig c = Dense(2, 2, 2);
    c.globalBatch = 8; // 4 micro-batches
    c.bucketParams = 0;
    Graph g = Build(c);
    ASSERT_EQ(g.nRanks, 8u);
    ASSERT_EQ(g.groups.size(), 8u);
    EXPECT_EQ(g.groups[0].name, "tp0");
    EXPECT_EQ(g.groups[0].ranks, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(g.groups[4].name, "dp0");
    EXPECT_EQ(g.groups[4].ranks, (std::vector<uint32_t>{0, 2}));
    EXPECT_EQ(g.groups[7].ranks, (std::vector<uint32_t>{5, 7}));
    // Per micro-batch, stage 0: 5 forward and 9 backward computes (the embedding's two
    // included), 9 + 13 collectives; stage 1: 5 + 10 computes, 12 + 14 collectives. Per
    // iteration: the SP gradient all-reduce, one bucket's reduce-scatter and all-gather, the step.
    const uint32_t compute[2] = {4 * 14 + 1, 4 * 15 + 1};
    const uint32_t collective[2] = {4 * 22 + 3, 4 * 26 + 3};
    for (uint32_t r = 0; r < 8; ++r)
    {
        std::map<NodeKind, uint32_t> count;
        for (const Node& n : g.ranks[r])
        {
            ++count[n.kind];
        }
        uint32_t stage = r / 4;
        EXPECT_EQ(count[NodeKind::kCompute], 2 * compute[stage]) << r;
        EXPECT_EQ(count[NodeKind::kCollective], 2 * collective[stage]) << r;
        EXPECT_EQ(count[NodeKind::kSend], 8u) << r;
        EXPECT_EQ(count[NodeKind::kRecv], 8u) << r;
    }
}

TEST(TalbLlmWorkload, CommunicationNodesAreLabelledByRule)
{
    LlmJobConfig c = Moe(2, 2, 4, 2);
    Graph g = Build(c);
    std::map<std::string, std::set<uint32_t>> tensors;
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        for (const Node& n : g.ranks[r])
        {
            if (n.kind == NodeKind::kCompute)
            {
                continue;
            }
            EXPECT_EQ(n.priority, kPriorityByRule);
            EXPECT_LT(n.tensor, 1u << 24);
            EXPECT_NE(n.label, Node::kNone);
            if (n.kind == NodeKind::kCollective)
            {
                EXPECT_EQ(n.cls, g.groups[n.group].cls) << Label(g, n);
                tensors[Label(g, n)].insert(n.tensor);
            }
        }
    }
    for (const auto& [label, ids] : tensors)
    {
        EXPECT_EQ(ids.size(), 1u) << label; // one operation, one tensor id
    }
    EXPECT_EQ(tensors.count("L1.moe.a2a_dispatch"), 1u);
    EXPECT_EQ(tensors.count("L3.attn.tp_rs"), 1u);
    EXPECT_EQ(tensors.count("dp.grad_rs.b0"), 1u);
    EXPECT_EQ(tensors.count("edp.param_ag.b0"), 1u);
    EXPECT_EQ(tensors.count("sp.grad_ar"), 1u);
    std::set<std::string> names;
    for (const Group& group : g.groups)
    {
        names.insert(group.name);
    }
    for (const char* name : {"tp0", "tp7", "dp0", "dp3", "ep0", "ep7", "edp0", "edp7"})
    {
        EXPECT_EQ(names.count(name), 1u) << name;
    }
}

// Every rank's compute adds up to 3 x the forward FLOPs of every token (no drops), at the
// device rate: the graph spends exactly the model's FLOPs.
TEST(TalbLlmWorkload, ComputeAddsUpToTheModelsFlops)
{
    LlmJobConfig moe = Moe(2, 2, 4, 2);
    moe.model.capacityFactor = 0;
    for (const LlmJobConfig& c : {Dense(2, 2, 2), moe})
    {
        Graph g = Build(c);
        LlmJobShape s;
        ASSERT_TRUE(MakeLlmJobShape(c, &s, nullptr));
        double ns = 0;
        uint64_t nodes = 0;
        for (uint32_t r = 0; r < g.nRanks; ++r)
        {
            for (const Node& n : g.ranks[r])
            {
                if (n.kind == NodeKind::kCompute && n.iteration == 0 && Label(g, n) != "optim.step")
                {
                    ns += n.durationNs;
                    ++nodes;
                }
            }
        }
        LlmFlops f = LlmForwardFlopsPerToken(c.model, s.paddedVocab);
        double expect = 3.0 * f.Total() * c.globalBatch * c.model.seqLength /
                        (c.device.bf16Flops * c.mfu) * 1e9;
        EXPECT_NEAR(ns, expect, double(nodes)) << c.model.name;
    }
}

// The graph runs under the engine's rules (IdealReplay: streams, rendezvous, shared links) on
// servers of 8 GPUs with 400 Gb/s NICs, and an iteration takes at least its busiest rank's
// compute.
TEST(TalbLlmWorkload, ReplaysOnAnIdealFabric)
{
    LlmJobConfig zero = Dense(2, 1, 4);
    zero.distributedOptimizer = false;
    zero.zero3 = true;
    for (const LlmJobConfig& c : {Moe(2, 2, 4, 2), Dense(2, 2, 2), Gpt(2, 2, 2), zero})
    {
        SCOPED_TRACE(Shape(c));
        Graph g = Build(c);
        IdealReplay::Fabric fabric;
        for (uint32_t r = 0; r < g.nRanks; ++r)
        {
            fabric.serverOf.push_back(r / 8);
        }
        fabric.rates = {400e9, 7.2e12};
        IdealReplay::Result result = IdealReplay::Run(g, fabric);
        ASSERT_EQ(result.error, "");
        for (uint32_t it = 0; it < g.iterations; ++it)
        {
            double busiest = 0;
            for (uint32_t r = 0; r < g.nRanks; ++r)
            {
                double compute = 0;
                for (const Node& n : g.ranks[r])
                {
                    compute += n.kind == NodeKind::kCompute && n.iteration == it ? n.durationNs : 0;
                }
                busiest = std::max(busiest, compute);
            }
            EXPECT_GE(result.iterationNs[it], busiest) << it;
        }
    }
}

TEST(TalbLlmWorkload, InvalidJobLeavesTheGraphAlone)
{
    LlmJobConfig c = Dense(3, 1, 1);
    Graph g;
    g.nRanks = 77;
    std::string error;
    EXPECT_FALSE(BuildLlmGraph(c, &g, &error));
    EXPECT_NE(error.find("'heads'"), std::string::npos) << error;
    EXPECT_EQ(g.nRanks, 77u);
    std::vector<LlmClassBytes> bytes;
    EXPECT_FALSE(LlmAnalyticBytes(c, &bytes, &error));
}

// A 128-rank Llama-3-8B-shaped job cut to 4 layers: tp 8, pp 2, dp 8, 8 micro-batches.
TEST(TalbLlmWorkload, GeneratesA128RankJobQuickly)
{
    LlmJobConfig c;
    ASSERT_TRUE(LlmModelPreset("llama3-8b", &c.model, nullptr));
    ASSERT_TRUE(LlmDevicePreset("h100-sxm", &c.device, nullptr));
    c.model.layers = 4;
    c.parallelism.tp = 8;
    c.parallelism.pp = 2;
    c.parallelism.dp = 8;
    c.globalBatch = 64;
    auto start = std::chrono::steady_clock::now();
    Graph g = Build(c);
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_EQ(g.nRanks, 128u);
    EXPECT_EQ(g.ranks[0].size(), 310u); // 8 x 38 per micro-batch, 2 buckets, SP all-reduce, step
    EXPECT_LT(seconds, 1.0);
    EXPECT_TRUE(Validate(g, "llama").empty());
}
