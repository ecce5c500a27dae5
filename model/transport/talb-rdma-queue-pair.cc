#include "talb-rdma-queue-pair.h"

#include "talb-rdma-nic.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/talb-tag.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaQueuePair");

NS_OBJECT_ENSURE_REGISTERED(TalbRdmaQueuePair);

namespace
{
constexpr uint32_t PSN_BITS = 24;
constexpr uint32_t PSN_MASK = (1u << PSN_BITS) - 1;
constexpr uint8_t ECN_ECT0 = 0x02;
constexpr uint8_t ECN_CE = 0x03;
/// UDP + BTH + ICRC bytes around a data packet's payload (inside IPv4).
constexpr uint32_t DATA_OVERHEAD = 8 + 12 + TalbRoceHeader::TRAILER_BYTES;
} // namespace

TypeId
TalbRdmaQueuePair::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbRdmaQueuePair").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbRdmaQueuePair::TalbRdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

TalbRdmaQueuePair::~TalbRdmaQueuePair()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRdmaQueuePair::DoDispose()
{
    m_timer.Cancel();
    if (m_cc)
    {
        m_cc->Stop();
    }
    m_cc = nullptr;
    m_entropy = nullptr;
    m_nic = nullptr;
    m_messages.clear();
    m_sent.clear();
    m_retx.clear();
    m_rxSlots.clear();
    m_sendComplete = SendCompleteCallback();
    m_receive = ReceiveCallback();
    Object::DoDispose();
}

void
TalbRdmaQueuePair::Setup(TalbRdmaNic* nic,
                         uint32_t qpn,
                         Ipv4Address local,
                         Ptr<TalbRdmaRateControl> cc)
{
    m_nic = nic;
    m_qpn = qpn;
    m_local = local;
    m_cc = cc;
    m_cc->Start(nic->m_lineRate, MakeCallback(&TalbRdmaQueuePair::RateChanged, this));
    m_selective = nic->m_recovery == TalbRdmaNic::SELECTIVE_REPEAT;
    m_rttEnabled = nic->m_measureRtt || m_cc->UsesRtt();
    m_window = nic->m_srWindowPackets;
    if (m_selective && nic->m_entropyPrototype)
    {
        m_entropy = nic->m_entropyPrototype->Fork();
    }
}

void
TalbRdmaQueuePair::SetPeer(Ipv4Address peer, uint32_t peerQpn, uint32_t initialPsn)
{
    m_peer = peer;
    m_peerQpn = peerQpn;
    initialPsn &= PSN_MASK;
    m_postPsn = m_sndNxt = m_sndUna = m_maxSent = initialPsn;
    m_ePsn = initialPsn;
    // Real NICs derive the RoCEv2 UDP source port from the connection for ECMP entropy.
    uint32_t h = (m_local.Get() * 0x9E3779B1u) ^ (peer.Get() * 0x85EBCA77u) ^
                 (m_qpn * 0xC2B2AE3Du) ^ (peerQpn * 0x27D4EB2Fu);
    h ^= h >> 15;
    m_sourcePort = static_cast<uint16_t>(0xC000 | (h & 0x3FFF));
    if (m_entropy)
    {
        m_entropy->Start(m_sourcePort);
    }
}

uint64_t
TalbRdmaQueuePair::PostSend(uint64_t bytes, std::vector<TalbRdmaLabelRun> runs)
{
    NS_LOG_FUNCTION(this << bytes << runs.size());
    NS_ABORT_MSG_UNLESS(m_nic && m_peerQpn != 0,
                        "TalbRdmaQueuePair::PostSend on a queue pair that is not connected");
    Message m;
    m.seq = m_nextSeq++;
    m.bytes = bytes;
    m.firstPsn = m_postPsn;
    uint32_t mtu = m_nic->GetMtu();
    m.packets = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
    m_postPsn += m.packets;
    if (runs.empty())
    {
        runs.push_back(TalbRdmaLabelRun{bytes, false, {0, TALB_NUM_PRIORITIES - 1, 0}});
    }
    m.runStart.reserve(runs.size() + 1);
    uint64_t offset = 0;
    for (const auto& r : runs)
    {
        NS_ABORT_MSG_UNLESS(!r.labelled || talb_label_valid(&r.label),
                            "TalbRdmaQueuePair::PostSend: invalid label");
        m.runStart.push_back(offset);
        offset += r.bytes;
    }
    m.runStart.push_back(offset);
    NS_ABORT_MSG_UNLESS(offset == bytes,
                        "TalbRdmaQueuePair::PostSend: runs cover " << offset << " of " << bytes
                                                                   << " bytes");
    m.runs = std::move(runs);
    m_messages.push_back(std::move(m));
    ++m_stats.messagesPosted;
    m_nic->Activate(this);
    return m_nextSeq - 1;
}

