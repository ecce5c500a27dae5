#include "talb-dre.h"

#include "ns3/abort.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

TalbDre::TalbDre()
    : m_intervalTs(MicroSeconds(20).GetTimeStep()),
      m_alpha(0.1),
      m_bytes(0),
      m_lastTs(0)
{
}

void
TalbDre::Configure(Time interval, double alpha)
{
    NS_ABORT_MSG_UNLESS(interval.IsStrictlyPositive(), "TalbDre: interval must be > 0");
    NS_ABORT_MSG_UNLESS(alpha > 0 && alpha <= 1, "TalbDre: alpha must be in (0, 1]");
    m_intervalTs = interval.GetTimeStep();
    m_alpha = alpha;
}

void
TalbDre::Decay(Time now) const
{
    int64_t n = (now.GetTimeStep() - m_lastTs) / m_intervalTs;
    if (n <= 0)
    {
        return;
    }
    m_lastTs += n * m_intervalTs;
    // One multiply for the common case of one elapsed interval; pow for idle gaps.
    m_bytes *= (n == 1) ? (1 - m_alpha) : std::pow(1 - m_alpha, static_cast<double>(n));
}

void
TalbDre::Add(uint32_t bytes, Time now)
{
    Decay(now);
    m_bytes += bytes;
}

double
TalbDre::GetBytes(Time now) const
{
    Decay(now);
    return m_bytes;
}

double
TalbDre::GetUtilization(Time now, DataRate rate) const
{
    double tauSeconds = m_intervalTs / m_alpha * Time(1).GetSeconds();
    return GetBytes(now) * 8.0 / (static_cast<double>(rate.GetBitRate()) * tauSeconds);
}

uint8_t
TalbDre::GetQuantized(Time now, DataRate rate, uint8_t bits) const
{
    double levels = static_cast<double>((1u << bits) - 1);
    double q = std::floor(GetUtilization(now, rate) * levels + 0.5);
    return static_cast<uint8_t>(std::min(q, levels));
}

} // namespace ns3
