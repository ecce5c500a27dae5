#ifndef TALB_LLM_WORKLOAD_PLAN_H
#define TALB_LLM_WORKLOAD_PLAN_H

#include "talb-exec-graph.h"
#include "talb-llm-grad-buffer.h"
#include "talb-llm-job.h"

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The LLM workload generator's tables shared by every rank's builder (talb-llm-workload.cc):
 * groups, per-stage buffers, compute times, MoE routing and labels. Not an interface of its
 * own: BuildLlmGraph() is.
 */

namespace talb
{
namespace graph
{
namespace llm
{

constexpr uint32_t kNone = Node::kNone;

/// Communication operations of a layer: tensor id = layer x kOpCount + op.
enum Op : uint32_t
{
    kAttnTpAg,
    kAttnTpRs,
    kAttnTpAr,
    kAttnBwdTpAg,
    kAttnBwdTpAgWgrad,
    kAttnBwdTpRs,
    kAttnBwdTpAr,
    kMlpTpAg,
    kMlpTpRs,
    kMlpTpAr,
    kMlpBwdTpAg,
    kMlpBwdTpAgWgrad,
    kMlpBwdTpRs,
    kMlpBwdTpAr,
    kMoeDispatch,
    kMoeTpAg,
    kMoeTpRs,
    kMoeCombine,
    kMoeBwdCombine,
    kMoeBwdTpAg,
    kMoeBwdTpRs,
    kMoeBwdDispatch,
    kZeroAg,
    kZeroAgBwd,
    kZeroRs,
    kZeroExpertAg,
    kZeroExpertAgBwd,
    kZeroExpertRs,
    kEmbTpAr,
    kEmbTpRs,
    kEmbBwdTpAg,
    kEmbGradAr,
    kOutTpAg,
    kOutBwdTpRs,
    kOutBwdTpAgWgrad,
    kOutBwdTpAr,
    kCeMaxAr,
    kCeTargetAr,
    kCeSumExpAr,
    kSpGradAr,
    kPpFwd,
    kPpBwd,
    kOpCount,
};

/// Compute operations (labels only).
enum Work : uint32_t
{
    kEmbFwd,
    kEmbBwd,
    kAttnFwd,
    kAttnDgrad,
    kAttnWgrad,
    kMlpFwd,
    kMlpDgrad,
    kMlpWgrad,
    kRouterFwd,
    kExpertsFwd,
    kExpertsDgrad,
    kExpertsWgrad,
    kRouterBwd,
    kOutFwd,
    kOutDgrad,
    kOutWgrad,
    kOptimizerStep,
    kWorkCount,
};

constexpr uint32_t kBlocks = 6; // LlmBlock values

/// Forward and backward compute times (ns) of one rank's blocks.
struct Times
{
    uint64_t fwd{0}, dgrad{0}, wgrad{0};
};

/// What every stage's ranks share.
struct StagePlan : LlmStageBuffers
{
    /// Per (layer, block): buckets whose last gradient that block's backward produces.
    std::map<uint32_t, std::vector<std::pair<bool, uint32_t>>> due;
    /// Per (layer, block): buckets holding params that block's forward reads.
    std::map<uint32_t, std::vector<std::pair<bool, uint32_t>>> reads;
    std::vector<uint32_t> unit; //!< ZeRO-3: per layer x 2 + expert, index into units or kNone
    /// [expert]: the job-wide number of this stage's first bucket (labels and tensor ids)
    uint32_t firstBucket[2]{0, 0};

    /// \return the tensor id of bucket \p b's gradient (or, \p param, parameter) collective
    uint32_t BucketTensor(uint32_t layers, bool expert, uint32_t b, bool param) const
    {
        return (layers + 2) * kOpCount + 4 * (firstBucket[expert] + b) + 2 * expert + param;
    }
};

/// Everything the ranks' builders share: the job, groups, stage plans, routing and labels.
struct Plan
{
    const LlmJobConfig& c;
    LlmJobShape s;
    Graph* g{nullptr};
    uint32_t layers{0}; //!< L; node layers run 0 .. L + 1
    std::vector<uint32_t> tpGroup, dpGroup, epGroup, edpGroup, embGroup; //!< per rank
    std::vector<uint32_t> epPosition;                                    //!< per rank
    std::vector<uint32_t> prevStage, nextStage;                          //!< per rank
    std::vector<StagePlan> stages;
    Times attention, mlp, router, output;
    // MoE layers, indexed by layer (and ep position): empty for dense layers.
    std::vector<std::vector<uint64_t>> received;     //!< tokens an ep position's experts get
    std::vector<std::vector<Times>> experts;         //!< their compute times
    std::vector<uint64_t> dispatchBytes;             //!< a rank's dispatch all-to-all
    std::vector<uint32_t> dispatchSplit;             //!< its Graph::peerBytes index
    std::vector<std::vector<uint64_t>> combineBytes; //!< per ep position: its combine
    std::vector<std::vector<uint32_t>> combineSplit; //!< and its split
    std::vector<uint32_t> labelCache; //!< per (layer, op or work): Graph::labels index

    explicit Plan(const LlmJobConfig& config)
        : c(config)
    {
    }

    /// \return b s h x activationBytes: a micro-batch's activations between layers
    uint64_t ActivationBytes() const
    {
        return s.tokens * c.model.hidden * c.activationBytes;
    }

    static uint32_t Key(uint32_t layer, LlmBlock block)
    {
        return layer * kBlocks + static_cast<uint32_t>(block);
    }

    /// \return the label "L<l>.NAME", "emb.NAME" or "out.NAME" of an op (or kOpCount + work):
    /// its index in Graph::labels, made once
    uint32_t Label(uint32_t layer, uint32_t key);
};

/**
 * Fill \p plan (constructed on the job) for \p graph: check the job, size the graph's ranks,
 * add its groups and all-to-all splits, and derive the tables.
 * \return false, with \p error naming the field, when the job is invalid
 */
bool MakePlan(Plan* plan, Graph* graph, std::string* error);

} // namespace llm
} // namespace graph
} // namespace talb

#endif /* TALB_LLM_WORKLOAD_PLAN_H */
