#ifndef TALB_COLLECTIVE_H
#define TALB_COLLECTIVE_H

#include "talb-comm-op.h"
#include "talb-training-records.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/talb-registry.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"

#include <algorithm>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief A collective communication algorithm of a training job (ring all-reduce, parameter
 * server, ...) over message channels of a transport (TalbTransport).
 *
 * The job calls Setup() once (the algorithm opens its channels then) and Start() for every
 * operation its scheduler launches; an operation starts on every worker at once. The collective
 * reports when the operation has finished at each worker, when it has finished everywhere, and
 * every message it delivered (a flow record).
 *
 * Split like ns-3's QueueDisc: the public non-virtual Setup() and Start() check invariants and
 * keep the counters; algorithms implement the private Do* hooks and report progress with
 * NotifyWorkerDone() / NotifyOpDone(). An algorithm registers its short name in GetRegistry()
 * with TALB_REGISTER_PLUGIN in its own .cc.
 *
 * Counter identities (asserted): worker completions <= started x workers; done <= started;
 * an operation is done once every worker finished it.
 */
class TalbCollective : public Object
{
  public:
    static TypeId GetTypeId();
    TalbCollective();
    ~TalbCollective() override;

    /// \return the family's registry: short collective names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /// The operation has finished at worker \p worker (its gradients are synchronised there).
    typedef Callback<void, const TalbCommOp&, uint32_t> WorkerDoneCallback;
    /// The operation has finished at every worker.
    typedef Callback<void, const TalbCommOp&> OpDoneCallback;
    /// A message was delivered.
    typedef Callback<void, const TalbFlowRecord&> FlowCallback;

    /// Operation statistics.
    struct Stats
    {
        uint64_t nStarted{0};    //!< Start() calls
        uint64_t nWorkerDone{0}; //!< (operation, worker) completions
        uint64_t nDone{0};       //!< operations finished at every worker
    };

    /**
     * Open the collective's channels. Aborts with the algorithm's message when its attributes
     * are unusable (CheckConfig()).
     * \param jobId job id (top 8 bits of the tensor ids on the wire)
     * \param workers the job's hosts, worker index = position
     * \param transport opens the channels; set up for the job's port
     * \param workerDone called when an operation finished at one worker
     * \param opDone called when an operation finished at every worker
     * \param flow called for every delivered message
     */
    void Setup(uint32_t jobId,
               const std::vector<Ptr<Node>>& workers,
               Ptr<TalbTransport> transport,
               WorkerDoneCallback workerDone,
               OpDoneCallback opDone,
               FlowCallback flow);

    /// Start \p op on every worker. The op's segments must be non-empty, its id new.
    void Start(const TalbCommOp& op);

    const Stats& GetStats() const;

    /**
     * Analytic lower bound of one operation of \p bytes among \p nWorkers workers on an idle
     * non-blocking fabric whose host links run at \p rate: the time the busiest NIC needs for
     * the algorithm's payload bytes, phases that must follow each other added (message and
     * packet headers, latency and reduction arithmetic are not counted). Usable before Setup().
     * \return the bound (zero with one worker), or a negative time when the algorithm gives
     * none (DoGetIdealOpTime())
     */
    Time GetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const;

  protected:
    void DoDispose() override;

    /// Open a channel from host \p from to host \p to; endpoints are the caller's indices.
    Ptr<TalbMessageChannel> Connect(Ptr<Node> from,
                                    uint32_t fromIndex,
                                    Ptr<Node> to,
                                    uint32_t toIndex);
    /// For algorithms: \p op has finished at \p worker.
    void NotifyWorkerDone(const TalbCommOp& op, uint32_t worker);
    /// For algorithms: \p op has finished at every worker (after their NotifyWorkerDone()).
    void NotifyOpDone(const TalbCommOp& op);

    /// \return the job id given to Setup()
    uint32_t GetJobId() const;
    /// \return the job's hosts, worker index = position
    const std::vector<Ptr<Node>>& GetWorkers() const;
    /// \return the number of workers
    uint32_t GetNWorkers() const;
    /**
     * \return the workers whose hosts this simulation rank simulates (all of them without
     * ns-3's distributed simulator): an operation is over here once they finished it.
     */
    uint32_t GetNLocalWorkers() const;
    /// \return whether Setup() ran
    bool IsSetUp() const;

    /**
     * For CheckConfig(): record why the configuration is unusable; Setup() aborts with it.
     * \return false
     */
    bool ConfigError(const std::string& message);

    /// Prefix offsets of an op's segments (size + 1 entries).
    static std::vector<uint64_t> SegmentStarts(const TalbCommOp& op);

    /**
     * Append to \p parts the ranges of op bytes [lo, hi), one part per overlapped segment.
     * \p flags(j, segLo, segHi, part) sets the part's FIRST / LAST markers, where segLo, segHi
     * are the range's offsets within segment j.
     */
    template <class F>
    void AppendParts(const TalbCommOp& op,
                     const std::vector<uint64_t>& starts,
                     uint64_t lo,
                     uint64_t hi,
                     std::vector<TalbMessage::Part>* parts,
                     F flags) const;

  private:
    /// Open the algorithm's channels (Connect()); called once by Setup() after CheckConfig().
    virtual void DoSetup() = 0;
    /// Start \p op on every worker; called by Start() once per operation.
    virtual void DoStart(const TalbCommOp& op) = 0;
    /// A message of this collective arrived at its channel's destination application.
    virtual void DoDelivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message) = 0;
    /**
     * Check the attribute values and the job (e.g. enough workers); called once by Setup().
     * \return false (after ConfigError()) on an unusable configuration
     */
    virtual bool CheckConfig();
    /**
     * The algorithm's analytic bound for GetIdealOpTime() (\p nWorkers >= 2, \p rate > 0).
     * Default: none (a negative time), so the ideal iteration is reported as unknown.
     */
    virtual Time DoGetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const;

    void OnDelivered(Ptr<TalbMessageChannel> channel,
                     const TalbMessage& message,
                     const TalbFlowRecord& record);

    uint32_t m_jobId{0};
    std::vector<Ptr<Node>> m_workers;
    uint32_t m_nLocal{0};
    Ptr<TalbTransport> m_transport;
    WorkerDoneCallback m_workerDone;
    OpDoneCallback m_opDone;
    FlowCallback m_flow;
    Stats m_stats;
    std::string m_configError;
};

template <class F>
void
TalbCollective::AppendParts(const TalbCommOp& op,
                            const std::vector<uint64_t>& starts,
                            uint64_t lo,
                            uint64_t hi,
                            std::vector<TalbMessage::Part>* parts,
                            F flags) const
{
    if (lo >= hi)
    {
        return;
    }
    // The segment holding byte lo, then every following one until hi.
    std::size_t j = std::upper_bound(starts.begin(), starts.end(), lo) - starts.begin() - 1;
    for (; j < op.segments.size() && starts[j] < hi; ++j)
    {
        uint64_t a = std::max(lo, starts[j]);
        uint64_t b = std::min(hi, starts[j + 1]);
        const TalbCommSegment& seg = op.segments[j];
        TalbMessage::Part part;
        part.tensorId = talb_make_tensor_id(GetJobId(), seg.tensor);
        part.priority = seg.priority;
        part.bytes = b - a;
        flags(j, a - starts[j], b - starts[j], &part);
        parts->push_back(part);
    }
}

} // namespace ns3

#endif /* TALB_COLLECTIVE_H */
