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
    if (c.pushOut && c.release == nullptr)
    {
        return "push-out needs a release function for the packets it evicts";
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
    band &= TALB_PRIO_MASK;
    Band& b = m_bands[band];
    if (m_config.pushOut && m_bytes + bytes > m_config.bufferBytes &&
        b.tail - b.head < m_config.bandPackets)
    {
        PushOut(band, bytes);
    }
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
    m_nonEmpty |= 1u << band;
    ++m_counters.enqueued;
    if (mark)
    {
        ++m_counters.marked;
        return EnqueueResult::kMarked;
    }
    return EnqueueResult::kQueued;
}

uint64_t
EgressQueue::RoomBytes(uint8_t band) const
{
    band &= TALB_PRIO_MASK;
    const Band& b = m_bands[band];
    if (b.tail - b.head == m_config.bandPackets)
    {
        return 0;
    }
    const uint64_t queued = m_bytes - (m_config.pushOut ? LowerBytes(band) : 0);
    return m_config.bufferBytes > queued ? m_config.bufferBytes - queued : 0;
}

uint64_t
EgressQueue::LowerBytes(uint8_t band) const
{
    uint64_t bytes = 0;
    for (uint8_t lower = band + 1; lower < TALB_NUM_PRIORITIES; ++lower)
    {
        bytes += Spared(lower) ? 0 : m_bands[lower].bytes;
    }
    return bytes;
}

void
EgressQueue::PushOut(uint8_t band, uint32_t bytes)
{
    // Where even every lower packet would not make room the arrival is refused anyway: they stay.
    if (m_bytes - LowerBytes(band) + bytes > m_config.bufferBytes)
    {
        return;
    }
    for (uint8_t lower = TALB_NUM_PRIORITIES - 1; lower > band; --lower)
    {
        if (Spared(lower))
        {
            continue;
        }
        Band& victim = m_bands[lower];
        while (victim.head != victim.tail && m_bytes + bytes > m_config.bufferBytes)
        {
            // The oldest first, as pFabric drops; no DWRR charge: nothing was served.
            ++m_counters.pushedOut;
            m_config.release(RemoveHead(lower).item);
        }
    }
}

EgressQueue::Item
EgressQueue::RemoveHead(uint8_t band)
{
    Band& b = m_bands[band];
    Item it = b.ring[b.head++ & m_mask];
    b.bytes -= it.bytes;
    m_bytes -= it.bytes;
    --m_packets;
    if (b.head == b.tail)
    {
        m_nonEmpty &= ~(1u << band);
        m_drr.Forfeit(band);
    }
    return it;
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
    if (m_config.dwrrBands && m_drr.IsDrrBand(band))
    {
        // Charged before RemoveHead(), whose emptying of the band forfeits what is left.
        m_drr.Charge(band, m_bands[band].ring[m_bands[band].head & m_mask].bytes);
    }
    Item it = RemoveHead(band);
    ++m_counters.dequeued;
    m_counters.dequeuedBytes += it.bytes;
    *bytes = it.bytes;
    return it.item;
}

} // namespace talb
