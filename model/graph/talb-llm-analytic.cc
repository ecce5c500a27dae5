#include "talb-llm-analytic.h"

#include "talb-llm-grad-buffer.h"
#include "talb-llm-routing.h"

namespace talb
{
namespace graph
{

namespace
{

/// One rank's parameter counts by part, in closed form (n: one norm; c: 2 or 3 matrices).
struct Local
{
    const LlmJobConfig& cfg;
    const LlmJobShape& shape;
    uint64_t tp, h, n, bias;

    Local(const LlmJobConfig& config, const LlmJobShape& s)
        : cfg(config),
          shape(s),
          tp(config.parallelism.tp),
          h(config.model.hidden),
          n(LlmNormParams(config.model)),
          bias(config.model.linearBias ? 1 : 0)
    {
    }

    /// h (q + 2k) / tp + q h / tp [+ (q + 2k) / tp + h]
    uint64_t Attention() const
    {
        const LlmModel& m = cfg.model;
        uint64_t q = uint64_t(m.heads) * m.HeadDim();
        uint64_t qkv = q + 2 * uint64_t(m.kvHeads) * m.HeadDim();
        return h * qkv / tp + q * h / tp + bias * (qkv / tp + h);
    }

    /// c h f / tp [+ (1 or 2) f / tp + h]
    uint64_t Mlp(uint64_t f) const
    {
        uint64_t c = cfg.model.gatedMlp ? 3 : 2;
        return c * h * f / tp + bias * ((c - 1) * f / tp + h);
    }

    uint64_t VocabShard() const
    {
        return uint64_t(shape.paddedVocab) * h / tp;
    }

    /// A layer's dense params: attention, two norms, the MLP or the router.
    uint64_t LayerDense(uint32_t layer) const
    {
        const LlmModel& m = cfg.model;
        bool moe = shape.IsMoe(cfg, layer);
        return Attention() + 2 * n + (moe ? uint64_t(m.experts) * h : Mlp(m.ffnHidden));
    }

    /// A MoE layer's local experts.
    uint64_t LayerExperts(uint32_t layer) const
    {
        const LlmModel& m = cfg.model;
        if (!shape.IsMoe(cfg, layer))
        {
            return 0;
        }
        return uint64_t(m.experts / cfg.parallelism.ep) * Mlp(m.moeFfnHidden);
    }

    uint64_t Embedding() const
    {
        const LlmModel& m = cfg.model;
        return VocabShard() + (m.learnedPositions ? uint64_t(m.seqLength) * h : 0);
    }

    /// Final norm and logits (a copy of the tied embedding on a separate last stage).
    uint64_t Output() const
    {
        bool separate = !cfg.model.tiedEmbeddings || cfg.parallelism.pp > 1;
        return n + (separate ? VocabShard() : 0);
    }

