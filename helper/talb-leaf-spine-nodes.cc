// TalbLeafSpineHelper, its nodes: the hosts' stacks (ns-3 TCP/IP or RoCEv2 NICs), the switches
// (TalbSwitch with PFC, or ns-3's IPv4 stack for StockRouting) and their forwarding tables.
#include "talb-leaf-spine-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-global-routing.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/talb-host-egress-hook.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-shared-buffer.h"
#include "ns3/tcp-l4-protocol.h"

#include <algorithm>
#include <bitset>

namespace ns3
{

namespace
{
/// \return the bands \p pfc keeps lossless: bit b set for band b
uint8_t
LosslessBands(Ptr<TalbPfc> pfc)
{
    uint8_t bands = 0;
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        bands |= pfc->IsLossless(p) ? uint8_t(1u << p) : 0;
    }
    return bands;
}

/**
 * \return the lossless bytes \p pfc may admit to one egress of \p sw: every queued lossless
 * byte is charged to an (ingress port, lossless priority) holding at most XOFF (now) + that
 * port's headroom, so a queue this large never drops a lossless packet
 */
uint64_t
LosslessBound(Ptr<TalbSwitch> sw, Ptr<TalbPfc> pfc)
{
    uint64_t classes = std::bitset<8>(LosslessBands(pfc)).count();
    uint64_t bound = 0;
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        bound += classes * (pfc->GetXoff() + pfc->GetHeadroom(port));
    }
    return bound;
}

/**
 * \return a byte-sized queue limit of \p bytes, or of 4 GiB where \p bytes is more: ns-3
 * counts a queue's size in 32 bits, and a worst-case lossless bound past that (many ports,
 * eight lossless classes, large headroom) is bytes no port of a simulation ever holds
 */
QueueSize
PortBytes(uint64_t bytes)
{
    return QueueSize(QueueSizeUnit::BYTES,
                     static_cast<uint32_t>(std::min<uint64_t>(bytes, UINT32_MAX)));
}

/// Add an IPv4 interface on \p dev with \p address / \p mask, without any queue disc.
uint32_t
AddInterface(Ptr<Node> node, Ptr<NetDevice> dev, Ipv4Address address, Ipv4Mask mask)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    uint32_t ifIndex = ipv4->AddInterface(dev);
    ipv4->AddAddress(ifIndex, Ipv4InterfaceAddress(address, mask));
    ipv4->SetMetric(ifIndex, 1);
    ipv4->SetUp(ifIndex);
    return ifIndex;
}

/// Address k of the /30 subnet of link \p link in stock mode (k = 1 or 2).
Ipv4Address
StockLinkAddress(uint32_t link, uint32_t k)
{
    return Ipv4Address(Ipv4Address("10.128.0.0").Get() + 4 * link + k);
}
} // namespace

Ipv4Mask
TalbLeafSpineHelper::HostPlanMask() const
{
    uint32_t nHosts = m_hosts.GetN();
    // The longest prefix holding every host address: all hosts are on-link.
    uint32_t first = m_firstHost.Get();
    uint32_t last = first + nHosts - 1;
    NS_ABORT_MSG_IF(last < first, "FirstHostAddress + hosts overflows the address space");
    uint32_t prefix = 32;
    while (prefix > 0 && (first >> (32 - prefix)) != (last >> (32 - prefix)))
    {
        --prefix;
    }
    prefix = std::min<uint32_t>(prefix, 30);
    // Widen it while a host would be its network or broadcast address (3 hosts from x.x.x.1
    // end on a /30's broadcast address).
    for (;; --prefix)
    {
        Ipv4Mask planMask(prefix == 0 ? 0 : ~((1u << (32 - prefix)) - 1));
        Ipv4Address network = m_firstHost.CombineMask(planMask);
        if (m_firstHost != network &&
            Ipv4Address(last) != network.GetSubnetDirectedBroadcast(planMask))
        {
            return planMask;
        }
        NS_ABORT_MSG_IF(prefix == 0,
                        "FirstHostAddress " << m_firstHost << " with " << nHosts
                                            << " hosts includes a network or broadcast address");
    }
}

void
TalbLeafSpineHelper::InstallRdmaHosts()
{
    HostPlanMask(); // checks the address plan
    // HPCC's T: the longest unloaded round trip from host 0 (the fabric is symmetric), a full
    // data packet out and an acknowledgement back that waits behind one data packet per link,
    // as it does when the reverse direction carries data too (a ring's). Without that wait
    // the window W = R T held an idle ring all-reduce at 84 % of line rate (10 Gb/s, 4 KB
    // packets: a BDP of three packets).
    uint32_t data = m_rdma->GetDeviceMtu() + TalbPfcNetDevice::ETHERNET_HEADER_BYTES;
    uint32_t ack =
        m_rdma->GetDeviceMtu() - m_rdma->GetPayloadMtu() + TalbPfcNetDevice::ETHERNET_HEADER_BYTES;
    Time longest;
    for (uint32_t dst = 1; dst < m_hosts.GetN(); ++dst)
    {
        longest = std::max(longest, GetBaseRtt(0, dst, data, data + ack));
    }
    if (longest.IsStrictlyPositive())
    {
        m_rdma->OfferBaseRtt(longest);
    }
    for (uint32_t i = 0; i < m_hosts.GetN(); ++i)
    {
        Ipv4Address addr(m_firstHost.Get() + i);
        m_hostAddresses.push_back(addr);
        m_rdma->InstallNic(m_hosts.Get(i), DynamicCast<TalbPfcNetDevice>(m_hostDevices[i]), addr);
    }
}

