#include "talb-tcp-rack-tlp-socket.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/rtt-estimator.h"
#include "ns3/simulator.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-rate-ops.h"
#include "ns3/tcp-recovery-ops.h"
#include "ns3/tcp-tx-buffer.h"
#include "ns3/tcp-tx-item.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTcpRackTlpSocket");
NS_OBJECT_ENSURE_REGISTERED(TalbTcpRackTlpSocket);

/**
 * ns-3's rate estimator (it hears every segment the scoreboard newly SACKs or the ACK
 * acknowledges), noting the latest transmission time among them for RACK: the socket's own
 * hook on deliveries, which ns-3 keeps inside its scoreboard.
 */
class TalbTcpDeliveryTimes : public TcpRateLinux
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TalbTcpDeliveryTimes")
                                .SetParent<TcpRateLinux>()
                                .SetGroupName("Talb")
                                .AddConstructor<TalbTcpDeliveryTimes>();
        return tid;
    }

    void SkbDelivered(TcpTxItem* skb) override
    {
        TcpRateLinux::SkbDelivered(skb);
        // Only SACKed segments lie above the first unacknowledged one: at a tie in time (a
        // burst) they went after it. A retransmission SACKed sooner than an RTT after it was
        // sent may be the original's SACK.
        const Time sent = skb->GetLastSent();
        if (skb->IsSacked() && (!skb->IsRetrans() || Simulator::Now() - sent >= minRtt))
        {
            latest = std::max(latest, sent);
        }
    }

    Time latest;              //!< the latest transmission SACKed so far
    Time minRtt{Time::Max()}; //!< the connection's, for the ambiguity above
};

NS_OBJECT_ENSURE_REGISTERED(TalbTcpDeliveryTimes);

/// \return whether \p state is fast recovery or the loss state after a timeout (the others:
/// open, disorder, an ECN window reduction)
static bool
InLossRecovery(TcpSocketState::TcpCongState_t state)
{
    return state == TcpSocketState::CA_RECOVERY || state == TcpSocketState::CA_LOSS;
}

TypeId
TalbTcpRackTlpSocket::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTcpRackTlpSocket")
            .SetParent<TcpSocketBase>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTcpRackTlpSocket>()
            .AddAttribute("TlpDelay",
                          "the probe timeout is twice the smoothed RTT plus this (Linux's "
                          "TCP_TIMEOUT_MIN_US, 2 ms); with one segment in flight plus the minimum "
                          "RTO instead",
                          TimeValue(MilliSeconds(2)),
                          MakeTimeAccessor(&TalbTcpRackTlpSocket::m_tlpDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxReorderingSteps",
                          "the widest reordering window in steps of min RTT / 4 (Linux: 256); 1 "
                          "keeps it at min RTT / 4",
                          UintegerValue(256),
                          MakeUintegerAccessor(&TalbTcpRackTlpSocket::m_maxReoSteps),
                          MakeUintegerChecker<uint32_t>(1, 65535))
            .AddAttribute("RackFirstTransmissions",
                          "RACK judges first transmissions too, as Linux; false: only "
                          "retransmissions (holes wait for the duplicate-ACK rule or the probe)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbTcpRackTlpSocket::m_rackFirst),
                          MakeBooleanChecker());
    return tid;
}

TypeId
TalbTcpRackTlpSocket::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbTcpRackTlpSocket::TalbTcpRackTlpSocket()
{
    NS_LOG_FUNCTION(this);
    HearDeliveries();
}

TalbTcpRackTlpSocket::TalbTcpRackTlpSocket(const TalbTcpRackTlpSocket& sock)
    : TcpSocketBase(sock),
      m_tlpDelay(sock.m_tlpDelay),
      m_rackFirst(sock.m_rackFirst),
      m_maxReoSteps(sock.m_maxReoSteps)
{
    NS_LOG_FUNCTION(this);
    HearDeliveries();
}

void
TalbTcpRackTlpSocket::HearDeliveries()
{
    // Replaces the base's fresh TcpRateLinux before any segment is sent (no trace is on it).
    m_delivery = CreateObject<TalbTcpDeliveryTimes>();
    m_rateOps = m_delivery;
}

TalbTcpRackTlpSocket::~TalbTcpRackTlpSocket()
{
    NS_LOG_FUNCTION(this);
}

