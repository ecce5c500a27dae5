#ifndef TALB_PIN_LB_H
#define TALB_PIN_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-pin.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Path pinning ("pin"): a packet takes candidate number (its destination host's port
 * under its leaf) mod (number of candidates), Meta's routing by destination slice (the core's
 * talb::lb::Pin). At a leaf whose uplinks go one to each spine, hosts on port p of any leaf are
 * reached through spine p mod spines, whatever the source, the flow or the load; a failed uplink
 * leaves fewer candidates and re-pins by the same rule.
 */
class TalbPinLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbPinLb();
    ~TalbPinLb() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void InitializeParams() override;

    talb::lb::Pin m_core; //!< the decision
};

} // namespace ns3

#endif /* TALB_PIN_LB_H */
