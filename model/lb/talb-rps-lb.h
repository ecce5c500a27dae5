#ifndef TALB_RPS_LB_H
#define TALB_RPS_LB_H

#include "talb-load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Random packet spraying: every packet takes a uniformly random candidate port.
 */
class TalbRpsLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbRpsLb();
    ~TalbRpsLb() override;

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;

    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif /* TALB_RPS_LB_H */
