#ifndef TALB_RPS_LB_H
#define TALB_RPS_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-rps.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Random packet spraying: every packet takes a uniformly random candidate port (the
 * core's talb::lb::Rps, one draw per packet).
 */
class TalbRpsLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbRpsLb();
    ~TalbRpsLb() override;

    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void InitializeParams() override;

    talb::lb::Rps m_core; //!< the decision
};

} // namespace ns3

#endif /* TALB_RPS_LB_H */