void
TalbRdmaQueuePair::SetSendCompleteCallback(SendCompleteCallback cb)
{
    m_sendComplete = cb;
}

void
TalbRdmaQueuePair::SetReceiveCallback(ReceiveCallback cb)
{
    m_receive = cb;
}

uint32_t
TalbRdmaQueuePair::GetQpn() const
{
    return m_qpn;
}

uint32_t
TalbRdmaQueuePair::GetPeerQpn() const
{
    return m_peerQpn;
}

Ipv4Address
TalbRdmaQueuePair::GetLocalAddress() const
{
    return m_local;
}

Ipv4Address
TalbRdmaQueuePair::GetPeerAddress() const
{
    return m_peer;
}

uint16_t
TalbRdmaQueuePair::GetSourcePort() const
{
    return m_sourcePort;
}

void
TalbRdmaQueuePair::SetSourcePort(uint16_t port)
{
    NS_LOG_FUNCTION(this << port);
    m_sourcePort = port;
}

void
TalbRdmaQueuePair::Repath(uint16_t port)
{
    NS_LOG_FUNCTION(this << port);
    ++m_stats.repaths;
    m_sourcePort = port;
}

Ptr<TalbRdmaNic>
TalbRdmaQueuePair::GetNic() const
{
    return m_nic;
}

Ptr<TalbRdmaRateControl>
TalbRdmaQueuePair::GetRateControl() const
{
    return m_cc;
}

DataRate
TalbRdmaQueuePair::GetRate() const
{
    return m_cc ? m_cc->GetRate() : DataRate(0);
}

std::size_t
TalbRdmaQueuePair::GetPendingMessages() const
{
    return m_messages.size();
}

const TalbRdmaQueuePair::Stats&
TalbRdmaQueuePair::GetStats() const
{
    return m_stats;
}

bool
TalbRdmaQueuePair::IsSelectiveRepeat() const
{
    return m_selective;
}

Ptr<TalbEntropyPolicy>
TalbRdmaQueuePair::GetEntropyPolicy() const
{
    return m_entropy;
}

bool
TalbRdmaQueuePair::HasData() const
{
    return m_sndNxt < m_postPsn || !m_retx.empty();
}

bool
TalbRdmaQueuePair::WindowOpen() const
{
    if (!m_retx.empty())
    {
        return true; // a packet declared lost leaves whatever the window
    }
    uint64_t window = m_nic->m_window;
    uint64_t ccWindow = m_cc->GetWindow();
    if (ccWindow > 0)
    {
        window = window == 0 ? ccWindow : std::min(window, ccWindow);
    }
    // A window below one packet still lets one packet go at a time (nothing in flight is less).
    bool bytesOpen = window == 0 || (m_sndNxt - m_sndUna) * m_nic->GetMtu() < window;
    return bytesOpen && (!m_selective || m_sndNxt - m_sndUna < m_window);
}

Time
TalbRdmaQueuePair::NextSendTime() const
{
    return m_nextSend;
}

std::size_t
TalbRdmaQueuePair::MessageOf(uint64_t psn) const
{
    // The last message whose first PSN is at most psn.
    auto it = std::upper_bound(m_messages.begin(),
                               m_messages.end(),
                               psn,
                               [](uint64_t p, const Message& m) { return p < m.firstPsn; });
    NS_ASSERT(it != m_messages.begin());
    return static_cast<std::size_t>(it - m_messages.begin()) - 1;
}

void
TalbRdmaQueuePair::SetTrafficClass(uint8_t priority)
{
    NS_ABORT_MSG_UNLESS(priority < TALB_NUM_PRIORITIES || priority == TRAFFIC_CLASS_OF_LABEL,
                        "TalbRdmaQueuePair::SetTrafficClass: priority " << unsigned(priority));
    m_trafficClass = priority;
}

