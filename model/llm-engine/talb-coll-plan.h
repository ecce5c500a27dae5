#ifndef TALB_COLL_PLAN_H
#define TALB_COLL_PLAN_H

#include "ns3/talb-exec-graph.h"

#include <cstdint>
#include <vector>

/**
 * \file
 * \ingroup talb-llm-engine
 * A collective instance as a schedule of sends per member (NCCL's decomposition: an algorithm
 * is a schedule of send and receive steps over per-peer channels). An algorithm
 * (TalbGraphAlgorithm) writes the plan; the communication engine (TalbGraphComm) moves its
 * bytes over the transport.
 */

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief What one collective instance asks of its algorithm: the members' view of it.
 */
struct TalbCollRequest
{
    talb::graph::CollType type{talb::graph::CollType::kAllReduce};
    uint32_t members{1}; //!< N, the group's size
    uint64_t bytes{0};   //!< S, as talb::graph::Node::bytes counts it (all but all-to-all)
    uint32_t root{0};    //!< rooted collectives: the root's position in the group (< N)
    /// all-to-all: sent[i * N + j] = bytes member i sends member j (the diagonal is kept)
    std::vector<uint64_t> sent;
};

/**
 * \ingroup talb-llm-engine
 * \brief One message of a plan: \p bytes of payload to member \p to, issued once its sender
 * has received \p after messages of the instance (and issued its earlier sends).
 */
struct TalbCollSend
{
    uint32_t to{0};
    uint64_t bytes{0}; //!< payload; 0: a header-only message (barriers, empty pieces)
    uint32_t after{0}; //!< messages the sender must have received first
};

/**
 * \ingroup talb-llm-engine
 * \brief One member's part of a plan: its sends in issue order (non-decreasing \c after) and
 * how many messages it receives. The member is done once it has issued every send, every
 * send has arrived, and it has received \c receives messages.
 */
struct TalbCollMemberPlan
{
    std::vector<TalbCollSend> sends;
    uint32_t receives{0};
};

/// \ingroup talb-llm-engine
/// A collective instance's plan: one entry per member, in group order.
typedef std::vector<TalbCollMemberPlan> TalbCollPlan;

} // namespace ns3

#endif /* TALB_COLL_PLAN_H */
