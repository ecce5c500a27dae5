#include "talb-llm-workload.h"

#include "talb-llm-workload-plan.h"

#include <algorithm>
#include <cmath>

namespace talb
{
namespace graph
{

namespace
{

using namespace llm;

/// A forward block's and its backward's operations, for attention and the dense MLP alike.
struct BlockOps
{
    LlmBlock block;
    Work fwd, dgrad, wgrad;
    Op ag, rs, ar, bwdAg, bwdAgWgrad, bwdRs, bwdAr;
};

const BlockOps kAttention = {LlmBlock::kAttention,
                             kAttnFwd,
                             kAttnDgrad,
                             kAttnWgrad,
                             kAttnTpAg,
                             kAttnTpRs,
                             kAttnTpAr,
                             kAttnBwdTpAg,
                             kAttnBwdTpAgWgrad,
                             kAttnBwdTpRs,
                             kAttnBwdTpAr};
const BlockOps kMlp = {LlmBlock::kMlp,
                       kMlpFwd,
                       kMlpDgrad,
                       kMlpWgrad,
                       kMlpTpAg,
                       kMlpTpRs,
                       kMlpTpAr,
                       kMlpBwdTpAg,
                       kMlpBwdTpAgWgrad,
                       kMlpBwdTpRs,
                       kMlpBwdTpAr};

/// One rank's nodes, emitted in schedule order: every dependency points to an earlier node.
class RankBuilder
{
  public:
    RankBuilder(Plan& x, uint32_t rank);
    void Run();

  private:
    uint32_t Emit(Node node, const std::vector<uint32_t>& deps);
    uint32_t Compute(uint32_t layer, Work work, uint64_t ns, std::vector<uint32_t> deps);
    uint32_t Coll(uint32_t layer,
                  Op op,
                  CollType type,
                  uint32_t group,
                  uint64_t bytes,
                  const std::vector<uint32_t>& deps,
                  uint32_t split = kNone);
    uint32_t CollNode(Node n, uint32_t group, const std::vector<uint32_t>& deps);
    uint32_t Tp(uint32_t layer, Op op, CollType type, uint64_t bytes, uint32_t dep);
    uint32_t P2p(bool send, bool backward);
    std::vector<uint32_t> ParamDeps(uint32_t layer, LlmBlock block, bool forward) const;

    void Forward();
    void Backward();
    uint32_t BlockForward(uint32_t layer, const BlockOps& ops, const Times& t);
    uint32_t BlockBackward(uint32_t layer, const BlockOps& ops, const Times& t);
    uint32_t MoeForward(uint32_t layer);
    uint32_t MoeBackward(uint32_t layer);
    void EmbeddingForward();
    void EmbeddingBackward();
    void OutputForward();
    void OutputBackward();
    void ZeroGather(uint32_t layer, bool backward);
    void ZeroReduce(uint32_t layer, bool expert, uint32_t dep);
    void GradReady(uint32_t layer, LlmBlock block, uint32_t node);
    void OptimizerStep();

