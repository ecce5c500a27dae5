#include "talb-llm-workload-plan.h"

#include "talb-llm-routing.h"

#include <algorithm>

namespace talb
{
namespace graph
{
namespace llm
{

namespace
{

/// Tensor ids within a job: 24 bits (the wire format's tensor index).
constexpr uint64_t kTensorIds = 1u << 24;

const char* const kOpNames[kOpCount] = {
    "attn.tp_ag",
    "attn.tp_rs",
    "attn.tp_ar",
    "attn.bwd.tp_ag",
    "attn.bwd.tp_ag_wgrad",
    "attn.bwd.tp_rs",
    "attn.bwd.tp_ar",
    "mlp.tp_ag",
    "mlp.tp_rs",
    "mlp.tp_ar",
    "mlp.bwd.tp_ag",
    "mlp.bwd.tp_ag_wgrad",
    "mlp.bwd.tp_rs",
    "mlp.bwd.tp_ar",
    "moe.a2a_dispatch",
    "moe.tp_ag",
    "moe.tp_rs",
    "moe.a2a_combine",
    "moe.bwd.a2a_combine",
    "moe.bwd.tp_ag",
    "moe.bwd.tp_rs",
    "moe.bwd.a2a_dispatch",
    "z3.param_ag",
    "z3.param_ag_bwd",
    "z3.grad_rs",
    "z3.expert_param_ag",
    "z3.expert_param_ag_bwd",
    "z3.expert_grad_rs",
    "tp_ar",
    "tp_rs",
    "bwd.tp_ag",
    "grad_ar",
    "tp_ag",
    "bwd.tp_rs",
    "bwd.tp_ag_wgrad",
    "bwd.tp_ar",
    "ce_max_ar",
    "ce_target_ar",
    "ce_sumexp_ar",
    "sp.grad_ar",
    "pp.fwd",
    "pp.bwd",
};

const char* const kWorkNames[kWorkCount] = {
    "fwd",
    "bwd",
    "attn.fwd",
    "attn.dgrad",
    "attn.wgrad",
    "mlp.fwd",
    "mlp.dgrad",
    "mlp.wgrad",
    "moe.router",
    "moe.experts",
    "moe.experts_dgrad",
    "moe.experts_wgrad",
    "moe.router_bwd",
    "fwd",
    "dgrad",
    "wgrad",
    "optim.step",
};

/// \return whether a label names the job as a whole (no layer prefix)
bool
IsGlobal(uint32_t key)
{
    return key == kSpGradAr || key == kPpFwd || key == kPpBwd || key == kOpCount + kOptimizerStep;
}

/// Groups of more than one rank, named by kind and index; per rank, its group of each kind.
void
MakeGroups(Plan& x)
{
    const RankLayout& layout = x.s.layout;
    uint32_t world = layout.World();
    for (auto* v :
         {&x.tpGroup, &x.dpGroup, &x.epGroup, &x.edpGroup, &x.embGroup, &x.prevStage, &x.nextStage})
    {
        v->assign(world, kNone);
    }
    x.epPosition.assign(world, 0);
    auto add = [&x](const char* kind,
                    CommClass cls,
                    const std::vector<std::vector<uint32_t>>& groups,
                    std::vector<uint32_t>* of) {
        uint32_t k = 0;
        for (const std::vector<uint32_t>& ranks : groups)
        {
            if (ranks.size() < 2)
            {
                continue;
            }
            for (uint32_t i = 0; i < ranks.size(); ++i)
            {
                (*of)[ranks[i]] = x.g->groups.size();
                if (cls == CommClass::kExpert)
                {
                    x.epPosition[ranks[i]] = i;
                }
            }
            x.g->groups.push_back({kind + std::to_string(k++), cls, ranks});
        }
    };
    std::vector<std::vector<uint32_t>> pipes = layout.Groups({Dim::kPp});
    add("tp", CommClass::kTensor, layout.Groups({Dim::kTp}), &x.tpGroup);
    add("dp", CommClass::kData, layout.Groups({Dim::kDp}), &x.dpGroup);
    if (x.c.model.experts > 0)
    {
        add("ep", CommClass::kExpert, layout.Groups({Dim::kEp}), &x.epGroup);
        add("edp", CommClass::kData, layout.ExpertDataGroups(), &x.edpGroup);
    }
    std::vector<std::vector<uint32_t>> ends;
    for (const std::vector<uint32_t>& pipe : pipes) // in rank order: stage order
    {
        for (uint32_t i = 1; i < pipe.size(); ++i)
        {
            x.prevStage[pipe[i]] = pipe[i - 1];
            x.nextStage[pipe[i - 1]] = pipe[i];
        }
        ends.push_back({pipe.front(), pipe.back()});
    }
    if (x.c.model.tiedEmbeddings && x.c.parallelism.pp > 1)
    {
        add("emb", CommClass::kData, ends, &x.embGroup);
    }
}

/// Per stage: its buffers, and which blocks read and complete which buckets.
bool
MakePlans(Plan& x, std::string* error)
{
    uint64_t numbered[2] = {0, 0}; // so far, dense and expert: the job-wide bucket numbers
    for (uint32_t stage = 0; stage < x.c.parallelism.pp; ++stage)
    {
        StagePlan plan;
        static_cast<LlmStageBuffers&>(plan) = LlmMakeStageBuffers(x.c, x.s, stage);
        for (bool expert : {false, true})
        {
            const std::vector<LlmBucket>& buckets = plan.buckets[expert];
            plan.firstBucket[expert] = static_cast<uint32_t>(numbered[expert]);
            numbered[expert] += buckets.size();
            // Buckets are contiguous in the reverse walk of the params (LlmGradBuckets).
            uint32_t b = 0;
            for (uint32_t i = plan.params.size(); i-- > 0 && b < buckets.size();)
            {
                const LlmParamTensor& p = plan.params[i];
                if (p.expert != expert)
                {
                    continue;
                }
                auto& reads = plan.reads[Plan::Key(p.layer, p.block)];
                if (reads.empty() || reads.back() != std::make_pair(expert, b))
                {
                    reads.emplace_back(expert, b);
                }
                if (i == buckets[b].lastParam)
                {
                    plan.due[Plan::Key(p.layer, p.block)].emplace_back(expert, b);
                    ++b;
                }
            }
        }
        plan.unit.assign(2 * (x.layers + 2), kNone);
        for (uint32_t u = 0; u < plan.units.size(); ++u)
        {
            plan.unit[2 * plan.units[u].layer + plan.units[u].expert] = u;
        }
        x.stages.push_back(std::move(plan));
    }
    uint64_t most = std::max(numbered[0], numbered[1]);
    if (uint64_t(x.layers + 2) * kOpCount + 4 * most > kTensorIds)
    {
        *error = "field 'bucketParams': " + std::to_string(most) +
                 " buckets make tensor ids beyond 24 bits";
        return false;
    }
    return true;
}

/// One rank's compute times per block (backward: dgrad = forward, wgrad = forward, except
/// that the attention scores have no weights: their backward, twice the forward, is dgrad's).
void
MakeTimes(Plan& x)
{
    const LlmModel& m = x.c.model;
    uint64_t tp = x.c.parallelism.tp;
    uint64_t h = m.hidden;
    uint64_t q = uint64_t(m.heads) * m.HeadDim();
    uint64_t qkv = q + 2 * uint64_t(m.kvHeads) * m.HeadDim();
    uint64_t matrices = m.gatedMlp ? 3 : 2;
    auto ns = [&x](uint64_t linear, uint64_t bf16) {
        return LlmComputeNs(x.c.device, x.c.precision, x.c.mfu, linear, bf16);
    };
    uint64_t tokens = x.s.tokens;
    uint64_t attention = tokens * (2 * h * qkv + 2 * q * h) / tp;
    uint64_t scores = tokens * 2 * m.seqLength * q / tp; // causal half
    x.attention = {ns(attention, scores), ns(attention, 2 * scores), ns(attention, 0)};
    uint64_t mlp = tokens * 2 * matrices * h * m.ffnHidden / tp;
    x.mlp = {ns(mlp, 0), ns(mlp, 0), ns(mlp, 0)};
    uint64_t router = x.s.routedTokens * 2 * h * m.experts;
    x.router = {ns(0, router), ns(0, 2 * router), 0};
    uint64_t logits = tokens * 2 * h * x.s.paddedVocab / tp;
    x.output = {ns(0, logits), ns(0, logits), ns(0, logits)};
}

/// Per MoE layer: the tokens each expert-parallel position receives, its experts' times and
/// the all-to-all sizes (LlmExpertTokens; experts e * ep / experts .. live on position e).
void
MakeRouting(Plan& x)
{
    const LlmModel& m = x.c.model;
    uint32_t ep = x.c.parallelism.ep;
    uint32_t local = m.experts ? m.experts / ep : 0;
    uint64_t token = uint64_t(m.hidden) * x.c.activationBytes;
    uint64_t flopsPerToken = 2 * (m.gatedMlp ? 3 : 2) * uint64_t(m.hidden) * m.moeFfnHidden;
    uint32_t slots = x.layers + 2;
    x.received.assign(slots, {});
    x.experts.assign(slots, {});
    x.dispatchBytes.assign(slots, 0);
    x.dispatchSplit.assign(slots, kNone);
    x.combineBytes.assign(slots, {});
    x.combineSplit.assign(slots, {});
    for (uint32_t l = 1; l <= x.layers; ++l)
    {
        if (!x.s.IsMoe(x.c, l))
        {
            continue;
        }
        std::vector<uint64_t> sent =
            LlmExpertTokens(m, x.s.routedTokens, l, x.c.seed, x.c.moePadToCapacity);
        std::vector<uint64_t> split(ep, 0);
        for (uint32_t e = 0; e < m.experts; ++e)
        {
            split[e / local] += sent[e] * token;
        }
        x.combineSplit[l].assign(ep, kNone);
        for (uint32_t p = 0; p < ep; ++p)
        {
            uint64_t received = ep * (split[p] / token);
            uint64_t flops = received * flopsPerToken;
            uint64_t t = LlmComputeNs(x.c.device, x.c.precision, x.c.mfu, flops, 0);
            x.received[l].push_back(received);
            x.experts[l].push_back({t, t, t});
            x.dispatchBytes[l] += split[p];
            x.combineBytes[l].push_back(ep * split[p]);
            if (ep > 1)
            {
                x.combineSplit[l][p] = x.g->peerBytes.size();
                x.g->peerBytes.emplace_back(ep, split[p]);
            }
        }
        if (ep > 1)
        {
            x.dispatchSplit[l] = x.g->peerBytes.size();
            x.g->peerBytes.push_back(split);
        }
    }
}

} // namespace

uint32_t
Plan::Label(uint32_t layer, uint32_t key)
{
    uint32_t slot = layer * (kOpCount + kWorkCount) + key;
    if (labelCache[slot] == kNone)
    {
        std::string prefix = IsGlobal(key)         ? ""
                             : layer == 0          ? "emb."
                             : layer == layers + 1 ? "out."
                                                   : "L" + std::to_string(layer) + ".";
        const char* name = key < kOpCount ? kOpNames[key] : kWorkNames[key - kOpCount];
        labelCache[slot] = g->Label(prefix + name);
    }
    return labelCache[slot];
}

bool
MakePlan(Plan* plan, Graph* graph, std::string* error)
{
    Plan& x = *plan;
    if (!MakeLlmJobShape(x.c, &x.s, error))
    {
        return false;
    }
    x.g = graph;
    x.layers = x.c.model.layers;
    graph->nRanks = x.s.layout.World();
    graph->iterations = x.c.iterations;
    graph->ranks.resize(graph->nRanks);
    x.labelCache.assign((x.layers + 2) * (kOpCount + kWorkCount), kNone);
    MakeGroups(x);
    if (!MakePlans(x, error))
    {
        return false;
    }
    MakeTimes(x);
    MakeRouting(x);
    return true;
}

} // namespace llm
} // namespace graph
} // namespace talb
