#ifndef TALB_GRAPH_EXECUTOR_H
#define TALB_GRAPH_EXECUTOR_H

#include "talb-exec-graph.h"
#include "talb-graph-feeder.h"

#include <cstdint>
#include <string>
#include <vector>

namespace talb
{
namespace graph
{

/**
 * \ingroup talb-graph
 * What executing a graph needs from its world: the ns-3 job engine (TalbGraphJob: a
 * simulated fabric) and the ideal replay (IdealReplay: analytic times on an idle non-blocking
 * fabric) implement it. The Executor decides what runs when; the environment decides how long
 * it takes and reports back. Every Start* call is answered later: StartCompute by one
 * ComputeDone, StartMessage by one MessageDone, StartCollective by one CollectiveDone per
 * member. An answer may come from inside the Start* call (zero-time work): the Executor then
 * defers what it makes ready until the Start* call has returned, so Start* calls never nest.
 */
class ExecutorEnv
{
  public:
    virtual ~ExecutorEnv() = default;

    /// Run compute (or memory) node \p node of \p rank for its durationNs; answer ComputeDone().
    virtual void StartCompute(uint32_t rank, uint32_t node) = 0;
    /**
     * Every member of group \p group has issued its collective number \p seq (0, 1, ... in the
     * order each member issued its collectives on the group; instances of a group start in
     * sequence order): start it. \p nodes[i] is the node of the group's i-th rank (valid during
     * the call; Executor::CollectiveNode() gives it later). Answer CollectiveDone() once per
     * member as each finishes (a member may finish before others).
     */
    virtual void StartCollective(uint32_t group,
                                 uint64_t seq,
                                 const std::vector<uint32_t>& nodes) = 0;
    /**
     * Node \p sendNode of \p from has a message for \p to and the matching receive \p recvNode
     * is issued there (sends and receives match in order per (from, to, tag)). Answer
     * MessageDone() when it has arrived.
     */
    virtual void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode) = 0;
    /// Node \p node of \p rank has been issued: its dependencies completed. Default: nothing.
    virtual void NodeIssued(uint32_t rank, uint32_t node);
    /// Node \p node of \p rank has completed (records, tracing). Default: nothing.
    virtual void NodeDone(uint32_t rank, uint32_t node);
};

/**
 * \ingroup talb-graph
 * Runs a validated Graph's dependency rules, the same for every environment:
 * - each rank has one Feeder; a node is issued once its dependencies completed;
 * - a rank has two compute streams, its GPU's and its host's (Node::host: a trace's CPU
 *   operations); each runs its compute and memory nodes one at a time, in the order they were
 *   issued, the two side by side (a GPU runs one kernel stream, a host thread one operation, as
 *   ASTRA-sim's hardware resource has it; communication overlaps both);
 * - a rank's collectives on a group are numbered 0, 1, ... in the order the rank issues them
 *   (NCCL: collectives on a communicator are called in the same order on every rank); instance
 *   seq starts when every member has issued its collective seq. The members' nodes must agree
 *   in type, and except for all-to-all in bytes and root; else Error() names the group, the
 *   sequence number, the ranks and nodes, and the instance (with the group's later ones) never
 *   starts. An all-to-all's members differ in bytes and split: each sends its own (MoE routing
 *   is uneven). The Executor does not hold an instance back until the group's previous one has
 *   finished: an environment that serialises a communicator's collectives queues them itself;
 * - a send and a receive of the same (from, to, tag) match in issue order; the message starts
 *   when both are issued; both nodes complete when it has arrived (a rendezvous, as NCCL's
 *   large-message protocol); a pair whose bytes differ is an Error() and never starts;
 * - a rank is done when every one of its nodes has completed.
 * Plain C++, deterministic: the same sequence of *Done calls gives the same Start* calls.
 * Memory is sized at construction (O(nodes + groups + ranks)); running allocates nothing but
 * Error() and Stall() messages. Misuse by the environment (completing what was not started, or
 * twice) aborts with a message in every build, as the Feeder does.
 */
class Executor
{
  public:
    /**
     * \param graph must satisfy Validate() (a precondition, not checked again: an invalid graph
     * may abort or run wrongly) and outlive this
     * \param env must outlive this
     */
    Executor(const Graph& graph, ExecutorEnv* env);

    /// Issue every rank's initially ready nodes (once, before any *Done call).
    void Start();
    /// The environment finished compute node \p node of \p rank.
    void ComputeDone(uint32_t rank, uint32_t node);
    /// The environment finished member \p member (position in the group) of collective \p seq.
    void CollectiveDone(uint32_t group, uint64_t seq, uint32_t member);
    /// The environment delivered the message of StartMessage(from, sendNode, to, recvNode).
    void MessageDone(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode);

