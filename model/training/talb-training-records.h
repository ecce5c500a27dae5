#ifndef TALB_TRAINING_RECORDS_H
#define TALB_TRAINING_RECORDS_H

#include "ns3/nstime.h"
#include "ns3/talb-flow-record.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief A tensor's collective in one iteration: a row of tensors.csv.
 */
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

/**
 * \ingroup talb-training
 * \brief One worker's iteration: a row of iterations.csv.
 */
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
