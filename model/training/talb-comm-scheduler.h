#ifndef TALB_COMM_SCHEDULER_H
#define TALB_COMM_SCHEDULER_H

#include "talb-comm-op.h"
#include "talb-dnn-model.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb
 * \brief A communication scheduler: decides how a job's ready gradients become collective
 * operations, and when each is launched.
 *
 * A scheduler is the job's coordinator (like Horovod's rank-0 coordinator, or NCCL's rule that
 * every rank enters collectives in one order): it is told when a tensor's gradient is ready on
 * every worker (TensorReady) and launches each operation on all workers at once; the
 * negotiation messages themselves are not simulated. Operations wait in a queue ordered by a
 * rank the subclass gives (ties in arrival order) and are launched while CanLaunch() allows.
 *
 * Subclasses and their short names (LookupByName() is the one place they are resolved):
 * wfbp, fusion, bytescheduler, usbyte, ascwfbp, sparse.
 */
class TalbCommScheduler : public Object
{
  public:
    static TypeId GetTypeId();
    TalbCommScheduler();
    ~TalbCommScheduler() override;

    /// Launches an operation on every worker (the job forwards it to its collective).
    typedef Callback<void, const TalbCommOp&> LaunchCallback;
    /**
     * TracedCallback signature for an operation being launched.
     * \param op the operation
     */
    typedef void (*OpTracedCallback)(const TalbCommOp& op);

    /**
     * Called once by the job before the first iteration.
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

    /// The gradient of \p tensor for \p iteration is ready on every worker.
    void TensorReady(uint32_t iteration, uint32_t tensor);
    /// A launched operation has finished on every worker.
    void OpDone(const TalbCommOp& op);

    /// \return bytes the scheduler communicates for \p tensor per iteration (sparse: fewer)
    virtual uint64_t GetWireBytes(uint32_t tensor) const;
    /// \return the priority of \p tensor's bytes (default: the model's layer priority)
    virtual uint8_t GetPriority(uint32_t tensor) const;

    uint64_t GetInFlightBytes() const;
    uint32_t GetInFlightOps() const;

    /// \return the TypeId for a short name; aborts listing the valid names
    static TypeId LookupByName(const std::string& name);
    /// \return the valid short names, comma separated
    static std::string GetNames();

  protected:
    void DoDispose() override;
    /// Subclass setup after the base has stored the job's description.
    virtual void DoSetup();
    /// React to a ready tensor: build operations and Enqueue() them.
    virtual void DoTensorReady(uint32_t iteration, uint32_t tensor) = 0;
    /// \return whether \p next may be launched now (default: fewer than m_maxInFlightOps ops
    /// in flight)
    virtual bool CanLaunch(const TalbCommOp& next) const;

    /// Queue \p op (its id is assigned here); lower \p rank launches first, ties FIFO.
    void Enqueue(TalbCommOp&& op, uint64_t rank);
    /// \return a segment holding all of \p tensor's wire bytes
    TalbCommSegment WholeTensor(uint32_t tensor) const;
    /// \return params x bytes per element
    uint64_t GetDenseBytes(uint32_t tensor) const;

    TalbDnnModel m_model;
    uint32_t m_bytesPerElement{4};
    uint32_t m_nWorkers{0};
    std::vector<Time> m_forward;
    std::vector<Time> m_backward;
    uint32_t m_maxInFlightOps{1}; //!< used by the default CanLaunch()

  private:
    void Dispatch();

    LaunchCallback m_launch;
    std::map<std::pair<uint64_t, uint64_t>, TalbCommOp> m_queue; //!< by (rank, arrival)
    uint64_t m_arrivals{0};
    uint32_t m_nextOpId{0};
    uint32_t m_inFlightOps{0};
    uint64_t m_inFlightBytes{0};
    TracedCallback<const TalbCommOp&> m_opLaunched;
};

} // namespace ns3

#endif /* TALB_COMM_SCHEDULER_H */
