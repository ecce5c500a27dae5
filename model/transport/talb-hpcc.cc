#include "talb-hpcc.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/talb-int-tag.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbHpcc");

NS_OBJECT_ENSURE_REGISTERED(TalbHpcc);
TALB_REGISTER_PLUGIN(TalbRdmaRateControl, TalbHpcc, "hpcc");

TypeId
TalbHpcc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbHpcc")
            .SetParent<TalbRdmaRateControl>()
            .SetGroupName("Talb")
            .AddConstructor<TalbHpcc>()
            .AddAttribute("BaseRtt",
                          "T: the fabric's unloaded round-trip time (the longest path's). "
                          "Normalises queues and sets rate = window / T (0: unset; "
                          "TalbLeafSpineHelper offers its fabric's)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&TalbHpcc::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("TargetUtilization",
                          "eta: the utilisation HPCC steers the busiest hop to",
                          DoubleValue(0.95),
                          MakeDoubleAccessor(&TalbHpcc::m_eta),
                          MakeDoubleChecker<double>(0.01, 1))
            .AddAttribute("MaxStage",
                          "Additive steps in a row before a multiplicative step towards eta "
                          "while the path is below it (0: always multiplicative)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbHpcc::m_maxStage),
                          MakeUintegerChecker<uint32_t>(0, 1000))
            .AddAttribute("AdditiveIncrease",
                          "W_AI as a rate: the window grows by this times BaseRtt per update",
                          DataRateValue(DataRate("10Mbps")),
                          MakeDataRateAccessor(&TalbHpcc::m_additive),
                          MakeDataRateChecker())
            .AddAttribute("ReferenceRate",
                          "Line rate AdditiveIncrease is given for: a queue pair of line rate R "
                          "steps R / ReferenceRate times as far (0: as given at any rate)",
                          DataRateValue(DataRate("25Gbps")),
                          MakeDataRateAccessor(&TalbHpcc::m_referenceRate),
                          MakeDataRateChecker())
            .AddAttribute("LimitWindow",
                          "Bound the bytes in flight by the window W as well as pacing at W / "
                          "BaseRtt (HPCC's window)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbHpcc::m_limitWindow),
                          MakeBooleanChecker())
            .AddAttribute("RecordSlots",
                          "Switch ports whose last telemetry record a queue pair keeps (a hop "
                          "on a port not kept is compared with nothing)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&TalbHpcc::m_recordSlots),
                          MakeUintegerChecker<uint32_t>(1, MAX_RECORD_SLOTS));
    return tid;
}

TalbHpcc::TalbHpcc()
    : m_baseRtt(Time(0)),
      m_eta(0.95),
      m_maxStage(0),
      m_additive(DataRate("10Mbps")),
      m_referenceRate(DataRate("25Gbps")),
      m_limitWindow(true),
      m_recordSlots(16)
{
}

TalbHpcc::~TalbHpcc()
{
}

Ptr<TalbRdmaRateControl>
TalbHpcc::DoFork() const
{
    return CopyObject<TalbHpcc>(this);
}

double
TalbHpcc::GetUtilization() const
{
    return m_u;
}

double
TalbHpcc::GetWindowBytes() const
{
    return m_window;
}

double
TalbHpcc::GetReferenceWindow() const
{
    return m_refWindow;
}

uint32_t
TalbHpcc::GetIncreaseStage() const
{
    return m_incStage;
}

void
TalbHpcc::DoStart()
{
    NS_ABORT_MSG_UNLESS(m_baseRtt.IsStrictlyPositive(),
                        "TalbHpcc: BaseRtt is 0; set ns3::TalbHpcc::BaseRtt to the fabric's "
                        "unloaded round-trip time (TalbLeafSpineHelper offers its fabric's)");
    double t = m_baseRtt.GetSeconds();
    m_maxWindow = GetLineRate().GetBitRate() * t / 8;
    m_minWindow = GetMinRate().GetBitRate() * t / 8;
    m_additiveBytes = ScaleToLineRate(m_additive, m_referenceRate) * t / 8;
    m_window = m_refWindow = m_maxWindow;
    m_u = 0;
    m_measured = false;
    m_incStage = 0;
    m_updated = false;
    m_records.fill(PortRecord());
    m_nextVictim = 0;
}

