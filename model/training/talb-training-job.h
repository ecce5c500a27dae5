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
#include <map>
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

    /**
     * A worker's event that the job's agreement needs (ControlDelay > 0): its gradient is ready,
     * or an operation finished on it. Distributed runs carry the reports of a rank's workers
     * to the job's copies on the other ranks.
     */
    struct Report
    {
        enum Kind : uint8_t
        {
            READY = 0, //!< item = tensor whose gradient of iteration is ready
            DONE = 1   //!< item = operation id that finished on the worker
        };

        Kind kind{READY};
        uint32_t worker{0};
        uint32_t iteration{0};
        uint32_t item{0};
        Time time; //!< when it happened at the worker
    };

    /// Receives the reports of this rank's workers (SetReportCallback()).
    typedef Callback<void, const Report&> ReportCallback;

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
    /// \return whether every worker on this rank finished every iteration
    bool IsFinished() const;
    /// \return when the last worker on this rank finished its last iteration (zero before)
    Time GetFinishTime() const;
    /// \return the latency of the job's agreement (attribute ControlDelay)
    Time GetControlDelay() const;
    /**
     * \return whether worker \p worker runs here: its host belongs to this simulation rank
     * (always, without ns-3's distributed simulator). Valid once a worker started.
     */
    bool IsLocalWorker(uint32_t worker) const;

    /**
     * Distributed runs (ControlDelay > 0): \p cb gets every report of this rank's workers when
     * it happens; the caller delivers it to the job's copy on every other rank holding workers
     * of the job, which applies it with ApplyRemoteReport() at report time + ControlDelay.
     */
    void SetReportCallback(ReportCallback cb);
    /// Apply a report of a worker on another rank, now = its time + ControlDelay.
    void ApplyRemoteReport(const Report& report);

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
    /// \p op finished on every worker, the last at \p done: tensor records, scheduler.
    void Finish(const TalbCommOp& op, Time done);
    /// One more worker has \p tensor's gradient of \p iteration ready (since \p time).
    void CountReady(uint32_t iteration, uint32_t tensor, Time time);
    /// A report of a worker here: applied after ControlDelay here, sent to the other ranks.
    void Announce(const Report& report);
    /// Queue \p report for this timestamp's Flush().
    void ApplyReport(const Report& report);
    /**
     * Apply the reports of this timestamp in one order on every rank (completions, then
     * gradients by iteration and backward order): the order in which reports of one timestamp
     * arrive depends on the partition.
     */
    void Flush();
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
    Time m_controlDelay;

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
    std::vector<bool> m_local; //!< per worker: its host is on this rank
    uint32_t m_nLocal{0};

    /// ControlDelay > 0: an operation until every worker reported it done.
    struct OpProgress
    {
        TalbCommOp op;
        uint32_t done{0};
        Time last; //!< the latest worker's completion so far
    };

    std::map<uint32_t, OpProgress> m_ops; //!< by op id
    std::vector<Report> m_pending;        //!< reports of this timestamp, applied by Flush()
    ReportCallback m_report;

    TracedCallback<const TalbFlowRecord&> m_flowTrace;
    TracedCallback<const TalbTensorRecord&> m_tensorTrace;
    TracedCallback<const TalbIterationRecord&> m_iterationTrace;
};

} // namespace ns3

#endif /* TALB_TRAINING_JOB_H */
