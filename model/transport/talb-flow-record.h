#ifndef TALB_FLOW_RECORD_H
#define TALB_FLOW_RECORD_H

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief One message of a collective (a ring step chunk, a PS push or pull) or one background
 * flow, as the generator measured it: a row of flows.csv.
 */
struct TalbFlowRecord
{
    Ipv4Address src;
    Ipv4Address dst;
    uint16_t srcPort{0};
    uint16_t dstPort{0};
    uint64_t sizeBytes{0}; //!< application bytes, message header included
    Time start;            //!< first byte handed to the sender's transport
    Time end;        //!< last byte acknowledged at the sender (delivery where nothing acknowledges)
    int32_t job{-1}; //!< -1 for background flows
    int32_t iteration{-1};
    int32_t tensor{-1}; //!< tensor index (within the job) owning the first payload byte
    int32_t priority{-1};
    bool background{false};
    /// Between two GPUs of one server over their NVLink (TalbNvlinkMessageChannel): never on
    /// the fabric, so left out of the fabric's FCT statistics (flows.csv kind "nvlink").
    bool nvlink{false};
};

} // namespace ns3

#endif /* TALB_FLOW_RECORD_H */
