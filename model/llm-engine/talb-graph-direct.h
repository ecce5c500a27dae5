#ifndef TALB_GRAPH_DIRECT_H
#define TALB_GRAPH_DIRECT_H

#include "talb-graph-algorithm.h"

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief Direct algorithms ("direct"): every piece goes straight to the member that needs it,
 * as NCCL's all-to-all, gather and scatter do (one send per peer, all at once).
 *
 * - all-to-all: member i sends member j its split (TalbCollRequest::sent; an even split of S
 *   when empty), a header-only message where that is 0, in N-1 steps as NCCL schedules its
 *   point-to-point operations: step k to member i + k, once the message of step k-1 from
 *   member i - (k-1) has arrived, so every NIC receives one message at a time (all at once,
 *   N-1 senders into each NIC, TCP took +51 % over the bound here);
 * - gather: each member sends its piece S / N to the root once the root has cleared it with a
 *   header-only message, one member at a time (the root's NIC receives at line rate: an incast
 *   of N-1 senders took +36 % over RDMA); scatter: the root sends each its piece;
 * - broadcast (reduce): the root sends S to (receives S from) each member, (N-1) S / B at the
 *   root: the "pipeline" algorithm is faster and is the default;
 * - barrier: header-only messages, every member to the root, then the root to every member.
 * Bounds: talb-collective-bounds.h.
 */
class TalbGraphDirect : public TalbGraphAlgorithm
{
  public:
    static TypeId GetTypeId();
    TalbGraphDirect();
    ~TalbGraphDirect() override;

  private:
    bool DoSupports(talb::graph::CollType type) const override;
    void DoPlan(const TalbCollRequest& request, TalbCollPlan* plan) const override;
};

} // namespace ns3

#endif /* TALB_GRAPH_DIRECT_H */
