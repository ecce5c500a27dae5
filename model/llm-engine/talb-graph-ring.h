#ifndef TALB_GRAPH_RING_H
#define TALB_GRAPH_RING_H

#include "talb-graph-algorithm.h"

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief Ring reduce-scatter, all-gather and all-reduce ("ring"), as NCCL's ring algorithm
 * across nodes.
 *
 * Member i sends only to member i + 1 (mod N), in steps of one chunk: the buffer S cut into N
 * contiguous chunks whose sizes differ by at most one byte. Reduce-scatter: step k
 * (0 <= k < N-1) sends chunk (i - k) mod N; all-gather: step k sends chunk (i + 1 - k) mod N;
 * all-reduce: the reduce-scatter's N-1 steps, then the all-gather's. Step k + 1 leaves once
 * step k has arrived from member i - 1 (its data depend on it). Bound: (N-1)/N x S / B for
 * reduce-scatter and all-gather, twice that for all-reduce (talb-collective-bounds.h).
 */
class TalbGraphRing : public TalbGraphAlgorithm
{
  public:
    static TypeId GetTypeId();
    TalbGraphRing();
    ~TalbGraphRing() override;

  private:
    bool DoSupports(talb::graph::CollType type) const override;
    void DoPlan(const TalbCollRequest& request, TalbCollPlan* plan) const override;
};

} // namespace ns3

#endif /* TALB_GRAPH_RING_H */
