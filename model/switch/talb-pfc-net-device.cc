#include "talb-pfc-net-device.h"

#include "talb-pfc-channel.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/ethernet-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/talb-int-tag.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPfcNetDevice");

NS_OBJECT_ENSURE_REGISTERED(TalbPfcNetDevice);

namespace
{
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
constexpr uint16_t PFC_OPCODE = 0x0101;
/// PFC body: opcode (2), class-enable vector (2), eight quanta (16), padding to 46 bytes.
constexpr uint32_t PFC_BODY_BYTES = 46;
constexpr uint32_t PAUSE_QUANTUM_BITS = 512;
} // namespace

TypeId
TalbPfcNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbPfcNetDevice")
            .SetParent<NetDevice>()
            .SetGroupName("Talb")
            .AddConstructor<TalbPfcNetDevice>()
            .AddAttribute("DataRate",
                          "Line rate of the port",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&TalbPfcNetDevice::m_rate),
                          MakeDataRateChecker())
            .AddAttribute(
                "Mtu",
                "Largest IPv4 packet the port sends, in bytes",
                UintegerValue(1500),
                MakeUintegerAccessor(&TalbPfcNetDevice::SetMtu, &TalbPfcNetDevice::GetMtu),
                MakeUintegerChecker<uint16_t>(576, 9216))
            .AddAttribute("PhyOverhead",
                          "Bytes each frame occupies on the wire beyond the frame itself (FCS 4, "
                          "preamble and SFD 8, inter-frame gap 12 on Ethernet)",
                          UintegerValue(24),
                          MakeUintegerAccessor(&TalbPfcNetDevice::m_phyOverhead),
                          MakeUintegerChecker<uint32_t>(0, 1024))
            .AddAttribute("HonourPause",
                          "Stop a priority when the peer pauses it (false: PFC frames are "
                          "counted and ignored)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbPfcNetDevice::m_honourPause),
                          MakeBooleanChecker())
            .AddAttribute("TxQueue",
                          "The transmit queue (strict-priority bands, one per PFC priority)",
                          PointerValue(),
                          MakePointerAccessor(&TalbPfcNetDevice::m_queue),
                          MakePointerChecker<TalbPriorityQueue>())
            .AddAttribute("ReceiveErrorModel",
                          "Loses received frames (link failures, injected drops)",
                          PointerValue(),
                          MakePointerAccessor(&TalbPfcNetDevice::m_receiveErrorModel),
                          MakePointerChecker<ErrorModel>())
            .AddTraceSource("MacTx",
                            "A packet handed to the device for transmission (queued or pulled)",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_macTxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacTxDrop",
                            "A packet the transmit queue refused",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_macTxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("MacRx",
                            "An IPv4 packet received and handed up",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_macRxTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxBegin",
                            "A frame starts on the wire (an IPv4 frame as its IPv4 packet: its "
                            "Ethernet header is implied)",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_phyTxBeginTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyTxEnd",
                            "A frame has left the port",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_phyTxEndTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PhyRxDrop",
                            "A frame lost by the receive error model (an IPv4 frame as its IPv4 "
                            "packet, which byte-unit error models see)",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_phyRxDropTrace),
                            "ns3::Packet::TracedCallback")
            .AddTraceSource("PauseTx",
                            "A PFC request sent: priority, quanta (0: resume)",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_pauseTxTrace),
                            "ns3::TalbPfcNetDevice::PauseTracedCallback")
            .AddTraceSource("PauseRx",
                            "A PFC request received: priority, quanta (0: resume)",
                            MakeTraceSourceAccessor(&TalbPfcNetDevice::m_pauseRxTrace),
                            "ns3::TalbPfcNetDevice::PauseTracedCallback");
    return tid;
}

TalbPfcNetDevice::TalbPfcNetDevice()
    : m_rate(DataRate("100Gbps")),
      m_mtu(1500),
      m_phyOverhead(24),
      m_honourPause(true),
      m_ifIndex(0),
      m_busy(false),
      m_pulling(false),
      m_pausePending(false),
      m_pauseVector(0),
      m_pauseQuanta{},
      m_pausedMask(0)
{
    NS_LOG_FUNCTION(this);
}

