#ifndef TALB_GRAPH_COMM_H
#define TALB_GRAPH_COMM_H

#include "talb-coll-plan.h"
#include "talb-graph-algorithm.h"

#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-transport.h"

#include <array>
#include <deque>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief The communication engine of a graph job (TalbGraphJob): runs its collective
 * instances and point-to-point messages over one transport.
 *
 * - Channels: one per (communicator, sender, receiver), as NCCL keeps connections per
 *   communicator: each group's own, and one more set for point-to-point messages. They are
 *   opened by Setup(), for the edges that the plans of the collectives on each group use.
 * - Collectives: an instance's plan comes from the algorithm the job chose for its type
 *   (TalbGraphAlgorithm). A member runs the instances of a group one at a time, in the
 *   order they started (NCCL runs a communicator's operations in issue order on its stream):
 *   its part of instance seq + 1 starts once its part of seq is done. Messages of an instance
 *   that a member has not started yet are counted and wait there.
 * - Messages: a point-to-point message is one message on its channel.
 * Every message carries the job id, the node's tensor id and its priority (the node's own, or
 * talb_llm_priority() of its class and layer); payload parts mark the first and last message
 * of a member's instance to a peer (FIRST / LAST).
 */
class TalbGraphComm : public Object
{
  public:
    static TypeId GetTypeId();
    TalbGraphComm();
    ~TalbGraphComm() override;

    /// Member \p member of instance \p seq of group \p group is done.
    typedef Callback<void, uint32_t, uint64_t, uint32_t> MemberDoneCallback;
    /// Instance \p seq of group \p group is done: its first member started at \p start.
    typedef Callback<void, uint32_t, uint64_t, Time> InstanceDoneCallback;
    /// The message from rank, send node, to rank, receive node has arrived (started at time).
    typedef Callback<void, uint32_t, uint32_t, uint32_t, uint32_t, Time> MessageDoneCallback;
    /// A message was delivered (flows.csv).
    typedef Callback<void, const TalbFlowRecord&> FlowCallback;

    /**
     * Open the channels. \p graph (validated) and \p algorithms (one per collective type, by
     * its value; null for types the graph does not use) must outlive this.
     * \param jobId the job (top bits of the tensor ids on the wire)
     * \param graph the job's graph
     * \param hosts the host of each rank
     * \param transport set up for the job's port
     * \param algorithms the algorithm of each collective type
     */
    void Setup(uint32_t jobId,
               const talb::graph::Graph* graph,
               const std::vector<Ptr<Node>>& hosts,
               Ptr<TalbTransport> transport,
               const std::vector<Ptr<TalbGraphAlgorithm>>& algorithms);
    void SetCallbacks(MemberDoneCallback memberDone,
                      InstanceDoneCallback instanceDone,
                      MessageDoneCallback messageDone,
                      FlowCallback flow);

    /// Start instance \p seq of \p group, member i running node \p nodes[i].
    void StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes);
    /// Start the message of send node \p sendNode of \p from to receive \p recvNode of \p to.
    void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode);

    /// \return the priority of \p node of \p rank on the wire (its own, or the LLM rule)
    uint8_t GetPriority(uint32_t rank, uint32_t node) const;
    /// \return collective instances and messages started but not finished
    std::size_t GetInFlight() const;

  protected:
    void DoDispose() override;

  private:
    /// A collective instance in progress.
    struct Instance
    {
        uint32_t group{0};
        uint64_t seq{0};
        uint32_t iteration{0};
        uint32_t tensor{0};
        uint8_t priority{7};
        TalbCollPlan plan;
        std::vector<uint32_t> nextSend;          //!< per member: its next send
        std::vector<uint32_t> received;          //!< per member: messages received
        std::vector<uint32_t> inFlight;          //!< per member: sends not yet arrived
        std::vector<uint8_t> state;              //!< per member: 0 waiting, 1 running, 2 done
        std::vector<std::vector<uint8_t>> marks; //!< per member and send: FIRST 1 | LAST 2
        uint32_t done{0};
        Time start;
        bool started{false};
    };

    /// A point-to-point message in flight.
    struct Message
    {
        uint32_t from;
        uint32_t sendNode;
        uint32_t to;
        uint32_t recvNode;
        Time start;
    };

    /// \return the channel key of communicator \p comm from \p from to \p to
    static uint64_t Key(uint32_t comm, uint32_t from, uint32_t to);
    TalbCollRequest MakeRequest(uint32_t group, const std::vector<uint32_t>& nodes) const;
    void OpenChannel(uint32_t comm, uint32_t fromRank, uint32_t toRank, uint32_t from, uint32_t to);
    /// Member \p member runs its part of the front instance of its queue, if any.
    void RunFront(uint32_t group, uint32_t member);
    /// Issue the member's sends whose receives are in; finish it when all is done.
    void Advance(uint32_t opId, Instance& inst, uint32_t member);
    void Delivered(Ptr<TalbMessageChannel> channel,
                   const TalbMessage& message,
                   const TalbFlowRecord& record);
    /// A message's record, once its sender saw the last byte acknowledged.
    void Completed(const TalbFlowRecord& record);

    uint32_t m_jobId{0};
    const talb::graph::Graph* m_graph{nullptr};
    std::vector<Ptr<Node>> m_hosts;
    Ptr<TalbTransport> m_transport;
    std::vector<Ptr<TalbGraphAlgorithm>> m_algorithms;
    uint32_t m_layers{1}; //!< the graph's layers (the LLM priority rule of data traffic)
    std::unordered_map<uint64_t, Ptr<TalbMessageChannel>> m_channels;
    std::vector<std::size_t> m_queueBase;               //!< per group: its first member's queue
    std::vector<std::deque<uint32_t>> m_queues;         //!< per group member: instances, in order
    std::unordered_map<uint32_t, Instance> m_instances; //!< by op id
    std::unordered_map<uint32_t, Message> m_messages;   //!< by op id
    uint32_t m_nextOp{0};
    MemberDoneCallback m_memberDone;
    InstanceDoneCallback m_instanceDone;
    MessageDoneCallback m_messageDone;
    FlowCallback m_flow;
};

} // namespace ns3

#endif /* TALB_GRAPH_COMM_H */