    /// Params replicated over tp with partial gradients under sequence parallelism: norms,
    /// row-parallel biases (projection, dense fc2), routers.
    uint64_t SequenceParallel(uint32_t layer) const
    {
        bool moe = shape.IsMoe(cfg, layer);
        return 2 * n + bias * h + (moe ? uint64_t(cfg.model.experts) * h : bias * h);
    }
};

uint64_t
RoundUp(uint64_t x, uint64_t divisor)
{
    return (x + divisor - 1) / divisor * divisor;
}

/// Tensor-parallel bytes of one micro-batch on stage \p stage (tp > 1).
uint64_t
TensorPerMicroBatch(const LlmJobConfig& c, const LlmJobShape& s, uint32_t stage, uint32_t pos)
{
    uint64_t act = uint64_t(c.model.hidden) * c.activationBytes; // one token
    uint64_t B = s.tokens * act;
    bool sp = c.sequenceParallel;
    uint64_t bytes = 0;
    for (uint32_t l = stage * s.layersPerStage + 1; l <= (stage + 1) * s.layersPerStage; ++l)
    {
        // SP: forward AG + RS, backward AG + AG (input again, for wgrad) + RS; else AR, AR.
        bytes += sp ? 5 * B : 2 * B;
        if (s.IsMoe(c, l))
        {
            std::vector<uint64_t> sent =
                LlmExpertTokens(c.model, s.routedTokens, l, c.seed, c.moePadToCapacity);
            uint32_t local = c.model.experts / c.parallelism.ep;
            uint64_t mine = 0;
            for (uint32_t e = pos * local; e < (pos + 1) * local; ++e)
            {
                mine += sent[e];
            }
            // The gathered tokens: tp x ep x mine, all-gathered and reduce-scattered both ways.
            bytes += 4 * c.parallelism.tp * c.parallelism.ep * mine * act;
        }
        else
        {
            bytes += sp ? 5 * B : 2 * B;
        }
    }
    if (stage == 0)
    {
        bytes += sp ? 2 * B : B; // RS (+ AG back) or AR
    }
    if (stage + 1 == c.parallelism.pp)
    {
        bytes += (sp ? 3 * B : B) + 3 * s.tokens * 4; // + cross entropy's fp32 all-reduces
    }
    return bytes;
}

/// Expert all-to-all bytes of one micro-batch: dispatch and combine, both ways.
uint64_t
ExpertPerMicroBatch(const LlmJobConfig& c, const LlmJobShape& s, uint32_t stage, uint32_t pos)
{
    uint64_t act = uint64_t(c.model.hidden) * c.activationBytes;
    uint32_t local = c.model.experts ? c.model.experts / c.parallelism.ep : 0;
    uint64_t bytes = 0;
    for (uint32_t l = stage * s.layersPerStage + 1; l <= (stage + 1) * s.layersPerStage; ++l)
    {
        if (!s.IsMoe(c, l))
        {
            continue;
        }
        std::vector<uint64_t> sent =
            LlmExpertTokens(c.model, s.routedTokens, l, c.seed, c.moePadToCapacity);
        uint64_t all = 0;
        uint64_t mine = 0;
        for (uint32_t e = 0; e < c.model.experts; ++e)
        {
            all += sent[e];
            mine += e / local == pos ? sent[e] : 0;
        }
        bytes += 2 * act * (all + c.parallelism.ep * mine);
    }
    return bytes;
}

/// Data-parallel bytes of one iteration.
uint64_t
DataPerIteration(const LlmJobConfig& c, const LlmJobShape& s, uint32_t stage)
{
    Local local(c, s);
    uint32_t group[2] = {c.parallelism.dp, s.expertDataSize};
    uint64_t bytes = 0;
    bool first = stage == 0;
    bool last = stage + 1 == c.parallelism.pp;
    if (c.zero3)
    {
        // Per micro-batch and unit: all-gathers before forward and backward (the embedding's
        // backward needs none), a reduce-scatter after backward; units padded to the group.
        auto unit = [&](uint64_t params, uint32_t g, uint64_t gathers) {
            uint64_t padded = RoundUp(params, g);
            return g > 1 ? padded * (gathers * c.paramBytes + c.gradBytes) : 0;
        };
        uint64_t perMicroBatch = first ? unit(local.Embedding(), group[0], 1) : 0;
        for (uint32_t l = stage * s.layersPerStage + 1; l <= (stage + 1) * s.layersPerStage; ++l)
        {
            perMicroBatch += unit(local.LayerDense(l), group[0], 2);
            perMicroBatch += s.IsMoe(c, l) ? unit(local.LayerExperts(l), group[1], 2) : 0;
        }
        perMicroBatch += last ? unit(local.Output(), group[0], 2) : 0;
        bytes = s.microBatches * perMicroBatch;
    }
    else if (c.distributedOptimizer)
    {
        // Reduce-scatter and all-gather of every bucket, padded (LlmGradBuckets).
        LlmStageBuffers buffers = LlmMakeStageBuffers(c, s, stage);
        for (bool expert : {false, true})
        {
            for (const LlmBucket& b : buffers.buckets[expert])
            {
                bytes += group[expert] > 1 ? b.elements * (c.gradBytes + c.paramBytes) : 0;
            }
        }
    }
    else
    {
        uint64_t dense = 0;
        uint64_t expert = 0;
        LlmStageParamCounts(c, s, stage, &dense, &expert);
        bytes =
            (group[0] > 1 ? dense : 0) * c.gradBytes + (group[1] > 1 ? expert : 0) * c.gradBytes;
    }
    if (c.model.tiedEmbeddings && c.parallelism.pp > 1 && (first || last))
    {
        bytes += local.VocabShard() * c.gradBytes; // the embedding group's all-reduce
    }
    return bytes;
}

} // namespace

void
LlmStageParamCounts(const LlmJobConfig& config,
                    const LlmJobShape& shape,
                    uint32_t stage,
                    uint64_t* dense,
                    uint64_t* expert)
{
    Local local(config, shape);
    *dense = stage == 0 ? local.Embedding() : 0;
    *expert = 0;
    for (uint32_t l = stage * shape.layersPerStage + 1; l <= (stage + 1) * shape.layersPerStage;
         ++l)
    {
        *dense += local.LayerDense(l);
        *expert += local.LayerExperts(l);
    }
    *dense += stage + 1 == config.parallelism.pp ? local.Output() : 0;
}

bool
LlmAnalyticBytes(const LlmJobConfig& config,
                 std::vector<LlmClassBytes>* perRank,
                 std::string* error)
{
    LlmJobShape s;
    if (!MakeLlmJobShape(config, &s, error))
    {
        return false;
    }
    const Parallelism& p = config.parallelism;
    uint64_t m = s.microBatches;
    uint64_t B = s.tokens * config.model.hidden * config.activationBytes;
    bool sp = config.sequenceParallel;
    perRank->assign(s.layout.World(), LlmClassBytes());
    for (uint32_t r = 0; r < s.layout.World(); ++r)
    {
        uint32_t stage = s.Stage(r);
        uint32_t pos = s.layout.Coord(r, Dim::kEp); // position in its expert group
        LlmClassBytes& out = (*perRank)[r];
        if (p.tp > 1)
        {
            out.tensor = m * TensorPerMicroBatch(config, s, stage, pos);
            if (sp)
            {
                Local local(config, s);
                uint64_t params = stage + 1 == p.pp ? local.n : 0;
                for (uint32_t l = stage * s.layersPerStage + 1; l <= (stage + 1) * s.layersPerStage;
                     ++l)
                {
                    params += local.SequenceParallel(l);
                }
                out.tensor += params * config.gradBytes;
            }
        }
        out.expert = p.ep > 1 ? m * ExpertPerMicroBatch(config, s, stage, pos) : 0;
        uint64_t sends = (stage + 1 < p.pp ? 1 : 0) + (stage > 0 ? 1 : 0);
        out.pipeline = m * sends * (B / (sp ? p.tp : 1));
        out.data = DataPerIteration(config, s, stage);
    }
    return true;
}

} // namespace graph
} // namespace talb
