#ifndef TALB_GRAPH_ALGORITHM_H
#define TALB_GRAPH_ALGORITHM_H

#include "talb-coll-plan.h"

#include "ns3/object.h"
#include "ns3/talb-registry.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief A collective algorithm of graph jobs (TalbGraphJob): turns one collective instance
 * into a plan of sends per member (TalbCollPlan), which the communication engine
 * (TalbGraphComm) runs over the transport's channels.
 *
 * Split like ns-3's QueueDisc: the public non-virtual Supports() and Plan() check the
 * invariants (one member plan per member, sends to another member of the group, non-decreasing
 * \c after, every member receiving exactly the sends addressed to it); algorithms implement the
 * private DoSupports() and DoPlan(). An algorithm registers its short name in GetRegistry()
 * with TALB_REGISTER_PLUGIN in its own .cc; a job picks, for each collective type, the first
 * algorithm of its list that supports it (TalbGraphJob's Algorithms attribute).
 */
class TalbGraphAlgorithm : public Object
{
  public:
    static TypeId GetTypeId();
    TalbGraphAlgorithm();
    ~TalbGraphAlgorithm() override;

    /// \return the family's registry: short algorithm names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /// \return whether this algorithm runs collectives of type \p type
    bool Supports(talb::graph::CollType type) const;

    /**
     * \return the plan of \p request (a group of one member gets an empty plan); aborts when
     * the algorithm does not support its type or breaks an invariant of the plan
     */
    TalbCollPlan Plan(const TalbCollRequest& request) const;

  private:
    /// \return whether this algorithm runs \p type
    virtual bool DoSupports(talb::graph::CollType type) const = 0;
    /**
     * Fill \p plan (sized to the members, empty entries) for \p request of a supported type
     * with at least two members.
     */
    virtual void DoPlan(const TalbCollRequest& request, TalbCollPlan* plan) const = 0;
};

/// \ingroup talb-llm-engine
/// \return bytes [S k / n, S (k + 1) / n): piece \p k of \p n of \p bytes (sizes differ by <= 1)
uint64_t TalbPieceBytes(uint64_t bytes, uint64_t k, uint64_t n);

} // namespace ns3

#endif /* TALB_GRAPH_ALGORITHM_H */
