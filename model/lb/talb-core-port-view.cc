#include "talb-core-port-view.h"

namespace ns3
{

TalbCorePortView::TalbCorePortView(const std::vector<TalbPortState>* ports)
    : m_ports(ports)
{
}

void
TalbCorePortView::SetPorts(const std::vector<TalbPortState>* ports)
{
    m_ports = ports;
    m_bands.clear();
    if (ports)
    {
        for (const TalbPortState& p : *ports)
        {
            m_bands.push_back(dynamic_cast<const TalbBandedQueue*>(PeekPointer(p.queue)));
        }
    }
}

uint64_t
TalbCorePortView::QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const
{
    const TalbBandedQueue* q = port < m_bands.size() ? m_bands[port] : nullptr;
    return q ? q->GetBytesAtOrAbove(priority) : QueueBytes(port);
}

uint64_t
TalbCorePortView::RoomBytes(uint32_t port, uint8_t priority) const
{
    static_assert(TalbBandedQueue::UNKNOWN_ROOM == talb::lb::PortView::kUnknownRoom);
    const TalbBandedQueue* q = port < m_bands.size() ? m_bands[port] : nullptr;
    if (q)
    {
        return q->GetRoomBytes(priority);
    }
    const TalbPortState& p = (*m_ports)[port];
    if (!p.queue || p.queue->GetMaxSize().GetUnit() != QueueSizeUnit::BYTES)
    {
        return kUnknownRoom;
    }
    const uint64_t max = p.queue->GetMaxSize().GetValue();
    return max > p.queue->GetNBytes() ? max - p.queue->GetNBytes() : 0;
}

uint64_t
TalbCorePortView::RateBps(uint32_t port) const
{
    return (*m_ports)[port].rate.GetBitRate();
}

uint64_t
TalbCorePortView::PathRateBps(uint32_t port, uint32_t dstLeaf) const
{
    const TalbPortState& p = (*m_ports)[port];
    uint64_t path = dstLeaf < p.pathRateBps.size() ? p.pathRateBps[dstLeaf] : 0;
    return path ? path : p.rate.GetBitRate();
}

uint64_t
TalbCorePortView::QueueBytes(uint32_t port) const
{
    const TalbPortState& p = (*m_ports)[port];
    return p.queue ? p.queue->GetNBytes() : 0;
}

double
TalbCorePortView::Utilization(uint32_t port, int64_t nowNs) const
{
    const TalbPortState& p = (*m_ports)[port];
    return p.dre.GetUtilization(NanoSeconds(nowNs), p.rate);
}

} // namespace ns3