Ptr<TalbTcpRackTlpSocket>
TalbTcpRackTlpSocket::Create(Ptr<Node> node)
{
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    NS_ABORT_MSG_UNLESS(tcp, "TalbTcpRackTlpSocket: node " << node->GetId() << " has no TCP");
    // As TcpL4Protocol::CreateSocket(), which makes only its own class.
    TypeIdValue rttType;
    TypeIdValue congestionType;
    TypeIdValue recoveryType;
    tcp->GetAttribute("RttEstimatorType", rttType);
    tcp->GetAttribute("SocketType", congestionType);
    tcp->GetAttribute("RecoveryType", recoveryType);
    ObjectFactory factory;
    factory.SetTypeId(rttType.Get());
    Ptr<RttEstimator> rtt = factory.Create<RttEstimator>();
    Ptr<TalbTcpRackTlpSocket> socket = CreateObject<TalbTcpRackTlpSocket>();
    factory.SetTypeId(congestionType.Get());
    Ptr<TcpCongestionOps> congestion = factory.Create<TcpCongestionOps>();
    factory.SetTypeId(recoveryType.Get());
    Ptr<TcpRecoveryOps> recovery = factory.Create<TcpRecoveryOps>();
    socket->SetNode(node);
    socket->SetTcp(tcp);
    socket->SetRtt(rtt);
    socket->SetCongestionControlAlgorithm(congestion);
    socket->SetRecoveryAlgorithm(recovery);
    return socket; // TcpL4Protocol lists it when it binds
}

uint64_t
TalbTcpRackTlpSocket::GetProbes() const
{
    return m_probes;
}

uint64_t
TalbTcpRackTlpSocket::GetProbeLosses() const
{
    return m_probeLosses;
}

uint64_t
TalbTcpRackTlpSocket::GetRackLosses() const
{
    return m_rackLosses;
}

Time
TalbTcpRackTlpSocket::GetSmoothedRtt() const
{
    return m_srtt;
}

Ptr<TcpSocketBase>
TalbTcpRackTlpSocket::Fork()
{
    return CopyObject<TalbTcpRackTlpSocket>(this);
}

void
TalbTcpRackTlpSocket::DoDispose()
{
    m_probeEvent.Cancel();
    m_rackEvent.Cancel();
    m_delivery = nullptr;
    TcpSocketBase::DoDispose();
}

bool
TalbTcpRackTlpSocket::MayProbe() const
{
    const TcpSocketState::TcpCongState_t state = m_tcb->m_congState;
    return m_sackEnabled && !m_probeOut && (m_state == ESTABLISHED || m_state == CLOSE_WAIT) &&
           !InLossRecovery(state) && m_txBuffer->HeadSequence() < m_tcb->m_highTxMark;
}

void
TalbTcpRackTlpSocket::ArmProbe()
{
    m_probeAt = Time(0);
    if (!MayProbe() || m_srtt.IsZero() || !m_retxEvent.IsRunning())
    {
        return;
    }
    const uint32_t outstanding = m_tcb->m_highTxMark.Get() - m_txBuffer->HeadSequence();
    const Time pto = 2 * m_srtt + (outstanding <= m_tcb->m_segmentSize ? m_minRto : m_tlpDelay);
    if (pto >= Simulator::GetDelayLeft(m_retxEvent))
    {
        return; // the timeout comes first
    }
    m_probeAt = Simulator::Now() + pto;
    // A deadline that moved later is met by the pending event, which looks again: no event per
    // segment sent or ACK received.
    if (m_probeEvent.IsRunning())
    {
        if (Simulator::Now() + Simulator::GetDelayLeft(m_probeEvent) <= m_probeAt)
        {
            return;
        }
        m_probeEvent.Cancel();
    }
    m_probeEvent = Simulator::Schedule(pto, &TalbTcpRackTlpSocket::ProbeTimeout, this);
}

void
TalbTcpRackTlpSocket::ProbeTimeout()
{
    if (m_probeAt.IsZero() || !MayProbe())
    {
        return;
    }
    if (Simulator::Now() < m_probeAt)
    {
        m_probeEvent = Simulator::Schedule(m_probeAt - Simulator::Now(),
                                           &TalbTcpRackTlpSocket::ProbeTimeout,
                                           this);
        return;
    }
    m_probeAt = Time(0);
    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    const SequenceNumber32 high = m_tcb->m_highTxMark;
    if (m_highSacked >= high)
    {
        RecoverBelowHighestSacked();
        return;
    }
    const SequenceNumber32 next = m_tcb->m_nextTxSequence;
    const uint32_t unsent = m_txBuffer->SizeFromSequence(next);
    const SequenceNumber32 windowEnd = una + m_rWnd.Get();
    const uint32_t room = windowEnd > next ? windowEnd - next : 0;
    const uint32_t fresh = std::min({unsent, room, m_tcb->m_segmentSize});
    m_probeOut = true;
    ++m_probes;
    if (next >= high && fresh > 0 && fresh == std::min(unsent, m_tcb->m_segmentSize))
    {
        m_probeRetransmitted = false;
        m_probeStart = next;
        const uint32_t sent = SendDataPacket(next, fresh, true);
        m_tcb->m_nextTxSequence += sent;
        m_probeEnd = next + sent;
    }
    else
    {
        m_probeRetransmitted = true;
        m_probeStart = high - std::min<uint32_t>(high - una, m_tcb->m_segmentSize);
        m_probeEnd = m_probeStart + SendDataPacket(m_probeStart, high - m_probeStart, true);
    }
    NS_LOG_LOGIC("loss probe [" << m_probeStart << ", " << m_probeEnd << ")"
                                << (m_probeRetransmitted ? " again" : " new"));
    // After a probe only the retransmission timer runs, from now (RFC 8985, 7.3).
    m_retxEvent.Cancel();
    m_retxEvent = Simulator::Schedule(m_rto, &TalbTcpRackTlpSocket::ReTxTimeout, this);
}

