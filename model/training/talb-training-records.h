#ifndef TALB_TRAINING_RECORDS_H
#define TALB_TRAINING_RECORDS_H

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup talb
 * \brief One TCP message (a ring step chunk, a PS push or pull) or background flow, as the
 * generator measured it: a row of flows.csv.
 */
struct TalbFlowRecord
{
    Ipv4Address src;
    Ipv4Address dst;
    uint16_t srcPort{0};
    uint16_t dstPort{0};
    uint64_t sizeBytes{0}; //!< application bytes, message header included
    Time start;            //!< first byte handed to the sender's socket
    Time end;              //!< last byte received by the receiving application
    int32_t job{-1};       //!< -1 for background flows
    int32_t iteration{-1};
    int32_t tensor{-1}; //!< tensor index (within the job) owning the first payload byte
    int32_t priority{-1};
    bool background{false};
};

/// \brief A tensor's collective in one iteration: a row of tensors.csv.
struct TalbTensorRecord
{
    uint32_t job{0};
    uint32_t iteration{0};
    uint32_t tensor{0};
    std::string name;
    uint64_t bytes{0};     //!< dense gradient bytes (params x bytes per element)
    uint64_t wireBytes{0}; //!< bytes the scheduler communicates for it (sparse: compressed)
    uint8_t priority{0};
    Time ready; //!< the first worker's gradient became ready
    Time done;  //!< the collective finished at the last worker
};

/// \brief One worker's iteration: a row of iterations.csv.
struct TalbIterationRecord
{
    uint32_t job{0};
    uint32_t worker{0};
    uint32_t iteration{0};
    Time start;
    Time end;
    Time compute; //!< forward + backward compute time of the iteration
};

} // namespace ns3

#endif /* TALB_TRAINING_RECORDS_H */
