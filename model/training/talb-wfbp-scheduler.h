#ifndef TALB_WFBP_SCHEDULER_H
#define TALB_WFBP_SCHEDULER_H

#include "talb-comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Wait-free backpropagation: one collective per tensor, launched in ready order, one at
 * a time (one communication stream, as NCCL runs collectives of one communicator in order).
 */
class TalbWfbpScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbWfbpScheduler();
    ~TalbWfbpScheduler() override;

  private:
    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
};

} // namespace ns3

#endif /* TALB_WFBP_SCHEDULER_H */
