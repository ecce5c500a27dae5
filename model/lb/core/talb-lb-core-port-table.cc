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

} // namespace lb
} // namespace talb
