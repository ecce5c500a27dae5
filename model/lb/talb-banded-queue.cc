#include "talb-banded-queue.h"

namespace ns3
{

TalbBandedQueue::~TalbBandedQueue() = default;

uint64_t
TalbBandedQueue::GetRoomBytes(uint8_t priority) const
{
    (void)priority;
    return UNKNOWN_ROOM;
}

} // namespace ns3
