#ifndef TALB_FUSION_SCHEDULER_H
#define TALB_FUSION_SCHEDULER_H

#include "talb-comm-scheduler.h"

#include "ns3/event-id.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Tensor fusion (Horovod / PyTorch DDP buckets): ready tensors are appended to a bucket
 * that is launched as one collective when the next tensor would overflow BucketSize, when it
 * reaches BucketSize, when Timeout has passed since its first tensor (Horovod cycle time), or
 * when the iteration's last gradient is ready (DDP). A tensor larger than the bucket goes
 * alone. Buckets are launched one at a time, in order.
 */
class TalbFusionScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbFusionScheduler();
    ~TalbFusionScheduler() override;

  protected:
    void DoDispose() override;

  private:
    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
    void InitializeParams() override;
    void Flush();

    uint64_t m_bucketSize;
    Time m_timeout;
    TalbCommOp m_bucket;
    uint64_t m_bucketBytes{0};
    uint32_t m_readyInIteration{0};
    EventId m_timer;
};

} // namespace ns3

#endif /* TALB_FUSION_SCHEDULER_H */
