#include "talb-dcqcn.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbDcqcn");

NS_OBJECT_ENSURE_REGISTERED(TalbDcqcn);
TALB_REGISTER_PLUGIN(TalbRdmaRateControl, TalbDcqcn, "dcqcn");

TypeId
TalbDcqcn::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbDcqcn")
            .SetParent<TalbRdmaRateControl>()
            .SetGroupName("Talb")
            .AddConstructor<TalbDcqcn>()
            .AddAttribute("Gain",
                          "g: weight of a CNP in the congestion estimate alpha",
                          DoubleValue(1.0 / 256),
                          MakeDoubleAccessor(&TalbDcqcn::m_g),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("AlphaTimer",
                          "K: alpha decays by (1 - g) every period without a CNP",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&TalbDcqcn::m_alphaTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("IncreaseTimer",
                          "T: period of the timer's rate increase events",
                          TimeValue(MicroSeconds(55)),
                          MakeTimeAccessor(&TalbDcqcn::m_increaseTimer),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ByteCounter",
                          "B: bytes sent per byte-counter rate increase event",
                          UintegerValue(10000000),
                          MakeUintegerAccessor(&TalbDcqcn::m_byteCounter),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("FastRecoverySteps",
                          "F: increase events of fast recovery before additive increase",
                          UintegerValue(5),
                          MakeUintegerAccessor(&TalbDcqcn::m_fastRecoverySteps),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("AdditiveIncrease",
                          "R_AI: target rate step of additive increase",
                          DataRateValue(DataRate("40Mbps")),
                          MakeDataRateAccessor(&TalbDcqcn::m_additive),
                          MakeDataRateChecker())
            .AddAttribute("HyperIncrease",
                          "R_HAI: target rate step of hyper increase (times the stage)",
                          DataRateValue(DataRate("200Mbps")),
                          MakeDataRateAccessor(&TalbDcqcn::m_hyper),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRate",
                          "Line rate the increase steps are given for: a queue pair of line "
                          "rate R steps R / ReferenceRate times as far (0: as given at any rate)",
                          DataRateValue(DataRate("40Gbps")),
                          MakeDataRateAccessor(&TalbDcqcn::m_referenceRate),
                          MakeDataRateChecker())
            .AddAttribute("InitialAlpha",
                          "alpha of a queue pair before its first CNP",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TalbDcqcn::m_initialAlpha),
                          MakeDoubleChecker<double>(0, 1));
    return tid;
}

TalbDcqcn::TalbDcqcn()
    : m_g(1.0 / 256),
      m_alphaTimer(MicroSeconds(55)),
      m_increaseTimer(MicroSeconds(55)),
      m_byteCounter(10000000),
      m_fastRecoverySteps(5),
      m_additive(DataRate("40Mbps")),
      m_hyper(DataRate("200Mbps")),
      m_referenceRate(DataRate("40Gbps")),
      m_initialAlpha(1.0)
{
}

TalbDcqcn::~TalbDcqcn()
{
}

Ptr<TalbRdmaRateControl>
TalbDcqcn::DoFork() const
{
    return CopyObject<TalbDcqcn>(this);
}

double
TalbDcqcn::GetAlpha() const
{
    return m_alpha;
}

DataRate
TalbDcqcn::GetTargetRate() const
{
    return DataRate(m_target);
}

void
TalbDcqcn::DoStart()
{
    m_alpha = m_initialAlpha;
    m_lastAlphaUpdate = Simulator::Now();
    m_target = GetLineRate().GetBitRate();
    m_additiveBps = ScaleToLineRate(m_additive, m_referenceRate);
    m_hyperBps = ScaleToLineRate(m_hyper, m_referenceRate);
    m_timeStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
}

void
TalbDcqcn::DoStop()
{
    m_timer.Cancel();
}

bool
TalbDcqcn::Recovering() const
{
    return GetRate().GetBitRate() < GetLineRate().GetBitRate();
}

void
TalbDcqcn::DoCnpReceived()
{
    Time now = Simulator::Now();
    auto periods =
        static_cast<double>((now - m_lastAlphaUpdate).GetTimeStep() / m_alphaTimer.GetTimeStep());
    m_alpha *= std::pow(1 - m_g, periods);
    uint64_t rc = GetRate().GetBitRate();
    m_target = rc;
    SetRate(DataRate(static_cast<uint64_t>(rc * (1 - m_alpha / 2))));
    m_alpha = (1 - m_g) * m_alpha + m_g;
    m_lastAlphaUpdate = now;
    NS_LOG_LOGIC("cnp: rate " << GetRate() << " target " << m_target << " alpha " << m_alpha);
    m_timeStage = 0;
    m_byteStage = 0;
    m_bytes = 0;
    m_timer.Cancel();
    m_timer = Simulator::Schedule(m_increaseTimer, &TalbDcqcn::TimerExpired, this);
}

void
TalbDcqcn::DoPacketSent(uint32_t bytes)
{
    if (!Recovering())
    {
        return;
    }
    m_bytes += bytes;
    while (m_bytes >= m_byteCounter && Recovering())
    {
        m_bytes -= m_byteCounter;
        ++m_byteStage;
        Increase();
    }
}

void
TalbDcqcn::TimerExpired()
{
    ++m_timeStage;
    Increase();
    if (Recovering())
    {
        m_timer = Simulator::Schedule(m_increaseTimer, &TalbDcqcn::TimerExpired, this);
    }
}

void
TalbDcqcn::Increase()
{
    uint64_t line = GetLineRate().GetBitRate();
    uint32_t f = m_fastRecoverySteps;
    if (m_timeStage > f && m_byteStage > f)
    {
        uint64_t i = std::min(m_timeStage, m_byteStage) - f;
        m_target += i * m_hyperBps;
    }
    else if (m_timeStage > f || m_byteStage > f)
    {
        m_target += m_additiveBps;
    }
    m_target = std::min(m_target, line);
    // Rounded up, so that R_C reaches R_T exactly.
    SetRate(DataRate((m_target + GetRate().GetBitRate() + 1) / 2));
    if (!Recovering())
    {
        m_timer.Cancel();
        m_bytes = 0;
    }
}

} // namespace ns3
