#include "talb-rdma-rate-control.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaRateControl");

NS_OBJECT_ENSURE_REGISTERED(TalbRdmaRateControl);

TypeId
TalbRdmaRateControl::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbRdmaRateControl")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddAttribute("MinRate",
                          "Lowest rate a queue pair is throttled to",
                          DataRateValue(DataRate("100Mbps")),
                          MakeDataRateAccessor(&TalbRdmaRateControl::m_minRate),
                          MakeDataRateChecker())
            .AddTraceSource("Rate",
                            "The queue pair's sending rate",
                            MakeTraceSourceAccessor(&TalbRdmaRateControl::m_rate),
                            "ns3::TracedValueCallback::DataRate")
            .AddTraceSource("Rtt",
                            "A round-trip time sample of the queue pair",
                            MakeTraceSourceAccessor(&TalbRdmaRateControl::m_rttTrace),
                            "ns3::Time::TracedCallback");
    return tid;
}

TalbRegistry&
TalbRdmaRateControl::GetRegistry()
{
    static TalbRegistry registry("rate control", GetTypeId());
    return registry;
}

TalbRdmaRateControl::TalbRdmaRateControl()
    : m_minRate(DataRate("100Mbps"))
{
}

TalbRdmaRateControl::~TalbRdmaRateControl()
{
}

void
TalbRdmaRateControl::DoDispose()
{
    Stop();
    Object::DoDispose();
}

Ptr<TalbRdmaRateControl>
TalbRdmaRateControl::Fork() const
{
    Ptr<TalbRdmaRateControl> copy = DoFork();
    NS_ABORT_MSG_UNLESS(copy && copy->GetInstanceTypeId() == GetInstanceTypeId(),
                        "TalbRdmaRateControl::Fork: " << GetInstanceTypeId().GetName()
                                                      << " forked another type");
    return copy;
}

void
TalbRdmaRateControl::Start(DataRate lineRate, RateChangedCallback changed)
{
    NS_ABORT_MSG_IF(m_running, "TalbRdmaRateControl::Start called twice");
    NS_ABORT_MSG_UNLESS(lineRate.GetBitRate() > 0, "TalbRdmaRateControl: zero line rate");
    m_lineRate = lineRate;
    m_minRate = std::min(m_minRate, lineRate);
    m_rate = lineRate;
    m_changed = changed;
    m_running = true;
    DoStart();
}

void
TalbRdmaRateControl::Stop()
{
    if (m_running)
    {
        m_running = false;
        DoStop();
    }
    m_changed = RateChangedCallback();
}

void
TalbRdmaRateControl::CnpReceived()
{
    if (m_running)
    {
        DoCnpReceived();
    }
}

void
TalbRdmaRateControl::PacketSent(uint32_t bytes)
{
    if (m_running)
    {
        DoPacketSent(bytes);
    }
}

void
TalbRdmaRateControl::AckReceived(uint64_t newlyAcked, Time rtt)
{
    if (m_running)
    {
        if (rtt.IsStrictlyPositive())
        {
            m_rttTrace(rtt);
        }
        DoAckReceived(newlyAcked, rtt);
    }
}

bool
TalbRdmaRateControl::UsesRtt() const
{
    return DoUsesRtt();
}

bool
TalbRdmaRateControl::UsesTelemetry() const
{
    return DoUsesTelemetry();
}

void
TalbRdmaRateControl::TelemetryReceived(const TalbIntTag& telemetry,
                                       uint64_t acked,
                                       uint64_t nextPsn)
{
    if (m_running)
    {
        DoTelemetryReceived(telemetry, acked, nextPsn);
    }
}

uint64_t
TalbRdmaRateControl::GetWindow() const
{
    return m_running ? DoGetWindow() : 0;
}

DataRate
TalbRdmaRateControl::GetRate() const
{
    return m_rate;
}

DataRate
TalbRdmaRateControl::GetLineRate() const
{
    return m_lineRate;
}

DataRate
TalbRdmaRateControl::GetMinRate() const
{
    return m_minRate;
}

uint64_t
TalbRdmaRateControl::ScaleToLineRate(DataRate step, DataRate reference) const
{
    double scale = reference.GetBitRate() == 0
                       ? 1.0
                       : double(m_lineRate.GetBitRate()) / double(reference.GetBitRate());
    return static_cast<uint64_t>(std::llround(step.GetBitRate() * scale));
}

void
TalbRdmaRateControl::SetRate(DataRate rate)
{
    DataRate clamped(
        std::clamp(rate.GetBitRate(), m_minRate.GetBitRate(), m_lineRate.GetBitRate()));
    if (clamped == m_rate.Get())
    {
        return;
    }
    m_rate = clamped;
    if (!m_changed.IsNull())
    {
        m_changed(clamped);
    }
}

} // namespace ns3