uint8_t
TalbRdmaQueuePair::GetTrafficClass() const
{
    return m_trafficClass;
}

uint8_t
TalbRdmaQueuePair::NextBand() const
{
    if (m_trafficClass != TRAFFIC_CLASS_OF_LABEL)
    {
        return m_trafficClass;
    }
    if (!m_retx.empty())
    {
        uint64_t psn = *m_retx.begin();
        const Message& m = m_messages[MessageOf(psn)];
        uint64_t offset = (psn - m.firstPsn) * m_nic->GetMtu();
        auto run = static_cast<std::size_t>(
            std::upper_bound(m.runStart.begin(), m.runStart.end() - 1, offset) -
            m.runStart.begin() - 1);
        return BandOf(m, run);
    }
    return BandOf(m_messages[m_cursor], m_runCursor);
}

uint8_t
TalbRdmaQueuePair::BandOf(const Message& m, std::size_t runIndex) const
{
    const TalbRdmaLabelRun& run = m.runs[runIndex];
    return run.labelled && (m_nic->m_addTag || m_nic->m_setDscp) ? run.label.priority
                                                                 : m_nic->m_untaggedBand;
}

Ptr<Packet>
TalbRdmaQueuePair::SendNext()
{
    NS_ASSERT(HasData());
    if (m_retx.empty())
    {
        return SendPacket();
    }
    // Selective repeat: a lost packet goes first; the cursors then return to the new data.
    uint64_t psn = *m_retx.begin();
    m_retx.erase(m_retx.begin());
    uint64_t next = m_sndNxt;
    std::size_t cursor = m_cursor;
    std::size_t runCursor = m_runCursor;
    m_sndNxt = psn;
    SetCursor(psn);
    Ptr<Packet> p = SendPacket();
    m_sndNxt = next;
    m_cursor = cursor;
    m_runCursor = runCursor;
    return p;
}