void
TalbLeafSpineHelper::InstallHostStacks()
{
    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    if (!m_stockRouting)
    {
        stack.SetRoutingHelper(staticRouting);
    }
    stack.Install(m_hosts);

    uint32_t nHosts = m_hosts.GetN();
    Ipv4Mask planMask = m_stockRouting ? Ipv4Mask("255.255.255.255") : HostPlanMask();
    TypeId tcpTid = TypeId::LookupByName(m_tcpVariant);
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        Ptr<Node> host = m_hosts.Get(i);
        Ipv4Address addr;
        uint32_t ifIndex;
        if (m_stockRouting)
        {
            addr = StockLinkAddress(i, 1);
            ifIndex = AddInterface(host, m_hostDevices[i], addr, Ipv4Mask("255.255.255.252"));
        }
        else
        {
            addr = Ipv4Address(m_firstHost.Get() + i);
            ifIndex = AddInterface(host, m_hostDevices[i], addr, planMask);
            Ptr<Ipv4StaticRouting> routing =
                staticRouting.GetStaticRouting(host->GetObject<Ipv4>());
            routing->AddNetworkRouteTo(Ipv4Address("0.0.0.0"), Ipv4Mask("0.0.0.0"), ifIndex);
        }
        m_hostAddresses.push_back(addr);
        host->GetObject<TcpL4Protocol>()->SetAttribute("SocketType", TypeIdValue(tcpTid));
        Ptr<TalbHostEgressHook> hook = CreateObject<TalbHostEgressHook>();
        hook->Install(host);
        host->AggregateObject(hook);
    }
}

void
TalbLeafSpineHelper::InstallStockSwitches()
{
    InternetStackHelper stack;
    stack.Install(m_leaves);
    stack.Install(m_spines);
    uint32_t nHosts = m_hosts.GetN();
    Ipv4Mask mask("255.255.255.252");
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        Ptr<Node> leaf = m_leaves.Get(m_layout.GetLeaf(i));
        AddInterface(leaf, leaf->GetDevice(m_layout.GetLeafPort(i)), StockLinkAddress(i, 2), mask);
    }
    for (uint32_t k = 0; k < m_links.size(); ++k)
    {
        uint32_t link = nHosts + k;
        AddInterface(m_leaves.Get(k / m_nSpines),
                     m_links[k].first,
                     StockLinkAddress(link, 1),
                     mask);
        AddInterface(m_spines.Get(k % m_nSpines),
                     m_links[k].second,
                     StockLinkAddress(link, 2),
                     mask);
    }
    // Stock ECMP: every node's Ipv4GlobalRouting sprays packets over equal-cost routes.
    NodeContainer all(m_hosts, m_leaves, m_spines);
    for (uint32_t n = 0; n < all.GetN(); ++n)
    {
        Ptr<Ipv4ListRouting> list =
            DynamicCast<Ipv4ListRouting>(all.Get(n)->GetObject<Ipv4>()->GetRoutingProtocol());
        NS_ABORT_MSG_UNLESS(list, "stock routing: expected Ipv4ListRouting");
        for (uint32_t r = 0; r < list->GetNRoutingProtocols(); ++r)
        {
            int16_t prio;
            Ptr<Ipv4GlobalRouting> global =
                DynamicCast<Ipv4GlobalRouting>(list->GetRoutingProtocol(r, prio));
            if (global)
            {
                global->SetAttribute("RandomEcmpRouting", BooleanValue(true));
            }
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
}

void
TalbLeafSpineHelper::InstallTalbSwitches()
{
    std::vector<uint32_t> hostLeaf(m_hosts.GetN());
    for (uint32_t i = 0; i < hostLeaf.size(); ++i)
    {
        hostLeaf[i] = m_layout.GetLeaf(i);
    }
    // Ports stamp telemetry only for a rate control that reads it: the tag lookup per packet
    // costs a DCQCN run about 10 % of its CPU time.
    BooleanValue telemetry(IsRdma() && m_rdma->UsesTelemetry());
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        Ptr<TalbSwitch> sw = CreateObject<TalbSwitch>();
        sw->SetAttribute("InBandTelemetry", telemetry);
        TalbSwitchInfo info;
        info.isLeaf = true;
        info.index = l;
        info.nLeaves = m_nLeaves;
        info.nSpines = m_nSpines;
        sw->Install(m_leaves.Get(l), info);
        m_leaves.Get(l)->AggregateObject(sw);
        sw->SetHostPlan(m_firstHost, hostLeaf);
        for (uint32_t h = 0; h < m_hostsPerLeaf; ++h)
        {
            sw->SetPeer(h, m_layout.GetHostAt(l, h));
        }
        for (uint32_t s = 0; s < m_nSpines; ++s)
        {
            sw->SetUplink(m_hostsPerLeaf + s, s);
        }
        sw->SetLoadBalancer(m_lbFactory.Create<TalbLoadBalancer>());
        InstallSwitchPfc(sw);
        InstallSwitchBuffer(sw);
        m_leafSwitches.push_back(sw);
    }
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        Ptr<TalbSwitch> sw = CreateObject<TalbSwitch>();
        sw->SetAttribute("InBandTelemetry", telemetry);
        TalbSwitchInfo info;
        info.isLeaf = false;
        info.index = s;
        info.nLeaves = m_nLeaves;
        info.nSpines = m_nSpines;
        sw->Install(m_spines.Get(s), info);
        m_spines.Get(s)->AggregateObject(sw);
        sw->SetHostPlan(m_firstHost, hostLeaf);
        for (uint32_t l = 0; l < m_nLeaves; ++l)
        {
            sw->SetPeer(l, l);
        }
        sw->SetLoadBalancer(m_lbFactory.Create<TalbLoadBalancer>());
        InstallSwitchPfc(sw);
        InstallSwitchBuffer(sw);
        m_spineSwitches.push_back(sw);
    }
    ComputeRoutes();
}

