#include "talb-switch.h"

#include "talb-pfc-net-device.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbSwitch");

NS_OBJECT_ENSURE_REGISTERED(TalbSwitch);

namespace
{
constexpr uint16_t ETHERTYPE_IPV4 = 0x0800;
const std::vector<uint32_t> g_noRoute;
} // namespace

TypeId
TalbSwitch::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbSwitch")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbSwitch>()
            .AddAttribute("DreInterval",
                          "Decay interval Tdre of each port's DRE",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbSwitch::m_dreInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DreAlpha",
                          "Decay factor per interval of each port's DRE (tau = Tdre / alpha)",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&TalbSwitch::m_dreAlpha),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("InBandTelemetry",
                          "Ports of TalbPfcNetDevice stamp their hop record into packets that "
                          "carry in-band telemetry (a TalbIntTag: HPCC's senders attach one; "
                          "TalbLeafSpineHelper turns it on for a rate control that reads it)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbSwitch::m_inBandTelemetry),
                          MakeBooleanChecker())
            .AddAttribute("ChargeHeldPackets",
                          "With PFC: a packet the load balancer keeps (a reorder queue) is "
                          "charged to its ingress port from its arrival until it leaves, as a "
                          "switch buffers it, so a growing reorder queue pauses the port it "
                          "fills from; false: only from its release (the behaviour before "
                          "2026-11-30: a reorder queue takes no ingress buffer while it holds)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbSwitch::m_chargeHeld),
                          MakeBooleanChecker())
            .AddTraceSource("Drop",
                            "A packet the switch could not forward, with a DropReason",
                            MakeTraceSourceAccessor(&TalbSwitch::m_dropTrace),
                            "ns3::TalbSwitch::DropTracedCallback")
            .AddTraceSource(
                "Forward",
                "A packet handed to its egress device: packet, in port (UINT32_MAX for a "
                "packet the balancer made), out port",
                MakeTraceSourceAccessor(&TalbSwitch::m_forwardTrace),
                "ns3::TalbSwitch::ForwardTracedCallback");
    return tid;
}

TalbSwitch::TalbSwitch()
    : m_dreInterval(MicroSeconds(20)),
      m_dreAlpha(0.1),
      m_inBandTelemetry(false),
      m_chargeHeld(false),
      m_firstHost(0)
{
    NS_LOG_FUNCTION(this);
}

TalbSwitch::~TalbSwitch()
{
    NS_LOG_FUNCTION(this);
}

void
TalbSwitch::DoDispose()
{
    NS_LOG_FUNCTION(this);
    // The node clears its protocol handlers itself when disposed.
    m_node = nullptr;
    if (m_lb)
    {
        m_lb->Dispose();
    }
    m_lb = nullptr;
    m_ports.clear();
    m_pfcDevices.clear();
    m_pfc = nullptr;
    m_classifier = nullptr;
    Object::DoDispose();
}