    Plan& x;
    uint32_t m_rank;
    uint32_t m_stage;
    const StagePlan& m_plan;
    std::vector<Node>& m_nodes;
    uint32_t m_it{0};
    uint32_t m_mb{0};
    uint32_t m_lastCompute{kNone}; //!< the compute stream's last node
    uint32_t m_data{kNone};        //!< the node producing the activation (or gradient) flowing
    uint32_t m_anchor{kNone};      //!< ZeRO-3 prefetch: the previous unit's first compute
    uint32_t m_unitAg{kNone};      //!< ZeRO-3: the current layer's dense parameter all-gather
    uint32_t m_expertAg{kNone};    //!< ZeRO-3: its expert parameter all-gather
    std::vector<uint32_t> m_lastOnGroup; //!< per group: this rank's last collective on it
    std::vector<uint32_t> m_loss;        //!< last stage: per micro-batch, the loss node
    std::vector<uint32_t> m_paramAg[2];  //!< distributed optimizer: per bucket, last gather
    std::vector<uint32_t> m_sync;        //!< this iteration's gradient synchronisation
};

RankBuilder::RankBuilder(Plan& x, uint32_t rank)
    : x(x),
      m_rank(rank),
      m_stage(x.s.Stage(rank)),
      m_plan(x.stages[m_stage]),
      m_nodes(x.g->ranks[rank]),
      m_lastOnGroup(x.g->groups.size(), kNone),
      m_loss(x.s.microBatches, kNone)
{
    for (int e = 0; e < 2; ++e)
    {
        m_paramAg[e].assign(m_plan.buckets[e].size(), kNone);
    }
}

uint32_t
RankBuilder::Emit(Node node, const std::vector<uint32_t>& deps)
{
    node.iteration = m_it;
    node.microbatch = m_mb;
    for (uint32_t d : deps)
    {
        if (d != kNone && std::find(node.deps.begin(), node.deps.end(), d) == node.deps.end())
        {
            node.deps.push_back(d);
        }
    }
    m_nodes.push_back(std::move(node));
    return static_cast<uint32_t>(m_nodes.size() - 1);
}

uint32_t
RankBuilder::Compute(uint32_t layer, Work work, uint64_t ns, std::vector<uint32_t> deps)
{
    Node n;
    n.kind = NodeKind::kCompute;
    n.layer = layer;
    n.durationNs = ns;
    n.label = x.Label(layer, kOpCount + work);
    deps.push_back(m_lastCompute); // one compute stream, in schedule order
    m_lastCompute = Emit(std::move(n), deps);
    return m_lastCompute;
}

uint32_t
RankBuilder::Coll(uint32_t layer,
                  Op op,
                  CollType type,
                  uint32_t group,
                  uint64_t bytes,
                  const std::vector<uint32_t>& deps,
                  uint32_t split)
{
    Node n;
    n.coll = type;
    n.layer = layer;
    n.tensor = layer * kOpCount + op;
    n.bytes = bytes;
    n.peerBytes = split;
    n.label = x.Label(layer, op);
    return CollNode(std::move(n), group, deps);
}

uint32_t
RankBuilder::CollNode(Node n, uint32_t group, const std::vector<uint32_t>& deps)
{
    if (group == kNone)
    {
        return kNone; // a group of one rank moves nothing
    }
    n.kind = NodeKind::kCollective;
    n.cls = x.g->groups[group].cls;
    n.group = group;
    std::vector<uint32_t> all = deps;
    all.push_back(m_lastOnGroup[group]); // a communicator runs its operations in issue order
    m_lastOnGroup[group] = Emit(std::move(n), all);
    return m_lastOnGroup[group];
}

uint32_t
RankBuilder::Tp(uint32_t layer, Op op, CollType type, uint64_t bytes, uint32_t dep)
{
    return Coll(layer, op, type, x.tpGroup[m_rank], bytes, {dep});
}

/// A pipeline message of the current micro-batch: forward activations to the next stage, or
/// their gradients to the previous one. A receive is posted at its place in the schedule.
uint32_t
RankBuilder::P2p(bool send, bool backward)
{
    uint32_t lps = x.s.layersPerStage;
    // The sending stage's boundary layer names both ends.
    uint32_t sender = send ? m_stage : (backward ? m_stage + 1 : m_stage - 1);
    Node n;
    n.kind = send ? NodeKind::kSend : NodeKind::kRecv;
    n.cls = CommClass::kPipeline;
    n.peer = send == backward ? x.prevStage[m_rank] : x.nextStage[m_rank];
    n.tag = (m_it * x.s.microBatches + m_mb) * 2 + (backward ? 1 : 0);
    n.layer = backward ? sender * lps + 1 : (sender + 1) * lps;
    n.tensor = n.layer * kOpCount + (backward ? kPpBwd : kPpFwd);
    n.bytes =
        x.ActivationBytes() / (x.c.sequenceParallel ? x.c.parallelism.tp : 1); // sharded with SP
    std::string name = std::string("pp.") + (backward ? "bwd." : "fwd.") + (send ? "send" : "recv");
    n.label = x.g->Label(name);
    return Emit(std::move(n), {send ? m_data : m_lastCompute});
}

std::vector<uint32_t>
RankBuilder::ParamDeps(uint32_t layer, LlmBlock block, bool forward) const
{
    if (x.c.zero3)
    {
        if (layer == 0 && !forward)
        {
            return {}; // the embedding's backward only scatters gradients
        }
        return {block == LlmBlock::kExperts ? m_expertAg : m_unitAg};
    }
    std::vector<uint32_t> deps;
    auto it = m_plan.reads.find(Plan::Key(layer, block));
    if (forward && m_mb == 0 && it != m_plan.reads.end())
    {
        for (auto [expert, b] : it->second)
        {
            deps.push_back(m_paramAg[expert][b]); // kNone in the first iteration
        }
    }
    return deps;
}

void
RankBuilder::Run()
{
    uint32_t m = x.s.microBatches;
    // Megatron-LM's 1F1B: pp - stage - 1 warm-up forwards, then one forward and one backward
    // each, then the remaining backwards.
    uint32_t warmup = std::min(x.c.parallelism.pp - m_stage - 1, m);
    for (m_it = 0; m_it < x.c.iterations; ++m_it)
    {
        for (m_mb = 0; m_mb < warmup; ++m_mb)
        {
            Forward();
        }
        for (uint32_t i = 0; i < m - warmup; ++i)
        {
            m_mb = warmup + i;
            Forward();
            m_mb = i;
            Backward();
        }
        for (m_mb = m - warmup; m_mb < m; ++m_mb)
        {
            Backward();
        }
        m_mb = 0;
        OptimizerStep();
    }
}

void
RankBuilder::Forward()
{
    uint32_t first = m_stage * x.s.layersPerStage + 1;
    m_anchor = m_lastCompute;
    if (m_stage > 0)
    {
        m_data = P2p(false, false);
    }
    else
    {
        EmbeddingForward();
    }
    for (uint32_t l = first; l < first + x.s.layersPerStage; ++l)
    {
        if (x.c.zero3)
        {
            ZeroGather(l, false);
        }
        uint32_t c = BlockForward(l, kAttention, x.attention);
        if (x.s.IsMoe(x.c, l))
        {
            MoeForward(l);
        }
        else
        {
            BlockForward(l, kMlp, x.mlp);
        }
        m_anchor = c;
    }
    if (m_stage + 1 == x.c.parallelism.pp)
    {
        OutputForward();
        m_loss[m_mb] = m_data;
    }
    else
    {
        P2p(true, false);
    }
}

void
RankBuilder::Backward()
{
    uint32_t first = m_stage * x.s.layersPerStage + 1;
    m_anchor = m_lastCompute;
    if (m_stage + 1 == x.c.parallelism.pp)
    {
        m_data = m_loss[m_mb];
        OutputBackward();
    }
    else
    {
        m_data = P2p(false, true);
    }
    for (uint32_t l = first + x.s.layersPerStage; l-- > first;)
    {
        if (x.c.zero3)
        {
            ZeroGather(l, true);
        }
        uint32_t d = x.s.IsMoe(x.c, l) ? MoeBackward(l) : BlockBackward(l, kMlp, x.mlp);
        BlockBackward(l, kAttention, x.attention);
        if (x.c.zero3)
        {
            ZeroReduce(l, false, m_lastCompute); // attention's wgrad: the layer's last gradient
        }
        m_anchor = d;
    }
    if (m_stage == 0)
    {
        EmbeddingBackward();
    }
    else
    {
        P2p(true, true);
    }
}

/// Attention or a dense MLP: with sequence parallelism an all-gather before and a
/// reduce-scatter after, without it an all-reduce after (Megatron's g and g-bar).
uint32_t
RankBuilder::BlockForward(uint32_t layer, const BlockOps& ops, const Times& t)
{
    bool sp = x.c.sequenceParallel;
    uint64_t bytes = x.ActivationBytes();
    uint32_t in = m_data;
    uint32_t ag = sp ? Tp(layer, ops.ag, CollType::kAllGather, bytes, m_data) : kNone;
    in = ag != kNone ? ag : in;
    std::vector<uint32_t> deps = ParamDeps(layer, ops.block, true);
    deps.push_back(in);
    uint32_t c = Compute(layer, ops.fwd, t.fwd, deps);
    uint32_t out = Tp(layer,
                      sp ? ops.rs : ops.ar,
                      sp ? CollType::kReduceScatter : CollType::kAllReduce,
                      bytes,
                      c);
    m_data = out != kNone ? out : c;
    return c;
}

/// The mirror image: the output gradient all-gathered (SP), the data gradient, its
/// reduce-scatter or all-reduce overlapping the weight gradient, which with SP needs the
/// block's input all-gathered again (Megatron keeps only the sequence shard).
uint32_t
RankBuilder::BlockBackward(uint32_t layer, const BlockOps& ops, const Times& t)
{
    bool sp = x.c.sequenceParallel;
    uint64_t bytes = x.ActivationBytes();
    uint32_t in = m_data;
    uint32_t again = kNone;
    uint32_t ag = sp ? Tp(layer, ops.bwdAg, CollType::kAllGather, bytes, m_data) : kNone;
    if (ag != kNone)
    {
        in = ag;
        again = Tp(layer, ops.bwdAgWgrad, CollType::kAllGather, bytes, ag);
    }
    std::vector<uint32_t> deps = ParamDeps(layer, ops.block, false);
    deps.push_back(in);
    uint32_t d = Compute(layer, ops.dgrad, t.dgrad, deps);
    uint32_t out = Tp(layer,
                      sp ? ops.bwdRs : ops.bwdAr,
                      sp ? CollType::kReduceScatter : CollType::kAllReduce,
                      bytes,
                      d);
    deps = ParamDeps(layer, ops.block, false);
    deps.push_back(again);
    uint32_t w = Compute(layer, ops.wgrad, t.wgrad, deps);
    m_data = out != kNone ? out : d;
    GradReady(layer, ops.block, w);
    return d;
}

/// Router, dispatch all-to-all over the expert group, the tokens all-gathered over the tensor
/// group (the experts are tensor-sharded), the experts, reduce-scatter, combine all-to-all.
uint32_t
RankBuilder::MoeForward(uint32_t layer)
{
    uint32_t pos = x.epPosition[m_rank];
    uint64_t gathered = uint64_t(x.c.parallelism.tp) * x.received[layer][pos] * x.c.model.hidden *
                        x.c.activationBytes;
    std::vector<uint32_t> deps = ParamDeps(layer, LlmBlock::kMlp, true);
    for (uint32_t d : ParamDeps(layer, LlmBlock::kRouter, true))
    {
        deps.push_back(d);
    }
    deps.push_back(m_data);
    uint32_t r = Compute(layer, kRouterFwd, x.router.fwd, deps);
    uint32_t in = Coll(layer,
                       kMoeDispatch,
                       CollType::kAllToAll,
                       x.epGroup[m_rank],
                       x.dispatchBytes[layer],
                       {r},
                       x.dispatchSplit[layer]);
    in = in != kNone ? in : r;
    uint32_t ag = Tp(layer, kMoeTpAg, CollType::kAllGather, gathered, in);
    deps = ParamDeps(layer, LlmBlock::kExperts, true);
    deps.push_back(ag != kNone ? ag : in);
    uint32_t c = Compute(layer, kExpertsFwd, x.experts[layer][pos].fwd, deps);
    uint32_t rs = Tp(layer, kMoeTpRs, CollType::kReduceScatter, gathered, c);
    uint32_t out = rs != kNone ? rs : c;
    uint32_t comb = Coll(layer,
                         kMoeCombine,
                         CollType::kAllToAll,
                         x.epGroup[m_rank],
                         x.combineBytes[layer][pos],
                         {out},
                         x.combineSplit[layer][pos]);
    m_data = comb != kNone ? comb : out;
    return r;
}

/// The mirror image: the combine's gradient goes back as the dispatch went, the dispatch's
/// as the combine came.
uint32_t
RankBuilder::MoeBackward(uint32_t layer)
{
    uint32_t pos = x.epPosition[m_rank];
    uint64_t gathered = uint64_t(x.c.parallelism.tp) * x.received[layer][pos] * x.c.model.hidden *
                        x.c.activationBytes;
    uint32_t in = Coll(layer,
                       kMoeBwdCombine,
                       CollType::kAllToAll,
                       x.epGroup[m_rank],
                       x.dispatchBytes[layer],
                       {m_data},
                       x.dispatchSplit[layer]);
    in = in != kNone ? in : m_data;
    uint32_t ag = Tp(layer, kMoeBwdTpAg, CollType::kAllGather, gathered, in);
    std::vector<uint32_t> deps = ParamDeps(layer, LlmBlock::kExperts, false);
    deps.push_back(ag != kNone ? ag : in);
    uint32_t d = Compute(layer, kExpertsDgrad, x.experts[layer][pos].dgrad, deps);
    uint32_t rs = Tp(layer, kMoeBwdTpRs, CollType::kReduceScatter, gathered, d);
    uint32_t out = rs != kNone ? rs : d;
    uint32_t disp = Coll(layer,
                         kMoeBwdDispatch,
                         CollType::kAllToAll,
                         x.epGroup[m_rank],
                         x.combineBytes[layer][pos],
                         {out},
                         x.combineSplit[layer][pos]);
    out = disp != kNone ? disp : out;
    uint32_t w = Compute(layer,
                         kExpertsWgrad,
                         x.experts[layer][pos].wgrad,
                         ParamDeps(layer, LlmBlock::kExperts, false));
    GradReady(layer, LlmBlock::kExperts, w);
    if (x.c.zero3)
    {
        ZeroReduce(layer, true, w);
    }
    deps = ParamDeps(layer, LlmBlock::kRouter, false);
    deps.push_back(out);
    uint32_t r = Compute(layer, kRouterBwd, x.router.dgrad, deps);
    GradReady(layer, LlmBlock::kRouter, r);
    GradReady(layer, LlmBlock::kMlp, r);
    m_data = r;
    return d;
}

/// The lookup (no FLOPs), then Megatron's vocabulary-parallel reduction of its output.
void
RankBuilder::EmbeddingForward()
{
    if (x.c.zero3)
    {
        ZeroGather(0, false);
    }
    bool sp = x.c.sequenceParallel;
    uint32_t c = Compute(0, kEmbFwd, 0, ParamDeps(0, LlmBlock::kEmbedding, true));
    uint32_t t = Tp(0,
                    sp ? kEmbTpRs : kEmbTpAr,
                    sp ? CollType::kReduceScatter : CollType::kAllReduce,
                    x.ActivationBytes(),
                    c);
    m_data = t != kNone ? t : c;
    m_anchor = c;
}

void
RankBuilder::EmbeddingBackward()
{
    uint32_t ag = x.c.sequenceParallel
                      ? Tp(0, kEmbBwdTpAg, CollType::kAllGather, x.ActivationBytes(), m_data)
                      : kNone;
    uint32_t c = Compute(0, kEmbBwd, 0, {ag != kNone ? ag : m_data});
    GradReady(0, LlmBlock::kEmbedding, c);
    if (x.c.zero3)
    {
        ZeroReduce(0, false, c);
    }
}

/// Final norm and logits (a column-parallel layer: its input all-gathered with SP), then the
/// vocabulary-parallel cross entropy's three all-reduces of one fp32 per token (max logit,
/// target logit, sum of exponentials).
void
RankBuilder::OutputForward()
{
    uint32_t out = x.layers + 1;
    if (x.c.zero3)
    {
        ZeroGather(out, false);
    }
    uint32_t in = m_data;
    if (x.c.sequenceParallel)
    {
        uint32_t ag = Tp(out, kOutTpAg, CollType::kAllGather, x.ActivationBytes(), m_data);
        in = ag != kNone ? ag : in;
    }
    std::vector<uint32_t> deps = ParamDeps(out, LlmBlock::kOutput, true);
    deps.push_back(in);
    m_data = Compute(out, kOutFwd, x.output.fwd, deps);
    for (Op op : {kCeMaxAr, kCeTargetAr, kCeSumExpAr})
    {
        uint32_t t = Tp(out, op, CollType::kAllReduce, x.s.tokens * 4, m_data);
        m_data = t != kNone ? t : m_data;
    }
}

void
RankBuilder::OutputBackward()
{
    uint32_t out = x.layers + 1;
    if (x.c.zero3)
    {
        ZeroGather(out, true);
    }
    bool sp = x.c.sequenceParallel;
    uint64_t bytes = x.ActivationBytes();
    uint32_t again = sp ? Tp(out, kOutBwdTpAgWgrad, CollType::kAllGather, bytes, m_data) : kNone;
    std::vector<uint32_t> deps = ParamDeps(out, LlmBlock::kOutput, false);
    deps.push_back(m_data);
    uint32_t d = Compute(out, kOutDgrad, x.output.dgrad, deps);
    uint32_t t = Tp(out,
                    sp ? kOutBwdTpRs : kOutBwdTpAr,
                    sp ? CollType::kReduceScatter : CollType::kAllReduce,
                    bytes,
                    d);
    deps = ParamDeps(out, LlmBlock::kOutput, false);
    deps.push_back(again);
    uint32_t w = Compute(out, kOutWgrad, x.output.wgrad, deps);
    GradReady(out, LlmBlock::kOutput, w);
    if (x.c.zero3)
    {
        ZeroReduce(out, false, w);
    }
    m_data = t != kNone ? t : d;
    m_anchor = d;
}

/// ZeRO-3: gather a layer's parameters, prefetched while the previous unit computes.
void
RankBuilder::ZeroGather(uint32_t layer, bool backward)
{
    for (bool expert : {false, true})
    {
        uint32_t u = m_plan.unit[layer * 2 + expert];
        if (u == kNone)
        {
            continue;
        }
        Op op = expert ? (backward ? kZeroExpertAgBwd : kZeroExpertAg)
                       : (backward ? kZeroAgBwd : kZeroAg);
        uint32_t group = expert ? x.edpGroup[m_rank] : x.dpGroup[m_rank];
        uint64_t bytes = m_plan.units[u].elements * x.c.paramBytes;
        uint32_t n = Coll(layer, op, CollType::kAllGather, group, bytes, {m_anchor});
        (expert ? m_expertAg : m_unitAg) = n;
    }
}

/// ZeRO-3: reduce-scatter a unit's gradients once its backward produced them.
void
RankBuilder::ZeroReduce(uint32_t layer, bool expert, uint32_t dep)
{
    uint32_t u = m_plan.unit[layer * 2 + expert];
    uint32_t group = expert ? x.edpGroup[m_rank] : x.dpGroup[m_rank];
    uint64_t bytes = m_plan.units[u].elements * x.c.gradBytes;
    uint32_t n = Coll(layer,
                      expert ? kZeroExpertRs : kZeroRs,
                      CollType::kReduceScatter,
                      group,
                      bytes,
                      {dep});
    if (n != kNone)
    {
        m_sync.push_back(n);
    }
}

/// The last micro-batch's backward has produced \p block's gradients: synchronise every
/// bucket they complete (reduce-scatter with the distributed optimizer, else all-reduce).
void
RankBuilder::GradReady(uint32_t layer, LlmBlock block, uint32_t node)
{
    auto due = m_plan.due.find(Plan::Key(layer, block));
    if (x.c.zero3 || m_mb + 1 != x.s.microBatches || due == m_plan.due.end())
    {
        return;
    }
    bool rs = x.c.distributedOptimizer;
    for (auto [expert, b] : due->second)
    {
        const LlmBucket& bucket = m_plan.buckets[expert][b];
        Node n;
        n.coll = rs ? CollType::kReduceScatter : CollType::kAllReduce;
        n.layer = bucket.firstLayer;
        n.tensor = m_plan.BucketTensor(x.layers, expert, b, false);
        n.bytes = bucket.elements * x.c.gradBytes;
        n.label =
            x.g->Label(std::string(expert ? "edp" : "dp") + (rs ? ".grad_rs.b" : ".grad_ar.b") +
                       std::to_string(m_plan.firstBucket[expert] + b));
        uint32_t group = expert ? x.edpGroup[m_rank] : x.dpGroup[m_rank];
        uint32_t sync = CollNode(std::move(n), group, {node});
        if (sync != kNone)
        {
            m_sync.push_back(sync);
        }
    }
}

/// Megatron's finalize_model_grads and optimizer step: the data-parallel synchronisation
/// done, sequence-parallel gradients (norms, row biases, router) all-reduced over tp, a tied
/// embedding's gradient all-reduced between the first and last stage; the step; then, with
/// the distributed optimizer, every bucket's parameters all-gathered, in forward order.
void
RankBuilder::OptimizerStep()
{
    std::vector<uint32_t> deps = m_sync;
    deps.push_back(m_lastCompute);
    if (x.c.sequenceParallel)
    {
        uint64_t bytes = m_plan.sequenceParallelParams * x.c.gradBytes;
        deps.push_back(Tp(x.layers + 1, kSpGradAr, CollType::kAllReduce, bytes, m_lastCompute));
    }
    uint64_t vocabShard =
        uint64_t(x.s.paddedVocab) * x.c.model.hidden / x.c.parallelism.tp * x.c.gradBytes;
    deps.push_back(Coll(0, kEmbGradAr, CollType::kAllReduce, x.embGroup[m_rank], vocabShard, deps));
    auto bytes = static_cast<uint64_t>(
        std::llround(double(m_plan.optimizerParams) * x.c.optimizerBytesPerParam));
    uint32_t step = Compute(0, kOptimizerStep, LlmMemoryNs(x.c.device, bytes), deps);
    m_sync.clear();
    if (!x.c.distributedOptimizer)
    {
        return;
    }
    for (bool expert : {false, true})
    {
        for (uint32_t b = m_plan.buckets[expert].size(); b-- > 0;)
        {
            Node n;
            n.coll = CollType::kAllGather;
            n.layer = m_plan.buckets[expert][b].firstLayer;
            n.tensor = m_plan.BucketTensor(x.layers, expert, b, true);
            n.bytes = m_plan.buckets[expert][b].elements * x.c.paramBytes;
            n.label = x.g->Label(std::string(expert ? "edp" : "dp") + ".param_ag.b" +
                                 std::to_string(m_plan.firstBucket[expert] + b));
            uint32_t group = expert ? x.edpGroup[m_rank] : x.dpGroup[m_rank];
            m_paramAg[expert][b] = CollNode(std::move(n), group, {step});
        }
    }
}
} // namespace

bool
BuildLlmGraph(const LlmJobConfig& config, Graph* graph, std::string* error)
{
    Plan x(config);
    Graph g;
    if (!MakePlan(&x, &g, error))
    {
        return false;
    }
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        RankBuilder(x, r).Run();
    }
    *graph = std::move(g);
    return true;
}

} // namespace graph
} // namespace talb
