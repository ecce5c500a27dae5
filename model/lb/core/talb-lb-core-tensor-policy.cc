#include "talb-lb-core-tensor-policy.h"

#include <cassert>

namespace talb
{
namespace lb
{

void
TensorPolicy::SetFallback(Policy* fallback)
{
    m_fallback = fallback;
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
TensorPolicy::SelectFallback(const PacketInfo& packet, const Candidates& candidates)
{
    assert(m_fallback && "a TaLB policy without a fallback policy");
    ++m_stats.nFallback;
    return m_fallback->Select(packet, candidates);
}

} // namespace lb
} // namespace talb
