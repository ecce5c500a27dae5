#include "talb-lb-core-ns3.h"

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
            m_bands.push_back(PeekPointer(DynamicCast<TalbPriorityQueue>(p.queue)));
        }
    }
}

uint64_t
TalbCorePortView::QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const
{
    const TalbPriorityQueue* q = port < m_bands.size() ? m_bands[port] : nullptr;
    if (!q)
    {
        return QueueBytes(port);
    }
    uint64_t bytes = 0;
    for (uint8_t b = 0; b <= priority && b < TALB_NUM_PRIORITIES; ++b)
    {
        bytes += q->GetBandBytes(b);
    }
    return bytes;
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

void
TalbCoreRandom::Create()
{
    m_rng = CreateObject<UniformRandomVariable>();
}

void
TalbCoreRandom::Share(Ptr<UniformRandomVariable> rng)
{
    m_rng = rng;
}

void
TalbCoreRandom::Dispose()
{
    m_rng = nullptr;
}

uint32_t
TalbCoreRandom::Integer(uint32_t min, uint32_t max)
{
    return m_rng->GetInteger(min, max);
}

Ptr<UniformRandomVariable>
TalbCoreRandom::GetVariable() const
{
    return m_rng;
}

TalbCoreEvents::TalbCoreEvents(Callback<void, uint32_t, uint32_t> rerouted)
    : m_rerouted(rerouted)
{
}

void
TalbCoreEvents::Rerouted(const talb::lb::PacketInfo& /* packet */, uint32_t from, uint32_t to)
{
    m_rerouted(from, to);
}

} // namespace ns3
