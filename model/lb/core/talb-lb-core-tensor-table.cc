#include "talb-lb-core-tensor-table.h"

#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

const char*
TensorTable::Check(uint32_t tableSize, uint32_t probeLimit, int64_t idleTimeoutNs)
{
    if (idleTimeoutNs < 1)
    {
        return "the idle timeout must be at least 1 ns";
    }
    if (tableSize == 0 || tableSize > (1u << 24) || (tableSize & (tableSize - 1)) != 0)
    {
        return "the tensor table size must be a power of two in 1..2^24";
    }
    if (probeLimit < 1 || probeLimit > 64 || probeLimit > tableSize)
    {
        return "the probe limit must be in 1..64 and at most the table size";
    }
    return nullptr;
}

void
TensorTable::Configure(uint32_t tableSize, uint32_t probeLimit, int64_t idleTimeoutNs)
{
    m_slots.assign(tableSize, Entry());
    Retune(probeLimit, idleTimeoutNs);
}

void
TensorTable::Retune(uint32_t probeLimit, int64_t idleTimeoutNs)
{
    m_probeLimit = probeLimit;
    m_idleTimeoutNs = idleTimeoutNs;
}

uint32_t
TensorTable::LiveEntries(int64_t nowNs) const
{
    uint32_t n = 0;
    for (const Entry& e : m_slots)
    {
        n += IsLive(e, nowNs) ? 1 : 0;
    }
    return n;
}

uint32_t
TensorTable::HeldEntries() const
{
    uint32_t n = 0;
    for (const Entry& e : m_slots)
    {
        n += e.valid ? 1 : 0;
    }
    return n;
}

TensorTable::Entry*
TensorTable::Lookup(uint32_t flowHash, uint32_t tensorId, int64_t nowNs, Entry** freeSlot)
{
    uint32_t mask = Size() - 1;
    uint32_t start = Mix32(flowHash ^ Mix32(tensorId)) & mask;
    Entry* free = nullptr;
    Entry* oldest = nullptr;
    for (uint32_t i = 0; i < m_probeLimit; ++i)
    {
        Entry& e = m_slots[(start + i) & mask];
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

bool
TensorTable::Insert(Entry* slot,
                    uint32_t flowHash,
                    uint32_t tensorId,
                    int64_t nowNs,
                    TensorTableStats& stats,
                    Entry* evicted)
{
    bool evictedLive = false;
    if (slot->valid)
    {
        if (IsLive(*slot, nowNs))
        {
            ++stats.nEvicted;
            *evicted = *slot;
            evictedLive = true;
        }
        else
        {
            ++stats.nAgedOut;
        }
    }
    *slot = Entry();
    slot->flowHash = flowHash;
    slot->tensorId = tensorId;
    slot->valid = true;
    slot->lastSeenNs = nowNs;
    slot->lastMoveNs = nowNs;
    ++stats.nInserted;
    return evictedLive;
}

} // namespace lb
} // namespace talb
