#include "talb-flow-table.h"

namespace talb
{

FlowTable::FlowTable(uint32_t maxFlows)
{
    uint32_t buckets = 1;
    while (buckets * kWays < maxFlows)
    {
        buckets *= 2;
    }
    m_buckets.assign(buckets, Bucket{});
    m_trackers.resize(static_cast<size_t>(buckets) * kWays);
    m_mask = buckets - 1;
}

int
FlowTable::Way(const Bucket& b, const FlowKey& key)
{
    for (uint32_t w = 0; w < kWays; ++w)
    {
        if ((b.used & (1u << w)) && b.keys[w] == key)
        {
            return static_cast<int>(w);
        }
    }
    return -1;
}

FlowTable::Bucket&
FlowTable::BucketOf(const FlowKey& key)
{
    uint64_t a = (static_cast<uint64_t>(key.src) << 32) | key.dst;
    uint64_t b = (static_cast<uint64_t>(key.srcPort) << 16) | key.dstPort;
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xFF51AFD7ED558CCDull;
    h ^= h >> 32;
    return m_buckets[h & m_mask];
}

SeqTracker*
FlowTable::Find(const FlowKey& key, uint32_t now)
{
    Bucket& b = BucketOf(key);
    int w = Way(b, key);
    if (w < 0)
    {
        return nullptr;
    }
    b.lastUsed[w] = now;
    return &m_trackers[(&b - m_buckets.data()) * kWays + w];
}

SeqTracker*
FlowTable::Insert(const FlowKey& key, uint32_t now, bool* evicted)
{
    *evicted = false;
    Bucket& b = BucketOf(key);
    int w = Way(b, key);
    if (w < 0)
    {
        // Free way, else a closed one, else the least recently used.
        for (uint32_t i = 0; i < kWays && w < 0; ++i)
        {
            if (!(b.used & (1u << i)))
            {
                w = static_cast<int>(i);
                ++m_size;
            }
        }
        for (uint32_t i = 0; i < kWays && w < 0; ++i)
        {
            if (b.closed & (1u << i))
            {
                w = static_cast<int>(i);
            }
        }
        if (w < 0)
        {
            w = 0;
            for (uint32_t i = 1; i < kWays; ++i)
            {
                if (static_cast<int32_t>(b.lastUsed[i] - b.lastUsed[w]) < 0)
                {
                    w = static_cast<int>(i);
                }
            }
            *evicted = true;
        }
        b.keys[w] = key;
        b.used |= 1u << w;
    }
    b.closed &= ~(1u << w);
    b.lastUsed[w] = now;
    return &m_trackers[(&b - m_buckets.data()) * kWays + w];
}

void
FlowTable::Close(const FlowKey& key)
{
    Bucket& b = BucketOf(key);
    int w = Way(b, key);
    if (w >= 0)
    {
        b.closed |= 1u << w;
    }
}

void
FlowTable::Erase(const FlowKey& key)
{
    Bucket& b = BucketOf(key);
    int w = Way(b, key);
    if (w >= 0)
    {
        b.used &= ~(1u << w);
        b.closed &= ~(1u << w);
        --m_size;
    }
}

uint32_t
FlowTable::Capacity() const
{
    return static_cast<uint32_t>(m_trackers.size());
}

uint32_t
FlowTable::Size() const
{
    return m_size;
}

} // namespace talb
