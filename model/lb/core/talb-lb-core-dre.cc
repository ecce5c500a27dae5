#include "talb-lb-core-dre.h"

#include <algorithm>
#include <cmath>

namespace talb
{
namespace lb
{

Dre::Dre()
    : m_intervalNs(20000),
      m_alpha(0.1),
      m_nsInSeconds(1e-9),
      m_bytes(0),
      m_lastNs(0)
{
}

bool
Dre::Configure(int64_t intervalNs, double alpha, double nsInSeconds)
{
    if (intervalNs <= 0 || !(alpha > 0 && alpha <= 1) || !(nsInSeconds > 0))
    {
        return false;
    }
    m_intervalNs = intervalNs;
    m_alpha = alpha;
    m_nsInSeconds = nsInSeconds;
    return true;
}

void
Dre::Decay(int64_t nowNs) const
{
    int64_t n = (nowNs - m_lastNs) / m_intervalNs;
    if (n <= 0)
    {
        return;
    }
    m_lastNs += n * m_intervalNs;
    // One multiply for the common case of one elapsed interval; pow for idle gaps.
    m_bytes *= (n == 1) ? (1 - m_alpha) : std::pow(1 - m_alpha, static_cast<double>(n));
}

void
Dre::Add(uint32_t bytes, int64_t nowNs)
{
    Decay(nowNs);
    m_bytes += bytes;
}

double
Dre::Bytes(int64_t nowNs) const
{
    Decay(nowNs);
    return m_bytes;
}

double
Dre::Utilization(int64_t nowNs, uint64_t rateBps) const
{
    double tauSeconds = m_intervalNs / m_alpha * m_nsInSeconds;
    return Bytes(nowNs) * 8.0 / (static_cast<double>(rateBps) * tauSeconds);
}

uint8_t
Dre::Quantized(int64_t nowNs, uint64_t rateBps, uint8_t bits) const
{
    double levels = static_cast<double>((1u << bits) - 1);
    double q = std::floor(Utilization(nowNs, rateBps) * levels + 0.5);
    return static_cast<uint8_t>(std::min(q, levels));
}

} // namespace lb
} // namespace talb
