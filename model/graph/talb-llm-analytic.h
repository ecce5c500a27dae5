#ifndef TALB_LLM_ANALYTIC_H
#define TALB_LLM_ANALYTIC_H

#include "talb-llm-job.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The bytes an LLM job's ranks move per iteration, by closed-form formulas written apart from
 * the graph builder (doc/talb-generator.rst, "Byte formulas"), so that tests hold one against
 * the other.
 */

namespace talb
{
namespace graph
{

/// One rank's bytes of one iteration per communication class.
struct LlmClassBytes
{
    uint64_t tensor{0};
    uint64_t expert{0};
    uint64_t pipeline{0};
    uint64_t data{0};
};

/**
 * Per rank, the sum of Node::bytes of one iteration's communication nodes of each class, as
 * BuildLlmGraph() must emit them: collectives by their NCCL buffer (talb-exec-graph.h), an
 * all-to-all with the part a rank keeps, pipeline messages once, at the sender (receives are
 * not counted). The formulas take the routing (LlmExpertTokens) and, with the distributed
 * optimizer, the padded bucket sizes (LlmGradBuckets) as inputs; everything else is closed form.
 * \return false, with \p error naming the field, when \p config is invalid
 */
bool LlmAnalyticBytes(const LlmJobConfig& config,
                      std::vector<LlmClassBytes>* perRank,
                      std::string* error);

/**
 * Closed-form parameter counts of one rank of pipeline stage \p stage (after sharding):
 * \p dense, synchronised over dp, and \p expert, over dp / ep. LlmStageParams() enumerates the
 * same tensors one by one; a test holds the two together.
 */
void LlmStageParamCounts(const LlmJobConfig& config,
                         const LlmJobShape& shape,
                         uint32_t stage,
                         uint64_t* dense,
                         uint64_t* expert);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_ANALYTIC_H */