Ptr<Packet>
TalbRdmaQueuePair::SendPacket()
{
    const Message& m = m_messages[m_cursor];
    uint32_t mtu = m_nic->GetMtu();
    uint64_t index = m_sndNxt - m.firstPsn;
    uint64_t offset = index * mtu;
    auto payload = static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - offset));
    const TalbRdmaLabelRun& run = m.runs[m_runCursor];

    TalbRoceHeader h;
    h.SetSource(m_local);
    h.SetDestination(m_peer);
    h.SetIdentification(m_ipId++);
    // In-band telemetry travels as a tag; the bytes its header takes on the wire are padding.
    uint32_t telemetryBytes = m_nic->m_telemetry ? TalbIntTag::WIRE_BYTES : 0;
    h.SetIpPayloadBytes(static_cast<uint16_t>(DATA_OVERHEAD + payload + telemetryBytes));
    uint16_t entropy = m_entropy ? m_entropy->NextEntropy() : m_sourcePort;
    h.SetSourcePort(entropy);
    h.SetDestQp(m_peerQpn);
    h.SetPsn(m_sndNxt & PSN_MASK);
    bool first = index == 0;
    bool last = index + 1 == m.packets;
    h.SetOpcode(first && last ? TalbRoceHeader::OP_SEND_ONLY
                : first       ? TalbRoceHeader::OP_SEND_FIRST
                : last        ? TalbRoceHeader::OP_SEND_LAST
                              : TalbRoceHeader::OP_SEND_MIDDLE);
    // A packet sent for the first time may start an RTT sample; its A bit asks for an
    // immediate acknowledgement, so the sample holds no acknowledgement coalescing.
    bool timed = m_rttEnabled && !m_rttTiming && m_sndNxt == m_maxSent;
    // HPCC acknowledges every packet, so each one's telemetry comes back.
    // So does the packet that fills the window: the sender can send nothing more until an
    // acknowledgement comes, and the responder would wait for AckInterval packets.
    bool windowEdge = m_selective && m_nic->m_windowEdgeAck && m_sndNxt + 1 - m_sndUna >= m_window;
    h.SetAckRequest(last || timed || m_nic->m_telemetry || windowEdge);
    uint8_t dscp = 0;
    Ptr<Packet> p = Create<Packet>(payload + telemetryBytes + TalbRoceHeader::TRAILER_BYTES);
    if (m_nic->m_telemetry)
    {
        p->AddPacketTag(TalbIntTag());
    }
    if (run.labelled)
    {
        struct talb_label label = run.label;
        label.flags = 0;
        if ((run.label.flags & TALB_FLAG_FIRST) && offset == m.runStart[m_runCursor])
        {
            label.flags |= TALB_FLAG_FIRST;
        }
        if ((run.label.flags & TALB_FLAG_LAST) && m.runStart[m_runCursor + 1] <= offset + payload)
        {
            label.flags |= TALB_FLAG_LAST;
        }
        if (m_nic->m_addTag)
        {
            p->AddPacketTag(TalbTag(label.tensor_id, label.priority, label.flags));
        }
        if (m_nic->m_setDscp)
        {
            dscp = talb_dscp_from_priority(label.priority);
        }
    }
    if (m_trafficClass != TRAFFIC_CLASS_OF_LABEL)
    {
        dscp = talb_dscp_from_priority(m_trafficClass);
    }
    h.SetTos(static_cast<uint8_t>(dscp << 2) | ECN_ECT0);
    p->AddHeader(h);

    ++m_stats.packetsSent;
    m_stats.bytesSent += payload;
    if (m_sndNxt < m_maxSent)
    {
        ++m_stats.retransmittedPackets;
        m_stats.retransmittedBytes += payload;
        m_rttTiming = false;
    }
    else
    {
        ++m_stats.newPackets;
        if (timed)
        {
            m_rttTiming = true;
            m_rttPsn = m_sndNxt;
            m_rttSentAt = Simulator::Now();
        }
    }
    NS_ASSERT(m_stats.packetsSent == m_stats.newPackets + m_stats.retransmittedPackets);
    if (m_selective)
    {
        if (m_sndNxt == m_maxSent)
        {
            m_sent.push_back(SentPacket{m_sndNxt, entropy, false});
        }
        else
        {
            SentPacket& s = m_sent[m_sndNxt - m_sndUna];
            s.mark = m_maxSent;
            s.entropy = entropy;
        }
    }
    ++m_sndNxt;
    m_maxSent = std::max(m_maxSent, m_sndNxt);

    // Advance the cursors to the next packet's message and run (past the end when idle).
    if (last)
    {
        ++m_cursor;
        m_runCursor = 0;
    }
    else
    {
        uint64_t next = offset + payload;
        while (m.runStart[m_runCursor + 1] <= next && m_runCursor + 2 < m.runStart.size())
        {
            ++m_runCursor;
        }
    }

    m_lastSend = Simulator::Now();
    m_lastWireBytes = p->GetSize() + m_nic->m_l2Overhead;
    UpdateNextSend();
    m_cc->PacketSent(p->GetSize());
    if (!m_timerArmed)
    {
        ArmTimer();
    }
    return p;
}

void
TalbRdmaQueuePair::UpdateNextSend()
{
    DataRate rate = m_cc->GetRate();
    // At line rate the port itself is the pace: no gap, and no rounding that could add one.
    m_nextSend = rate.GetBitRate() >= m_nic->m_lineRate.GetBitRate()
                     ? m_lastSend
                     : m_lastSend + rate.CalculateBytesTxTime(m_lastWireBytes);
}

void
TalbRdmaQueuePair::RateChanged(DataRate /* rate */)
{
    UpdateNextSend();
    if (HasData())
    {
        m_nic->Activate(this); // re-times the NIC's wake-up
    }
}

void
TalbRdmaQueuePair::SetCursor(uint64_t psn)
{
    if (psn >= m_postPsn)
    {
        m_cursor = m_messages.size();
        m_runCursor = 0;
        return;
    }
    m_cursor = MessageOf(psn);
    const Message& m = m_messages[m_cursor];
    uint64_t offset = (psn - m.firstPsn) * m_nic->GetMtu();
    m_runCursor = static_cast<std::size_t>(
        std::upper_bound(m.runStart.begin(), m.runStart.end() - 1, offset) - m.runStart.begin() -
        1);
}

uint64_t
TalbRdmaQueuePair::ExpandPsn(uint32_t psn24, uint64_t reference)
{
    auto diff =
        static_cast<int32_t>((psn24 - uint32_t(reference)) << (32 - PSN_BITS)) >> (32 - PSN_BITS);
    return static_cast<uint64_t>(static_cast<int64_t>(reference) + diff);
}

