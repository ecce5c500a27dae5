#ifndef TALB_WORKER_TIMELINE_H
#define TALB_WORKER_TIMELINE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief The compute timeline of one data-parallel worker, as plain code without a simulator:
 * which compute step may start next, when a gradient is ready and when an iteration ends.
 *
 * The rules (wait-free backpropagation, one compute step at a time):
 *  - forward runs tensor 0 .. n-1; the forward step of tensor t in iteration i starts once t's
 *    gradient of iteration i-1 is synchronised;
 *  - backward runs tensor n-1 .. 0 after the forward pass; a tensor's gradient is ready when its
 *    backward step ends;
 *  - iteration i ends when iteration i+1's forward step of tensor 0 may start; the last iteration
 *    ends when its backward pass is over and every tensor of it is synchronised.
 *
 * A driver owns time and the network: TalbDnnWorker (ns-3 events, the simulated fabric) and
 * TalbIdealIteration (a fluid NIC) both drive it the same way. The driver asks Next() for an
 * action until it answers WAIT; runs each compute step for its duration and then calls
 * StepDone() (at once for a step of zero length); hands each ready gradient to the job; and
 * reports each synchronisation with TensorSynced(), asking Next() again when that returns true.
 */
class TalbWorkerTimeline
{
  public:
    /// What the worker does next (Next()).
    struct Action
    {
        enum Kind
        {
            FORWARD,        //!< run tensor's forward step of iteration, then StepDone()
            BACKWARD,       //!< run tensor's backward step of iteration, then StepDone()
            GRADIENT_READY, //!< tensor's gradient of iteration is ready: hand it to the job
            ITERATION_END,  //!< iteration ends now
            WAIT            //!< nothing until StepDone(), or TensorSynced() returning true
        };

        Kind kind{WAIT};
        uint32_t iteration{0};
        uint32_t tensor{0};
    };

    /// A timeline with nothing to run (a worker that never starts).
    TalbWorkerTimeline() = default;
    /**
     * \param nTensors tensors of the model (>= 1)
     * \param iterations iterations to run (>= 1)
     */
    TalbWorkerTimeline(uint32_t nTensors, uint32_t iterations);

    /**
     * \return the next action; a FORWARD or BACKWARD step runs until StepDone(), and
     * GRADIENT_READY and ITERATION_END are handed out once each
     */
    Action Next();
    /// The compute step handed out last by Next() has ended.
    void StepDone();
    /**
     * \p tensor's gradient of \p iteration is synchronised on this worker (each tensor's
     * iterations in order).
     * \return whether this ends a WAIT that Next() answered (the forward pass or the last
     * iteration's end waited for it): then call Next() again
     */
    bool TensorSynced(uint32_t tensor, uint32_t iteration);

    /// \return iterations ended so far (ITERATION_END handed out)
    uint32_t GetCompletedIterations() const;
    /// \return whether every iteration has ended
    bool IsFinished() const;

  private:
    enum Pass
    {
        FORWARD_PASS,
        BACKWARD_PASS,
        DONE //!< the last backward pass is over
    };

    uint32_t m_nTensors{0};
    uint32_t m_iterations{0};
    uint32_t m_iteration{0};
    Pass m_pass{FORWARD_PASS};
    uint32_t m_cursor{0};          //!< forward: next tensor; backward: tensors left
    bool m_computing{false};       //!< a compute step is running
    bool m_gradientReady{false};   //!< backward: m_cursor's gradient not handed out yet
    bool m_waiting{false};         //!< forward waits for m_cursor's synchronisation
    std::vector<int64_t> m_synced; //!< per tensor: last synchronised iteration, -1 none
    uint32_t m_syncedLast{0};      //!< tensors of the last iteration synchronised
    uint32_t m_completed{0};       //!< iterations ended
};

} // namespace ns3

#endif /* TALB_WORKER_TIMELINE_H */