TalbPfcNetDevice::~TalbPfcNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
TalbPfcNetDevice::DoDispose()
{
    for (auto& e : m_pauseEnd)
    {
        e.Cancel();
    }
    m_node = nullptr;
    m_channel = nullptr;
    m_queue = nullptr;
    m_receiveErrorModel = nullptr;
    m_currentFrame = nullptr;
    m_rxCallback = NetDevice::ReceiveCallback();
    m_promiscCallback = NetDevice::PromiscReceiveCallback();
    m_pull = PullCallback();
    m_dequeued = DequeueCallback();
    m_forward = ForwardCallback();
    NetDevice::DoDispose();
}

void
TalbPfcNetDevice::Attach(Ptr<TalbPfcChannel> channel)
{
    NS_ABORT_MSG_IF(m_channel, "TalbPfcNetDevice::Attach: already attached");
    m_channel = channel;
    channel->Attach(this);
}

void
TalbPfcNetDevice::SetQueue(Ptr<TalbPriorityQueue> queue)
{
    m_queue = queue;
}

Ptr<TalbPriorityQueue>
TalbPfcNetDevice::GetQueue() const
{
    return m_queue;
}

void
TalbPfcNetDevice::SetDataRate(DataRate rate)
{
    m_rate = rate;
}

DataRate
TalbPfcNetDevice::GetDataRate() const
{
    return m_rate;
}

void
TalbPfcNetDevice::SetReceiveErrorModel(Ptr<ErrorModel> em)
{
    m_receiveErrorModel = em;
}

void
TalbPfcNetDevice::SetPullCallback(PullCallback cb)
{
    m_pull = cb;
}

void
TalbPfcNetDevice::SetDequeueCallback(DequeueCallback cb)
{
    m_dequeued = cb;
}

void
TalbPfcNetDevice::SetForwardCallback(ForwardCallback cb)
{
    m_forward = cb;
}

const TalbPfcNetDevice::Stats&
TalbPfcNetDevice::GetStats() const
{
    return m_stats;
}

void
TalbPfcNetDevice::TriggerTransmit()
{
    TryTransmit();
}

bool
TalbPfcNetDevice::Send(Ptr<Packet> packet, const Address& /* dest */, uint16_t protocolNumber)
{
    // No NS_LOG_FUNCTION here and in Receive: once per packet-hop, and a build that keeps the
    // NS_LOG checks (Debian's libns3) pays a call for each.
    if (protocolNumber != ETHERTYPE_IPV4)
    {
        m_macTxDropTrace(packet);
        ++m_stats.queueDrops;
        return false;
    }
    return DoSend(packet, nullptr);
}

bool
TalbPfcNetDevice::SendRead(Ptr<Packet> packet, const TalbPriorityQueue::PacketInfo& info)
{
    return DoSend(packet, &info);
}

bool
TalbPfcNetDevice::DoSend(Ptr<Packet> packet, const TalbPriorityQueue::PacketInfo* info)
{
    NS_ABORT_MSG_UNLESS(m_queue, "TalbPfcNetDevice on node " << m_node->GetId() << " has no queue");
    if (packet->GetSize() > m_mtu)
    {
        m_macTxDropTrace(packet);
        ++m_stats.queueDrops;
        return false;
    }
    // Each per-hop trace is fired only with a sink: a TracedCallback takes its packet by value,
    // a reference count up and down per call even with none.
    if (!m_macTxTrace.IsEmpty())
    {
        m_macTxTrace(packet);
    }
    if (!(info ? m_queue->Enqueue(packet, *info) : m_queue->Enqueue(packet)))
    {
        m_macTxDropTrace(packet);
        ++m_stats.queueDrops;
        return false;
    }
    TryTransmit();
    return true;
}

