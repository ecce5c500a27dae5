#include "talb-lb-core-tensor-policy.h"

#include <cassert>

namespace talb
{
namespace lb
{

void
TensorPolicy::SetFallback(Policy* fallback, Policy* goBackNData)
{
    m_fallback = fallback;
    m_goBackNFallback = goBackNData;
}

uint32_t
TensorPolicy::LiveEntries(int64_t nowNs) const
{
    return m_table.LiveEntries(nowNs);
}

uint32_t
TensorPolicy::HeldEntries() const
{
    return m_table.HeldEntries();
}

uint32_t
TensorPolicy::SelectFallback(const PacketInfo& packet, const Candidates& candidates, bool goBackN)
{
    assert(m_fallback && "a TaLB policy without a fallback policy");
    ++m_stats.nFallback;
    if (m_goBackNFallback && goBackN && packet.size >= kUntaggedMinBytes)
    {
        ++m_stats.nGoBackNFallback;
        return m_goBackNFallback->Select(packet, candidates);
    }
    return m_fallback->Select(packet, candidates);
}

TensorTable::Entry*
TensorPolicy::Admit(TensorTable::Entry* e, TensorTable::Entry* slot, const PacketInfo& packet)
{
    if (e || (packet.label.flags & TALB_FLAG_LAST))
    {
        return e;
    }
    TensorTable::Entry evicted;
    if (m_table
            .Insert(slot, packet.flowHash, packet.label.tensor_id, packet.nowNs, m_stats, &evicted))
    {
        NotifyEvicted(evicted.flowHash, evicted.tensorId);
    }
    return slot;
}

void
TensorPolicy::Remember(TensorTable::Entry* e, const PacketInfo& packet, uint32_t port)
{
    if (!e)
    {
        return;
    }
    e->port = port;
    e->lastSeenNs = packet.nowNs;
    if (packet.label.flags & TALB_FLAG_LAST)
    {
        e->valid = false;
        ++m_stats.nFreedOnLast;
    }
}

} // namespace lb
} // namespace talb
