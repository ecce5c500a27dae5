#include "talb-route-table.h"

#include "ns3/talb-lb-core.h"

namespace talb
{

uint32_t
RouteTable::Hash(uint32_t prefix, uint8_t length) const
{
    return lb::Mix32(prefix ^ (uint32_t(length) * 0x9e3779b9u)) & m_mask;
}

void
RouteTable::Build(const std::vector<uint32_t>& prefixes, const std::vector<uint8_t>& lengths)
{
    // At most half full, so that probe sequences stay short.
    uint32_t size = 8;
    while (size < 2 * prefixes.size())
    {
        size *= 2;
    }
    m_slots.assign(size, Slot());
    m_mask = size - 1;
    bool used[33] = {};
    for (size_t i = 0; i < prefixes.size(); ++i)
    {
        uint32_t s = Hash(prefixes[i], lengths[i]);
        while (m_slots[s].value != kNoRoute)
        {
            s = (s + 1) & m_mask;
        }
        m_slots[s] = Slot{prefixes[i], lengths[i], static_cast<int>(i)};
        used[lengths[i]] = true;
    }
    m_nLengths = 0;
    for (int len = 32; len >= 0; --len)
    {
        if (used[len])
        {
            m_lengths[m_nLengths++] = static_cast<uint8_t>(len);
        }
    }
}

int
RouteTable::Lookup(uint32_t address) const
{
    for (uint32_t i = 0; i < m_nLengths; ++i)
    {
        uint8_t len = m_lengths[i];
        uint32_t prefix = len == 0 ? 0 : address & (~0u << (32 - len));
        for (uint32_t s = Hash(prefix, len);; s = (s + 1) & m_mask)
        {
            const Slot& slot = m_slots[s];
            if (slot.value == kNoRoute)
            {
                break;
            }
            if (slot.prefix == prefix && slot.length == len)
            {
                return slot.value;
            }
        }
    }
    return kNoRoute;
}

} // namespace talb