bool
TalbPfcNetDevice::SendFrom(Ptr<Packet> packet,
                           const Address& /* source */,
                           const Address& dest,
                           uint16_t protocolNumber)
{
    return Send(packet, dest, protocolNumber);
}

void
TalbPfcNetDevice::TryTransmit()
{
    // A pull source may trigger transmission from inside its own pull (a rate change while it
    // builds a packet): the frame it returns is sent once the pull is over.
    if (m_busy || !m_channel || m_pulling)
    {
        return;
    }
    if (m_pausePending)
    {
        StartFrame(BuildPauseFrame(), 0);
        return;
    }
    uint8_t paused = m_honourPause ? m_pausedMask : 0;
    uint8_t band = 0;
    uint8_t slot = 0;
    Ptr<Packet> p = m_queue ? m_queue->DequeueUnpaused(paused, &band, &slot) : nullptr;
    if (p)
    {
        if (!m_dequeued.IsNull())
        {
            m_dequeued(m_ifIndex, band, slot, p->GetSize());
        }
        if (m_stampTelemetry)
        {
            StampTelemetry(p);
        }
    }
    else if (!m_pull.IsNull())
    {
        m_pulling = true;
        p = m_pull(paused);
        m_pulling = false;
        if (!p)
        {
            return;
        }
        ++m_stats.txPulled;
        if (!m_macTxTrace.IsEmpty())
        {
            m_macTxTrace(p);
        }
    }
    else
    {
        return;
    }
    ++m_stats.txFrames;
    StartFrame(p, ETHERNET_HEADER_BYTES);
}

void
TalbPfcNetDevice::SetTelemetryStamping(bool stamp)
{
    m_stampTelemetry = stamp;
}

void
TalbPfcNetDevice::StampTelemetry(Ptr<Packet> p)
{
    TalbIntTag telemetry;
    if (p->PeekPacketTag(telemetry) && !telemetry.IsEcho())
    {
        telemetry.PushHop(TalbIntTag::Hop{m_node->GetId(),
                                          m_ifIndex,
                                          static_cast<uint64_t>(Simulator::Now().GetNanoSeconds()),
                                          m_queuedTxBytes,
                                          m_rate.GetBitRate(),
                                          m_queue->GetNBytes()});
        p->ReplacePacketTag(telemetry);
    }
    m_queuedTxBytes += p->GetSize();
}

Time
TalbPfcNetDevice::TxTime(uint32_t bytes)
{
    // Keyed by the rate too: the DataRate attribute can change it without SetDataRate.
    uint64_t bps = m_rate.GetBitRate();
    TxTimeMemo& m = m_txMemo[bytes & (TX_MEMO_SLOTS - 1)];
    if (m.bytes != bytes || m.bps != bps)
    {
        m = {bps, bytes, m_rate.CalculateBytesTxTime(bytes)};
    }
    return m.time;
}

void
TalbPfcNetDevice::StartFrame(Ptr<Packet> frame, uint32_t impliedBytes)
{
    NS_ASSERT_MSG(!m_busy, "TalbPfcNetDevice: a frame started while the link is busy");
    m_busy = true;
    m_currentFrame = frame;
    if (!m_phyTxBeginTrace.IsEmpty())
    {
        m_phyTxBeginTrace(frame);
    }
    Time txTime = TxTime(frame->GetSize() + impliedBytes + m_phyOverhead);
    m_channel->TransmitStart(frame, this, txTime);
    Simulator::Schedule(txTime, &TalbPfcNetDevice::TransmitComplete, this);
}

void
TalbPfcNetDevice::TransmitComplete()
{
    NS_ASSERT_MSG(m_busy, "TalbPfcNetDevice: transmit complete while idle");
    m_busy = false;
    if (!m_phyTxEndTrace.IsEmpty())
    {
        m_phyTxEndTrace(m_currentFrame);
    }
    m_currentFrame = nullptr;
    TryTransmit();
}

