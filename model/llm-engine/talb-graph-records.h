#ifndef TALB_GRAPH_RECORDS_H
#define TALB_GRAPH_RECORDS_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief One collective instance or point-to-point message of a graph job: a row of
 * collectives.csv.
 */
struct TalbCollectiveRecord
{
    uint32_t job{0};
    uint32_t iteration{0};
    std::string operation; //!< the node's label (Graph::labels), e.g. "L3.attn.tp_rs"
    std::string group;     //!< the group's name ("tp0", "dp1"); "p2p" for a message
    std::string type;      //!< CollTypeName(), or "send_recv" for a message
    std::string cls;       //!< CommClassName() of the node
    /// the sum over the members of their node's bytes (talb::graph::Node's conventions: a
    /// collective's buffer S per member, an all-to-all what each member sends); a message's size
    uint64_t bytes{0};
    uint8_t priority{7};
    Time start; //!< the first member started its part (after the group's previous instance)
    Time end;   //!< the last member finished
    Time ideal; //!< its analytic bound alone on an idle non-blocking fabric
};

/**
 * \ingroup talb-llm-engine
 * \brief One node of one rank of a graph job: when it was issued (its dependencies done) and
 * when it completed.
 */
struct TalbOperationRecord
{
    uint32_t job{0};
    uint32_t rank{0};
    uint32_t node{0};
    uint32_t iteration{0};
    Time issued;
    Time end;
};

} // namespace ns3

#endif /* TALB_GRAPH_RECORDS_H */
