#include "talb-rdma-nic.h"

#include "talb-dcqcn.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaNic");

NS_OBJECT_ENSURE_REGISTERED(TalbRdmaNic);

namespace
{
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
constexpr uint8_t IP_PROTO_UDP = 17;
constexpr uint8_t ECN_CE = 0x03;
/// UDP + BTH + ICRC bytes around a data packet's payload (inside IPv4).
constexpr uint32_t DATA_OVERHEAD = 8 + 12 + TalbRoceHeader::TRAILER_BYTES;

bool
IsPayloadMtu(uint32_t mtu)
{
    return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}
} // namespace

TypeId
TalbRdmaNic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbRdmaNic")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbRdmaNic>()
            .AddAttribute("Mtu",
                          "Payload bytes of a full packet: an InfiniBand MTU (256, 512, 1024, "
                          "2048 or 4096)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbRdmaNic::m_mtu),
                          MakeUintegerChecker<uint32_t>(256, 4096))
            .AddAttribute("AckInterval",
                          "The responder acknowledges every this many in-order packets (and "
                          "always a message's last)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&TalbRdmaNic::m_ackInterval),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddAttribute("CnpInterval",
                          "At most one CNP per queue pair per this interval (DCQCN's N)",
                          TimeValue(MicroSeconds(50)),
                          MakeTimeAccessor(&TalbRdmaNic::m_cnpInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("RetransmitTimeout",
                          "Go-back-N from the oldest unacknowledged packet when no "
                          "acknowledgement came for this long",
                          TimeValue(MilliSeconds(4)),
                          MakeTimeAccessor(&TalbRdmaNic::m_rto),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("RetransmitTimeoutLow",
                          "SelectiveRepeat: the timeout while at most ReorderThreshold packets "
                          "are in flight, too few for later ones to reveal a loss (IRN's RTO_low "
                          "for the tail of a burst, with ReorderThreshold in place of its N = 3); "
                          "0: RetransmitTimeout always. Below the acknowledgement delay "
                          "(AckInterval packets, queues) it fires spuriously: at 10 Gb/s 100us "
                          "did, 200us did not",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TalbRdmaNic::m_rtoLow),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WindowBytes",
                          "Most payload bytes a queue pair has unacknowledged (0: no window, "
                          "as DCQCN NICs)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbRdmaNic::m_window),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateControl",
                          "Congestion control of the queue pairs (a TalbRdmaRateControl TypeId)",
                          TypeIdValue(TalbDcqcn::GetTypeId()),
                          MakeTypeIdAccessor(&TalbRdmaNic::m_rateControlTid),
                          MakeTypeIdChecker())
            .AddAttribute("AddTag",
                          "Attach a TalbTag (the TaLB IPv4 option) to labelled data packets",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbRdmaNic::m_addTag),
                          MakeBooleanChecker())
            .AddAttribute("SetDscp",
                          "Set the DSCP of labelled data packets from their priority",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbRdmaNic::m_setDscp),
                          MakeBooleanChecker())
            .AddAttribute("Recovery",
                          "How queue pairs recover lost packets: GoBackN (RoCEv2: everything "
                          "again from the first missing packet; the responder drops what comes "
                          "early) or SelectiveRepeat (IRN-style: the responder keeps what comes "
                          "early, the requester sends only the missing packets again)",
                          EnumValue(TalbRdmaNic::GO_BACK_N),
                          MakeEnumAccessor(&TalbRdmaNic::m_recovery),
                          MakeEnumChecker(TalbRdmaNic::GO_BACK_N,
                                          "GoBackN",
                                          TalbRdmaNic::SELECTIVE_REPEAT,
                                          "SelectiveRepeat"))
            .AddAttribute("MeasureRtt",
                          "Queue pairs time one packet per round trip, sent with the A bit so "
                          "that the responder acknowledges it at once (RateControl's Rtt "
                          "trace); always on for a rate control that needs RTTs (TIMELY)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbRdmaNic::m_measureRtt),
                          MakeBooleanChecker())
            .AddAttribute("SelectiveRepeatRtt",
                          "SelectiveRepeat: a queue pair keeps at most the line rate times this "
                          "round trip in flight, plus AckInterval packets for coalesced "
                          "acknowledgements (IRN's BDP-FC), and at most 65 packets (what a "
                          "SACK's 64-PSN bitmap covers)",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbRdmaNic::m_srWindowRtt),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("WindowEdgeAck",
                          "SelectiveRepeat: the packet that fills the queue pair's window asks "
                          "for an acknowledgement (the A bit), so that one lost coalesced "
                          "acknowledgement does not leave the window closed until the timeout; "
                          "false: only a message's last packet asks (talb before 2026-11-29)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbRdmaNic::m_windowEdgeAck),
                          MakeBooleanChecker())
            .AddAttribute("ReorderThreshold",
                          "SelectiveRepeat: a packet is declared lost, and sent again, once a "
                          "packet this many PSNs beyond it (or beyond where its last "
                          "transmission left off) is selectively acknowledged; 0: 16 per 100 "
                          "Gb/s of the NIC's line rate, at least 16, at most 64 (16 up to 100 "
                          "Gb/s, 64 from 400 Gb/s: sprayed packets arrive further out of order "
                          "as more of them fit in a path's delay), and half the window where "
                          "that leaves no room behind a hole in it (GetSelectiveRepeatWindow: "
                          "a short window, e.g. AckInterval 1 at 10 Gb/s)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbRdmaNic::m_reorderThreshold),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("EntropyPolicy",
                          "SelectiveRepeat: the packet-spraying policy that gives each data "
                          "packet its UDP source port (a TalbEntropyPolicy's registered or "
                          "TypeId name); empty: every packet of a queue pair with its "
                          "connection's port",
                          StringValue(""),
                          MakeStringAccessor(&TalbRdmaNic::m_entropyPolicy),
                          MakeRegistryNameChecker(TalbEntropyPolicy::GetRegistry(), true))
            .AddAttribute("SprayAcks",
                          "SelectiveRepeat: a responder's acknowledgements (and CNPs) take the "
                          "UDP source port of the data packet that came last, so that with an "
                          "EntropyPolicy they are sprayed as the data is, and an entropy that "
                          "comes back names a forward and a reverse path that both work; false: "
                          "the connection's port, whose one reverse path, if it fails unseen by "
                          "the routes, loses every acknowledgement of the queue pair (the "
                          "earlier default, kept for comparison)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbRdmaNic::m_sprayAcks),
                          MakeBooleanChecker())
            .AddAttribute(
                "RecycleCovered",
                "SelectiveRepeat with an EntropyPolicy: an acknowledgement tells the "
                "policy of every packet it newly covers, cumulatively or selectively, "
                "each with the entropy the requester sent it with and the echoed "
                "packet's ECN mark, so that with coalesced acknowledgements (AckInterval) "
                "REPS hears of every entropy that came through, as one echo per packet "
                "would tell it; false: of the one entropy the acknowledgement echoes",
                BooleanValue(false),
                MakeBooleanAccessor(&TalbRdmaNic::m_recycleCovered),
                MakeBooleanChecker())
            .AddTraceSource("GoBack",
                            "A queue pair sends again from an earlier PSN: queue pair, PSN it "
                            "was at, PSN it goes back to, true for a timeout",
                            MakeTraceSourceAccessor(&TalbRdmaNic::m_goBackTrace),
                            "ns3::TalbRdmaNic::GoBackTracedCallback")
            .AddTraceSource("CnpSent",
                            "The responder of a queue pair sent a CNP",
                            MakeTraceSourceAccessor(&TalbRdmaNic::m_cnpSentTrace),
                            "ns3::TalbRdmaNic::QueuePairTracedCallback")
            .AddTraceSource("CnpReceived",
                            "The requester of a queue pair received a CNP",
                            MakeTraceSourceAccessor(&TalbRdmaNic::m_cnpReceivedTrace),
                            "ns3::TalbRdmaNic::QueuePairTracedCallback")
            .AddTraceSource("MessageSent",
                            "A message is fully acknowledged: queue pair, sequence, bytes",
                            MakeTraceSourceAccessor(&TalbRdmaNic::m_messageSentTrace),
                            "ns3::TalbRdmaNic::MessageTracedCallback")
            .AddTraceSource("MessageReceived",
                            "A message has arrived: queue pair, sequence, bytes",
                            MakeTraceSourceAccessor(&TalbRdmaNic::m_messageReceivedTrace),
                            "ns3::TalbRdmaNic::MessageTracedCallback");
    return tid;
}

