#ifndef TALB_FIXED_RATE_H
#define TALB_FIXED_RATE_H

#include "talb-rdma-rate-control.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief No congestion control: every queue pair sends at line rate, and PFC alone keeps the
 * fabric lossless. The baseline TIMELY's and DCQCN's papers measure themselves against
 * ("PFC only"), registered as "none".
 */
class TalbFixedRate : public TalbRdmaRateControl
{
  public:
    static TypeId GetTypeId();

  private:
    Ptr<TalbRdmaRateControl> DoFork() const override;
};

} // namespace ns3

#endif /* TALB_FIXED_RATE_H */