void
TalbRdmaQueuePair::GoBack(uint64_t psn, bool timeout)
{
    NS_ASSERT(psn >= m_sndUna);
    if (psn >= m_sndNxt)
    {
        return;
    }
    NS_LOG_LOGIC("qp " << m_qpn << " goes back from " << m_sndNxt << " to " << psn
                       << (timeout ? " (timeout)" : " (nak)"));
    m_nic->m_goBackTrace(this, m_sndNxt, psn, timeout);
    m_sndNxt = psn;
    SetCursor(psn);
    m_nic->Activate(this);
}

void
TalbRdmaQueuePair::RestartTimer()
{
    m_timerArmed = false;
    if (m_sndUna < m_maxSent)
    {
        ArmTimer();
    }
}

void
TalbRdmaQueuePair::ArmTimer()
{
    m_timerArmed = true;
    // IRN's RTO_low: with too few packets in flight for a later one to reveal a loss, the
    // tail of a burst is not left to the long timeout.
    Time rto = m_selective && m_nic->m_rtoLow.IsStrictlyPositive() &&
                       m_maxSent - m_sndUna <= m_nic->m_lossThreshold
                   ? m_nic->m_rtoLow
                   : m_nic->m_rto;
    Time deadline = Simulator::Now() + rto;
    if (m_timer.IsRunning() && deadline < m_timerDeadline)
    {
        // The only deadline that moves earlier: reschedule.
        m_timer.Cancel();
    }
    m_timerDeadline = deadline;
    // Otherwise deadlines only move later, so a pending event is never late.
    if (!m_timer.IsRunning())
    {
        m_timer = Simulator::Schedule(rto, &TalbRdmaQueuePair::TimerEvent, this);
    }
}

void
TalbRdmaQueuePair::TimerEvent()
{
    if (!m_timerArmed)
    {
        return;
    }
    Time now = Simulator::Now();
    if (now < m_timerDeadline)
    {
        m_timer = Simulator::Schedule(m_timerDeadline - now, &TalbRdmaQueuePair::TimerEvent, this);
        return;
    }
    m_timerArmed = false;
    Timeout();
}

void
TalbRdmaQueuePair::Timeout()
{
    if (m_sndUna >= m_maxSent)
    {
        return;
    }
    ++m_stats.timeouts;
    if (!m_selective)
    {
        GoBack(m_sndUna, true);
        return;
    }
    // Everything not selectively acknowledged may be lost: send it again.
    NS_LOG_LOGIC("qp " << m_qpn << " times out at " << m_sndUna << " with " << m_maxSent - m_sndUna
                       << " in flight, SACK up to " << m_highSacked);
    for (uint64_t psn = m_sndUna; psn < m_maxSent; ++psn)
    {
        if (!m_sent[psn - m_sndUna].sacked && m_retx.count(psn) == 0)
        {
            DeclareLost(psn, TalbEntropyPolicy::LossCause::kTimeout);
        }
    }
    m_nic->Activate(this);
}

void
TalbRdmaQueuePair::DeclareLost(uint64_t psn, TalbEntropyPolicy::LossCause cause)
{
    m_retx.insert(psn);
    ++m_stats.packetsDeclaredLost;
    if (m_entropy)
    {
        m_entropy->Lost(m_sent[psn - m_sndUna].entropy, cause);
    }
}

void
TalbRdmaQueuePair::DetectLosses()
{
    uint32_t threshold = m_nic->m_lossThreshold;
    for (uint64_t psn = m_sndUna; psn < m_maxSent && psn + threshold < m_highSacked; ++psn)
    {
        const SentPacket& s = m_sent[psn - m_sndUna];
        // m_highSacked - 1 is the highest PSN selectively acknowledged.
        if (!s.sacked && s.mark + threshold < m_highSacked && m_retx.count(psn) == 0)
        {
            NS_LOG_LOGIC("qp " << m_qpn << " declares PSN " << psn << " lost (SACK up to "
                               << m_highSacked - 1 << ")");
            DeclareLost(psn, TalbEntropyPolicy::LossCause::kSackHole);
        }
    }
}

