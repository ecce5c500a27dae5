#include "talb-tcp-message-channel.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/talb-flow-label-tag.h"
#include "ns3/talb-lb-core.h"
#include "ns3/talb-message-tag.h"
#include "ns3/talb-socket-read.h"
#include "ns3/talb-tcp-idle-restart.h"
#include "ns3/talb-tcp-rack-tlp-socket.h"
#include "ns3/talb-tcp-reordering.h"
#include "ns3/talb-tensor-byte-tag.h"
#include "ns3/tcp-dctcp.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/tcp-socket-factory.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTcpMessageChannel");
NS_OBJECT_ENSURE_REGISTERED(TalbTcpMessageChannel);

TypeId
TalbTcpMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTcpMessageChannel")
                            .SetParent<TalbMessageChannel>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbTcpMessageChannel>();
    return tid;
}

TalbTcpMessageChannel::TalbTcpMessageChannel()
{
    SetCompletesAtSender();
    NS_LOG_FUNCTION(this);
}

TalbTcpMessageChannel::~TalbTcpMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTcpMessageChannel::DoDispose()
{
    for (Ptr<Socket> s : {m_tx, m_rx})
    {
        if (s)
        {
            s->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
            s->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        }
    }
    m_tx = nullptr;
    m_rx = nullptr;
    if (m_idleRestart)
    {
        m_stats.idleRestarts = m_idleRestart->GetRestarts(); // what GetStats() says from now on
        m_idleRestart = nullptr;
    }
    if (m_reordering)
    {
        m_stats.reorderingRaises = m_reordering->GetRaises();
        m_reordering = nullptr;
    }
    if (m_rack)
    {
        m_stats = GetStats(); // what GetStats() says from now on
        m_rack = nullptr;
    }
    m_queue.clear();
    m_current = nullptr;
    m_inFlight.clear();
    m_unacked.clear();
    TalbMessageChannel::DoDispose();
}

void
TalbTcpMessageChannel::Open(Ptr<Node> src,
                            Ipv4Address srcAddr,
                            Ipv4Address dstAddr,
                            uint16_t dstPort)
{
    NS_LOG_FUNCTION(this << srcAddr << dstAddr << dstPort);
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::Open called twice");
    m_srcAddr = srcAddr;
    m_dstAddr = dstAddr;
    m_dstPort = dstPort;
    if (m_rackTlp)
    {
        m_rack = TalbTcpRackTlpSocket::Create(src);
        m_rack->SetAttribute("TlpDelay", TimeValue(m_tlpDelay));
        m_tx = m_rack;
    }
    else
    {
        m_tx = Socket::CreateSocket(src, TcpSocketFactory::GetTypeId());
    }
    NS_ABORT_MSG_IF(m_tx->Bind(InetSocketAddress(srcAddr, 0)) != 0,
                    "TalbTcpMessageChannel: cannot bind a TCP socket to " << srcAddr);
    Address local;
    m_tx->GetSockName(local);
    m_srcPort = InetSocketAddress::ConvertFrom(local).GetPort();
    m_tx->SetConnectCallback(MakeCallback(&TalbTcpMessageChannel::ConnectionSucceeded, this),
                             MakeCallback(&TalbTcpMessageChannel::ConnectionFailed, this));
    m_tx->SetSendCallback(MakeCallback(&TalbTcpMessageChannel::SendSpace, this));
    // ns-3 keeps the socket's congestion control private: to hear it or wrap it, the channel
    // installs its own instance of the node's algorithm.
    TypeIdValue socketType;
    src->GetObject<TcpL4Protocol>()->GetAttribute("SocketType", socketType);
    Ptr<TcpCongestionOps> ops;
    if (m_plbEnabled)
    {
        // The rounds are DCTCP's observation windows.
        const TypeId dctcp = TcpDctcp::GetTypeId();
        NS_ABORT_MSG_UNLESS(socketType.Get() == dctcp || socketType.Get().IsChildOf(dctcp),
                            "TalbTcpMessageChannel: PLB needs ns3::TcpDctcp, not "
                                << socketType.Get().GetName());
        Ptr<TcpDctcp> dctcpOps = CreateObject<TcpDctcp>();
        dctcpOps->TraceConnectWithoutContext(
            "CongestionEstimate",
            MakeCallback(&TalbTcpMessageChannel::RoundEnded, this));
        ops = dctcpOps;
        TalbFlowLabelTag::SetInUse();
    }
    if (m_slowStartAfterIdle)
    {
        if (!ops)
        {
            ObjectFactory factory(socketType.Get().GetName());
            ops = factory.Create<TcpCongestionOps>();
        }
        m_idleRestart = TalbTcpIdleRestart::Install(DynamicCast<TcpSocketBase>(m_tx), ops);
    }
    else if (ops)
    {
        DynamicCast<TcpSocketBase>(m_tx)->SetCongestionControlAlgorithm(ops);
    }
    if (m_maxReordering > 0)
    {
        m_reordering =
            TalbTcpReordering::Install(DynamicCast<TcpSocketBase>(m_tx), m_maxReordering);
    }
    m_tx->TraceConnectWithoutContext("Tx", MakeCallback(&TalbTcpMessageChannel::SegmentSent, this));
    m_tx->TraceConnectWithoutContext("CongState",
                                     MakeCallback(&TalbTcpMessageChannel::CongStateChanged, this));
    m_tx->TraceConnectWithoutContext("HighestRxAck",
                                     MakeCallback(&TalbTcpMessageChannel::AckAdvanced, this));
    m_tx->Connect(InetSocketAddress(dstAddr, dstPort));
}