void
TalbTcpRackTlpSocket::RecoverBelowHighestSacked()
{
    NS_LOG_LOGIC("the highest segment is SACKed and the rest outstanding for a PTO: recovery");
    ++m_probeLosses;
    m_txBuffer->SetSentListLost(false); // what is not SACKed is lost
    RecoveryStarted();
    EnterRecovery(0);
    SendPendingData(m_connected);
}

void
TalbTcpRackTlpSocket::SampleRtt(SequenceNumber32 ack)
{
    bool covered = false;
    Sent last{};
    while (!m_sent.empty() && m_sent.front().end <= ack)
    {
        last = m_sent.front();
        covered = true;
        m_sent.pop_front();
    }
    if (!covered || last.again)
    {
        return;
    }
    const Time sample = Simulator::Now() - last.at;
    m_srtt = m_srtt.IsZero() ? sample : (7 * m_srtt + sample) / 8;
    m_minRtt = std::min(m_minRtt, sample);
}

uint32_t
TalbTcpRackTlpSocket::SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck)
{
    const SequenceNumber32 highBefore = m_tcb->m_highTxMark;
    const uint32_t sent = TcpSocketBase::SendDataPacket(seq, maxSize, withAck);
    const SequenceNumber32 end = seq + sent;
    if (seq < highBefore)
    {
        m_sentAgainAt[seq] = Simulator::Now();
        // Sent again: no RTT sample from the segments it overlaps (Karn).
        auto it = std::partition_point(m_sent.begin(), m_sent.end(), [seq](const Sent& s) {
            return s.end <= seq;
        });
        for (; it != m_sent.end(); ++it)
        {
            it->again = true;
            if (!(it->end < end))
            {
                break;
            }
        }
    }
    if (end > highBefore)
    {
        m_sent.push_back({end, Simulator::Now(), seq < highBefore});
        ArmProbe(); // Linux rearms on new data (tcp_event_new_data_sent)
    }
    return sent;
}

void
TalbTcpRackTlpSocket::ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader)
{
    const SequenceNumber32 ack = tcpHeader.GetAckNumber();
    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    SampleRtt(ack);
    bool probeDelivered = m_probeOut && ack >= m_probeEnd;
    if (Ptr<const TcpOptionSack> sack =
            DynamicCast<const TcpOptionSack>(tcpHeader.GetOption(TcpOption::SACK)))
    {
        for (const TcpOptionSack::SackBlock& block : sack->GetSackList())
        {
            m_highSacked = std::max(m_highSacked, block.second);
            probeDelivered = probeDelivered || (m_probeOut && block.first <= m_probeStart &&
                                                m_probeEnd <= block.second);
        }
    }
    const TcpSocketState::TcpCongState_t stateBefore = m_tcb->m_congState;
    WidenOnSpurious(ack);
    const bool recoverable = !InLossRecovery(stateBefore);
    // RACK: what was sent before the delivered probe and is still neither SACKed nor
    // acknowledged is lost. The scoreboard marks it so for this ACK.
    const bool revealsHoles = probeDelivered && recoverable && ack < m_probeStart;
    const bool repairedTail = probeDelivered && recoverable && m_probeRetransmitted &&
                              una < m_probeEnd && ack >= m_probeEnd;
    m_delivery->minRtt = m_minRtt;
    const uint32_t threshold = m_retxThresh;
    if (revealsHoles)
    {
        // This ACK is a duplicate ACK that meets the threshold (ns-3 then enters recovery from
        // Open or Disorder; in CWR it retransmits the marked segments).
        m_retxThresh = m_dupAckCount + 1;
        m_txBuffer->SetDupAckThresh(1);
    }
    TcpSocketBase::ReceivedAck(packet, tcpHeader);
    if (revealsHoles)
    {
        SetRetxThresh(threshold);
        ++m_probeLosses;
    }
    else if (repairedTail)
    {
        // No DSACK can say the original arrived: respond as to a loss (RFC 8985, 7.4.2).
        ++m_probeLosses;
        m_tcb->m_ssThresh = m_congestionControl->GetSsThresh(m_tcb, m_tcb->m_cWnd);
        m_tcb->m_cWnd = std::min(m_tcb->m_cWnd.Get(), m_tcb->m_ssThresh.Get());
        m_tcb->m_cWndInfl = m_tcb->m_cWnd.Get();
    }
    m_sentAgainAt.erase(m_sentAgainAt.begin(),
                        m_sentAgainAt.lower_bound(m_txBuffer->HeadSequence()));
    if (stateBefore != TcpSocketState::CA_RECOVERY &&
        m_tcb->m_congState == TcpSocketState::CA_RECOVERY)
    {
        RecoveryStarted(); // by ns-3's rule, or the probe's ACK
    }
    if (m_delivery->latest > m_rackDelivered)
    {
        m_rackDelivered = m_delivery->latest;
        m_rackRtt = Simulator::Now() - m_rackDelivered;
    }
    RackHead();
    const TcpSocketState::TcpCongState_t state = m_tcb->m_congState;
    if (probeDelivered || InLossRecovery(state))
    {
        m_probeOut = false;
    }
    ArmProbe(); // Linux rearms on every ACK (tcp_set_xmit_timer)
}

