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
    if (c.strictBands > TALB_NUM_PRIORITIES)
    {
        return "strict bands must be 0..8";
    }
    for (uint32_t w : c.bandWeights)
    {
        if (w < 1 || w > 1000)
        {
            return "band weights must be 1..1000";
        }
    }
    if (c.quantumBytes < 64)
    {
        return "the DWRR quantum must be at least 64 bytes";
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
    for (int64_t& d : m_deficit)
    {
        d = 0;
    }
    m_turn = config.strictBands;
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

uint8_t
EgressQueue::NextDwrrBand() const
{
    // The band served last keeps its turn while its deficit covers its head packet; otherwise
    // the next band with packets, in cyclic order, gets one (and a quantum: Charge()).
    const uint8_t first = m_config.strictBands;
    const uint8_t n = TALB_NUM_PRIORITIES - first;
    const uint8_t turn = m_turn >= first && m_turn < TALB_NUM_PRIORITIES ? m_turn : first;
    const Band& current = m_bands[turn];
    if ((m_nonEmpty >> turn) & 1 &&
        m_deficit[turn] >= int64_t(current.ring[current.head & m_mask].bytes))
    {
        return turn;
    }
    for (uint8_t i = 1; i <= n; ++i)
    {
        uint8_t b = uint8_t(first + (turn - first + i) % n);
        if ((m_nonEmpty >> b) & 1)
        {
            return b;
        }
    }
    return turn; // unreachable while a DWRR band holds packets
}

void
EgressQueue::Charge(uint8_t band, uint32_t bytes)
{
    int64_t quantum = int64_t(m_config.quantumBytes) * m_config.bandWeights[band];
    if (band != m_turn)
    {
        m_turn = band; // a new visit: one quantum
        m_deficit[band] += quantum;
    }
    while (m_deficit[band] < int64_t(bytes))
    {
        m_deficit[band] += quantum; // alone: rounds of its own
    }
    m_deficit[band] -= bytes;
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
    if (m_config.dwrrBands && band >= m_config.strictBands)
    {
        Charge(band, it.bytes);
    }
    b.bytes -= it.bytes;
    m_bytes -= it.bytes;
    --m_packets;
    if (b.head == b.tail)
    {
        m_nonEmpty &= ~(1u << band);
        m_deficit[band] = 0; // an emptied band forfeits its deficit
    }
    ++m_counters.dequeued;
    m_counters.dequeuedBytes += it.bytes;
    *bytes = it.bytes;
    return it.item;
}

} // namespace talb
