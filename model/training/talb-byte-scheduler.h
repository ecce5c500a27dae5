#ifndef TALB_BYTE_SCHEDULER_H
#define TALB_BYTE_SCHEDULER_H

#include "talb-comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief ByteScheduler: tensors are split into partitions of at most PartitionSize bytes,
 * queued by priority (the layer closest to the input first; within a tensor in order; older
 * iterations first) and launched while the bytes in flight plus the next partition stay within
 * Credit. Several partitions may be in flight at once; the credit is never exceeded.
 */
class TalbByteScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbByteScheduler();
    ~TalbByteScheduler() override;

  private:
    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
    bool DoCanLaunch(const TalbCommOp& next) const override;
    bool CheckConfig() override;

    uint64_t m_partitionSize;
    uint64_t m_credit;
};

} // namespace ns3

#endif /* TALB_BYTE_SCHEDULER_H */
