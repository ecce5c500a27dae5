#include "talb-egress-queue.h"

namespace talb
{

const char*
EgressQueue::Check(const EgressConfig& c)
{
    if (c.bufferBytes < 2048)
    {
        return "the egress buffer must hold at least 2048 bytes";
    }
    if (c.bandPackets == 0 || c.bandPackets > (1u << 20) ||
        (c.bandPackets & (c.bandPackets - 1)) != 0)
    {
        return "packets per band must be a power of two in 1..2^20";
    }
    lb::BandDrr drr;
    if (const char* error = drr.Configure(c.strictBands, c.bandWeights, c.quantumBytes))
    {
        return error;
    }
    return nullptr;
}

bool
EgressQueue::Init(const EgressConfig& config)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_mask = config.bandPackets - 1;
    for (Band& b : m_bands)
    {
        b.ring.assign(config.bandPackets, Item{nullptr, 0});
        b.head = b.tail = 0;
        b.bytes = 0;
    }
    m_nonEmpty = 0;
    m_drr.Configure(config.strictBands, config.bandWeights, config.quantumBytes);
    m_bytes = 0;
    m_packets = 0;
    m_counters = EgressCounters();
    return true;
}

EnqueueResult
EgressQueue::Enqueue(void* item, uint32_t bytes, uint8_t band, bool ecnCapable)
{
    Band& b = m_bands[band & TALB_PRIO_MASK];
    if (m_bytes + bytes > m_config.bufferBytes || b.tail - b.head == m_config.bandPackets)
    {
        ++m_counters.dropped;
        return EnqueueResult::kDropped;
    }
    // The occupancy this packet finds on arrival decides its mark (DCTCP's K).
    bool mark = m_config.ecn && ecnCapable && m_bytes >= m_config.ecnThresholdBytes;
    b.ring[b.tail++ & m_mask] = Item{item, bytes};
    b.bytes += bytes;
    m_bytes += bytes;
    ++m_packets;
    m_nonEmpty |= 1u << (band & TALB_PRIO_MASK);
    ++m_counters.enqueued;
    if (mark)
    {
        ++m_counters.marked;
        return EnqueueResult::kMarked;
    }
    return EnqueueResult::kQueued;
}

uint32_t
EgressQueue::HeadBytes() const
{
    if (Empty())
    {
        return 0;
    }
    const Band& b = m_bands[NextBand()];
    return b.ring[b.head & m_mask].bytes;
}

void*
EgressQueue::Dequeue(uint32_t* bytes)
{
    if (Empty())
    {
        return nullptr;
    }
    uint8_t band = NextBand();
    Band& b = m_bands[band];
    Item it = b.ring[b.head++ & m_mask];
    if (m_config.dwrrBands && m_drr.IsDrrBand(band))
    {
        m_drr.Charge(band, it.bytes);
    }
    b.bytes -= it.bytes;
    m_bytes -= it.bytes;
    --m_packets;
    if (b.head == b.tail)
    {
        m_nonEmpty &= ~(1u << band);
        m_drr.Forfeit(band);
    }
    ++m_counters.dequeued;
    m_counters.dequeuedBytes += it.bytes;
    *bytes = it.bytes;
    return it.item;
}

} // namespace talb
