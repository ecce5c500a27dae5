#include "talb-frame-history.h"

namespace talb
{

static_assert((FrameHistory::kCapacity & (FrameHistory::kCapacity - 1)) == 0,
              "FrameHistory::kCapacity must be a power of two");

void
FrameHistory::Clear()
{
    m_pushed = 0;
}

void
FrameHistory::Push(const FrameRecord& record)
{
    m_records[m_pushed % kCapacity] = record;
    ++m_pushed;
}

const FrameRecord*
FrameHistory::Find(uint64_t offset) const
{
    uint64_t kept = m_pushed < kCapacity ? m_pushed : kCapacity;
    // Newest first: in-order traffic and fresh retransmissions hit the first or second entry.
    for (uint64_t i = 1; i <= kept; ++i)
    {
        const FrameRecord& r = m_records[(m_pushed - i) % kCapacity];
        if (r.start <= offset)
        {
            return offset < r.End() ? &r : nullptr;
        }
    }
    return nullptr;
}

uint64_t
FrameHistory::Pushed() const
{
    return m_pushed;
}

} // namespace talb
