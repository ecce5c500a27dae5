#ifndef TALB_GRAPH_EXECUTOR_H
#define TALB_GRAPH_EXECUTOR_H

#include "talb-exec-graph.h"
#include "talb-graph-feeder.h"

#include <cstdint>
#include <deque>
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
 * it takes and reports back. Every Start* call is answered later by exactly one of the
 * Executor's *Done calls (possibly from inside the Start* call for zero-time work).
 */
class ExecutorEnv
{
  public:
    virtual ~ExecutorEnv() = default;

    /// Run compute (or memory) node \p node of \p rank for its durationNs; answer ComputeDone().
    virtual void StartCompute(uint32_t rank, uint32_t node) = 0;
    /**
     * Every member of group \p group has issued its collective number \p seq: start it.
     * \p nodes[i] is the node of the group's i-th rank. Answer CollectiveDone() once per member
     * as each finishes (a member may finish before others).
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
    /// Node \p node of \p rank has completed (records, tracing). Default: nothing.
    virtual void NodeDone(uint32_t rank, uint32_t node);
};

/**
 * \ingroup talb-graph
 * Runs a validated Graph's dependency rules, the same for every environment:
 * - each rank has one Feeder; a node is issued once its dependencies completed;
 * - compute and memory nodes of a rank share one compute stream and run one at a time, in the
 *   order they were issued (a GPU runs one kernel stream; communication overlaps it);
 * - a collective starts when every member of its group has issued its collective of the same
 *   sequence number on that group (NCCL: collectives on a communicator are called in the same
 *   order on every rank; the sequences must agree in type and bytes, else Error());
 * - a send and a receive of the same (from, to, tag) match in issue order; the message starts
 *   when both are issued; both nodes complete when it has arrived (a rendezvous, as NCCL's
 *   large-message protocol);
 * - a rank is done when every one of its nodes has completed.
 * Plain C++, deterministic: the same sequence of *Done calls gives the same Start* calls.
 */
class Executor
{
  public:
    /// \param graph validated (Validate()); must outlive this. \param env must outlive this.
    Executor(const Graph& graph, ExecutorEnv* env);

    /// Issue every rank's initially ready nodes.
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
    /// \return the first mismatch found (collective sequences that disagree), empty if none
    const std::string& Error() const;
};

} // namespace graph
} // namespace talb

#endif /* TALB_GRAPH_EXECUTOR_H */
