#ifndef TALB_LB_CORE_PIN_H
#define TALB_LB_CORE_PIN_H

#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

/**
 * Path pinning by destination slice (Meta, SIGCOMM 2024, section on routing): a packet takes
 * candidate number (its destination host's port under its leaf) mod (number of candidates). At
 * a leaf with one uplink per spine, the hosts on port p of every leaf are reached through spine
 * p mod spines: traffic to a fully allocated rack spreads evenly over the uplinks, but when a job
 * holds only some ports of its racks the flows of those ports share their few uplinks while the
 * others idle (the collisions Meta reports for partially allocated racks). The flow, its 5-tuple
 * and the load play no part.
 */
class Pin : public Policy
{
  public:
    /// \return the index (into the candidates) of \p packet's port among \p count candidates
    static uint32_t Index(const PacketInfo& packet, uint32_t count)
    {
        return packet.dstLeafPort % count;
    }

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_PIN_H */