void
TalbRdmaQueuePair::CompleteMessages()
{
    while (!m_messages.empty() &&
           m_messages.front().firstPsn + m_messages.front().packets <= m_sndUna)
    {
        uint64_t seq = m_messages.front().seq;
        uint64_t bytes = m_messages.front().bytes;
        m_messages.pop_front();
        NS_ASSERT(m_cursor > 0); // m_sndNxt is past the completed message
        --m_cursor;
        ++m_stats.messagesCompleted;
        m_nic->m_messageSentTrace(this, seq, bytes);
        if (!m_sendComplete.IsNull())
        {
            m_sendComplete(this, seq);
        }
    }
}

void
TalbRdmaQueuePair::ReceiveSack(const TalbRoceHeader& h, const TalbIntTag* telemetry)
{
    ++m_stats.acksReceived;
    uint64_t una = ExpandPsn(h.GetPsn(), m_sndUna) + 1;
    if (!m_selective || una > m_maxSent || una < m_sndUna)
    {
        return; // stale or not ours
    }
    // What the entropy policy hears of: the one entropy echoed or, with RecycleCovered, every
    // packet newly covered, under the entropy it was sent with. An acknowledgement echoing none
    // answers a hole filled by a packet a slow path held back: nothing it covers is recycled.
    bool covered = m_entropy && m_nic->m_recycleCovered && h.GetEchoEntropy() != 0;
    if (m_entropy && !covered)
    {
        m_entropy->Acked(h.GetEchoEntropy(), h.GetEchoCe());
    }
    uint64_t newly = 0;
    if (una > m_sndUna)
    {
        for (uint64_t psn = m_sndUna; covered && psn < una; ++psn)
        {
            const SentPacket& sent = m_sent[psn - m_sndUna];
            if (!sent.sacked)
            {
                m_entropy->Acked(sent.entropy, h.GetEchoCe());
            }
        }
        newly = (una - m_sndUna) * m_nic->GetMtu();
        m_sent.erase(m_sent.begin(), m_sent.begin() + static_cast<std::ptrdiff_t>(una - m_sndUna));
        m_retx.erase(m_retx.begin(), m_retx.lower_bound(una));
        m_sndUna = una;
        RestartTimer();
    }
    // Bit i: PSN una + 1 + i (una itself is the first one missing).
    uint64_t bitmap = h.GetSackBitmap();
    for (uint32_t i = 0; bitmap != 0 && i < TalbRoceHeader::SACK_BITMAP_PSNS; ++i, bitmap >>= 1)
    {
        uint64_t psn = una + 1 + i;
        if ((bitmap & 1) == 0 || psn >= m_maxSent)
        {
            continue;
        }
        SentPacket& sent = m_sent[psn - m_sndUna];
        if (covered && !sent.sacked)
        {
            m_entropy->Acked(sent.entropy, h.GetEchoCe());
        }
        sent.sacked = true;
        m_retx.erase(psn);
        m_highSacked = std::max(m_highSacked, psn + 1);
    }
    CompleteMessages();
    if (telemetry)
    {
        m_cc->TelemetryReceived(*telemetry, una, m_maxSent);
    }
    m_cc->AckReceived(newly, TakeRttSample(una));
    DetectLosses();
    if (HasData())
    {
        m_nic->Activate(this); // the window may have opened, or a packet is to go again
    }
}

void
TalbRdmaQueuePair::ReceiveAck(const TalbRoceHeader& h, const TalbIntTag* telemetry)
{
    bool nak = h.GetSyndrome() != TalbRoceHeader::SYNDROME_ACK;
    nak ? ++m_stats.naksReceived : ++m_stats.acksReceived;
    uint64_t psn = ExpandPsn(h.GetPsn(), m_sndUna);
    uint64_t una = nak ? psn : psn + 1;
    if (una > m_maxSent || una < m_sndUna)
    {
        return; // stale or not ours
    }
    uint64_t newly = 0;
    if (una > m_sndUna)
    {
        newly = (una - m_sndUna) * m_nic->GetMtu();
        m_sndUna = una;
        // A retransmission may be behind what the responder already has.
        if (m_sndNxt < m_sndUna)
        {
            m_sndNxt = m_sndUna;
            SetCursor(m_sndNxt);
        }
        RestartTimer();
    }
    CompleteMessages();
    if (telemetry)
    {
        m_cc->TelemetryReceived(*telemetry, una, m_maxSent);
    }
    m_cc->AckReceived(newly, TakeRttSample(una));
    if (nak)
    {
        GoBack(una, false);
    }
    else if ((newly > 0 || telemetry) && HasData())
    {
        m_nic->Activate(this); // the window may have opened (or the rate control's grown)
    }
}

