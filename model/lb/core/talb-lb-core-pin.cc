#include "talb-lb-core-pin.h"

namespace talb
{
namespace lb
{

uint32_t
Pin::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    return candidates.ports[Index(packet, candidates.count)];
}

} // namespace lb
} // namespace talb