    /// \return whether every rank completed every node
    bool Done() const;
    /// \return whether rank \p rank completed every node
    bool RankDone(uint32_t rank) const;
    /// \return the first mismatch found (collective or message pairs that disagree), empty if none
    const std::string& Error() const;
    /**
     * \return what the unfinished ranks wait for, when nothing is in flight and Done() is false
     * (a deadlock, or an Error()): the first group instance some member has not issued, the
     * first message whose other side is not issued, and how far each unfinished rank got
     * (up to 8 lines); empty when Done()
     */
    std::string Stall() const;

    /// \return the node of member \p member of started collective \p seq on group \p group
    uint32_t CollectiveNode(uint32_t group, uint64_t seq, uint32_t member) const;
    /// \return how many instances of group \p group have started
    uint64_t CollectivesStarted(uint32_t group) const;

  private:
    /// A compute stream: its slice of m_streamSlots is a FIFO every node enters once.
    struct Stream
    {
        uint32_t head{0};        //!< next slot to run
        uint32_t tail{0};        //!< next free slot
        uint32_t running{kIdle}; //!< the node on the stream, or kIdle
        static constexpr uint32_t kIdle = UINT32_MAX;
    };

    /// A group's collective instances: K per member, slots[seq * N + member] = node.
    struct GroupState
    {
        std::size_t slots{0};    //!< first entry in m_collSlots
        std::size_t arrivals{0}; //!< first entry in m_arrivals (one per instance)
        std::size_t members{0};  //!< first entry in m_issued (one per member)
        uint64_t instances{0};   //!< K: collectives each member issues on the group
        uint64_t started{0};     //!< instances started
        bool failed{false};      //!< instance `started` disagreed: the group is stuck
    };

    /// One direction and tag of point-to-point traffic: the k-th send matches the k-th receive.
    struct Channel
    {
        uint32_t from{0};
        uint32_t to{0};
        uint32_t tag{0};
        uint32_t sendSlots{0}; //!< first entry in m_p2pSlots for sends (sendCount of them)
        uint32_t recvSlots{0}; //!< first entry for receives (recvCount of them)
        uint32_t sendCount{0};
        uint32_t recvCount{0};
        uint32_t sends{0};   //!< sends issued
        uint32_t recvs{0};   //!< receives issued
        uint32_t matched{0}; //!< pairs started
        bool failed{false};  //!< pair `matched` disagreed: the channel is stuck
    };

    /// A rank's streams: its GPU's (0) and its host's (1, Node::host).
    static constexpr uint32_t kStreams = 2;
    /// \return stream \p stream (0 GPU, 1 host) of \p rank
    Stream& StreamAt(uint32_t rank, uint32_t stream);
    /// \return the stream compute or memory node \p node of \p rank runs on
    Stream& StreamOf(uint32_t rank, uint32_t node);
    void IndexNodes();
    void SizeSlots();
    void Issue(uint32_t rank, uint32_t node);
    void IssueCollective(uint32_t rank, uint32_t node);
    void IssueP2p(uint32_t rank, uint32_t node);
    void StartReadyCollectives(uint32_t group);
    void MatchMessages(uint32_t channel);
    void Complete(uint32_t rank, uint32_t node);
    void MarkDirty(uint32_t rank);
    /// Issues the ready nodes and starts the compute streams of dirty ranks until none is left.
    void Drain();
    void Fail(std::string message);

    const Graph& m_graph;
    ExecutorEnv* m_env;
    std::vector<Feeder> m_feeders;
    std::vector<std::size_t> m_nodeBase; //!< per rank: its first entry in m_aux
    /// per node: a collective's member position in its group, a send's or receive's channel
    std::vector<uint32_t> m_aux;

    std::vector<Stream> m_streams; //!< per rank: its GPU stream, then its host stream
    std::vector<uint32_t> m_streamSlots;

    std::vector<GroupState> m_groups;
    std::vector<uint32_t> m_collSlots;
    std::vector<uint32_t> m_arrivals;      //!< per instance: members that issued it
    std::vector<uint64_t> m_issued;        //!< per group member: collectives issued on the group
    std::vector<uint32_t> m_instanceNodes; //!< StartCollective()'s argument, reused

    std::vector<Channel> m_channels;
    std::vector<uint32_t> m_p2pSlots;

    std::vector<uint32_t> m_dirty; //!< ring of ranks to revisit, each at most once
    std::vector<uint8_t> m_isDirty;
    std::size_t m_dirtyHead{0};
    std::size_t m_dirtyCount{0};
    bool m_draining{false};
    bool m_started{false};
    uint32_t m_ranksDone{0};
    std::string m_error;
};

} // namespace graph
} // namespace talb

#endif /* TALB_GRAPH_EXECUTOR_H */
