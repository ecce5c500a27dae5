#include "talb-lb-core-tensor-aware.h"

#include <cassert>
#include <cmath>
#include <utility>

namespace talb
{
namespace lb
{

const char*
TensorAwareV1::Check(const Config& c)
{
    if (c.highThreshold > TALB_NUM_PRIORITIES)
    {
        return "the high-priority threshold must be in 0..8";
    }
    if (!(c.moveMarginBytes >= 0) || !(c.dreWeightBytes >= 0) || !(c.loadQuantumBytes >= 1))
    {
        return "the move margin and DRE weight must be >= 0 and the load quantum >= 1";
    }
    if (c.idleTimeoutNs < 1)
    {
        return "the idle timeout must be at least 1 ns";
    }
    if (c.tableSize == 0 || c.tableSize > (1u << 24) || (c.tableSize & (c.tableSize - 1)) != 0)
    {
        return "the tensor table size must be a power of two in 1..2^24";
    }
    if (c.probeLimit < 1 || c.probeLimit > 64 || c.probeLimit > c.tableSize)
    {
        return "the probe limit must be in 1..64 and at most the table size";
    }
    if (!Dre().Configure(c.dreIntervalNs, c.dreAlpha))
    {
        return "the DRE interval must be > 0 and its alpha in (0, 1]";
    }
    return nullptr;
}

bool
TensorAwareV1::Configure(const Config& config, uint32_t nPorts)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_table.assign(config.tableSize, Entry());
    m_highLoad.assign(nPorts, Dre());
    for (Dre& dre : m_highLoad)
    {
        dre.Configure(config.dreIntervalNs, config.dreAlpha);
    }
    m_stats = TableStats();
    return true;
}

bool
TensorAwareV1::Retune(const Config& config)
{
    if (Check(config) || config.tableSize != m_config.tableSize ||
        config.dreIntervalNs != m_config.dreIntervalNs || config.dreAlpha != m_config.dreAlpha)
    {
        return false;
    }
    m_config = config;
    return true;
}

void
TensorAwareV1::SetFallback(Policy* fallback)
{
    m_fallback = fallback;
}

uint32_t
TensorAwareV1::LiveEntries(int64_t nowNs) const
{
    uint32_t n = 0;
    for (const Entry& e : m_table)
    {
        n += IsLive(e, nowNs) ? 1 : 0;
    }
    return n;
}

uint32_t
TensorAwareV1::HeldEntries() const
{
    uint32_t n = 0;
    for (const Entry& e : m_table)
    {
        n += e.valid ? 1 : 0;
    }
    return n;
}

TensorAwareV1::Entry*
TensorAwareV1::Lookup(uint32_t flowHash, uint32_t tensorId, int64_t nowNs, Entry** freeSlot)
{
    uint32_t mask = m_config.tableSize - 1;
    uint32_t start = Mix32(flowHash ^ Mix32(tensorId)) & mask;
    Entry* free = nullptr;
    Entry* oldest = nullptr;
    for (uint32_t i = 0; i < m_config.probeLimit; ++i)
    {
        Entry& e = m_table[(start + i) & mask];
        bool live = IsLive(e, nowNs);
        if (live && e.flowHash == flowHash && e.tensorId == tensorId)
        {
            return &e;
        }
        if (!live && !free)
        {
            free = &e;
        }
        if (live && (!oldest || e.lastSeenNs < oldest->lastSeenNs))
        {
            oldest = &e;
        }
    }
    *freeSlot = free ? free : oldest;
    return nullptr;
}

uint32_t
TensorAwareV1::LeastCostPort(const Candidates& candidates, int64_t nowNs)
{
    return PickLeast(candidates, [&](uint32_t p) { return Cost(p, nowNs); });
}

uint32_t
TensorAwareV1::LeastHighPriorityLoadPort(const Candidates& candidates, int64_t nowNs)
{
    return PickLeast(candidates, [&](uint32_t p) {
        double load = std::floor(m_highLoad[p].Bytes(nowNs) / m_config.loadQuantumBytes);
        return std::make_pair(load, Cost(p, nowNs));
    });
}

uint32_t
TensorAwareV1::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    if (!packet.hasLabel)
    {
        assert(m_fallback && "TensorAwareV1 without a fallback policy");
        ++m_stats.nFallback;
        return m_fallback->Select(packet, candidates);
    }
    const int64_t now = packet.nowNs;
    const bool high = packet.label.priority < m_config.highThreshold;
    Entry* slot = nullptr;
    Entry* e = Lookup(packet.flowHash, packet.label.tensor_id, now, &slot);
    uint32_t port;
    if (e && candidates.Contains(e->port))
    {
        port = e->port;
        if (high)
        {
            uint32_t best = LeastCostPort(candidates, now);
            if (Cost(port, now) > Cost(best, now) + m_config.moveMarginBytes)
            {
                ++m_stats.nMidTensorMoves;
                NotifyRerouted(packet, port, best);
                port = best;
            }
        }
    }
    else
    {
        port = high ? LeastCostPort(candidates, now) : LeastHighPriorityLoadPort(candidates, now);
        if (e)
        {
            // Its port failed: the tensor has to move, whatever its priority.
            NotifyRerouted(packet, e->port, port);
        }
        else if (!(packet.label.flags & TALB_FLAG_LAST))
        {
            e = slot;
            if (e->valid)
            {
                if (IsLive(*e, now))
                {
                    ++m_stats.nEvicted;
                    NotifyEvicted(e->flowHash, e->tensorId);
                }
                else
                {
                    ++m_stats.nAgedOut;
                }
            }
            e->flowHash = packet.flowHash;
            e->tensorId = packet.label.tensor_id;
            e->valid = true;
            ++m_stats.nInserted;
        }
    }
    if (e)
    {
        e->port = port;
        e->lastSeenNs = now;
        if (packet.label.flags & TALB_FLAG_LAST)
        {
            e->valid = false;
            ++m_stats.nFreedOnLast;
        }
    }
    if (high)
    {
        m_highLoad[port].Add(packet.size, now);
    }
    return port;
}

} // namespace lb
} // namespace talb
