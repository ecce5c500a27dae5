#ifndef TALB_GRAPH_PIPELINE_H
#define TALB_GRAPH_PIPELINE_H

#include "talb-graph-algorithm.h"

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief Pipelined ring broadcast and reduce ("pipeline"), as NCCL's ring broadcast and
 * reduce.
 *
 * The buffer S is cut into C chunks that travel a chain of the group's ring edges: a broadcast
 * from the root to root + 1, ..., root - 1 (every edge but the one into the root), a reduce
 * from root + 1 through root - 1 to the root (every edge but the one out of it). The chain's
 * head sends every chunk at once; every other member forwards chunk c once it has received it.
 * The time is (C + N - 2) chunk times, S / B x (1 + (N-2) / C): with C = ChunksPerHop x (N-1)
 * chunks (no smaller than MinChunkBytes) the pipeline's fill costs at most 1 / ChunksPerHop over
 * the bound S / B. Why not direct: a root that sends S to each member needs (N-1) S / B; the
 * chain moves S over each NIC once. Two members: one chunk, no pipeline to fill.
 */
class TalbGraphPipeline : public TalbGraphAlgorithm
{
  public:
    static TypeId GetTypeId();
    TalbGraphPipeline();
    ~TalbGraphPipeline() override;

    /// \return the number of chunks a buffer of \p bytes travels in among \p members
    uint32_t GetChunks(uint64_t bytes, uint32_t members) const;

  private:
    bool DoSupports(talb::graph::CollType type) const override;
    void DoPlan(const TalbCollRequest& request, TalbCollPlan* plan) const override;

    uint32_t m_chunksPerHop;
    uint64_t m_minChunkBytes;
};

} // namespace ns3

#endif /* TALB_GRAPH_PIPELINE_H */