TalbTcpMessageChannel::Stats
TalbTcpMessageChannel::GetStats() const
{
    Stats stats = m_stats;
    if (m_idleRestart)
    {
        stats.idleRestarts = m_idleRestart->GetRestarts();
    }
    if (m_reordering)
    {
        stats.reorderingRaises = m_reordering->GetRaises();
    }
    if (m_rack)
    {
        stats.lossProbes = m_rack->GetProbes();
        stats.probeLosses = m_rack->GetProbeLosses();
        stats.rackLosses = m_rack->GetRackLosses();
    }
    return stats;
}

void
TalbTcpMessageChannel::SegmentSent(Ptr<const Packet> segment,
                                   const TcpHeader& header,
                                   Ptr<const TcpSocketBase> /* socket */)
{
    uint32_t size = segment->GetSize();
    if (size == 0)
    {
        return; // SYN, FIN or a pure ACK
    }
    SequenceNumber32 start = header.GetSequenceNumber();
    if (m_plbEnabled && m_sentData && start >= m_highestSent && m_highestAcked >= m_highestSent &&
        m_plb.IdleRepath())
    {
        Repath(); // nothing in flight: nothing this segment could overtake
    }
    if (m_flowLabel != 0)
    {
        TalbFlowLabelTag tag;
        tag.label = m_flowLabel;
        segment->AddPacketTag(tag);
    }
    if (m_sentData && start < m_highestSent)
    {
        // Fast retransmit, RTO or a spurious retransmission after reordering (dupACKs).
        ++m_stats.retransmittedSegments;
        m_stats.retransmittedBytes += size;
    }
    if (!m_sentData || start + size > m_highestSent)
    {
        m_highestSent = start + size;
        m_sentData = true;
    }
}

void
TalbTcpMessageChannel::CongStateChanged(TcpSocketState::TcpCongState_t /* from */,
                                        TcpSocketState::TcpCongState_t to)
{
    if (to == TcpSocketState::CA_LOSS)
    {
        ++m_stats.timeouts;
    }
}

void
TalbTcpMessageChannel::AckAdvanced(SequenceNumber32 from, SequenceNumber32 to)
{
    if (!m_synAcked)
    {
        // The SYN-ACK's acknowledgement: the stream's bytes start after it.
        m_synAcked = true;
        return;
    }
    m_highestAcked = to;
    if (to <= from)
    {
        return;
    }
    m_streamAcked += uint32_t(to - from);
    while (!m_unacked.empty() && m_unacked.front().end <= m_streamAcked)
    {
        TalbFlowRecord r = m_unacked.front().record;
        m_unacked.pop_front();
        NotifyCompleted(r); // may send on this channel
    }
}

