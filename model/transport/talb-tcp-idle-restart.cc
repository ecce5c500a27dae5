#include "talb-tcp-idle-restart.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTcpIdleRestart");
NS_OBJECT_ENSURE_REGISTERED(TalbTcpIdleRestart);

TypeId
TalbTcpIdleRestart::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTcpIdleRestart")
                            .SetParent<TcpCongestionOps>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbTcpIdleRestart>();
    return tid;
}

TalbTcpIdleRestart::TalbTcpIdleRestart()
{
    NS_LOG_FUNCTION(this);
}

TalbTcpIdleRestart::~TalbTcpIdleRestart()
{
    NS_LOG_FUNCTION(this);
}

Ptr<TalbTcpIdleRestart>
TalbTcpIdleRestart::Install(Ptr<TcpSocketBase> socket, Ptr<TcpCongestionOps> inner)
{
    NS_ABORT_MSG_UNLESS(socket && inner, "TalbTcpIdleRestart::Install: a socket and an algorithm");
    Ptr<TalbTcpIdleRestart> ops = CreateObject<TalbTcpIdleRestart>();
    ops->m_inner = inner;
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&TalbTcpIdleRestart::SegmentSent, ops));
    socket->TraceConnectWithoutContext("RTO", MakeCallback(&TalbTcpIdleRestart::RtoChanged, ops));
    socket->SetCongestionControlAlgorithm(ops);
    return ops;
}

uint64_t
TalbTcpIdleRestart::GetRestarts() const
{
    return m_restarts;
}

void
TalbTcpIdleRestart::SegmentSent(Ptr<const Packet> segment,
                                const TcpHeader& /* header */,
                                Ptr<const TcpSocketBase> /* socket */)
{
    // Every data segment, retransmissions too: Linux's __tcp_transmit_skb sets lsndtime so.
    if (segment->GetSize() > 0)
    {
        m_sent = true;
        m_lastSent = Simulator::Now();
    }
}

void
TalbTcpIdleRestart::RtoChanged(Time /* from */, Time to)
{
    m_rto = to;
}

void
TalbTcpIdleRestart::RestartWindow(Ptr<TcpSocketState> tcb, Time idle, Time rto)
{
    NS_ABORT_MSG_UNLESS(rto.IsStrictlyPositive(), "TalbTcpIdleRestart: the RTO must be positive");
    const uint32_t cwnd0 = tcb->m_cWnd;
    const uint32_t restart = std::min(tcb->m_initialCWnd * tcb->m_segmentSize, cwnd0);
    if (tcb->m_congState == TcpSocketState::CA_OPEN ||
        tcb->m_congState == TcpSocketState::CA_DISORDER)
    {
        // tcp_current_ssthresh: slow start climbs back to 3/4 of the old window.
        tcb->m_ssThresh = std::max<uint32_t>(tcb->m_ssThresh, (cwnd0 >> 1) + (cwnd0 >> 2));
    }
    uint32_t cwnd = cwnd0;
    for (idle -= rto; idle.IsStrictlyPositive() && cwnd > restart; idle -= rto)
    {
        cwnd >>= 1;
    }
    cwnd = std::max(cwnd, restart);
    tcb->m_cWnd = cwnd;
    tcb->m_cWndInfl = cwnd;
    NS_LOG_DEBUG("idle restart: cwnd " << cwnd0 << " -> " << cwnd << ", ssthresh "
                                       << tcb->m_ssThresh);
}

std::string
TalbTcpIdleRestart::GetName() const
{
    return m_inner->GetName();
}

void
TalbTcpIdleRestart::Init(Ptr<TcpSocketState> tcb)
{
    m_inner->Init(tcb);
}

uint32_t
TalbTcpIdleRestart::GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight)
{
    return m_inner->GetSsThresh(tcb, bytesInFlight);
}

void
TalbTcpIdleRestart::IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked)
{
    m_inner->IncreaseWindow(tcb, segmentsAcked);
}

void
TalbTcpIdleRestart::PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt)
{
    m_inner->PktsAcked(tcb, segmentsAcked, rtt);
}

void
TalbTcpIdleRestart::CongestionStateSet(Ptr<TcpSocketState> tcb,
                                       const TcpSocketState::TcpCongState_t newState)
{
    m_inner->CongestionStateSet(tcb, newState);
}

void
TalbTcpIdleRestart::CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event)
{
    // As Linux, not under an algorithm that sets the window itself (BBR's cong_control).
    if (event == TcpSocketState::CA_EVENT_TX_START && m_sent && m_rto.IsStrictlyPositive() &&
        !m_inner->HasCongControl())
    {
        const Time idle = Simulator::Now() - m_lastSent;
        if (idle > m_rto)
        {
            RestartWindow(tcb, idle, m_rto);
            ++m_restarts;
        }
    }
    m_inner->CwndEvent(tcb, event);
}

bool
TalbTcpIdleRestart::HasCongControl() const
{
    return m_inner->HasCongControl();
}

void
TalbTcpIdleRestart::CongControl(Ptr<TcpSocketState> tcb,
                                const TcpRateOps::TcpRateConnection& rc,
                                const TcpRateOps::TcpRateSample& rs)
{
    m_inner->CongControl(tcb, rc, rs);
}

Ptr<TcpCongestionOps>
TalbTcpIdleRestart::Fork()
{
    return m_inner->Fork();
}

} // namespace ns3