bool
TalbHpcc::DoUsesTelemetry() const
{
    return true;
}

uint64_t
TalbHpcc::DoGetWindow() const
{
    return m_limitWindow ? static_cast<uint64_t>(std::ceil(m_window)) : 0;
}

TalbHpcc::PortRecord&
TalbHpcc::RecordOf(uint32_t node, uint32_t port, bool* found)
{
    for (uint32_t i = 0; i < m_recordSlots; ++i)
    {
        PortRecord& r = m_records[i];
        if (r.used && r.node == node && r.port == port)
        {
            *found = true;
            return r;
        }
    }
    *found = false;
    for (uint32_t i = 0; i < m_recordSlots; ++i)
    {
        if (!m_records[i].used)
        {
            return m_records[i];
        }
    }
    PortRecord& victim = m_records[m_nextVictim];
    m_nextVictim = (m_nextVictim + 1) % m_recordSlots;
    return victim;
}

bool
TalbHpcc::MeasureInflight(const TalbIntTag& telemetry)
{
    double t = m_baseRtt.GetSeconds();
    double u = 0;
    double tau = 0;
    bool any = false;
    for (uint32_t i = 0; i < telemetry.GetNHops(); ++i)
    {
        const TalbIntTag::Hop& hop = telemetry.GetHop(i);
        bool found = false;
        PortRecord& r = RecordOf(hop.node, hop.port, &found);
        // A record no newer than the one kept (an acknowledgement overtaken by a later one)
        // measures nothing.
        if (found && hop.timeNs > r.timeNs && hop.rateBps > 0)
        {
            double dt = double(hop.timeNs - r.timeNs) * 1e-9;
            double rate = double(hop.rateBps);
            double txRate = double(hop.txBytes - std::min(hop.txBytes, r.txBytes)) * 8 / dt;
            double queued = double(std::min(hop.queueBytes, r.queueBytes));
            double uHop = queued * 8 / (rate * t) + txRate / rate;
            if (!any || uHop > u)
            {
                u = uHop;
                tau = dt;
            }
            any = true;
        }
        if (!found || hop.timeNs > r.timeNs)
        {
            r = PortRecord{hop.node, hop.port, hop.timeNs, hop.txBytes, hop.queueBytes, true};
        }
    }
    if (!any)
    {
        return false;
    }
    tau = std::min(tau, t);
    // The first measurement is taken whole: there is no earlier U to smooth it with.
    m_u = m_measured ? (1 - tau / t) * m_u + tau / t * u : u;
    m_measured = true;
    return true;
}

double
TalbHpcc::ComputeWindow(bool updateReference)
{
    double w;
    if (m_u >= m_eta || m_incStage >= m_maxStage)
    {
        // U near 0 (an idle path) asks for an unbounded step: the clamp below is the line rate.
        w = m_u > 0 ? m_refWindow / (m_u / m_eta) + m_additiveBytes : m_maxWindow;
        if (updateReference)
        {
            m_incStage = 0;
        }
    }
    else
    {
        w = m_refWindow + m_additiveBytes;
        if (updateReference)
        {
            ++m_incStage;
        }
    }
    w = std::clamp(w, m_minWindow, m_maxWindow);
    if (updateReference)
    {
        m_refWindow = w;
    }
    return w;
}

void
TalbHpcc::DoTelemetryReceived(const TalbIntTag& telemetry, uint64_t acked, uint64_t nextPsn)
{
    if (!MeasureInflight(telemetry))
    {
        return;
    }
    // Wc steps once per round trip: on the first acknowledgement of data sent after the last step.
    bool update = !m_updated || acked > m_lastUpdatePsn;
    m_window = ComputeWindow(update);
    if (update)
    {
        m_updated = true;
        m_lastUpdatePsn = nextPsn;
    }
    NS_LOG_LOGIC("U " << m_u << " W " << m_window << " Wc " << m_refWindow << " stage "
                      << m_incStage << (update ? " (update)" : ""));
    SetRate(DataRate(static_cast<uint64_t>(std::llround(m_window * 8 / m_baseRtt.GetSeconds()))));
}

} // namespace ns3