void
TalbTcpMessageChannel::OpenElsewhere(Ipv4Address srcAddr, Ipv4Address dstAddr, uint16_t dstPort)
{
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::OpenElsewhere after Open");
    m_srcAddr = srcAddr;
    m_dstAddr = dstAddr;
    m_dstPort = dstPort;
}

void
TalbTcpMessageChannel::EnablePlb(const TalbPlb::Config& config)
{
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::EnablePlb after Open");
    m_plbEnabled = true;
    m_plb = TalbPlb(config);
}

void
TalbTcpMessageChannel::EnableSlowStartAfterIdle()
{
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::EnableSlowStartAfterIdle after Open");
    m_slowStartAfterIdle = true;
}

void
TalbTcpMessageChannel::EnableAdaptiveReordering(uint32_t maxReordering)
{
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::EnableAdaptiveReordering after Open");
    NS_ABORT_MSG_IF(maxReordering == 0, "TalbTcpMessageChannel: maximum reordering 0");
    m_maxReordering = maxReordering;
}

void
TalbTcpMessageChannel::EnableRackTlp(Time tlpDelay)
{
    NS_ABORT_MSG_IF(m_tx, "TalbTcpMessageChannel::EnableRackTlp after Open");
    m_rackTlp = true;
    m_tlpDelay = tlpDelay;
}

void
TalbTcpMessageChannel::RoundEnded(uint32_t bytesMarked, uint32_t bytesAcked, double /* alpha */)
{
    if (bytesAcked > 0 && m_plb.EndRound(double(bytesMarked) / bytesAcked))
    {
        Repath();
    }
}

void
TalbTcpMessageChannel::Repath()
{
    ++m_stats.plbRepaths;
    // Deterministic, so runs repeat; never 0 (no label) and never the current one.
    uint32_t salt = (uint32_t(m_srcPort) << 16 | m_dstPort) + uint32_t(m_stats.plbRepaths);
    uint32_t next = talb::lb::Mix32(m_flowLabel ^ talb::lb::Mix32(salt)) & 0xFFFFF;
    m_flowLabel = (next != 0 && next != m_flowLabel) ? next : ((m_flowLabel + 1) & 0xFFFFF) | 1;
}

uint16_t
TalbTcpMessageChannel::GetSrcPort() const
{
    return m_srcPort;
}

void
TalbTcpMessageChannel::AttachReceiver(Ptr<Socket> socket)
{
    NS_ABORT_MSG_IF(m_rx, "TalbTcpMessageChannel: a second connection for one channel");
    m_rx = socket;
    if (!m_tx)
    {
        Address peer;
        m_rx->GetPeerName(peer);
        m_srcPort = InetSocketAddress::ConvertFrom(peer).GetPort();
    }
    m_rx->SetRecvCallback(MakeCallback(&TalbTcpMessageChannel::HandleRead, this));
}

void
TalbTcpMessageChannel::DoSend(TalbMessage&& message)
{
    m_queue.push_back(std::move(message));
    if (!m_current && m_queue.size() == 1)
    {
        TrySend();
    }
}

void
TalbTcpMessageChannel::ConnectionSucceeded(Ptr<Socket> /* socket */)
{
    NS_LOG_FUNCTION(this);
    m_connected = true;
    TrySend();
}

void
TalbTcpMessageChannel::ConnectionFailed(Ptr<Socket> /* socket */)
{
    NS_FATAL_ERROR("TalbTcpMessageChannel: connection " << m_srcAddr << " -> " << m_dstAddr << ":"
                                                        << m_dstPort << " failed");
}

void
TalbTcpMessageChannel::SendSpace(Ptr<Socket> /* socket */, uint32_t /* available */)
{
    TrySend();
}

void
TalbTcpMessageChannel::TrySend()
{
    if (!m_connected)
    {
        return;
    }
    while (m_current || !m_queue.empty())
    {
        uint32_t available = m_tx->GetTxAvailable();
        Ptr<Packet> p;
        if (!m_current)
        {
            if (available < TALB_FRAME_LEN)
            {
                return;
            }
            p = StartMessage();
            available -= TALB_FRAME_LEN;
        }
        else if (available == 0)
        {
            return;
        }
        // One Send per batch: a message's header leaves with its first payload bytes, as the
        // NCCL plugin's single sendmsg does, never as a segment of its own.
        AppendPayload(&p, available);
        if (!p)
        {
            continue; // only empty parts were left
        }
        uint32_t size = p->GetSize();
        int sent = m_tx->Send(p);
        NS_ABORT_MSG_IF(sent != int(size),
                        "TalbTcpMessageChannel: send of " << size << " bytes failed");
    }
}

