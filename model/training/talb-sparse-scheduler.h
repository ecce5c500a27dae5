#ifndef TALB_SPARSE_SCHEDULER_H
#define TALB_SPARSE_SCHEDULER_H

#include "talb-comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Layer-centric sparse gradients (LaySA-style): each tensor is top-k sparsified with
 * Ratio, so it sends ceil(Ratio x params) (index, value) pairs: IndexBytes + bytes per
 * element each (fp32 with 4-byte indices: 2 x Ratio x dense bytes). A layer's tensors go as
 * one collective once the whole layer is ready, one at a time, in ready order. The collective
 * itself is unchanged (the traffic effect of sparsification is the smaller message).
 */
class TalbSparseScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbSparseScheduler();
    ~TalbSparseScheduler() override;

  private:
    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
    uint64_t DoGetWireBytes(uint32_t tensor) const override;
    void InitializeParams() override;

    double m_ratio;
    uint32_t m_indexBytes;
    std::vector<uint32_t> m_layerFirst;   //!< per layer: its first tensor
    std::vector<uint32_t> m_layerCount;   //!< per layer: its tensors
    std::vector<uint32_t> m_layerPending; //!< per layer: tensors not ready yet
};

} // namespace ns3

#endif /* TALB_SPARSE_SCHEDULER_H */
