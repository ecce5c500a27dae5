#ifndef TALB_COLLECTIVE_H
#define TALB_COLLECTIVE_H

#include "talb-comm-op.h"
#include "talb-message-channel.h"
#include "talb-training-records.h"
#include "ns3/talb-wire.h"

#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/socket.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb
 * \brief A collective communication algorithm of a training job over real TCP connections.
 *
 * The job calls Setup() once (connections are opened then) and Start() for every operation its
 * scheduler launches; an operation starts on every worker at once. The collective reports when
 * the operation has finished at each worker, when it has finished everywhere, and every message
 * it delivered (a flow record). Subclasses: TalbRingAllReduce ("ring"), TalbParameterServer
 * ("ps"); LookupByName() is the one place short names are resolved.
 */
class TalbCollective : public Object
{
  public:
    static TypeId GetTypeId();
    TalbCollective();
    ~TalbCollective() override;

    /// The operation has finished at worker \p worker (its gradients are synchronised there).
    typedef Callback<void, const TalbCommOp&, uint32_t> WorkerDoneCallback;
    /// The operation has finished at every worker.
    typedef Callback<void, const TalbCommOp&> OpDoneCallback;
    /// A message was delivered.
    typedef Callback<void, const TalbFlowRecord&> FlowCallback;

    /**
     * Open the collective's connections.
     * \param jobId job id (top 8 bits of the tensor ids on the wire)
     * \param workers the job's hosts, worker index = position; IPv4 address on interface 1
     * \param port TCP port this job's receivers listen on (on every host it uses)
     */
    void Setup(uint32_t jobId,
               const std::vector<Ptr<Node>>& workers,
               uint16_t port,
               WorkerDoneCallback workerDone,
               OpDoneCallback opDone,
               FlowCallback flow);

    /// Start \p op on every worker. The op's segments must be non-empty.
    virtual void Start(const TalbCommOp& op) = 0;

    /// \return the TypeId for a short name (ring, ps); aborts listing the valid names
    static TypeId LookupByName(const std::string& name);
    /// \return the valid short names, comma separated
    static std::string GetNames();

    /// \return the host's address on interface 1 (the contract with the topology helpers)
    static Ipv4Address GetHostAddress(Ptr<Node> node);

  protected:
    void DoDispose() override;
    /// Open the algorithm's channels (Connect()).
    virtual void DoSetup() = 0;
    /// A message of this collective arrived at its channel's destination.
    virtual void Delivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message) = 0;

    /// Open a channel from host \p from to host \p to; endpoints are the caller's indices.
    Ptr<TalbMessageChannel> Connect(Ptr<Node> from,
                                    uint32_t fromIndex,
                                    Ptr<Node> to,
                                    uint32_t toIndex);

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

    uint32_t m_jobId{0};
    std::vector<Ptr<Node>> m_workers;
    uint16_t m_port{0};
    WorkerDoneCallback m_workerDone;
    OpDoneCallback m_opDone;

  private:
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void OnDelivered(Ptr<TalbMessageChannel> channel,
                     const TalbMessage& message,
                     const TalbFlowRecord& record);

    FlowCallback m_flow;
    std::map<uint32_t, Ptr<Socket>> m_listeners;                            //!< by node id
    std::unordered_map<uint64_t, Ptr<TalbMessageChannel>> m_awaitingAccept; //!< by src ip:port
    std::vector<Ptr<TalbMessageChannel>> m_channels;
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
        part.tensorId = talb_make_tensor_id(m_jobId, seg.tensor);
        part.priority = seg.priority;
        part.bytes = b - a;
        flags(j, a - starts[j], b - starts[j], &part);
        parts->push_back(part);
    }
}

} // namespace ns3

#endif /* TALB_COLLECTIVE_H */