Ptr<Packet>
TalbTcpMessageChannel::StartMessage()
{
    // From its header on, a message is in flight: the receiver may see the header before the
    // sender has handed over the payload.
    m_inFlight.push_back(std::move(m_queue.front()));
    m_queue.pop_front();
    m_current = &m_inFlight.back(); // deque: references survive push_back/pop_front
    TalbMessage& m = *m_current;
    uint64_t payload = m.GetPayloadBytes();
    NS_ABORT_MSG_IF(payload > 0xffffffffULL, "TalbTcpMessageChannel: message payload over 4 GiB");
    bool first = !m.parts.empty() && m.parts[0].first;
    talb_frame frame{{m.ownerTensorId, m.ownerPriority, uint8_t(first ? TALB_FLAG_FIRST : 0)},
                     static_cast<uint32_t>(payload)};
    uint8_t h[TALB_FRAME_LEN];
    int encoded = talb_frame_encode(&frame, h, sizeof(h));
    NS_ABORT_MSG_IF(
        encoded != TALB_FRAME_LEN,
        "TalbTcpMessageChannel: cannot frame the message: " << talb_wire_strerror(encoded));
    Ptr<Packet> p = Create<Packet>(h, TALB_FRAME_LEN);
    TalbTensorByteTag::TagMessage(p, m.ownerTensorId, m.ownerPriority, first, false);
    m.start = Simulator::Now();
    Unacked u;
    u.record = RecordOf(m);
    u.record.src = m_srcAddr;
    u.record.dst = m_dstAddr;
    u.record.srcPort = m_srcPort;
    u.record.dstPort = m_dstPort;
    u.record.sizeBytes = TALB_FRAME_LEN + payload;
    m_streamSent += u.record.sizeBytes;
    u.end = m_streamSent;
    m_unacked.push_back(u);
    if (!IsReceiverHere())
    {
        TalbMessageTag tag;
        tag.opId = m.opId;
        tag.step = m.step;
        tag.iteration = m.iteration;
        tag.start = m.start;
        p->AddByteTag(tag);
    }
    m_part = 0;
    m_partSent = 0;
    return p;
}

void
TalbTcpMessageChannel::AppendPayload(Ptr<Packet>* p, uint32_t budget)
{
    TalbMessage& m = *m_current;
    while (m_part < m.parts.size())
    {
        const TalbMessage::Part& part = m.parts[m_part];
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(budget, part.bytes - m_partSent));
        if (n == 0 && part.bytes > m_partSent)
        {
            return; // the socket's buffer is full
        }
        if (n > 0)
        {
            // Zero-filled virtual bytes: appending them to a packet keeps them virtual.
            Ptr<Packet> chunk = Create<Packet>(n);
            // The header already carries the first part's FIRST marker.
            bool first = part.first && m_part > 0 && m_partSent == 0;
            bool last = part.last && m_partSent + n == part.bytes;
            TalbTensorByteTag::TagMessage(chunk, part.tensorId, part.priority, first, last);
            if (*p)
            {
                (*p)->AddAtEnd(chunk);
            }
            else
            {
                *p = chunk;
            }
            budget -= n;
            m_partSent += n;
        }
        if (m_partSent == part.bytes)
        {
            ++m_part;
            m_partSent = 0;
        }
    }
    m_current = nullptr; // every part handed over
    if (!IsReceiverHere())
    {
        m_inFlight.pop_front(); // the receiver's rank learns it from the header's tag
    }
}