Time
TalbRdmaQueuePair::TakeRttSample(uint64_t una)
{
    if (!m_rttTiming || una <= m_rttPsn)
    {
        return Time();
    }
    m_rttTiming = false;
    return Simulator::Now() - m_rttSentAt;
}

void
TalbRdmaQueuePair::ReceiveCnp()
{
    ++m_stats.cnpsReceived;
    m_nic->m_cnpReceivedTrace(this);
    m_cc->CnpReceived();
}

void
TalbRdmaQueuePair::ReceiveData(const TalbRoceHeader& h, uint32_t payload, bool ce)
{
    ++m_stats.packetsReceived;
    Time now = Simulator::Now();
    if (ce)
    {
        ++m_stats.ceReceived;
        if (!m_cnpSent || now - m_lastCnp >= m_nic->m_cnpInterval)
        {
            m_cnpSent = true;
            m_lastCnp = now;
            ++m_stats.cnpsSent;
            m_nic->SendCnp(this);
        }
    }
    if (m_selective)
    {
        ReceiveDataSelective(h, payload, ce);
        return;
    }
    uint64_t psn = ExpandPsn(h.GetPsn(), m_ePsn);
    if (psn == m_ePsn)
    {
        ++m_stats.packetsAccepted;
        m_stats.bytesReceived += payload;
        ++m_ePsn;
        m_rxBytes += payload;
        m_nakSent = false;
        m_dupAcked = false;
        bool last = h.GetOpcode() == TalbRoceHeader::OP_SEND_LAST ||
                    h.GetOpcode() == TalbRoceHeader::OP_SEND_ONLY;
        if (last)
        {
            uint64_t seq = m_rxSeq++;
            uint64_t bytes = m_rxBytes;
            m_rxBytes = 0;
            ++m_stats.messagesReceived;
            m_unacked = 0;
            ++m_stats.acksSent;
            m_nic->SendAck(this, TalbRoceHeader::SYNDROME_ACK, (m_ePsn - 1) & PSN_MASK, m_rxSeq);
            m_nic->m_messageReceivedTrace(this, seq, bytes);
            if (!m_receive.IsNull())
            {
                m_receive(this, seq, bytes);
            }
        }
        else if (h.GetAckRequest() || ++m_unacked >= m_nic->m_ackInterval)
        {
            m_unacked = 0;
            ++m_stats.acksSent;
            m_nic->SendAck(this, TalbRoceHeader::SYNDROME_ACK, (m_ePsn - 1) & PSN_MASK, m_rxSeq);
        }
    }
    else if (psn > m_ePsn)
    {
        NS_LOG_LOGIC("qp " << m_qpn << " drops PSN " << psn << ", expects " << m_ePsn
                           << (m_nakSent ? " (NAK already sent)" : " (sends a NAK)"));
        ++m_stats.packetsOutOfOrder;
        if (!m_nakSent)
        {
            m_nakSent = true;
            ++m_stats.naksSent;
            m_nic->SendAck(this, TalbRoceHeader::SYNDROME_NAK_SEQ, m_ePsn & PSN_MASK, m_rxSeq);
        }
    }
    else
    {
        ++m_stats.packetsDuplicate;
        if (AnswerDuplicate())
        {
            ++m_stats.acksSent;
            m_nic->SendAck(this, TalbRoceHeader::SYNDROME_ACK, (m_ePsn - 1) & PSN_MASK, m_rxSeq);
        }
    }
    NS_ASSERT(m_stats.packetsReceived ==
              m_stats.packetsAccepted + m_stats.packetsOutOfOrder + m_stats.packetsDuplicate);
}

