#ifndef TALB_LLM_ROUTING_H
#define TALB_LLM_ROUTING_H

#include "talb-llm-model.h"

#include <cstdint>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The token routing of a mixture-of-experts layer, deterministic from a seed, so that every
 * rank of a generated job and the analytic byte formulas see the same counts.
 */

namespace talb
{
namespace graph
{

/**
 * \return the popularity of each expert of 1-based layer \p layer (sums to 1): expert e has
 * p_e proportional to 1 / (r_e + 1)^routingSkew, where r is a permutation of the experts drawn
 * from \p seed and the layer (so each layer has its own hot experts); routingSkew 0: uniform
 */
std::vector<double> LlmExpertPopularity(const LlmModel& m, uint32_t layer, uint64_t seed);

/**
 * The tokens one rank sends to each expert of 1-based MoE layer \p layer in a micro-batch, it
 * routing \p tokens tokens to topK experts each. The tokens x topK assignments are shared out
 * in proportion to the popularity, none above \p tokens (a token picks distinct experts: the
 * excess is shared among the others), rounded to integers by largest remainder (ties to the
 * lower expert). With a capacity factor cf > 0 an expert takes at most
 * ceil(cf x tokens x topK / experts) of them (Megatron-core's per-rank capacity; the rest are
 * dropped), and exactly that many with \p padToCapacity. Every source rank routes alike:
 * skew is a property of the layer, not of the data a rank holds.
 */
std::vector<uint64_t> LlmExpertTokens(const LlmModel& m,
                                      uint64_t tokens,
                                      uint32_t layer,
                                      uint64_t seed,
                                      bool padToCapacity);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_ROUTING_H */
