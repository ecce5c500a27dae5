#include "talb-dre.h"

#include "ns3/abort.h"

namespace ns3
{

TalbDre::TalbDre()
{
    // The core's defaults (20 us, 0.1) with ns-3's ns.
    m_dre.Configure(MicroSeconds(20).GetNanoSeconds(), 0.1, NanoSeconds(1).GetSeconds());
}

void
TalbDre::Configure(Time interval, double alpha)
{
    NS_ABORT_MSG_UNLESS(interval.IsStrictlyPositive(), "TalbDre: interval must be > 0");
    NS_ABORT_MSG_UNLESS(alpha > 0 && alpha <= 1, "TalbDre: alpha must be in (0, 1]");
    m_dre.Configure(interval.GetNanoSeconds(), alpha, NanoSeconds(1).GetSeconds());
}

void
TalbDre::Add(uint32_t bytes, Time now)
{
    m_dre.Add(bytes, now.GetNanoSeconds());
}

double
TalbDre::GetBytes(Time now) const
{
    return m_dre.Bytes(now.GetNanoSeconds());
}

double
TalbDre::GetUtilization(Time now, DataRate rate) const
{
    return m_dre.Utilization(now.GetNanoSeconds(), rate.GetBitRate());
}

uint8_t
TalbDre::GetQuantized(Time now, DataRate rate, uint8_t bits) const
{
    return m_dre.Quantized(now.GetNanoSeconds(), rate.GetBitRate(), bits);
}

} // namespace ns3