void
TalbPfcNetDevice::SendPause(uint8_t priority, uint16_t quanta)
{
    NS_LOG_FUNCTION(this << +priority << quanta);
    NS_ASSERT(priority < TALB_NUM_PRIORITIES);
    m_pauseVector |= uint8_t(1u << priority);
    m_pauseQuanta[priority] = quanta;
    m_pausePending = true;
    m_pauseTxTrace(priority, quanta);
    TryTransmit();
}

Ptr<Packet>
TalbPfcNetDevice::BuildPauseFrame()
{
    uint8_t body[PFC_BODY_BYTES] = {0};
    body[0] = PFC_OPCODE >> 8;
    body[1] = PFC_OPCODE & 0xFF;
    body[3] = m_pauseVector;
    for (uint32_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        body[4 + 2 * p] = m_pauseQuanta[p] >> 8;
        body[5 + 2 * p] = m_pauseQuanta[p] & 0xFF;
    }
    m_pausePending = false;
    m_pauseVector = 0;
    m_pauseQuanta.fill(0);
    ++m_stats.pauseFramesTx;
    Ptr<Packet> frame = Create<Packet>(body, PFC_BODY_BYTES);
    EthernetHeader eth(false);
    eth.SetSource(m_address);
    // 01:80:C2:00:00:01, the MAC control multicast address.
    eth.SetDestination(Mac48Address("01:80:c2:00:00:01"));
    eth.SetLengthType(ETHERTYPE_MAC_CONTROL);
    frame->AddHeader(eth);
    return frame;
}

Time
TalbPfcNetDevice::PauseDuration(uint16_t quanta) const
{
    return m_rate.CalculateBytesTxTime(uint64_t(quanta) * PAUSE_QUANTUM_BITS / 8);
}

void
TalbPfcNetDevice::HandlePauseFrame(Ptr<Packet> frame)
{
    ++m_stats.pauseFramesRx;
    uint8_t buf[ETHERNET_HEADER_BYTES + 20];
    if (frame->CopyData(buf, sizeof(buf)) < sizeof(buf))
    {
        return;
    }
    const uint8_t* body = buf + ETHERNET_HEADER_BYTES;
    if (((body[0] << 8) | body[1]) != PFC_OPCODE)
    {
        return; // another MAC control frame (e.g. 802.3x pause): not modelled
    }
    uint8_t vector = body[3];
    bool resumed = false;
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        if (!(vector & (1u << p)))
        {
            continue;
        }
        uint16_t quanta = (body[4 + 2 * p] << 8) | body[5 + 2 * p];
        m_pauseRxTrace(p, quanta);
        m_pauseEnd[p].Cancel();
        if (quanta == 0)
        {
            resumed = resumed || (m_pausedMask & (1u << p));
            m_pausedMask &= uint8_t(~(1u << p));
        }
        else
        {
            m_pausedMask |= uint8_t(1u << p);
            m_pauseEnd[p] = Simulator::Schedule(PauseDuration(quanta),
                                                &TalbPfcNetDevice::PauseExpired,
                                                this,
                                                p);
        }
    }
    if (resumed)
    {
        TryTransmit();
    }
}

void
TalbPfcNetDevice::PauseExpired(uint8_t priority)
{
    m_pausedMask &= uint8_t(~(1u << priority));
    TryTransmit();
}

uint8_t
TalbPfcNetDevice::GetPausedMask() const
{
    return m_pausedMask;
}

void
TalbPfcNetDevice::FlushQueue()
{
    if (!m_queue)
    {
        return;
    }
    uint8_t band = 0;
    uint8_t slot = 0;
    while (Ptr<Packet> p = m_queue->DequeueUnpaused(0, &band, &slot))
    {
        if (!m_dequeued.IsNull())
        {
            m_dequeued(m_ifIndex, band, slot, p->GetSize());
        }
    }
}