void
TalbSwitch::Install(Ptr<Node> node, const TalbSwitchInfo& info)
{
    NS_LOG_FUNCTION(this << node);
    NS_ABORT_MSG_IF(m_node, "TalbSwitch::Install: already installed on node " << m_node->GetId());
    NS_ABORT_MSG_IF(node->GetObject<Ipv4>(),
                    "TalbSwitch::Install: node " << node->GetId()
                                                 << " has an IPv4 stack; switches must not");
    m_node = node;
    m_info = info;
    m_info.switchId = node->GetId();
    m_ports.resize(node->GetNDevices());
    m_pfcDevices.assign(node->GetNDevices(), nullptr);
    for (uint32_t i = 0; i < node->GetNDevices(); ++i)
    {
        Ptr<NetDevice> dev = node->GetDevice(i);
        TalbPortState& port = m_ports[i];
        if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev))
        {
            port.queue = p2p->GetQueue();
        }
        else if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
        {
            port.queue = pfc->GetQueue();
            m_pfcDevices[i] = PeekPointer(pfc);
            pfc->SetTelemetryStamping(m_inBandTelemetry);
            // The device hands its packets over: no node dispatch, no copy per hop.
            pfc->SetForwardCallback(MakeCallback(&TalbSwitch::Forward, this));
        }
        NS_ABORT_MSG_UNLESS(port.queue,
                            "TalbSwitch::Install: device "
                                << i << " of node " << node->GetId()
                                << " is neither a PointToPointNetDevice nor a TalbPfcNetDevice "
                                   "with a queue");
        // A port queue drops a packet it holds only to push it out for a more urgent one
        // (TalbPriorityQueue's PushOut): counted as a refused packet is.
        port.queue->TraceConnectWithoutContext("DropAfterDequeue",
                                               MakeCallback(&TalbSwitch::PushedOut, this, i));
        port.device = dev;
        DataRateValue rate;
        dev->GetAttribute("DataRate", rate);
        port.rate = rate.Get();
        port.dre.Configure(m_dreInterval, m_dreAlpha);
    }
    node->RegisterProtocolHandler(MakeCallback(&TalbSwitch::Receive, this),
                                  ETHERTYPE_IPV4,
                                  nullptr,
                                  false);
}

void
TalbSwitch::SetLoadBalancer(Ptr<TalbLoadBalancer> lb)
{
    NS_ABORT_MSG_UNLESS(m_node, "TalbSwitch::SetLoadBalancer before Install");
    NS_ABORT_MSG_IF(m_lb, "TalbSwitch::SetLoadBalancer: already set");
    m_lb = lb;
    m_lb->SetTransmitCallback(MakeCallback(&TalbSwitch::LbTransmit, this));
    m_lb->Attach(m_info, &m_ports);
}

void
TalbSwitch::SetPfc(Ptr<TalbPfc> pfc)
{
    NS_ABORT_MSG_UNLESS(m_node, "TalbSwitch::SetPfc before Install");
    NS_ABORT_MSG_IF(m_pfc, "TalbSwitch::SetPfc: already set");
    std::vector<Ptr<TalbPfcNetDevice>> devices;
    for (uint32_t i = 0; i < m_ports.size(); ++i)
    {
        Ptr<TalbPfcNetDevice> dev = DynamicCast<TalbPfcNetDevice>(m_ports[i].device);
        NS_ABORT_MSG_UNLESS(dev,
                            "TalbSwitch::SetPfc: port " << i << " of node " << m_node->GetId()
                                                        << " is not a TalbPfcNetDevice");
        devices.push_back(dev);
    }
    m_pfc = pfc;
    m_pfc->Install(devices);
    m_classifier = devices.empty() ? nullptr : devices[0]->GetQueue();
    for (const auto& dev : devices)
    {
        dev->SetDequeueCallback(MakeCallback(&TalbPfc::Released, m_pfc));
    }
}

Ptr<TalbPfc>
TalbSwitch::GetPfc() const
{
    return m_pfc;
}

Ptr<TalbLoadBalancer>
TalbSwitch::GetLoadBalancer() const
{
    return m_lb;
}

void
TalbSwitch::SetHostPlan(Ipv4Address first, const std::vector<uint32_t>& hostLeaf)
{
    m_firstHost = first.Get();
    m_hostLeaf = hostLeaf;
    m_routes.assign(hostLeaf.size(), std::vector<uint32_t>());
    // A leaf's ports lead to its hosts in host order (TalbServerLayout), so a host's leaf
    // port is the number of lower-numbered hosts under its leaf.
    m_hostLeafPort.assign(hostLeaf.size(), 0);
    std::vector<uint32_t> below;
    for (uint32_t h = 0; h < hostLeaf.size(); ++h)
    {
        below.resize(std::max<std::size_t>(below.size(), hostLeaf[h] + 1), 0);
        m_hostLeafPort[h] = below[hostLeaf[h]]++;
    }
}

