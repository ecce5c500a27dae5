#ifndef TALB_COMM_SCHEDULER_H
#define TALB_COMM_SCHEDULER_H

#include "talb-comm-op.h"
#include "talb-dnn-model.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-registry.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief A communication scheduler: decides how a job's ready gradients become collective
 * operations, and when each is launched.
 *
 * A scheduler is the job's coordinator (like Horovod's rank-0 coordinator, or NCCL's rule that
 * every rank enters collectives in one order): it is told when a tensor's gradient is ready on
 * every worker (TensorReady) and launches each operation on all workers at once; the
 * negotiation messages themselves are not simulated. Operations wait in a queue ordered by a
 * rank the subclass gives (ties in arrival order) and are launched while DoCanLaunch() allows.
 *
 * Split like ns-3's QueueDisc: the public non-virtual entry points (Setup, TensorReady, OpDone,
 * GetWireBytes, GetPriority) check invariants and keep the counters; policies implement the
 * private Do* hooks and hand operations to the base with Enqueue(). A policy registers its short
 * name in GetRegistry() with TALB_REGISTER_PLUGIN in its own .cc.
 *
 * Counter identities (asserted): in-flight ops = launched - done; launched <= enqueued.
 */
class TalbCommScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    TalbCommScheduler();
    ~TalbCommScheduler() override;

    /// \return the family's registry: short scheduler names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /// Launches an operation on every worker (the job forwards it to its collective).
    typedef Callback<void, const TalbCommOp&> LaunchCallback;
    /**
     * TracedCallback signature for an operation being launched.
     * \param op the operation
     */
    typedef void (*OpTracedCallback)(const TalbCommOp& op);

    /// Operation statistics.
    struct Stats
    {
        uint64_t nEnqueued{0}; //!< operations built by the policy
        uint64_t nLaunched{0}; //!< ... handed to the collective
        uint64_t nDone{0};     //!< ... finished on every worker
    };

    /**
     * Called once by the job before the first iteration. Aborts with the policy's message when
     * its attributes are unusable (CheckConfig()).
     * \param model the job's model
     * \param bytesPerElement 4 (fp32) or 2 (fp16)
     * \param nWorkers workers in the job
     * \param forward per-tensor forward compute time
     * \param backward per-tensor backward compute time
     * \param launch where launched operations go
     */
    void Setup(const TalbDnnModel& model,
               uint32_t bytesPerElement,
               uint32_t nWorkers,
               const std::vector<Time>& forward,
               const std::vector<Time>& backward,
               LaunchCallback launch);

    /**
     * Check the attribute values before any job exists (CheckConfig() looks at attributes
     * only), so that a bad combination is refused before simulating.
     * \return false with the reason in \p error
     */
    bool CheckAttributes(std::string* error);

    /// The gradient of \p tensor for \p iteration is ready on every worker.
    void TensorReady(uint32_t iteration, uint32_t tensor);
    /// A launched operation has finished on every worker.
    void OpDone(const TalbCommOp& op);

    /// \return bytes the scheduler communicates for \p tensor per iteration (sparse: fewer)
    uint64_t GetWireBytes(uint32_t tensor) const;
    /// \return the priority of \p tensor's bytes: the model's rule (TalbDnnModel::GetPriority)
    uint8_t GetPriority(uint32_t tensor) const;

    uint64_t GetInFlightBytes() const;
    uint32_t GetInFlightOps() const;
    const Stats& GetStats() const;

  protected:
    void DoDispose() override;

    /// Queue \p op (its id is assigned here); lower \p rank launches first, ties FIFO.
    void Enqueue(TalbCommOp&& op, uint64_t rank);
    /// \return a segment holding all of \p tensor's wire bytes
    TalbCommSegment WholeTensor(uint32_t tensor) const;
    /// \return the gradient's bytes: params x bytes per element (talb_gradient_bytes)
    uint64_t GetDenseBytes(uint32_t tensor) const;

    /// \return the job's model (valid from Setup on)
    const TalbDnnModel& GetModel() const;
    /// \return 4 (fp32) or 2 (fp16)
    uint32_t GetBytesPerElement() const;
    /// \return workers in the job
    uint32_t GetNWorkers() const;
    /// \return per-tensor forward compute times
    const std::vector<Time>& GetForwardTimes() const;
    /// \return per-tensor backward compute times
    const std::vector<Time>& GetBackwardTimes() const;

    /**
     * For CheckConfig(): record why the configuration is unusable; Setup() aborts with it.
     * \return false
     */
    bool ConfigError(const std::string& message);

  private:
    /**
     * React to a ready tensor: build operations and Enqueue() them. Called by TensorReady()
     * once the tensor is ready on every worker, in backward order within an iteration.
     */
    virtual void DoTensorReady(uint32_t iteration, uint32_t tensor) = 0;
    /**
     * \return whether \p next may be launched now; called by the base before each launch.
     * Default: while no operation is in flight.
     */
    virtual bool DoCanLaunch(const TalbCommOp& next) const;
    /// \return bytes sent for \p tensor; default: the dense gradient (GetDenseBytes())
    virtual uint64_t DoGetWireBytes(uint32_t tensor) const;
    /**
     * Check the attribute values (and nothing of the job: it may run before Setup()); called
     * by CheckAttributes() and once by Setup() before InitializeParams().
     * \return false (after ConfigError()) on an unusable configuration
     */
    virtual bool CheckConfig();
    /// Build the policy's plan for the job; called once by Setup() after CheckConfig().
    virtual void InitializeParams();

    void Dispatch();

    TalbDnnModel m_model;
    uint32_t m_bytesPerElement{4};
    uint32_t m_nWorkers{0};
    std::vector<Time> m_forward;
    std::vector<Time> m_backward;
    LaunchCallback m_launch;
    std::map<std::pair<uint64_t, uint64_t>, TalbCommOp> m_queue; //!< by (rank, arrival)
    uint64_t m_arrivals{0};
    uint32_t m_nextOpId{0};
    uint32_t m_inFlightOps{0};
    uint64_t m_inFlightBytes{0};
    Stats m_stats;
    std::string m_configError;
    TracedCallback<const TalbCommOp&> m_opLaunched;
};

} // namespace ns3

#endif /* TALB_COMM_SCHEDULER_H */
