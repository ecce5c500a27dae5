#ifndef TALB_IDEAL_REPLAY_H
#define TALB_IDEAL_REPLAY_H

#include "talb-collective-bounds.h"
#include "talb-exec-graph.h"

#include <cstdint>
#include <string>
#include <vector>

namespace talb
{
namespace graph
{

/**
 * \ingroup talb-graph
 * The ideal run of a graph job: the Executor's rules (the ones the ns-3 engine follows) over an
 * idle non-blocking fabric, timed by a plain discrete-event loop (a priority queue of (time,
 * sequence) events; no ns-3). Its iteration times are what "x ideal" divides by for graph jobs.
 *
 * Times:
 * - a compute or memory node takes its durationNs on its rank's compute stream;
 * - a collective instance needs its bound B (InstanceBoundNs: its analytic time alone on the
 *   fabric) and a message S / rate of the link it crosses (SendRecvBoundNs);
 * - processor sharing: every rank has two links, its NIC and its intra-server link. A
 *   communication operation uses the NICs of all its ranks when they span servers (a group on
 *   several servers, a message between two), else their intra-server links. Each link serves
 *   the operations in flight on it at equal shares: with k of them, each gets 1/k of it. An
 *   operation progresses at the slowest share among its links, min over its ranks of 1 / k,
 *   so its remaining work (in ns at full rate, B at the start) falls at that rate; shares are
 *   recomputed whenever an operation starts or finishes. One operation alone takes exactly B;
 *   two that start together on the same NICs take 2 B each. Every member of a collective
 *   finishes at the instance's end; both sides of a message at its arrival.
 *
 * Why a simulated iteration is no shorter (up to headers and latency): the graph, the compute
 * times and the Executor (streams, collective and message rendezvous) are the simulation's;
 * every operation alone gets the whole of its links at line rate with nothing else in the
 * fabric, and the bound of each algorithm counts only the bytes that must cross the busiest of
 * them; operations in flight together on one link share it, as they must on a real NIC, and the
 * fabric (congestion, queues, ECMP collisions, transport dynamics, packet headers, latency)
 * only adds time. Two limits of that argument, stated so that results read right: (1) the
 * replay shares a link equally, while a fabric that serves urgent traffic first (TaLB's
 * priority bands) finishes the urgent operation sooner and the others later (the link's total
 * work is the same), so a dependency path through the urgent one can beat the replay; (2) an
 * operation's share is its slowest link's, and what that leaves unused on its other links is
 * not handed to other operations. Neither arises while no two operations overlap on a link.
 *
 * Iterations: a rank's iteration i starts when it issues its first node of iteration i
 * (Node::iteration; its dependencies have completed) and ends when its last node of iteration
 * i completes; an iteration's time is the longest of its ranks' spans (the engine reports the
 * same).
 */
class IdealReplay
{
  public:
    /// The fabric the replay assumes.
    struct Fabric
    {
        std::vector<uint32_t> serverOf; //!< per rank of the graph: its server
        LinkRates rates;                //!< every GPU's NIC and intra-server link
    };

    /// One collective instance of the replay.
    struct Collective
    {
        uint32_t group{0};
        uint64_t seq{0};   //!< the instance's number on its group (Executor)
        double startNs{0}; //!< its last member issued it
        double endNs{0};   //!< its members finished
        double boundNs{0}; //!< InstanceBoundNs: its time alone on the fabric

        /// \return its ideal duration, end - start (>= boundNs; more when it shared links)
        double IdealNs() const
        {
            return endNs - startNs;
        }
    };

    /// What Run() found.
    struct Result
    {
        std::string error;    //!< empty: every node completed; else why not (fabric, Error, stall)
        double makespanNs{0}; //!< the last node's completion (the run starts at 0)
        /// [rank][iteration]: the iteration's start and end on the rank; -1 where the rank has
        /// no node of that iteration
        std::vector<std::vector<double>> iterationStartNs;
        std::vector<std::vector<double>> iterationEndNs;
        /// per iteration: the longest span (end - start) over the ranks that have it
        std::vector<double> iterationNs;
        std::vector<Collective> collectives; //!< every instance started, in start order
    };

    /**
     * \return an empty string if \p fabric suits \p graph (a server per rank, rates positive and
     * finite), else what is wrong
     */
    static std::string CheckFabric(const Graph& graph, const Fabric& fabric);

    /**
     * Replays \p graph on \p fabric.
     * \param graph must satisfy Validate() (a precondition, as for the Executor: not checked
     * again, an invalid graph may abort or replay wrongly); its iterations (Graph::iterations,
     * at least the largest Node::iteration + 1) size the per-iteration results
     * \param fabric checked (CheckFabric): a bad one gives Result::error and nothing else
     */
    static Result Run(const Graph& graph, const Fabric& fabric);
};

} // namespace graph
} // namespace talb

#endif /* TALB_IDEAL_REPLAY_H */
