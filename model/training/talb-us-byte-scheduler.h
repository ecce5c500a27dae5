#ifndef TALB_US_BYTE_SCHEDULER_H
#define TALB_US_BYTE_SCHEDULER_H

#include "talb-comm-scheduler.h"

#include "ns3/data-rate.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief US-Byte-style scheduling: unequal-sized blocks in a planned order.
 *
 * The plan is computed once from the model's compute times and an alpha-beta cost model
 * (a collective of b bytes takes StartupTime + beta x b, beta = 2(N-1)/N x 8 / Bandwidth),
 * following the paper's two phases:
 *  1. backward phase: while gradients are still being produced, the link sends the most urgent
 *     ready tensor (closest to the input); each block is sized to end when the next gradient
 *     becomes ready (so that more urgent tensor does not wait behind it), at least MinBlockSize
 *     and at most what is left of the tensor;
 *  2. forward phase: once backward has finished, what is left is sent in layer order (the
 *     order the next forward pass needs it: earliest deadline first), consecutive remainders
 *     fused into blocks of at least MinBlockSize.
 * At run time blocks are launched strictly in plan order, one at a time, each once its
 * tensors are ready. See doc/talb-generator.rst.
 */
class TalbUsByteScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbUsByteScheduler();
    ~TalbUsByteScheduler() override;

    /// \return the plan: blocks in plan order
    const std::vector<std::vector<TalbCommSegment>>& GetPlan() const;

  private:
    /// Bytes of each tensor the plan has placed so far.
    struct Progress
    {
        std::vector<uint64_t> sent;
        std::vector<uint64_t> total;

        /// \return the next \p bytes of \p whole's tensor, as a segment; counts them placed
        TalbCommSegment Take(TalbCommSegment whole, uint64_t bytes);
    };

    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
    void InitializeParams() override;
    /// Phase 1: blocks sent while gradients are still being produced.
    void PlanBackwardPhase(Progress& progress);
    /// Phase 2: what is left, in layer order, fused into blocks of at least MinBlockSize.
    void PlanForwardPhase(Progress& progress);

    DataRate m_bandwidth;
    Time m_startup;
    uint64_t m_minBlock;
    std::vector<std::vector<TalbCommSegment>> m_plan;
    std::vector<std::vector<uint32_t>> m_blocksOf; //!< per tensor: blocks holding it
    std::vector<uint32_t> m_unready;               //!< per block: tensors not ready yet
    std::vector<bool> m_eligible;                  //!< per block: ready, not launched
    uint32_t m_nextBlock{0};                       //!< next block to launch, in plan order
};

} // namespace ns3

#endif /* TALB_US_BYTE_SCHEDULER_H */
