#ifndef TALB_DNN_WORKER_H
#define TALB_DNN_WORKER_H

#include "ns3/application.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <vector>

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
 * iteration ends when its last gradient is synchronised. Compute times come from the job.
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

    void Forward();
    void Backward();
    void EndIteration(uint32_t iteration);

    Ptr<TalbTrainingJob> m_job;
    uint32_t m_index{0};
    uint32_t m_iterations{0};
    uint32_t m_nTensors{0};
    uint32_t m_iteration{0};
    uint32_t m_cursor{0};          //!< forward: next tensor; backward: tensors left
    bool m_computing{false};       //!< a compute step's event is pending
    bool m_waiting{false};         //!< forward waits for m_cursor's synchronisation
    std::vector<int64_t> m_synced; //!< per tensor: last synchronised iteration, -1 none
    uint32_t m_syncedLast{0};      //!< tensors of the last iteration synchronised
    bool m_backwardDone{false};
    uint32_t m_completed{0};
    Time m_iterationStart;
    EventId m_event;
};

} // namespace ns3

#endif /* TALB_DNN_WORKER_H */
