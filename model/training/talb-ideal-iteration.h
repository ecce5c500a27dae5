#ifndef TALB_IDEAL_ITERATION_H
#define TALB_IDEAL_ITERATION_H

#include "talb-collective.h"
#include "talb-comm-scheduler.h"
#include "talb-dnn-model.h"

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief The analytic lower bound of a job's iterations on an idle non-blocking fabric: the
 * job's own scheduler replayed over the model's compute timeline, with every operation taking
 * its collective's analytic time (TalbCollective::GetIdealOpTime()).
 *
 * One worker stands for all (on an idle non-blocking fabric every worker sees the same
 * timeline), and it follows TalbDnnWorker's rules through the same code, TalbWorkerTimeline:
 * forward layer by layer, the forward step of tensor t in iteration i waits for t's
 * synchronisation of iteration i-1; backward from the last tensor, each gradient handed to the
 * scheduler when its backward step ends (WFBP); an iteration ends when the next one's forward
 * reaches tensor 0 (the last one: when every tensor is synchronised). The scheduler is the job's
 * own kind with its attributes, so fusion buckets and their timeout, partitioning, priorities and
 * credits (ByteScheduler, US-Byte, ASC-WFBP) shape the replay as they shape the simulation.
 *
 * The network is one fluid server per NIC: an operation needs GetIdealOpTime(bytes) of it, and
 * operations in flight at once share it equally (processor sharing), which is what concurrent
 * collectives over one host link get at best. Not counted: message and packet headers, link
 * latency, transport dynamics, reduction arithmetic. So no simulated iteration can be shorter
 * (up to the headers, 0.6 % at MTU 9000).
 *
 * Compute() runs its own ns-3 simulator session (the scheduler may set timers) and destroys it:
 * call it before building a simulation (before creating nodes), never while one has events.
 */
class TalbIdealIteration
{
  public:
    /// What Compute() found.
    struct Result
    {
        bool known{false};            //!< the collective gives an analytic bound
        std::vector<Time> iterations; //!< duration of each iteration, as TalbDnnWorker counts
        Time compute;                 //!< forward + backward time of one iteration
        Time communication;           //!< sum of the operations' analytic times, one iteration
        /// \return mean duration of iterations \p from .. end (zero if none)
        Time GetMean(uint32_t from) const;
    };

    /**
     * Replay \p iterations iterations.
     * \param model the job's model
     * \param bytesPerElement 4 (fp32) or 2 (fp16)
     * \param forward per-tensor forward compute time
     * \param backward per-tensor backward compute time
     * \param nWorkers workers in the job
     * \param iterations iterations to replay (>= 1)
     * \param scheduler a fresh scheduler of the job's kind (not set up; used up by the replay)
     * \param collective the job's collective, for its analytic operation time
     * \param rate the hosts' link rate
     */
    static Result Compute(const TalbDnnModel& model,
                          uint32_t bytesPerElement,
                          const std::vector<Time>& forward,
                          const std::vector<Time>& backward,
                          uint32_t nWorkers,
                          uint32_t iterations,
                          Ptr<TalbCommScheduler> scheduler,
                          Ptr<const TalbCollective> collective,
                          DataRate rate);
};

} // namespace ns3

#endif /* TALB_IDEAL_ITERATION_H */
