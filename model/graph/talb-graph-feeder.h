#ifndef TALB_GRAPH_FEEDER_H
#define TALB_GRAPH_FEEDER_H

#include "talb-exec-graph.h"

#include <cstdint>
#include <vector>

namespace talb
{
namespace graph
{

/**
 * \ingroup talb-graph
 * One rank's ready queue over its nodes, as ASTRA-sim's feeder keeps one: a node is ready once
 * every dependency has completed; ready nodes are taken in the order they became ready (the
 * initial ones in index order), so a run is deterministic. The engine takes a ready node,
 * executes it (a compute stream, a collective, a message) and reports its completion.
 * O(1) amortised per node and dependency; no allocation after construction. Misuse (taking
 * from an empty queue, completing a node not taken) aborts with a message in every build: an
 * engine that got it wrong would otherwise run a different graph, and the check is one
 * comparison per call.
 */
class Feeder
{
  public:
    /// \param nodes one rank's nodes (validated: deps in range, acyclic); must outlive this
    explicit Feeder(const std::vector<Node>& nodes);

    /// \return whether a ready node waits to be taken
    bool HasReady() const;
    /// \return the next ready node (HasReady() must hold); it is now in flight
    uint32_t PopReady();
    /// Node \p node (taken, not yet completed) has finished: its dependents may become ready.
    void Complete(uint32_t node);
    /// \return whether every node has completed
    bool Done() const;
    /// \return nodes completed so far
    uint32_t Completed() const;

  private:
    const std::vector<Node>& m_nodes;
    std::vector<uint32_t> m_succStart; //!< CSR: successors of i are m_succ[start[i]..start[i+1])
    std::vector<uint32_t> m_succ;
    std::vector<uint32_t> m_pending; //!< per node: dependencies not yet completed
    std::vector<uint8_t> m_state;    //!< per node: 0 waiting, 1 ready, 2 taken, 3 done
    std::vector<uint32_t> m_ready;   //!< FIFO: every node enters once, so n slots suffice
    uint32_t m_readyHead{0};
    uint32_t m_completed{0};
};

} // namespace graph
} // namespace talb

#endif /* TALB_GRAPH_FEEDER_H */