void
TalbRdmaQueuePair::ReceiveDataSelective(const TalbRoceHeader& h, uint32_t payload, bool ce)
{
    m_echoEntropy = h.GetSourcePort();
    m_ackPort = m_echoEntropy;
    m_echoCe = ce;
    uint64_t psn = ExpandPsn(h.GetPsn(), m_ePsn);
    bool last = h.GetOpcode() == TalbRoceHeader::OP_SEND_LAST ||
                h.GetOpcode() == TalbRoceHeader::OP_SEND_ONLY;
    uint64_t offset = psn - m_ePsn;
    if (psn < m_ePsn || (offset < m_rxSlots.size() && m_rxSlots[offset].received))
    {
        ++m_stats.packetsDuplicate;
        if (AnswerDuplicate())
        {
            SendSack();
        }
    }
    else if (offset >= m_window)
    {
        NS_LOG_LOGIC("qp " << m_qpn << " drops PSN " << psn << " beyond its window from "
                           << m_ePsn);
        ++m_stats.packetsOutOfOrder;
    }
    else
    {
        offset == 0 ? ++m_stats.packetsAccepted : ++m_stats.packetsPlaced;
        m_dupAcked = false;
        if (m_rxSlots.size() <= offset)
        {
            m_rxSlots.resize(offset + 1);
        }
        m_rxSlots[offset] = RxSlot{true, last, payload};
        bool delivered = false;
        uint64_t from = m_ePsn;
        while (!m_rxSlots.empty() && m_rxSlots.front().received)
        {
            RxSlot slot = m_rxSlots.front();
            m_rxSlots.pop_front();
            ++m_ePsn;
            delivered = Consume(slot.payload, slot.last) || delivered;
        }
        // At once when a hole filled: the requester's window may be closed until it hears.
        bool filled = m_ePsn > from + 1;
        // A placed packet is acknowledged at once, as IRN NAKs every out-of-order packet: the
        // requester needs ReorderThreshold SACKed PSNs beyond a hole to resend it, and its
        // window may close before AckInterval more arrive.
        if (delivered || offset > 0 || h.GetAckRequest() || ++m_unacked >= m_nic->m_ackInterval)
        {
            SendSack();
        }
        else if (filled)
        {
            // Echo no entropy: the packet that fills a hole is the one a slow path held back,
            // and an entropy policy would otherwise learn to prefer it.
            m_echoEntropy = 0;
            SendSack();
        }
    }
    NS_ASSERT(m_stats.packetsReceived == m_stats.packetsAccepted + m_stats.packetsPlaced +
                                             m_stats.packetsOutOfOrder + m_stats.packetsDuplicate);
}

bool
TalbRdmaQueuePair::AnswerDuplicate()
{
    // One answer per run of duplicates spares the reverse path a go-back's worth of them; but
    // if that answer was lost, a requester that timed out and resends what was received needs
    // another, so a run that goes on past half the timeout is answered again.
    Time now = Simulator::Now();
    if (m_dupAcked && now - m_dupAckedAt < m_nic->m_rto / 2)
    {
        return false;
    }
    m_dupAcked = true;
    m_dupAckedAt = now;
    return true;
}

bool
TalbRdmaQueuePair::Consume(uint32_t payload, bool last)
{
    m_stats.bytesReceived += payload;
    m_rxBytes += payload;
    if (!last)
    {
        return false;
    }
    uint64_t seq = m_rxSeq++;
    uint64_t bytes = m_rxBytes;
    m_rxBytes = 0;
    ++m_stats.messagesReceived;
    m_nic->m_messageReceivedTrace(this, seq, bytes);
    if (!m_receive.IsNull())
    {
        m_receive(this, seq, bytes);
    }
    return true;
}

void
TalbRdmaQueuePair::SendSack()
{
    // Bit i: PSN m_ePsn + 1 + i, slot 1 + i (slot 0, m_ePsn, is missing by definition).
    uint64_t bitmap = 0;
    std::size_t n = std::min<std::size_t>(m_rxSlots.size(), TalbRoceHeader::SACK_BITMAP_PSNS + 1);
    for (std::size_t i = 1; i < n; ++i)
    {
        bitmap |= m_rxSlots[i].received ? uint64_t(1) << (i - 1) : 0;
    }
    m_unacked = 0;
    ++m_stats.acksSent;
    m_nic->SendSack(this, (m_ePsn - 1) & PSN_MASK, m_rxSeq, bitmap, m_echoEntropy, m_echoCe);
}

} // namespace ns3