void
TalbTcpMessageChannel::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> p;
    while ((p = TalbSocketRead(socket)))
    {
        uint32_t size = p->GetSize();
        uint32_t offset = 0;
        while (offset < size)
        {
            if (m_rxHeaderFill < TALB_FRAME_LEN)
            {
                uint32_t n = std::min(TALB_FRAME_LEN - m_rxHeaderFill, size - offset);
                if (offset > 0)
                {
                    // Headers are rare (one per message): trimming here keeps payload free.
                    p->RemoveAtStart(offset);
                    size -= offset;
                    offset = 0;
                }
                if (m_rxHeaderFill == 0 && !IsSenderHere())
                {
                    ReadMessageTag(p);
                }
                p->CopyData(m_rxHeader + m_rxHeaderFill, n);
                m_rxHeaderFill += n;
                offset += n;
                if (m_rxHeaderFill == TALB_FRAME_LEN)
                {
                    HeaderReceived();
                    if (m_rxPayloadLeft == 0)
                    {
                        MessageReceived();
                    }
                }
                continue;
            }
            uint64_t n = std::min<uint64_t>(m_rxPayloadLeft, size - offset);
            offset += n;
            m_rxPayloadLeft -= n;
            if (m_rxPayloadLeft == 0)
            {
                MessageReceived();
            }
        }
    }
}

void
TalbTcpMessageChannel::ReadMessageTag(Ptr<const Packet> p)
{
    ByteTagIterator it = p->GetByteTagIterator();
    TypeId tid = TalbMessageTag::GetTypeId();
    while (it.HasNext())
    {
        ByteTagIterator::Item item = it.Next();
        if (item.GetTypeId() == tid && item.GetStart() == 0)
        {
            TalbMessageTag tag;
            item.GetTag(tag);
            m_rxOpId = tag.opId;
            m_rxStep = tag.step;
            m_rxIteration = tag.iteration;
            m_rxStart = tag.start;
            return;
        }
    }
    NS_FATAL_ERROR("TalbTcpMessageChannel: a header from another rank without its message tag");
}

void
TalbTcpMessageChannel::HeaderReceived()
{
    talb_frame frame;
    int decoded = talb_frame_decode(m_rxHeader, TALB_FRAME_LEN, &frame);
    NS_ABORT_MSG_IF(decoded != TALB_FRAME_LEN,
                    "TalbTcpMessageChannel: bad frame header: " << talb_wire_strerror(decoded));
    if (!IsSenderHere())
    {
        // What the sender's queue would say: the header's label owns the whole payload.
        TalbMessage m;
        m.opId = m_rxOpId;
        m.step = m_rxStep;
        m.iteration = m_rxIteration;
        m.ownerTensorId = frame.label.tensor_id;
        m.ownerPriority = frame.label.priority;
        m.start = m_rxStart;
        if (frame.payload_len > 0)
        {
            TalbMessage::Part part;
            part.tensorId = m.ownerTensorId;
            part.priority = m.ownerPriority;
            part.bytes = frame.payload_len;
            m.parts.push_back(part);
        }
        m_inFlight.push_back(std::move(m));
    }
    NS_ABORT_MSG_IF(m_inFlight.empty(),
                    "TalbTcpMessageChannel: a header arrived that was not sent");
    const TalbMessage& m = m_inFlight.front();
    m_rxPayloadLeft = frame.payload_len;
    NS_ABORT_MSG_IF(frame.label.tensor_id != m.ownerTensorId ||
                        frame.label.priority != m.ownerPriority ||
                        m_rxPayloadLeft != m.GetPayloadBytes(),
                    "TalbTcpMessageChannel: stream out of sync (frame of tensor "
                        << frame.label.tensor_id << ", " << m_rxPayloadLeft
                        << " bytes; expected op " << m.opId << " step " << m.step << ")");
}

void
TalbTcpMessageChannel::MessageReceived()
{
    m_rxHeaderFill = 0;
    TalbMessage m = std::move(m_inFlight.front());
    m_inFlight.pop_front();
    TalbFlowRecord r;
    r.src = m_srcAddr;
    r.dst = m_dstAddr;
    r.srcPort = m_srcPort;
    r.dstPort = m_dstPort;
    r.sizeBytes = TALB_FRAME_LEN + m.GetPayloadBytes();
    r.end = Simulator::Now();
    NotifyDelivered(m, r);
}

} // namespace ns3