TalbRdmaNic::TalbRdmaNic()
    : m_mtu(4096),
      m_ackInterval(16),
      m_cnpInterval(MicroSeconds(50)),
      m_rto(MilliSeconds(4)),
      m_window(0),
      m_rateControlTid(TalbDcqcn::GetTypeId()),
      m_addTag(true),
      m_setDscp(true),
      m_recovery(GO_BACK_N),
      m_srWindowRtt(MicroSeconds(20)),
      m_reorderThreshold(0)
{
    NS_LOG_FUNCTION(this);
}

TalbRdmaNic::~TalbRdmaNic()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRdmaNic::DoDispose()
{
    m_wake.Cancel();
    for (auto& qp : m_qps)
    {
        if (qp)
        {
            qp->Dispose();
        }
    }
    m_qps.clear();
    m_active.clear();
    if (m_device)
    {
        m_device->SetPullCallback(TalbPfcNetDevice::PullCallback());
        m_device->SetForwardCallback(TalbPfcNetDevice::ForwardCallback());
    }
    m_device = nullptr;
    m_node = nullptr;
    m_ccPrototype = nullptr;
    m_entropyPrototype = nullptr;
    Object::DoDispose();
}

void
TalbRdmaNic::SetRateControlFactory(const ObjectFactory& factory)
{
    NS_ABORT_MSG_IF(m_device, "TalbRdmaNic::SetRateControlFactory after Install");
    m_ccFactory = factory;
}