void
TalbLeafSpineHelper::InstallSwitchPfc(Ptr<TalbSwitch> sw)
{
    if (!IsRdma())
    {
        return;
    }
    Ptr<TalbPfc> pfc = m_rdma->CreatePfc();
    if (!pfc)
    {
        return;
    }
    sw->SetPfc(pfc);
    uint64_t bound = LosslessBound(sw, pfc);
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        Ptr<Queue<Packet>> q = sw->GetPort(port).queue;
        QueueSize size = q->GetMaxSize();
        if (size.GetUnit() == QueueSizeUnit::PACKETS || size.GetValue() < bound)
        {
            q->SetMaxSize(PortBytes(bound));
        }
    }
}

void
TalbLeafSpineHelper::InstallSwitchBuffer(Ptr<TalbSwitch> sw)
{
    if (m_sharedBuffer.GetValue() == 0)
    {
        return;
    }
    NS_ABORT_MSG_UNLESS(m_sharedBuffer.GetUnit() == QueueSizeUnit::BYTES,
                        "TalbLeafSpineHelper: SharedBuffer must be in bytes, not "
                            << m_sharedBuffer);
    Ptr<TalbSharedBuffer> buffer = CreateObject<TalbSharedBuffer>();
    buffer->SetAttribute("Size", QueueSizeValue(m_sharedBuffer));
    // The pool, not the port, limits lossy packets; a lossless packet must never be refused at
    // an egress, so a port holds at least what PFC may admit to it (with the dynamic XOFF at
    // its largest, PfcAlpha x the empty pool).
    uint64_t portMax = m_sharedBuffer.GetValue();
    uint8_t lossless = 0;
    if (Ptr<TalbPfc> pfc = sw->GetPfc())
    {
        pfc->SetSharedBuffer(buffer);
        lossless = LosslessBands(pfc);
        portMax = std::max(portMax, LosslessBound(sw, pfc));
    }
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        Ptr<TalbPriorityQueue> q = DynamicCast<TalbPriorityQueue>(sw->GetPort(port).queue);
        q->SetMaxSize(PortBytes(portMax));
        q->SetSharedBuffer(buffer, lossless);
    }
}

void
TalbLeafSpineHelper::ComputeRoutes()
{
    uint32_t nHosts = m_hosts.GetN();
    std::vector<uint32_t> ports;
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            uint32_t dstLeaf = m_layout.GetLeaf(h);
            ports.clear();
            if (dstLeaf == l)
            {
                ports.push_back(m_layout.GetLeafPort(h));
            }
            else
            {
                for (uint32_t s = 0; s < m_nSpines; ++s)
                {
                    if (IsLinkUp(l, s) && IsLinkUp(dstLeaf, s))
                    {
                        ports.push_back(m_hostsPerLeaf + s);
                    }
                }
            }
            m_leafSwitches[l]->SetRoute(h, ports);
        }
        for (uint32_t s = 0; s < m_nSpines; ++s)
        {
            for (uint32_t d = 0; d < m_nLeaves; ++d)
            {
                DataRate path = std::min(GetLinkRate(l, s), GetLinkRate(d, s));
                m_leafSwitches[l]->SetPathRate(m_hostsPerLeaf + s, d, path);
            }
        }
    }
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        for (uint32_t h = 0; h < nHosts; ++h)
        {
            uint32_t dstLeaf = m_layout.GetLeaf(h);
            ports.clear();
            if (IsLinkUp(dstLeaf, s))
            {
                ports.push_back(dstLeaf);
            }
            m_spineSwitches[s]->SetRoute(h, ports);
        }
    }
}

} // namespace ns3
