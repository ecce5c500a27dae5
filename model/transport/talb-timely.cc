#include "talb-timely.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTimely");

NS_OBJECT_ENSURE_REGISTERED(TalbTimely);
TALB_REGISTER_PLUGIN(TalbRdmaRateControl, TalbTimely, "timely");

TypeId
TalbTimely::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTimely")
            .SetParent<TalbRdmaRateControl>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTimely>()
            .AddAttribute("Alpha",
                          "EWMA weight of a new RTT difference in the smoothed difference",
                          DoubleValue(0.875),
                          MakeDoubleAccessor(&TalbTimely::m_alpha),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("Beta",
                          "Multiplicative decrease factor",
                          DoubleValue(0.8),
                          MakeDoubleAccessor(&TalbTimely::m_beta),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("TLow",
                          "RTT below which the rate increases whatever the gradient",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TalbTimely::m_tLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("THigh",
                          "RTT above which the rate decreases whatever the gradient",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TalbTimely::m_tHigh),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("MinRtt",
                          "The fabric's RTT without queueing: normalises the gradient",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbTimely::m_minRtt),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AdditiveIncrease",
                          "delta: rate step of additive increase",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&TalbTimely::m_additive),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRate",
                          "Line rate AdditiveIncrease is given for: a queue pair of line rate R "
                          "steps R / ReferenceRate times as far (0: as given at any rate)",
                          DataRateValue(DataRate("10Gbps")),
                          MakeDataRateAccessor(&TalbTimely::m_referenceRate),
                          MakeDataRateChecker())
            .AddAttribute("HaiThreshold",
                          "Samples in a row with a non-positive gradient before hyper-active "
                          "increase",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TalbTimely::m_haiThreshold),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("HaiFactor",
                          "N: hyper-active increase adds N delta per sample",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TalbTimely::m_haiFactor),
                          MakeUintegerChecker<uint32_t>(1, 1000));
    return tid;
}

TalbTimely::TalbTimely()
    : m_alpha(0.875),
      m_beta(0.8),
      m_tLow(MicroSeconds(50)),
      m_tHigh(MicroSeconds(500)),
      m_minRtt(MicroSeconds(20)),
      m_additive(DataRate("10Mbps")),
      m_referenceRate(DataRate("10Gbps")),
      m_haiThreshold(5),
      m_haiFactor(5)
{
}

TalbTimely::~TalbTimely()
{
}

Ptr<TalbRdmaRateControl>
TalbTimely::DoFork() const
{
    return CopyObject<TalbTimely>(this);
}

double
TalbTimely::GetRttDiff() const
{
    return m_rttDiff;
}

Time
TalbTimely::GetLastRtt() const
{
    return m_prevRtt;
}

void
TalbTimely::DoStart()
{
    m_additiveBps = ScaleToLineRate(m_additive, m_referenceRate);
    m_prevRtt = Time();
    m_rttDiff = 0;
    m_calmSamples = 0;
}

bool
TalbTimely::DoUsesRtt() const
{
    return true;
}

void
TalbTimely::DoAckReceived(uint64_t /* newlyAcked */, Time rtt)
{
    if (!rtt.IsStrictlyPositive())
    {
        return;
    }
    if (m_prevRtt.IsZero())
    {
        m_prevRtt = rtt;
        return;
    }
    m_rttDiff = (1 - m_alpha) * m_rttDiff + m_alpha * (rtt - m_prevRtt).GetSeconds();
    m_prevRtt = rtt;
    double gradient = m_rttDiff / m_minRtt.GetSeconds();
    m_calmSamples = gradient <= 0 ? m_calmSamples + 1 : 0;

    double rate = static_cast<double>(GetRate().GetBitRate());
    double next;
    if (rtt < m_tLow)
    {
        next = rate + m_additiveBps;
    }
    else if (rtt > m_tHigh)
    {
        next = rate * (1 - m_beta * (1 - m_tHigh.GetSeconds() / rtt.GetSeconds()));
    }
    else if (gradient <= 0)
    {
        uint32_t n = m_calmSamples >= m_haiThreshold ? m_haiFactor : 1;
        next = rate + double(n) * m_additiveBps;
    }
    else
    {
        next = rate * (1 - m_beta * gradient);
    }
    next = std::max(next, rate / 2);
    NS_LOG_LOGIC("rtt " << rtt.As(Time::US) << " gradient " << gradient << " rate " << rate / 1e9
                        << " -> " << next / 1e9 << " Gb/s");
    SetRate(DataRate(static_cast<uint64_t>(std::llround(next))));
}

} // namespace ns3