void
TalbSwitch::SetRoute(uint32_t host, const std::vector<uint32_t>& ports)
{
    NS_ABORT_MSG_UNLESS(host < m_routes.size(),
                        "TalbSwitch::SetRoute: host " << host << " not in plan");
    for (uint32_t p : ports)
    {
        NS_ABORT_MSG_UNLESS(p < m_ports.size(), "TalbSwitch::SetRoute: no port " << p);
    }
    m_routes[host] = ports;
}

const std::vector<uint32_t>&
TalbSwitch::GetRoute(uint32_t host) const
{
    return host < m_routes.size() ? m_routes[host] : g_noRoute;
}

void
TalbSwitch::SetPortUp(uint32_t port, bool up)
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "TalbSwitch::SetPortUp: no port " << port);
    m_ports[port].up = up;
}

void
TalbSwitch::SetUplink(uint32_t port, uint32_t spine)
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "TalbSwitch::SetUplink: no port " << port);
    m_ports[port].uplink = true;
    m_ports[port].peer = spine;
}

void
TalbSwitch::SetPeer(uint32_t port, uint32_t peer)
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "TalbSwitch::SetPeer: no port " << port);
    m_ports[port].peer = peer;
}

void
TalbSwitch::SetPathRate(uint32_t port, uint32_t dstLeaf, DataRate rate)
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "TalbSwitch::SetPathRate: no port " << port);
    std::vector<uint64_t>& rates = m_ports[port].pathRateBps;
    if (rates.size() <= dstLeaf)
    {
        rates.resize(dstLeaf + 1, 0);
    }
    rates[dstLeaf] = rate.GetBitRate();
}

uint32_t
TalbSwitch::GetNPorts() const
{
    return m_ports.size();
}

const TalbPortState&
TalbSwitch::GetPort(uint32_t port) const
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size(), "TalbSwitch::GetPort: no port " << port);
    return m_ports[port];
}

const TalbSwitch::Stats&
TalbSwitch::GetStats() const
{
    return m_stats;
}

const TalbSwitchInfo&
TalbSwitch::GetInfo() const
{
    return m_info;
}

uint32_t
TalbSwitch::HostIdOf(Ipv4Address address) const
{
    uint32_t id = address.Get() - m_firstHost; // wraps below the plan
    return id < m_routes.size() ? id : UINT32_MAX;
}

Ipv4Address
TalbSwitch::GetHostAddress(uint32_t host) const
{
    return Ipv4Address(m_firstHost + host);
}

void
TalbSwitch::DeviceDrop(uint32_t out,
                       Ptr<const Packet> packet,
                       const TalbPriorityQueue::PacketInfo* info)
{
    TalbPortState& port = m_ports[out];
    ++port.deviceDrops;
    // Which traffic a full port costs (an urgent packet is refused as any other without
    // PushOut): read only on a drop.
    const TalbPriorityQueue::PacketInfo lost = info ? *info : TalbPriorityQueue::Read(packet);
    ++port.deviceDropsByPriority[lost.tagged && lost.label.priority < TALB_NUM_PRIORITIES
                                     ? lost.label.priority
                                     : TALB_NUM_PRIORITIES];
    Drop(packet, DROP_DEVICE);
}

void
TalbSwitch::PushedOut(uint32_t out, Ptr<const Packet> packet)
{
    DeviceDrop(out, packet, nullptr);
}

void
TalbSwitch::Drop(Ptr<const Packet> packet, DropReason reason)
{
    NS_LOG_LOGIC("switch " << m_info.switchId << " drops " << packet->GetUid() << " reason "
                           << reason);
    switch (reason)
    {
    case DROP_NOT_IPV4:
        ++m_stats.nDropNotIpv4;
        break;
    case DROP_UNKNOWN_HOST:
        ++m_stats.nDropUnknownHost;
        break;
    case DROP_NO_ROUTE:
        ++m_stats.nDropNoRoute;
        break;
    case DROP_DEVICE:
        ++m_stats.nDropDevice;
        break;
    case DROP_PFC_HEADROOM:
        ++m_stats.nDropPfcHeadroom;
        break;
    }
    m_dropTrace(packet, reason);
}

