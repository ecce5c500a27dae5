#include "talb-plb.h"

#include "ns3/abort.h"
#include "ns3/talb-lb-core.h"

namespace ns3
{

TalbPlb::TalbPlb(const Config& config)
    : m_config(config)
{
    NS_ABORT_MSG_UNLESS(config.rounds >= 1, "TalbPlb: rounds must be at least 1");
    NS_ABORT_MSG_UNLESS(config.markFraction >= 0 && config.markFraction < 1,
                        "TalbPlb: markFraction " << config.markFraction << " not in [0, 1)");
    NS_ABORT_MSG_UNLESS(config.forceRounds == 0 || config.forceRounds >= config.rounds,
                        "TalbPlb: forceRounds " << config.forceRounds << " below rounds "
                                                << config.rounds);
}

bool
TalbPlb::EndRound(double markedFraction)
{
    if (markedFraction <= m_config.markFraction)
    {
        m_congested = 0;
        return false;
    }
    ++m_congested;
    if (m_congested < (m_config.forceRounds > 0 ? m_config.forceRounds : m_config.rounds))
    {
        return false;
    }
    m_congested = 0;
    ++m_repaths;
    return true;
}

bool
TalbPlb::IdleRepath()
{
    if (m_config.forceRounds == 0 || m_congested < m_config.rounds)
    {
        return false;
    }
    m_congested = 0;
    ++m_repaths;
    return true;
}

uint32_t
TalbPlb::GetCongestedRounds() const
{
    return m_congested;
}

uint64_t
TalbPlb::GetRepaths() const
{
    return m_repaths;
}

const TalbPlb::Config&
TalbPlb::GetConfig() const
{
    return m_config;
}

uint16_t
TalbPlb::NextSourcePort(uint16_t current, uint32_t salt)
{
    uint32_t h = talb::lb::Mix32(current ^ talb::lb::Mix32(salt + 0x9e3779b9u));
    uint16_t next = static_cast<uint16_t>(0xC000 | (h & 0x3FFF));
    // 1 in 16384: step to a neighbour so the entropy always changes.
    return next != current ? next : static_cast<uint16_t>(0xC000 | ((next + 1) & 0x3FFF));
}

} // namespace ns3
