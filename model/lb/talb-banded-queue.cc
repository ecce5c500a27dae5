#include "talb-banded-queue.h"

namespace ns3
{

TalbBandedQueue::~TalbBandedQueue() = default;

} // namespace ns3