void
TalbSwitch::Receive(Ptr<NetDevice> device,
                    Ptr<const Packet> packet,
                    uint16_t /* protocol */,
                    const Address& /* from */,
                    const Address& /* to */,
                    NetDevice::PacketType /* packetType */)
{
    // Protocol handlers get a read-only packet that others may still hold.
    Forward(device->GetIfIndex(), packet->Copy());
}

void
TalbSwitch::Forward(uint32_t inPort, Ptr<Packet> p)
{
    ++m_stats.nReceived;
    // Headers and TalbTag read once per hop: forwarding, PFC's classification and the egress
    // queue (TalbPfcNetDevice) all use what is read here, so each hop parses its headers once.
    TalbPriorityQueue::PacketInfo info = TalbPriorityQueue::Read(p);
    const TalbPriorityQueue::Parsed& h = info.headers;
    if (!h.ipv4 || h.ipOffset != 0)
    {
        Drop(p, DROP_NOT_IPV4);
        return;
    }
    uint32_t src = h.src;
    uint32_t dst = h.dst;
    uint8_t proto = h.protocol;
    uint32_t ports = (uint32_t(h.srcPort) << 16) | h.dstPort; // 0 unless TCP or UDP
    uint32_t dstHost = dst - m_firstHost;
    if (dstHost >= m_routes.size())
    {
        Drop(p, DROP_UNKNOWN_HOST);
        return;
    }
    const std::vector<uint32_t>& route = m_routes[dstHost];
    if (route.empty())
    {
        Drop(p, DROP_NO_ROUTE);
        return;
    }
    uint32_t srcHost = src - m_firstHost;
    NS_ASSERT_MSG(m_lb, "TalbSwitch on node " << m_info.switchId << " has no load balancer");

    TalbPacketContext ctx;
    ctx.packet = PeekPointer(p);
    ctx.flowHash = talb::lb::FlowHash(src, dst, ports, proto);
    ctx.ports = ports;
    if (info.flowLabel != 0)
    {
        // As a switch hashes IPv6's flow label with the 5-tuple: a new label, a new flow.
        ctx.flowHash = talb::lb::Mix32(ctx.flowHash ^ info.flowLabel);
    }
    ctx.size = p->GetSize();
    ctx.inPort = inPort;
    ctx.srcHost = srcHost;
    ctx.dstHost = dstHost;
    ctx.srcLeaf = srcHost < m_hostLeaf.size() ? m_hostLeaf[srcHost] : UINT32_MAX;
    ctx.dstLeaf = m_hostLeaf[dstHost];
    ctx.now = Simulator::Now();
    ctx.goBackN = h.rocev2;
    ctx.roceDstQp = h.destQp;
    ctx.tcpSeq = h.tcpSeq;
    ctx.tcpPayload = h.tcpPayload;
    ctx.dstLeafPort = m_hostLeafPort[dstHost];
    if (info.tagged)
    {
        ctx.hasLabel = true;
        ctx.label = info.label;
    }

    m_lb->PacketIn(ctx);
    uint32_t out =
        route.size() == 1
            ? route[0]
            : m_lb->SelectPath(ctx, TalbCandidates{route.data(), uint32_t(route.size())});
    m_lb->PacketOut(ctx, out);
    // Charged on arrival, a packet the balancer keeps stays charged while it waits.
    bool charged = m_chargeHeld && m_pfc;
    if (charged && !Admit(inPort, p, info))
    {
        return;
    }
    TalbLoadBalancer::HoldVerdict verdict = m_lb->Hold(ctx, out, p);
    if (verdict == TalbLoadBalancer::SEND)
    {
        Transmit(p, ctx.inPort, out, &info, charged);
    }
    else
    {
        ++m_stats.nLbHeld;
        if (charged && verdict == TalbLoadBalancer::CONSUMED)
        {
            m_pfc->Uncharge(inPort, PfcBand(info), p->GetSize());
        }
    }
    // Checked here, not in Transmit: a balancer may send its own packets (ConWeave's replies)
    // while the received one is still between Receive and Transmit.
    NS_ASSERT(m_stats.nReceived + m_stats.nLbSent ==
              m_stats.nForwarded + m_stats.nLbHeld + m_stats.nDropNotIpv4 +
                  m_stats.nDropUnknownHost + m_stats.nDropNoRoute + m_stats.nDropDevice +
                  m_stats.nDropPfcHeadroom);
}

