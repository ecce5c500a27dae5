#include "talb-lb-core-rps.h"

namespace talb
{
namespace lb
{

uint32_t
Rps::DoSelect(const PacketInfo& /* packet */, const Candidates& candidates)
{
    return candidates.ports[Draw(0, candidates.count - 1)];
}

} // namespace lb
} // namespace talb