void
TalbPfcNetDevice::Receive(Ptr<Packet> frame)
{
    if (m_receiveErrorModel && m_receiveErrorModel->IsCorrupt(frame))
    {
        ++m_stats.rxDropped;
        m_phyRxDropTrace(frame);
        return;
    }
    // The only frames that carry their Ethernet header are MAC control frames (minimum-size,
    // addressed to 01:80:c2:00:00:01); anything else is a packet whose header is implied (an
    // IPv4 packet never starts with 0x01: its first nibble is the version, 4). The size test
    // spares the copy for every other frame.
    uint8_t eth[ETHERNET_HEADER_BYTES];
    if (frame->GetSize() == ETHERNET_HEADER_BYTES + PFC_BODY_BYTES &&
        frame->CopyData(eth, sizeof(eth)) == sizeof(eth) && eth[0] == 0x01 &&
        ((eth[12] << 8) | eth[13]) == ETHERTYPE_MAC_CONTROL)
    {
        HandlePauseFrame(frame);
        return;
    }
    ++m_stats.rxFrames;
    if (!m_macRxTrace.IsEmpty())
    {
        m_macRxTrace(frame);
    }
    if (!m_promiscCallback.IsNull())
    {
        m_promiscCallback(this,
                          frame,
                          ETHERTYPE_IPV4,
                          Mac48Address::GetBroadcast(),
                          m_address,
                          NetDevice::PACKET_HOST);
    }
    if (!m_forward.IsNull())
    {
        m_forward(m_ifIndex, frame);
    }
    else if (!m_rxCallback.IsNull())
    {
        m_rxCallback(this, frame, ETHERTYPE_IPV4, Mac48Address::GetBroadcast());
    }
}

void
TalbPfcNetDevice::SetIfIndex(const uint32_t index)
{
    m_ifIndex = index;
}

uint32_t
TalbPfcNetDevice::GetIfIndex() const
{
    return m_ifIndex;
}

Ptr<Channel>
TalbPfcNetDevice::GetChannel() const
{
    return m_channel;
}

void
TalbPfcNetDevice::SetAddress(Address address)
{
    m_address = Mac48Address::ConvertFrom(address);
}

Address
TalbPfcNetDevice::GetAddress() const
{
    return m_address;
}

bool
TalbPfcNetDevice::SetMtu(const uint16_t mtu)
{
    m_mtu = mtu;
    return true;
}

uint16_t
TalbPfcNetDevice::GetMtu() const
{
    return m_mtu;
}

bool
TalbPfcNetDevice::IsLinkUp() const
{
    return m_channel != nullptr;
}

void
TalbPfcNetDevice::AddLinkChangeCallback(Callback<void> /* callback */)
{
    // The link never changes state: a failed link loses frames (ReceiveErrorModel) instead.
}

bool
TalbPfcNetDevice::IsBroadcast() const
{
    return true;
}

Address
TalbPfcNetDevice::GetBroadcast() const
{
    return Mac48Address::GetBroadcast();
}

bool
TalbPfcNetDevice::IsMulticast() const
{
    return false;
}

Address
TalbPfcNetDevice::GetMulticast(Ipv4Address /* multicastGroup */) const
{
    return Mac48Address::GetBroadcast();
}

Address
TalbPfcNetDevice::GetMulticast(Ipv6Address /* addr */) const
{
    return Mac48Address::GetBroadcast();
}

bool
TalbPfcNetDevice::IsBridge() const
{
    return false;
}

bool
TalbPfcNetDevice::IsPointToPoint() const
{
    return true;
}

Ptr<Node>
TalbPfcNetDevice::GetNode() const
{
    return m_node;
}

void
TalbPfcNetDevice::SetNode(Ptr<Node> node)
{
    m_node = node;
}

bool
TalbPfcNetDevice::NeedsArp() const
{
    return false;
}

void
TalbPfcNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_rxCallback = cb;
}

void
TalbPfcNetDevice::SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb)
{
    m_promiscCallback = cb;
}

bool
TalbPfcNetDevice::SupportsSendFrom() const
{
    return false;
}

} // namespace ns3
