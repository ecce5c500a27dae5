#include "talb-message-channel.h"

#include "ns3/talb-tensor-byte-tag.h"
#include "ns3/talb-wire.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbMessageChannel");
NS_OBJECT_ENSURE_REGISTERED(TalbMessageChannel);

uint64_t
TalbMessage::GetPayloadBytes() const
{
    uint64_t total = 0;
    for (const auto& p : parts)
    {
        total += p.bytes;
    }
    return total;
}

TypeId
TalbMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbMessageChannel")
                            .SetParent<Object>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbMessageChannel>();
    return tid;
}

TalbMessageChannel::TalbMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

TalbMessageChannel::~TalbMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbMessageChannel::DoDispose()
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
    m_delivered = DeliveredCallback();
    m_queue.clear();
    m_current = nullptr;
    m_inFlight.clear();
    Object::DoDispose();
}

void
TalbMessageChannel::Open(Ptr<Node> src, Ipv4Address srcAddr, Ipv4Address dstAddr, uint16_t dstPort)
{
    NS_LOG_FUNCTION(this << srcAddr << dstAddr << dstPort);
    NS_ABORT_MSG_IF(m_tx, "TalbMessageChannel::Open called twice");
    m_srcAddr = srcAddr;
    m_dstAddr = dstAddr;
    m_dstPort = dstPort;
    m_tx = Socket::CreateSocket(src, TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_tx->Bind(InetSocketAddress(srcAddr, 0)) != 0,
                    "TalbMessageChannel: cannot bind a TCP socket to " << srcAddr);
    Address local;
    m_tx->GetSockName(local);
    m_srcPort = InetSocketAddress::ConvertFrom(local).GetPort();
    m_tx->SetConnectCallback(MakeCallback(&TalbMessageChannel::ConnectionSucceeded, this),
                             MakeCallback(&TalbMessageChannel::ConnectionFailed, this));
    m_tx->SetSendCallback(MakeCallback(&TalbMessageChannel::SendSpace, this));
    m_tx->Connect(InetSocketAddress(dstAddr, dstPort));
}

uint16_t
TalbMessageChannel::GetSrcPort() const
{
    return m_srcPort;
}

void
TalbMessageChannel::AttachReceiver(Ptr<Socket> socket)
{
    NS_ABORT_MSG_IF(m_rx, "TalbMessageChannel: a second connection for one channel");
    m_rx = socket;
    m_rx->SetRecvCallback(MakeCallback(&TalbMessageChannel::HandleRead, this));
}

void
TalbMessageChannel::SetDeliveredCallback(DeliveredCallback cb)
{
    m_delivered = cb;
}

void
TalbMessageChannel::SetEndpoints(uint32_t from, uint32_t to)
{
    m_from = from;
    m_to = to;
}

uint32_t
TalbMessageChannel::GetFrom() const
{
    return m_from;
}

uint32_t
TalbMessageChannel::GetTo() const
{
    return m_to;
}

std::size_t
TalbMessageChannel::GetPending() const
{
    return m_queue.size() + m_inFlight.size();
}

void
TalbMessageChannel::Send(TalbMessage&& message)
{
    // The header belongs to the first payload byte's tensor, and so does that tensor's FIRST
    // marker: it moves to the header's first byte.
    m_queue.push_back(std::move(message));
    TalbMessage& m = m_queue.back();
    m.parts.erase(std::remove_if(m.parts.begin(),
                                 m.parts.end(),
                                 [](const TalbMessage::Part& p) { return p.bytes == 0; }),
                  m.parts.end());
    if (!m.parts.empty())
    {
        m.ownerTensorId = m.parts[0].tensorId;
        m.ownerPriority = m.parts[0].priority;
    }
    if (!m_current && m_queue.size() == 1)
    {
        TrySend();
    }
}

void
TalbMessageChannel::ConnectionSucceeded(Ptr<Socket> /* socket */)
{
    NS_LOG_FUNCTION(this);
    m_connected = true;
    TrySend();
}

void
TalbMessageChannel::ConnectionFailed(Ptr<Socket> /* socket */)
{
    NS_FATAL_ERROR("TalbMessageChannel: connection " << m_srcAddr << " -> " << m_dstAddr << ":"
                                                     << m_dstPort << " failed");
}

void
TalbMessageChannel::SendSpace(Ptr<Socket> /* socket */, uint32_t /* available */)
{
    TrySend();
}

