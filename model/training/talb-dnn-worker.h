#ifndef TALB_DNN_WORKER_H
#define TALB_DNN_WORKER_H

#include "talb-worker-timeline.h"

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

namespace ns3
{

class TalbTrainingJob;

/**
 * \ingroup talb-training
 * \brief One data-parallel worker of a training job (one per host).
 *
 * Each iteration runs the forward pass tensor by tensor, where tensor t waits until its
 * gradient of the previous iteration is synchronised on this worker, then the backward pass
 * from the last tensor to the first; each gradient is handed to the job (its scheduler) as
 * soon as its backward step ends (wait-free backpropagation). Iteration i spans from the start
 * of its forward pass (its first tensor synchronised) to the start of iteration i+1's; the last
 * iteration ends when its last gradient is synchronised. These rules are TalbWorkerTimeline's
 * (shared with TalbIdealIteration); the worker runs its steps in simulated time, with compute
 * times from the job.
 */
class TalbDnnWorker : public Application
{
  public:
    static TypeId GetTypeId();
    TalbDnnWorker();
    ~TalbDnnWorker() override;

    /// Set by TalbTrainingJobHelper: the job and this worker's index in it.
    void SetJob(Ptr<TalbTrainingJob> job, uint32_t index);
    Ptr<TalbTrainingJob> GetJob() const;
    uint32_t GetIndex() const;

    /// The job: \p tensor's gradient of \p iteration is synchronised on this worker.
    void TensorSynced(uint32_t tensor, uint32_t iteration);

    /// \return iterations this worker has finished
    uint32_t GetCompletedIterations() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /// Carry out the timeline's actions until it waits (for a compute step or a synchronisation).
    void RunTimeline();
    /// The running compute step's time is over.
    void StepDone();

    Ptr<TalbTrainingJob> m_job;
    uint32_t m_index{0};
    TalbWorkerTimeline m_timeline;
    Time m_iterationStart;
    EventId m_event; //!< the running compute step's end
};

} // namespace ns3

#endif /* TALB_DNN_WORKER_H */
