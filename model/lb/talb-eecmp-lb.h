#ifndef TALB_EECMP_LB_H
#define TALB_EECMP_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-eecmp.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Enhanced ECMP ("eecmp"): ECMP whose hash also covers a RoCEv2 packet's BTH destination
 * queue pair (Meta's E-ECMP), so a connection spread over several queue pairs
 * (TalbRdmaTransport QueuePairsPerConnection) takes several paths even when its queue pairs
 * share one UDP source port. On other packets (TCP) it picks what TalbEcmpLb picks: the same
 * salt (Salt, or derived from the switch's node id and the run) and the same hash.
 */
class TalbEEcmpLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbEEcmpLb();
    ~TalbEEcmpLb() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void InitializeParams() override;

    talb::lb::Ecmp::Config m_config; //!< the attributes (Salt); the switch id and run at install
    talb::lb::EEcmp m_core;          //!< the decision
};

} // namespace ns3

#endif /* TALB_EECMP_LB_H */