void
TalbMessageChannel::TrySend()
{
    if (!m_connected)
    {
        return;
    }
    while (m_current || !m_queue.empty())
    {
        uint32_t available = m_tx->GetTxAvailable();
        if (!m_current)
        {
            if (available < HEADER_BYTES)
            {
                return;
            }
            // From its header on, a message is in flight: the receiver may see the header
            // before the sender has handed over the payload.
            m_inFlight.push_back(std::move(m_queue.front()));
            m_queue.pop_front();
            m_current = &m_inFlight.back(); // deque: references survive push_back/pop_front
            TalbMessage& m = *m_current;
            uint8_t h[HEADER_BYTES] = {0};
            talb_put_be32(h, m.ownerTensorId);
            talb_put_be32(h + 4, m.opId);
            h[8] = m.step >> 8;
            h[9] = m.step & 0xff;
            uint64_t payload = m.GetPayloadBytes();
            NS_ABORT_MSG_IF(payload > 0xffffffffULL,
                            "TalbMessageChannel: message payload over 4 GiB");
            talb_put_be32(h + 12, static_cast<uint32_t>(payload));
            Ptr<Packet> p = Create<Packet>(h, HEADER_BYTES);
            bool first = !m.parts.empty() && m.parts[0].first;
            TalbTensorByteTag::TagMessage(p, m.ownerTensorId, m.ownerPriority, first, false);
            m.start = Simulator::Now();
            int sent = m_tx->Send(p);
            NS_ABORT_MSG_IF(sent != int(HEADER_BYTES), "TalbMessageChannel: header send failed");
            m_part = 0;
            m_partSent = 0;
            continue;
        }
        TalbMessage& m = *m_current;
        if (m_part == m.parts.size())
        {
            m_current = nullptr;
            continue;
        }
        if (available == 0)
        {
            return;
        }
        const TalbMessage::Part& part = m.parts[m_part];
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(available, part.bytes - m_partSent));
        Ptr<Packet> p = Create<Packet>(n);
        // The header already carries the first part's FIRST marker.
        bool first = part.first && m_part > 0 && m_partSent == 0;
        bool last = part.last && m_partSent + n == part.bytes;
        TalbTensorByteTag::TagMessage(p, part.tensorId, part.priority, first, last);
        int sent = m_tx->Send(p);
        NS_ABORT_MSG_IF(sent != int(n), "TalbMessageChannel: send of " << n << " bytes failed");
        m_partSent += n;
        if (m_partSent == part.bytes)
        {
            ++m_part;
            m_partSent = 0;
        }
    }
}

void
TalbMessageChannel::HandleRead(Ptr<Socket> socket)
{
    Ptr<Packet> p;
    while ((p = socket->Recv()))
    {
        uint32_t size = p->GetSize();
        uint32_t offset = 0;
        while (offset < size)
        {
            if (m_rxHeaderFill < HEADER_BYTES)
            {
                uint32_t n = std::min(HEADER_BYTES - m_rxHeaderFill, size - offset);
                if (offset > 0)
                {
                    // Headers are rare (one per message): trimming here keeps payload free.
                    p->RemoveAtStart(offset);
                    size -= offset;
                    offset = 0;
                }
                p->CopyData(m_rxHeader + m_rxHeaderFill, n);
                m_rxHeaderFill += n;
                offset += n;
                if (m_rxHeaderFill == HEADER_BYTES)
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
TalbMessageChannel::HeaderReceived()
{
    NS_ABORT_MSG_IF(m_inFlight.empty(), "TalbMessageChannel: a header arrived that was not sent");
    const TalbMessage& m = m_inFlight.front();
    uint32_t tensorId = talb_get_be32(m_rxHeader);
    uint32_t opId = talb_get_be32(m_rxHeader + 4);
    uint16_t step = (uint16_t(m_rxHeader[8]) << 8) | m_rxHeader[9];
    m_rxPayloadLeft = talb_get_be32(m_rxHeader + 12);
    NS_ABORT_MSG_IF(tensorId != m.ownerTensorId || opId != m.opId || step != m.step ||
                        m_rxPayloadLeft != m.GetPayloadBytes(),
                    "TalbMessageChannel: stream out of sync (header op "
                        << opId << " step " << step << ", expected op " << m.opId << " step "
                        << m.step << ")");
}

void
TalbMessageChannel::MessageReceived()
{
    m_rxHeaderFill = 0;
    TalbMessage m = std::move(m_inFlight.front());
    m_inFlight.pop_front();
    TalbFlowRecord r;
    r.src = m_srcAddr;
    r.dst = m_dstAddr;
    r.srcPort = m_srcPort;
    r.dstPort = m_dstPort;
    r.sizeBytes = HEADER_BYTES + m.GetPayloadBytes();
    r.start = m.start;
    r.end = Simulator::Now();
    r.job = talb_job_of(m.ownerTensorId);
    r.iteration = m.iteration;
    r.tensor = m.ownerTensorId & TALB_TENSOR_INDEX_MASK;
    r.priority = m.ownerPriority;
    if (!m_delivered.IsNull())
    {
        m_delivered(this, m, r);
    }
}

} // namespace ns3