void
TalbTcpRackTlpSocket::WidenOnSpurious(SequenceNumber32 ack)
{
    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    auto again = m_sentAgainAt.find(una);
    if (!(una < ack) || again == m_sentAgainAt.end() || m_minRtt == Time::Max() ||
        Simulator::Now() - again->second >= m_minRtt)
    {
        return;
    }
    // Acknowledged sooner than any ACK of the retransmission could come: the original arrived,
    // late. Linux learns this from a DSACK and widens the window once per round trip (up to 256
    // steps of min RTT / 4), keeping it for the next 16 recoveries.
    m_reoPersist = 16;
    if (Simulator::Now() - m_lastWidened >= m_srtt && m_reoSteps < m_maxReoSteps)
    {
        ++m_reoSteps;
        m_lastWidened = Simulator::Now();
    }
}

void
TalbTcpRackTlpSocket::RecoveryStarted()
{
    if (m_reoPersist > 0)
    {
        --m_reoPersist;
    }
    else
    {
        m_reoSteps = 1;
    }
}

void
TalbTcpRackTlpSocket::RackHead()
{
    m_rackEvent.Cancel();
    const SequenceNumber32 una = m_txBuffer->HeadSequence();
    if (!(una < m_tcb->m_highTxMark) || (m_state != ESTABLISHED && m_state != CLOSE_WAIT))
    {
        return;
    }
    auto again = m_sentAgainAt.find(una);
    const bool retransmitted = again != m_sentAgainAt.end();
    const TcpSocketState::TcpCongState_t state = m_tcb->m_congState;
    if (!retransmitted && (!m_rackFirst || m_sent.empty() || state == TcpSocketState::CA_LOSS))
    {
        return;
    }
    const Time headSent = retransmitted ? again->second : m_sent.front().at;
    if (m_rackDelivered.IsZero() || m_rackDelivered < headSent)
    {
        return; // nothing sent after it has arrived
    }
    const Time reorderingWindow =
        m_minRtt == Time::Max() ? Time(0) : std::min(m_minRtt / 4 * m_reoSteps, m_srtt);
    const Time lostAt = headSent + m_rackRtt + reorderingWindow;
    if (Simulator::Now() < lostAt)
    {
        m_rackEvent =
            Simulator::Schedule(lostAt - Simulator::Now(), &TalbTcpRackTlpSocket::RackHead, this);
        return;
    }
    NS_LOG_LOGIC("RACK: " << una << (retransmitted ? " sent again at " : " sent at ") << headSent
                          << ", a segment sent at " << m_rackDelivered << " arrived: lost");
    ++m_rackLosses;
    m_txBuffer->MarkHeadAsLost(); // clears a retransmission's flag: it goes again
    if (!InLossRecovery(state))
    {
        RecoveryStarted();
        EnterRecovery(0);
        SendPendingData(m_connected);
        return;
    }
    SendPendingData(m_connected);
    if (!m_txBuffer->IsHeadRetransmitted() && BytesInFlight() == 0)
    {
        DoRetransmit(); // nothing in flight would clock it out
    }
}

void
TalbTcpRackTlpSocket::ReTxTimeout()
{
    m_probeOut = false;
    m_probeAt = Time(0);
    TcpSocketBase::ReTxTimeout();
}

} // namespace ns3
