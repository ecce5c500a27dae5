#ifndef TALB_COLLECTIVE_BENCH_H
#define TALB_COLLECTIVE_BENCH_H

#include "talb-exec-graph.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * A collective benchmark as an execution graph (what NCCL's nccl-tests run): one collective,
 * or one message per rank, on a group of every rank, repeated once per iteration. It measures
 * one algorithm alone against its analytic bound (talb-collective-bounds.h).
 */

namespace talb
{
namespace graph
{

/// What BuildCollectiveBenchGraph() builds.
struct CollectiveBench
{
    bool sendRecv{false};                ///< one message per rank instead of a collective
    CollType type{CollType::kAllReduce}; ///< the collective (sendRecv false)
    uint32_t ranks{2};                   ///< >= 2
    uint64_t bytes{0};                   ///< Node::bytes of each rank's node (barrier: must be 0)
    uint32_t root{0};                    ///< rooted collectives: the root (< ranks)
    uint32_t iterations{1};
};

/**
 * \return the names accepted by CollectiveBenchTypeFromName(): the collective types
 * (CollTypeName()) and "send_recv", ','-separated
 */
std::string CollectiveBenchTypeNames();

/**
 * Set \p bench's type from \p name (CollTypeName() or "send_recv").
 * \return false, with \p error listing the valid names, for an unknown name
 */
bool CollectiveBenchTypeFromName(const std::string& name,
                                 CollectiveBench* bench,
                                 std::string* error);

/**
 * Build \p bench: group 0 "all" (class tensor, priority by rule: 0) of ranks 0 .. N-1. Per
 * iteration each rank runs one collective node of \p bench.bytes (an all-to-all evenly split)
 * or, with sendRecv, sends \p bench.bytes to rank r + 1 and receives from rank r - 1 (mod N:
 * each NIC sends and receives one message); each iteration's nodes wait for the rank's previous
 * ones. Labels: the type's name.
 * \return false, with \p error naming the field, for fewer than two ranks, a root outside the
 * group, a barrier with bytes, or no iteration
 */
bool BuildCollectiveBenchGraph(const CollectiveBench& bench, Graph* graph, std::string* error);

} // namespace graph
} // namespace talb

#endif /* TALB_COLLECTIVE_BENCH_H */
