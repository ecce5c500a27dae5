#ifndef TALB_LLM_JOB_H
#define TALB_LLM_JOB_H

#include "talb-llm-device.h"
#include "talb-llm-model.h"
#include "talb-rank-layout.h"

#include <cstdint>
#include <string>

/**
 * \file
 * \ingroup talb-graph
 * An LLM training job for the workload generator: model, device, batch, parallelism and the
 * data-parallel options, with the checks that make it a valid Megatron-LM configuration.
 */

namespace talb
{
namespace graph
{

/**
 * One LLM training job. Defaults are stated per field; doc/talb-generator.rst ("LLM
 * workloads") says what each option emits.
 */
struct LlmJobConfig
{
    LlmModel model;   ///< LlmModelPreset() or hand-made
    LlmDevice device; ///< LlmDevicePreset()
    LlmPrecision precision{LlmPrecision::kBf16};
    /// Fraction of the peak rate a compute node achieves. 0.5: Megatron-LM reports up to 47 %
    /// end-to-end MFU on H100 clusters, bubbles and exposed communication included, which the
    /// simulation adds itself; the compute kernels alone run somewhat faster than that.
    double mfu{0.5};
    uint32_t microBatch{1};          ///< b, samples per micro-batch
    uint32_t globalBatch{0};         ///< samples per iteration: a multiple of microBatch x dp
    Parallelism parallelism;         ///< tp, ep, dp, pp and the rank order (cp must be 1)
    bool sequenceParallel{true};     ///< Megatron's --sequence-parallel (needed by MoE with tp > 1)
    bool distributedOptimizer{true}; ///< gradient reduce-scatter + parameter all-gather
    bool zero3{false}; ///< per-layer parameter all-gather / gradient reduce-scatter instead
    /// Per-bucket gradient collectives overlapping the backward pass (Megatron's
    /// --overlap-grad-reduce); false: one bucket per buffer after the backward pass.
    bool overlapGradReduce{true};
    /// Parameters per gradient bucket; 0: Megatron-core's default max(40M, 1M x dp). As in
    /// Megatron-core, only the first pipeline stage buckets; later stages use one bucket.
    uint64_t bucketParams{0};
    uint32_t gradBytes{2};       ///< bytes per gradient element (Megatron-core reduces bf16: 2)
    uint32_t paramBytes{2};      ///< bytes per parameter all-gathered (bf16)
    uint32_t activationBytes{2}; ///< bytes per activation element (bf16)
    /// The vocabulary is padded to a multiple of this x tp (Megatron's
    /// --make-vocab-size-divisible-by, default 128).
    uint32_t vocabDivisibleBy{128};
    bool moePadToCapacity{false}; ///< every expert gets exactly its capacity (needs a factor)
    /// Memory traffic of the optimizer step per parameter updated: Adam with fp32 master
    /// weights and moments: gradient bf16 -> fp32 (2 + 4 B), Adam reading gradient, weight, m
    /// and v and writing weight, m and v (28 B), fp32 -> bf16 weight copy (4 + 2 B) = 40 B.
    double optimizerBytesPerParam{40};
    uint32_t iterations{1};
    uint64_t seed{1}; ///< picks which experts are popular (routing skew)
};

/// What follows from a checked job (MakeLlmJobShape).
struct LlmJobShape
{
    RankLayout layout;
    uint32_t microBatches{0};   ///< m = globalBatch / (microBatch x dp)
    uint32_t layersPerStage{0}; ///< L / pp
    uint32_t paddedVocab{0};    ///< vocab rounded up to a multiple of vocabDivisibleBy x tp
    uint32_t expertDataSize{1}; ///< dp / ep
    uint64_t tokens{0};         ///< b s, tokens of a micro-batch
    uint64_t routedTokens{0};   ///< tokens one rank routes in a MoE layer: b s / tp
    uint64_t bucketParams{0};   ///< first stage's bucket size (0: one bucket)

    /// \return the pipeline stage of \p rank
    uint32_t Stage(uint32_t rank) const;
    /// \return whether 1-based layer \p layer is a MoE layer
    bool IsMoe(const LlmJobConfig& c, uint32_t layer) const;
};

/**
 * Check \p config and derive its shape. Every failing check is an error naming the field:
 * the model (CheckLlmModel), the device and precision, mfu in (0, 1], batch sizes (globalBatch
 * a positive multiple of microBatch x dp), the rank layout (RankLayout::Make; cp 1), heads,
 * kvHeads (Megatron shards key-value groups: tp must divide them), ffn sizes divisible by tp,
 * layers by pp, seqLength by tp with sequence parallelism, experts by ep, ep 1 for a dense
 * model, sequence parallelism for MoE with tp > 1, element sizes of 1, 2 or 4 bytes, ZeRO-3
 * not with the distributed optimizer nor with tied embeddings over pipeline stages, and tags
 * that fit 32 bits.
 * \return false, with \p error set, when a check fails
 */
bool MakeLlmJobShape(const LlmJobConfig& config, LlmJobShape* shape, std::string* error);

/// \return MakeLlmJobShape()'s verdict alone
bool CheckLlmJob(const LlmJobConfig& config, std::string* error);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_JOB_H */
