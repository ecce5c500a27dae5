#ifndef TALB_LLM_GRAD_BUFFER_H
#define TALB_LLM_GRAD_BUFFER_H

#include "talb-llm-job.h"

#include <cstdint>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The parameters one rank of a pipeline stage holds and how Megatron-core's data-parallel
 * wrapper packs their gradients into buckets, or ZeRO-3 into per-layer units.
 */

namespace talb
{
namespace graph
{

/// The block whose forward reads a parameter and whose backward produces its gradient.
enum class LlmBlock : uint8_t
{
    kEmbedding, ///< word (and position) embedding
    kAttention, ///< pre-attention norm, QKV, output projection
    kMlp,       ///< pre-MLP norm and the dense MLP (MoE layers: the norm alone)
    kRouter,    ///< MoE router
    kExperts,   ///< this rank's experts
    kOutput,    ///< final norm and output layer
};

/// One parameter tensor on one rank (after tensor- and expert-parallel sharding).
struct LlmParamTensor
{
    uint32_t layer{0}; ///< 0 embedding, 1..L transformer layers, L + 1 output
    LlmBlock block{LlmBlock::kEmbedding};
    uint64_t elements{0};
    bool expert{false};           ///< synchronised over the expert-data-parallel group
    bool sharedEmbedding{false};  ///< the tied word embedding on the first or last stage, pp > 1
    bool sequenceParallel{false}; ///< replicated over tp; with sequence parallelism its
                                  ///< gradient is all-reduced over tp (norms, row biases, router)
};

/**
 * \return the parameters of a rank of pipeline stage \p stage, in forward order (embedding;
 * per layer: norm, QKV weight and bias, projection weight and bias, norm, then fc1 and fc2
 * weight and bias or the router and each local expert's; final norm, output weight).
 * Tensor-sharded tensors hold 1 / tp of their elements, experts are the experts / ep local
 * ones; biases only with LlmModel::linearBias.
 */
std::vector<LlmParamTensor> LlmStageParams(const LlmJobConfig& config,
                                           const LlmJobShape& shape,
                                           uint32_t stage);

/// A gradient bucket: a contiguous range of the buffer, one collective.
struct LlmBucket
{
    uint64_t params{0};     ///< parameter elements in it
    uint64_t elements{0};   ///< the collective's elements: params plus alignment padding
    uint32_t lastParam{0};  ///< index (in the stage's list) of the param whose gradient comes last
    uint32_t firstLayer{0}; ///< the lowest layer it holds (the priority rule's layer)
};

/**
 * Megatron-core's bucketing (_ParamAndGradBuffer): the \p expert (or dense) params in reverse
 * order, a bucket closed once it holds >= \p bucketParams elements (0: never). With the
 * distributed optimizer each param starts at a multiple of 64 elements, the shared embedding
 * gets a bucket of its own, and each bucket ends at a multiple of lcm(\p groupSize, 128).
 * \return the buckets in the order their gradients become ready (the output side first)
 */
std::vector<LlmBucket> LlmGradBuckets(const std::vector<LlmParamTensor>& params,
                                      bool expert,
                                      uint64_t bucketParams,
                                      bool distributedOptimizer,
                                      uint32_t groupSize);

/// A ZeRO-3 unit: the params gathered together (a layer's dense or expert params, the
/// embedding, the output layer).
struct LlmZeroUnit
{
    uint32_t layer{0};
    bool expert{false};
    uint64_t params{0};
    uint64_t elements{0}; ///< params rounded up to a multiple of the group size
};

/// \return the ZeRO-3 units of \p params in forward order; \p denseGroup and \p expertGroup are
/// the dense and expert data-parallel sizes
std::vector<LlmZeroUnit> LlmZeroUnits(const std::vector<LlmParamTensor>& params,
                                      uint32_t denseGroup,
                                      uint32_t expertGroup);

/// Everything data-parallel synchronisation needs to know about one rank of a stage.
struct LlmStageBuffers
{
    std::vector<LlmParamTensor> params; ///< LlmStageParams()
    /// [expert]: the dense buckets (over dp) and the expert ones (over dp / ep), from
    /// LlmGradBuckets() with the job's bucket size on the first stage and one bucket elsewhere
    std::vector<LlmBucket> buckets[2];
    std::vector<LlmZeroUnit> units;     ///< ZeRO-3 only
    uint64_t sequenceParallelParams{0}; ///< elements of the params flagged sequenceParallel
    /// Parameters the rank's optimizer step updates: its shard of the padded buckets (distributed
    /// optimizer) or units (ZeRO-3), else every local parameter.
    uint64_t optimizerParams{0};
};

/// \return the buffers of a rank of pipeline stage \p stage of a checked job
LlmStageBuffers LlmMakeStageBuffers(const LlmJobConfig& config,
                                    const LlmJobShape& shape,
                                    uint32_t stage);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_GRAD_BUFFER_H */
