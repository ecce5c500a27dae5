#ifndef TALB_LB_CORE_RPS_H
#define TALB_LB_CORE_RPS_H

#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

/// Random packet spraying: every packet takes a uniformly random candidate (one draw).
class Rps : public Policy
{
  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_RPS_H */