void
TalbRdmaNic::Install(Ptr<Node> node, Ptr<TalbPfcNetDevice> device, Ipv4Address address)
{
    NS_LOG_FUNCTION(this << node << device << address);
    NS_ABORT_MSG_IF(m_device, "TalbRdmaNic::Install called twice");
    NS_ABORT_MSG_UNLESS(IsPayloadMtu(m_mtu),
                        "TalbRdmaNic: Mtu " << m_mtu << " is not 256, 512, 1024, 2048 or 4096");
    NS_ABORT_MSG_UNLESS(device->GetQueue(), "TalbRdmaNic: the device has no queue");
    m_node = node;
    m_device = device;
    m_address = address;
    m_lineRate = device->GetDataRate();
    UintegerValue overhead;
    device->GetAttribute("PhyOverhead", overhead);
    m_l2Overhead = TalbPfcNetDevice::ETHERNET_HEADER_BYTES + overhead.Get();
    m_untaggedBand = device->GetQueue()->GetUntaggedBand();
    if (m_ccFactory.GetTypeId() == TypeId())
    {
        NS_ABORT_MSG_UNLESS(m_rateControlTid.IsChildOf(TalbRdmaRateControl::GetTypeId()),
                            "TalbRdmaNic: RateControl " << m_rateControlTid.GetName()
                                                        << " is not a TalbRdmaRateControl");
        m_ccFactory.SetTypeId(m_rateControlTid);
    }
    m_ccPrototype = m_ccFactory.Create<TalbRdmaRateControl>();
    NS_ABORT_MSG_UNLESS(m_ccPrototype,
                        "TalbRdmaNic: the rate control factory made no rate control");
    m_telemetry = m_ccPrototype->UsesTelemetry();
    uint32_t telemetryBytes = m_telemetry ? TalbIntTag::WIRE_BYTES : 0;
    NS_ABORT_MSG_UNLESS(
        m_mtu + TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES + telemetryBytes <=
            device->GetMtu(),
        "TalbRdmaNic: payload Mtu " << m_mtu << (m_telemetry ? " with in-band telemetry" : "")
                                    << " does not fit the device's Mtu " << device->GetMtu());
    NS_ABORT_MSG_IF(!m_entropyPolicy.empty() && m_recovery != SELECTIVE_REPEAT,
                    "TalbRdmaNic: EntropyPolicy " << m_entropyPolicy
                                                  << " needs Recovery SelectiveRepeat (go-back-N "
                                                     "cannot take sprayed packets)");
    if (!m_entropyPolicy.empty())
    {
        ObjectFactory policy;
        policy.SetTypeId(TalbEntropyPolicy::GetRegistry().Get(m_entropyPolicy));
        m_entropyPrototype = policy.Create<TalbEntropyPolicy>();
    }
    // The window in packets: the bytes of one round trip at line rate, the acknowledgements'
    // coalescing, and no more than a SACK bitmap describes beyond the first missing packet.
    auto bdp =
        static_cast<uint64_t>(m_srWindowRtt.GetSeconds() * m_lineRate.GetBitRate() / 8.0 / m_mtu) +
        1;
    m_srWindowPackets =
        std::min<uint64_t>(bdp + m_ackInterval, TalbRoceHeader::SACK_BITMAP_PSNS + 1);
    m_lossThreshold = m_reorderThreshold;
    if (m_lossThreshold == 0)
    {
        uint64_t hundreds = (m_lineRate.GetBitRate() + 99'999'999'999) / 100'000'000'000;
        m_lossThreshold = static_cast<uint32_t>(std::clamp<uint64_t>(16 * hundreds, 16, 64));
        // A hole is found once a packet the threshold beyond it is acknowledged, and at most
        // window - 1 packets follow it: a threshold beyond that (a short window, as per-packet
        // acknowledgements give) would leave every loss to the retransmission timeout.
        if (m_lossThreshold >= m_srWindowPackets)
        {
            m_lossThreshold =
                static_cast<uint32_t>(std::max<uint64_t>(1, (m_srWindowPackets - 1) / 2));
        }
    }
    device->SetPullCallback(MakeCallback(&TalbRdmaNic::Pull, this));
    device->SetForwardCallback(MakeCallback(&TalbRdmaNic::Receive, this));
}

Ptr<TalbRdmaQueuePair>
TalbRdmaNic::CreateQueuePair()
{
    NS_ABORT_MSG_UNLESS(m_device, "TalbRdmaNic::CreateQueuePair before Install");
    NS_ABORT_MSG_IF(m_qps.size() + FIRST_QPN > 0xFFFFFF,
                    "TalbRdmaNic: queue pair numbers exhausted");
    Ptr<TalbRdmaQueuePair> qp = CreateObject<TalbRdmaQueuePair>();
    qp->Setup(this,
              static_cast<uint32_t>(m_qps.size()) + FIRST_QPN,
              m_address,
              m_ccPrototype->Fork());
    m_qps.push_back(qp);
    return qp;
}

void
TalbRdmaNic::Connect(Ptr<TalbRdmaQueuePair> a, Ptr<TalbRdmaQueuePair> b, uint32_t initialPsn)
{
    NS_ABORT_MSG_UNLESS(a->m_peerQpn == 0 && b->m_peerQpn == 0,
                        "TalbRdmaNic::Connect: a queue pair is already connected");
    NS_ABORT_MSG_IF(a->GetNic() == b->GetNic(), "TalbRdmaNic::Connect: both ends on one NIC");
    NS_ABORT_MSG_UNLESS(a->GetPendingMessages() == 0 && b->GetPendingMessages() == 0,
                        "TalbRdmaNic::Connect: a queue pair has posted messages");
    a->SetPeer(b->GetLocalAddress(), b->GetQpn(), initialPsn);
    b->SetPeer(a->GetLocalAddress(), a->GetQpn(), initialPsn);
}

std::pair<Ptr<TalbRdmaQueuePair>, Ptr<TalbRdmaQueuePair>>
TalbRdmaNic::Connect(Ptr<TalbRdmaNic> src, Ptr<TalbRdmaNic> dst, uint32_t initialPsn)
{
    Ptr<TalbRdmaQueuePair> a = src->CreateQueuePair();
    Ptr<TalbRdmaQueuePair> b = dst->CreateQueuePair();
    Connect(a, b, initialPsn);
    return {a, b};
}

void
TalbRdmaNic::DestroyQueuePair(Ptr<TalbRdmaQueuePair> qp)
{
    NS_ABORT_MSG_UNLESS(qp->GetNic() == this, "TalbRdmaNic::DestroyQueuePair: not this NIC's");
    uint32_t index = qp->GetQpn() - FIRST_QPN;
    NS_ASSERT(index < m_qps.size() && m_qps[index] == qp);
    m_active.erase(std::remove(m_active.begin(), m_active.end(), PeekPointer(qp)), m_active.end());
    m_qps[index] = nullptr;
    qp->Dispose();
}

Ptr<TalbRdmaQueuePair>
TalbRdmaNic::GetQueuePair(uint32_t qpn) const
{
    uint32_t index = qpn - FIRST_QPN; // wraps below FIRST_QPN
    return index < m_qps.size() ? m_qps[index] : nullptr;
}

uint32_t
TalbRdmaNic::GetNQueuePairs() const
{
    return static_cast<uint32_t>(m_qps.size() - std::count(m_qps.begin(), m_qps.end(), nullptr));
}

Ipv4Address
TalbRdmaNic::GetAddress() const
{
    return m_address;
}

Ptr<TalbPfcNetDevice>
TalbRdmaNic::GetDevice() const
{
    return m_device;
}

Ptr<Node>
TalbRdmaNic::GetNode() const
{
    return m_node;
}

uint32_t
TalbRdmaNic::GetMtu() const
{
    return m_mtu;
}

uint32_t
TalbRdmaNic::GetReorderThreshold() const
{
    return m_lossThreshold;
}

const TalbRdmaNic::Stats&
TalbRdmaNic::GetStats() const
{
    return m_stats;
}

TalbRdmaNic::Recovery
TalbRdmaNic::GetRecovery() const
{
    return static_cast<Recovery>(m_recovery);
}

uint64_t
TalbRdmaNic::GetSelectiveRepeatWindow() const
{
    return m_srWindowPackets;
}

void
TalbRdmaNic::Activate(TalbRdmaQueuePair* qp)
{
    if (!qp->m_active)
    {
        qp->m_active = true;
        m_active.push_back(qp);
    }
    Transmit();
}

void
TalbRdmaNic::Transmit()
{
    // Re-times the wake-up too: an idle device pulls, and Pull schedules the next wake-up.
    m_device->TriggerTransmit();
}

void
TalbRdmaNic::Wake()
{
    Transmit();
}

Ptr<Packet>
TalbRdmaNic::Pull(uint8_t pausedMask)
{
    Time now = Simulator::Now();
    Time earliest = Time::Max();
    std::size_t n = m_active.size();
    std::size_t best = n;
    uint8_t bestBand = TALB_NUM_PRIORITIES;
    bool idle = false;
    // Strict priority by the next packet's band; round-robin from m_rr within a band.
    for (std::size_t k = 0; k < n; ++k)
    {
        std::size_t i = (m_rr + k) % n;
        TalbRdmaQueuePair* qp = m_active[i];
        if (!qp->HasData())
        {
            idle = true;
            continue;
        }
        if (!qp->WindowOpen())
        {
            continue; // an acknowledgement re-activates it
        }
        uint8_t band = qp->NextBand();
        if (band >= bestBand || (pausedMask & (1u << band)))
        {
            continue; // the device pulls again when the pause ends
        }
        if (qp->NextSendTime() > now)
        {
            earliest = std::min(earliest, qp->NextSendTime());
            continue;
        }
        best = i;
        bestBand = band;
    }
    TalbRdmaQueuePair* chosen = best < n ? m_active[best] : nullptr;
    if (idle)
    {
        for (auto* qp : m_active)
        {
            qp->m_active = qp->HasData();
        }
        m_active.erase(std::remove_if(m_active.begin(),
                                      m_active.end(),
                                      [](TalbRdmaQueuePair* qp) { return !qp->m_active; }),
                       m_active.end());
    }
    if (!chosen)
    {
        if (earliest != Time::Max() &&
            (!m_wake.IsRunning() || Simulator::GetDelayLeft(m_wake) > earliest - now))
        {
            m_wake.Cancel();
            m_wake = Simulator::Schedule(earliest - now, &TalbRdmaNic::Wake, this);
        }
        return nullptr;
    }
    // Next round starts after the chosen queue pair.
    auto pos = std::find(m_active.begin(), m_active.end(), chosen);
    m_rr = static_cast<std::size_t>(pos - m_active.begin()) + 1;
    ++m_stats.dataPacketsSent;
    return chosen->SendNext();
}

void
TalbRdmaNic::SendControl(TalbRdmaQueuePair* qp, TalbRoceHeader& h, uint32_t bodyBytes)
{
    h.SetSource(m_address);
    h.SetDestination(qp->m_peer);
    h.SetTos(0);
    h.SetSourcePort(m_sprayAcks && qp->m_ackPort != 0 ? qp->m_ackPort : qp->m_sourcePort);
    h.SetDestQp(qp->m_peerQpn);
    // An acknowledgement echoes the telemetry of the data packet it answers, INT header and all.
    bool echo = qp->m_hasEchoTelemetry && h.GetOpcode() != TalbRoceHeader::OP_CNP;
    if (echo)
    {
        bodyBytes += TalbIntTag::WIRE_BYTES;
    }
    h.SetIpPayloadBytes(static_cast<uint16_t>(h.GetSerializedSize() - 20 + bodyBytes +
                                              TalbRoceHeader::TRAILER_BYTES));
    Ptr<Packet> p = Create<Packet>(bodyBytes + TalbRoceHeader::TRAILER_BYTES);
    p->AddHeader(h);
    if (echo)
    {
        p->AddPacketTag(qp->m_echoTelemetry);
    }
    ++m_stats.controlPacketsSent;
    if (!m_device->Send(p, m_device->GetBroadcast(), ETHERTYPE_IPV4))
    {
        ++m_stats.controlDrops;
    }
}

void
TalbRdmaNic::SendAck(TalbRdmaQueuePair* qp, uint8_t syndrome, uint32_t psn24, uint32_t msn)
{
    TalbRoceHeader h;
    h.SetOpcode(TalbRoceHeader::OP_ACK);
    h.SetSyndrome(syndrome);
    h.SetPsn(psn24);
    h.SetMsn(msn & 0xFFFFFF);
    SendControl(qp, h, 0);
}

void
TalbRdmaNic::SendSack(TalbRdmaQueuePair* qp,
                      uint32_t psn24,
                      uint32_t msn,
                      uint64_t bitmap,
                      uint16_t entropy,
                      bool ce)
{
    TalbRoceHeader h;
    h.SetOpcode(TalbRoceHeader::OP_SACK);
    h.SetSyndrome(TalbRoceHeader::SYNDROME_ACK);
    h.SetPsn(psn24);
    h.SetMsn(msn & 0xFFFFFF);
    h.SetSackBitmap(bitmap);
    h.SetEchoEntropy(entropy);
    h.SetEchoCe(ce);
    SendControl(qp, h, 0);
}

void
TalbRdmaNic::SendCnp(TalbRdmaQueuePair* qp)
{
    TalbRoceHeader h;
    h.SetOpcode(TalbRoceHeader::OP_CNP);
    m_cnpSentTrace(qp);
    SendControl(qp, h, TalbRoceHeader::CNP_PAYLOAD_BYTES);
}

void
TalbRdmaNic::Receive(uint32_t /* ifIndex */, Ptr<Packet> packet)
{
    TalbRoceHeader h;
    if (packet->GetSize() < TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES)
    {
        ++m_stats.unknownPackets;
        return;
    }
    packet->PeekHeader(h);
    Ptr<TalbRdmaQueuePair> qp = GetQueuePair(h.GetDestQp());
    if (h.GetProtocol() != IP_PROTO_UDP || h.GetDestinationPort() != TalbRoceHeader::UDP_PORT ||
        h.GetDestination() != m_address || !qp)
    {
        ++m_stats.unknownPackets;
        return;
    }
    if (TalbRoceHeader::IsData(h.GetOpcode()))
    {
        ++m_stats.dataPacketsReceived;
        uint32_t overhead = DATA_OVERHEAD;
        // Every NIC of a run has the same rate control: only telemetry's senders pad.
        if (m_telemetry)
        {
            qp->m_hasEchoTelemetry = packet->PeekPacketTag(qp->m_echoTelemetry);
            qp->m_echoTelemetry.SetEcho(); // the way back is not the data's path
            overhead += qp->m_hasEchoTelemetry ? TalbIntTag::WIRE_BYTES : 0;
        }
        uint32_t payload = h.GetIpPayloadBytes() >= overhead ? h.GetIpPayloadBytes() - overhead : 0;
        qp->ReceiveData(h, payload, (h.GetTos() & 0x3) == ECN_CE);
        return;
    }
    ++m_stats.controlPacketsReceived;
    TalbIntTag telemetry;
    bool echoed = m_telemetry && packet->PeekPacketTag(telemetry);
    if (h.GetOpcode() == TalbRoceHeader::OP_ACK)
    {
        qp->ReceiveAck(h, echoed ? &telemetry : nullptr);
    }
    else if (h.GetOpcode() == TalbRoceHeader::OP_SACK)
    {
        qp->ReceiveSack(h, echoed ? &telemetry : nullptr);
    }
    else if (h.GetOpcode() == TalbRoceHeader::OP_CNP)
    {
        qp->ReceiveCnp();
    }
}

} // namespace ns3
