#include "talb-lb-core-port-table.h"

namespace talb
{
namespace lb
{

PortTable::PortTable(PortState* ports, uint32_t count)
    : m_ports(ports),
      m_count(count)
{
}

uint64_t
PortTable::QueueBytes(uint32_t port) const
{
    return m_ports[port].queueBytes;
}

double
PortTable::Utilization(uint32_t port, int64_t nowNs) const
{
    return m_ports[port].dre.Utilization(nowNs, m_ports[port].rateBps);
}

uint64_t
PortTable::QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const
{
    uint64_t bytes = 0;
    for (uint8_t b = 0; b <= priority && b < TALB_NUM_PRIORITIES; ++b)
    {
        bytes += m_ports[port].bandBytes[b];
    }
    return bytes;
}

uint64_t
PortTable::RateBps(uint32_t port) const
{
    return m_ports[port].rateBps;
}

uint64_t
PortTable::PathRateBps(uint32_t port, uint32_t /* dstLeaf */) const
{
    const PortState& p = m_ports[port];
    return (p.remoteRateBps && p.remoteRateBps < p.rateBps) ? p.remoteRateBps : p.rateBps;
}

uint64_t
PortTable::RoomBytes(uint32_t port, uint8_t /* priority */) const
{
    const PortState& p = m_ports[port];
    if (p.bufferBytes == 0)
    {
        return kUnknownRoom;
    }
    return p.bufferBytes > p.queueBytes ? p.bufferBytes - p.queueBytes : 0;
}

} // namespace lb
} // namespace talb
