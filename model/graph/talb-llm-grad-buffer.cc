#include "talb-llm-grad-buffer.h"

#include <numeric>

namespace talb
{
namespace graph
{

namespace
{

uint64_t
RoundUp(uint64_t x, uint64_t divisor)
{
    return (x + divisor - 1) / divisor * divisor;
}

/// Appends the parameters of 1-based transformer layer \p layer.
void
AddLayer(const LlmJobConfig& c, uint32_t layer, std::vector<LlmParamTensor>* out)
{
    const LlmModel& m = c.model;
    uint64_t tp = c.parallelism.tp;
    uint64_t h = m.hidden;
    uint64_t q = uint64_t(m.heads) * m.HeadDim();
    uint64_t qkv = q + 2 * uint64_t(m.kvHeads) * m.HeadDim();
    uint64_t norm = LlmNormParams(m);
    uint64_t fc1 = m.gatedMlp ? 2 : 1; // fc1 holds gate and up projections when gated
    auto add = [&](LlmBlock block, uint64_t elements, bool expert, bool sp) {
        out->push_back({layer, block, elements, expert, false, sp});
    };
    add(LlmBlock::kAttention, norm, false, true);
    add(LlmBlock::kAttention, h * qkv / tp, false, false);
    if (m.linearBias)
    {
        add(LlmBlock::kAttention, qkv / tp, false, false);
    }
    add(LlmBlock::kAttention, q * h / tp, false, false);
    if (m.linearBias)
    {
        add(LlmBlock::kAttention, h, false, true); // row-parallel bias: replicated
    }
    add(LlmBlock::kMlp, norm, false, true);
    bool moe = m.IsMoeLayer(layer - 1);
    uint64_t f = moe ? m.moeFfnHidden : m.ffnHidden;
    uint32_t mlps = moe ? m.experts / c.parallelism.ep : 1;
    LlmBlock block = moe ? LlmBlock::kExperts : LlmBlock::kMlp;
    if (moe)
    {
        add(LlmBlock::kRouter, uint64_t(m.experts) * h, false, true);
    }
    for (uint32_t e = 0; e < mlps; ++e)
    {
        add(block, fc1 * f * h / tp, moe, false);
        if (m.linearBias)
        {
            add(block, fc1 * f / tp, moe, false);
        }
        add(block, f * h / tp, moe, false);
        if (m.linearBias)
        {
            // A dense fc2 bias is added after the reduce-scatter (replicated, partial
            // gradients); an expert's sees every gathered token.
            add(block, h, moe, !moe);
        }
    }
}

} // namespace

std::vector<LlmParamTensor>
LlmStageParams(const LlmJobConfig& config, const LlmJobShape& shape, uint32_t stage)
{
    const LlmModel& m = config.model;
    uint32_t pp = config.parallelism.pp;
    uint64_t h = m.hidden;
    uint64_t vocabShard = uint64_t(shape.paddedVocab) * h / config.parallelism.tp;
    bool shared = m.tiedEmbeddings && pp > 1;
    std::vector<LlmParamTensor> params;
    if (stage == 0)
    {
        params.push_back({0, LlmBlock::kEmbedding, vocabShard, false, shared, false});
        if (m.learnedPositions)
        {
            params.push_back(
                {0, LlmBlock::kEmbedding, uint64_t(m.seqLength) * h, false, false, false});
        }
    }
    for (uint32_t i = 0; i < shape.layersPerStage; ++i)
    {
        AddLayer(config, stage * shape.layersPerStage + i + 1, &params);
    }
    if (stage == pp - 1)
    {
        uint32_t out = m.layers + 1;
        params.push_back({out, LlmBlock::kOutput, LlmNormParams(m), false, false, true});
        if (!m.tiedEmbeddings || pp > 1)
        {
            params.push_back({out, LlmBlock::kOutput, vocabShard, false, shared, false});
        }
    }
    return params;
}

std::vector<LlmBucket>
LlmGradBuckets(const std::vector<LlmParamTensor>& params,
               bool expert,
               uint64_t bucketParams,
               bool distributedOptimizer,
               uint32_t groupSize)
{
    uint64_t endDivisor = distributedOptimizer ? std::lcm<uint64_t>(groupSize, 128) : 1;
    std::vector<LlmBucket> buckets;
    LlmBucket current;
    bool open = false;
    uint64_t bucketStart = 0;
    uint64_t paramStart = 0;
    uint64_t paramEnd = 0;
    auto close = [&](uint64_t end) {
        current.elements = RoundUp(end, endDivisor) - bucketStart;
        bucketStart += current.elements;
        buckets.push_back(current);
        current = LlmBucket();
        open = false;
        return bucketStart;
    };
    for (uint32_t i = params.size(); i-- > 0;)
    {
        const LlmParamTensor& p = params[i];
        if (p.expert != expert)
        {
            continue;
        }
        if (distributedOptimizer)
        {
            paramStart = RoundUp(paramStart, 64); // 128-byte aligned starts
        }
        bool ownBucket = p.sharedEmbedding && distributedOptimizer;
        if (ownBucket && open)
        {
            paramStart = close(paramStart);
        }
        paramEnd = paramStart + p.elements;
        current.params += p.elements;
        current.lastParam = i;
        current.firstLayer = p.layer; // the reverse walk meets lower layers last
        open = true;
        bool full = bucketParams > 0 && paramEnd - bucketStart >= bucketParams;
        paramStart = full || ownBucket ? close(paramEnd) : paramEnd;
    }
    if (open)
    {
        close(paramEnd);
    }
    return buckets;
}

std::vector<LlmZeroUnit>
LlmZeroUnits(const std::vector<LlmParamTensor>& params, uint32_t denseGroup, uint32_t expertGroup)
{
    std::vector<LlmZeroUnit> units;
    for (const LlmParamTensor& p : params)
    {
        if (units.empty() || units.back().layer != p.layer || units.back().expert != p.expert)
        {
            units.push_back({p.layer, p.expert, 0, 0});
        }
        units.back().params += p.elements;
    }
    for (LlmZeroUnit& u : units)
    {
        u.elements = RoundUp(u.params, u.expert ? expertGroup : denseGroup);
    }
    return units;
}

LlmStageBuffers
LlmMakeStageBuffers(const LlmJobConfig& config, const LlmJobShape& shape, uint32_t stage)
{
    LlmStageBuffers b;
    b.params = LlmStageParams(config, shape, stage);
    uint32_t group[2] = {config.parallelism.dp, shape.expertDataSize};
    // Megatron-core buckets only the first stage: later stages' synchronisation is off the
    // critical path.
    uint64_t bucketParams = stage == 0 ? shape.bucketParams : 0;
    for (bool expert : {false, true})
    {
        b.buckets[expert] = LlmGradBuckets(b.params,
                                           expert,
                                           bucketParams,
                                           config.distributedOptimizer,
                                           group[expert]);
    }
    for (const LlmParamTensor& p : b.params)
    {
        b.sequenceParallelParams += p.sequenceParallel ? p.elements : 0;
        b.optimizerParams += config.zero3 || config.distributedOptimizer ? 0 : p.elements;
    }
    if (config.zero3)
    {
        b.units = LlmZeroUnits(b.params, group[0], group[1]);
        for (const LlmZeroUnit& u : b.units)
        {
            b.optimizerParams += u.elements / group[u.expert];
        }
    }
    else if (config.distributedOptimizer)
    {
        for (bool expert : {false, true})
        {
            for (const LlmBucket& bucket : b.buckets[expert])
            {
                b.optimizerParams += bucket.elements / group[expert];
            }
        }
    }
    return b;
}

} // namespace graph
} // namespace talb