void
TalbSwitch::LbTransmit(Ptr<Packet> packet, uint32_t inPort, uint32_t out, bool kept)
{
    NS_ABORT_MSG_UNLESS(
        out < m_ports.size() && (inPort < m_ports.size() || inPort == TalbLoadBalancer::NO_INGRESS),
        "TalbSwitch: the load balancer sends from port " << inPort << " to " << out);
    ++m_stats.nLbSent;
    Transmit(packet, inPort, out, nullptr, kept && m_chargeHeld && m_pfc);
}

uint8_t
TalbSwitch::PfcBand(const TalbPriorityQueue::PacketInfo& info) const
{
    return m_classifier->BandOfSlot(m_classifier->ClassifySlot(info));
}

bool
TalbSwitch::Admit(uint32_t inPort, Ptr<Packet> p, const TalbPriorityQueue::PacketInfo& info)
{
    if (!m_pfc->Admit(inPort, PfcBand(info), p->GetSize()))
    {
        Drop(p, DROP_PFC_HEADROOM);
        return false;
    }
    return true;
}

void
TalbSwitch::Transmit(Ptr<Packet> p,
                     uint32_t inPort,
                     uint32_t out,
                     const TalbPriorityQueue::PacketInfo* info,
                     bool charged)
{
    TalbPfcNetDevice* pfcDevice = m_pfcDevices[out];
    TalbPriorityQueue::PacketInfo read;
    if (!info && (m_pfc || pfcDevice))
    {
        read = TalbPriorityQueue::Read(p);
        info = &read;
    }
    // Without ChargeHeldPackets PFC charges packets when they leave the balancer: one it held
    // was not charged meanwhile (its reorder queue is its own buffer).
    uint8_t pfcSlot = 0;
    uint8_t pfcPriority = 0;
    uint32_t size = p->GetSize();
    if (m_pfc)
    {
        pfcSlot = m_classifier->ClassifySlot(*info);
        pfcPriority = m_classifier->BandOfSlot(pfcSlot);
        if (!charged && !m_pfc->Admit(inPort, pfcPriority, size))
        {
            Drop(p, DROP_PFC_HEADROOM);
            return;
        }
    }

    TalbPortState& port = m_ports[out];
    port.dre.Add(size, Simulator::Now());
    if (m_pfc)
    {
        // Before Send: a device that is idle dequeues (and releases) the packet at once.
        m_pfc->Queued(inPort, out, pfcPriority, pfcSlot);
    }
    bool sent = pfcDevice ? pfcDevice->SendRead(p, *info)
                          : port.device->Send(p, port.device->GetBroadcast(), ETHERTYPE_IPV4);
    if (!sent)
    {
        if (m_pfc)
        {
            m_pfc->Refused(inPort, out, pfcPriority, pfcSlot, size);
        }
        DeviceDrop(out, p, info);
        return;
    }
    ++port.txPackets;
    port.txBytes += size;
    ++m_stats.nForwarded;
    if (!m_forwardTrace.IsEmpty()) // by value: a reference count up and down even with no sink
    {
        m_forwardTrace(p, inPort, out);
    }
}

} // namespace ns3
