#ifndef TALB_TRAINING_JOB_H
#define TALB_TRAINING_JOB_H

#include "talb-collective.h"
#include "talb-comm-op.h"
#include "talb-comm-scheduler.h"
#include "talb-dnn-model.h"
#include "talb-training-records.h"

#include "ns3/node-container.h"
#include "ns3/object.h"
#include "ns3/talb-transport.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class TalbDnnWorker;

/**
 * \ingroup talb-training
 * \brief A data-parallel training job: its model, workers, scheduler, collective and transport.
 *
 * The job joins its workers (TalbDnnWorker, one per host) to the scheduler and the collective
 * (which sends through the transport, set up for port BasePort + JobId):
 * a tensor is handed to the scheduler when its gradient is ready on every worker, launched
 * operations go to the collective, and each worker learns when its tensors are synchronised.
 * It reports one record per delivered message (FlowDone), per (iteration, tensor) collective
 * (TensorDone) and per (worker, iteration) (IterationDone). Install it with
 * TalbTrainingJobHelper.
 */
class TalbTrainingJob : public Object
{
  public:
    static TypeId GetTypeId();
    TalbTrainingJob();
    ~TalbTrainingJob() override;

    /// Numeric precision of gradients.
    enum Precision
    {
        FP32,
        FP16
    };

    /// TracedCallback signatures.
    typedef void (*FlowTracedCallback)(const TalbFlowRecord& record);
    typedef void (*TensorTracedCallback)(const TalbTensorRecord& record);
    typedef void (*IterationTracedCallback)(const TalbIterationRecord& record);

    void SetModel(const TalbDnnModel& model);
    const TalbDnnModel& GetModel() const;
    void SetScheduler(Ptr<TalbCommScheduler> scheduler);
    Ptr<TalbCommScheduler> GetScheduler() const;
    void SetCollective(Ptr<TalbCollective> collective);
    Ptr<TalbCollective> GetCollective() const;
    void SetTransport(Ptr<TalbTransport> transport);
    Ptr<TalbTransport> GetTransport() const;
    /// The workers' hosts and applications, worker index = position.
    void SetWorkers(const NodeContainer& hosts, const std::vector<Ptr<TalbDnnWorker>>& workers);

    uint32_t GetJobId() const;
    uint32_t GetIterations() const;
    uint32_t GetNWorkers() const;
    uint32_t GetBytesPerElement() const;
    /// \return the compute model (batch size, device rate) from the attributes
    TalbComputeModel GetComputeModel() const;
    Time GetForwardTime(uint32_t tensor) const;
    Time GetBackwardTime(uint32_t tensor) const;
    /// \return forward + backward compute time of one iteration
    Time GetIterationComputeTime() const;
    /// \return whether every worker finished every iteration
    bool IsFinished() const;
    /// \return when the last worker finished its last iteration (zero before)
    Time GetFinishTime() const;

    // Called by the job's workers.
    void WorkerStarted(uint32_t worker);
    void GradientReady(uint32_t worker, uint32_t iteration, uint32_t tensor);
    void IterationEnded(uint32_t worker, uint32_t iteration, Time start, Time end);

  protected:
    void DoDispose() override;

  private:
    void Prepare();
    void Launch(const TalbCommOp& op);
    void WorkerOpDone(const TalbCommOp& op, uint32_t worker);
    void OpDone(const TalbCommOp& op);
    void Flow(const TalbFlowRecord& record);

    // Attributes
    uint32_t m_jobId;
    uint32_t m_iterations;
    uint32_t m_batchSize;
    std::string m_device;
    double m_deviceRate;
    double m_backwardFactor;
    Precision m_precision;
    uint16_t m_basePort;

    TalbDnnModel m_model;
    Ptr<TalbCommScheduler> m_scheduler;
    Ptr<TalbCollective> m_collective;
    Ptr<TalbTransport> m_transport;
    NodeContainer m_hosts;
    std::vector<Ptr<TalbDnnWorker>> m_workers;
    bool m_prepared{false};

    std::vector<Time> m_forward;
    std::vector<Time> m_backward;
    std::vector<uint64_t> m_wireBytes;             //!< per tensor
    std::vector<uint32_t> m_readyCount;            //!< per tensor: workers ready this iteration
    std::array<std::vector<Time>, 2> m_firstReady; //!< [iteration % 2][tensor]
    std::vector<uint64_t> m_workerLeft;            //!< [worker * tensors + tensor]: bytes to sync
    std::vector<uint64_t> m_allLeft;               //!< per tensor: bytes until done everywhere
    uint32_t m_workersFinished{0};
    Time m_finishTime;

    TracedCallback<const TalbFlowRecord&> m_flowTrace;
    TracedCallback<const TalbTensorRecord&> m_tensorTrace;
    TracedCallback<const TalbIterationRecord&> m_iterationTrace;
};

} // namespace ns3

#endif /* TALB_TRAINING_JOB_H */
