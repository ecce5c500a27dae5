#include "talb-leaf-spine-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4-global-routing.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-host-egress-hook.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-pfc-channel.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/uinteger.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/point-to-point-remote-channel.h"
#endif

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLeafSpineHelper");

NS_OBJECT_ENSURE_REGISTERED(TalbLeafSpineHelper);

TypeId
TalbLeafSpineHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbLeafSpineHelper")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbLeafSpineHelper>()
            .AddAttribute("Leaves",
                          "Number of leaf switches",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_nLeaves),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("Spines",
                          "Number of spine switches",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_nSpines),
                          MakeUintegerChecker<uint32_t>(1, 256))
            .AddAttribute("HostsPerLeaf",
                          "Hosts below each leaf",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_hostsPerLeaf),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("HostRate",
                          "Rate of host-leaf links",
                          DataRateValue(DataRate("10Gbps")),
                          MakeDataRateAccessor(&TalbLeafSpineHelper::m_hostRate),
                          MakeDataRateChecker())
            .AddAttribute("FabricRate",
                          "Rate of leaf-spine links (see SetOversubscription, SetLinkRate)",
                          DataRateValue(DataRate("40Gbps")),
                          MakeDataRateAccessor(&TalbLeafSpineHelper::m_fabricRate),
                          MakeDataRateChecker())
            .AddAttribute("LinkDelay",
                          "Propagation delay of every link",
                          TimeValue(MicroSeconds(1)),
                          MakeTimeAccessor(&TalbLeafSpineHelper::m_linkDelay),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("QueueSize",
                          "Buffer of each switch port (TalbPriorityQueue MaxSize)",
                          QueueSizeValue(QueueSize("600000B")),
                          MakeQueueSizeAccessor(&TalbLeafSpineHelper::m_queueSize),
                          MakeQueueSizeChecker())
            .AddAttribute("HostQueueSize",
                          "Buffer of each host NIC (TalbPriorityQueue MaxSize)",
                          QueueSizeValue(QueueSize("1000p")),
                          MakeQueueSizeAccessor(&TalbLeafSpineHelper::m_hostQueueSize),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnThreshold",
                          "ECN marking threshold of every queue (TalbPriorityQueue "
                          "MarkThreshold; DCTCP's K)",
                          QueueSizeValue(QueueSize("97500B")),
                          MakeQueueSizeAccessor(&TalbLeafSpineHelper::m_ecnThreshold),
                          MakeQueueSizeChecker())
            .AddAttribute("TcpVariant",
                          "TCP congestion control of the hosts (TypeId name, e.g. "
                          "ns3::TcpNewReno, ns3::TcpDctcp)",
                          StringValue("ns3::TcpNewReno"),
                          MakeStringAccessor(&TalbLeafSpineHelper::m_tcpVariant),
                          MakeStringChecker())
            .AddAttribute("FirstHostAddress",
                          "Address of host 0; host i gets this + i (TaLB switches only)",
                          Ipv4AddressValue(Ipv4Address("10.0.0.1")),
                          MakeIpv4AddressAccessor(&TalbLeafSpineHelper::m_firstHost),
                          MakeIpv4AddressChecker())
            .AddAttribute("StockRouting",
                          "Build switches with ns-3's IPv4 stack and Ipv4GlobalRouting "
                          "(RandomEcmpRouting) instead of TalbSwitch",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbLeafSpineHelper::m_stockRouting),
                          MakeBooleanChecker())
            .AddAttribute("Mtu",
                          "MTU of every device in bytes (IP packet size). Set "
                          "ns3::TcpSocket::SegmentSize to Mtu - 52 (IP, TCP and timestamp "
                          "headers) to fill it",
                          UintegerValue(1500),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_mtu),
                          MakeUintegerChecker<uint16_t>(576, 9216))
            .AddAttribute("Transport",
                          "Hosts' transport: tcp (ns-3 TCP over point-to-point links) or rdma "
                          "(RoCEv2 NICs, PFC and DCQCN over TalbPfcNetDevice links; see "
                          "GetRdmaHelper)",
                          EnumValue(TRANSPORT_TCP),
                          MakeEnumAccessor(&TalbLeafSpineHelper::m_transport),
                          MakeEnumChecker(TRANSPORT_TCP, "tcp", TRANSPORT_RDMA, "rdma"))
            .AddAttribute("Ranks",
                          "Processes the fabric is partitioned over (ns-3's MPI simulator): "
                          "leaf l and its hosts on rank GetLeafRank(l), spine s on rank s mod "
                          "Ranks; in an MPI build, links between ranks are remote channels",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_ranks),
                          MakeUintegerChecker<uint32_t>(1, 4096));
    return tid;
}

TalbLeafSpineHelper::TalbLeafSpineHelper()
    : m_nLeaves(2),
      m_nSpines(2),
      m_hostsPerLeaf(2),
      m_stockRouting(false),
      m_mtu(1500),
      m_transport(TRANSPORT_TCP),
      m_ranks(1),
      m_rdma(CreateObject<TalbRdmaHelper>()),
      m_oversubscription(0),
      m_installed(false)
{
    NS_LOG_FUNCTION(this);
    m_lbFactory.SetTypeId("ns3::TalbEcmpLb");
}

TalbLeafSpineHelper::~TalbLeafSpineHelper()
{
    NS_LOG_FUNCTION(this);
}

void
TalbLeafSpineHelper::DoDispose()
{
    m_hostDevices.clear();
    m_links.clear();
    m_leafSwitches.clear();
    m_spineSwitches.clear();
    m_hosts = NodeContainer();
    m_leaves = NodeContainer();
    m_spines = NodeContainer();
    Object::DoDispose();
}

void
TalbLeafSpineHelper::SetLoadBalancerFactory(const ObjectFactory& factory)
{
    DoSetLoadBalancer(factory);
}

void
TalbLeafSpineHelper::DoSetLoadBalancer(ObjectFactory factory)
{
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::SetLoadBalancer after Install");
    m_lbFactory = factory;
}

namespace
{

/// "leaf:spine" followed by \p sep and the rest, which goes to \p rest.
bool
ParseLinkItem(const std::string& item, char sep, uint32_t* leaf, uint32_t* spine, std::string* rest)
{
    std::string::size_type colon = item.find(':');
    std::string::size_type at = item.find(sep);
    uint64_t l = 0;
    uint64_t s = 0;
    if (colon == std::string::npos || at == std::string::npos || at < colon ||
        !TalbParse::ParseUint(TalbParse::Trim(item.substr(0, colon)), &l, 0, UINT32_MAX) ||
        !TalbParse::ParseUint(TalbParse::Trim(item.substr(colon + 1, at - colon - 1)),
                              &s,
                              0,
                              UINT32_MAX))
    {
        return false;
    }
    *leaf = static_cast<uint32_t>(l);
    *spine = static_cast<uint32_t>(s);
    *rest = TalbParse::Trim(item.substr(at + 1));
    return true;
}

} // namespace

std::string
TalbLeafSpineHelper::ParseLinkRates(const std::string& text, std::vector<LinkRate>* out)
{
    out->clear();
    for (const auto& item : TalbParse::Split(text, ';'))
    {
        LinkRate r;
        std::string rate;
        if (!ParseLinkItem(item, '=', &r.leaf, &r.spine, &rate) ||
            !TalbParse::ParseDataRate(rate, &r.rate))
        {
            return "'" + item + "' is not leaf:spine=rate (a positive rate)";
        }
        out->push_back(r);
    }
    return "";
}

std::string
TalbLeafSpineHelper::ParseLinkFailures(const std::string& text, std::vector<LinkFailure>* out)
{
    out->clear();
    for (const auto& item : TalbParse::Split(text, ';'))
    {
        LinkFailure f;
        std::string at;
        if (!ParseLinkItem(item, '@', &f.leaf, &f.spine, &at) || !TalbParse::ParseTime(at, &f.at))
        {
            return "'" + item + "' is not leaf:spine@time";
        }
        out->push_back(f);
    }
    return "";
}

std::string
TalbLeafSpineHelper::ParseLinkFlaps(const std::string& text, std::vector<LinkFlap>* out)
{
    out->clear();
    for (const auto& item : TalbParse::Split(text, ';'))
    {
        LinkFlap f;
        std::string times;
        std::vector<std::string> parts;
        bool ok = ParseLinkItem(item, '@', &f.leaf, &f.spine, &times);
        if (ok)
        {
            parts = TalbParse::Split(times, '/');
        }
        if (!ok || parts.size() != 3 || !TalbParse::ParseTime(parts[0], &f.start) ||
            !TalbParse::ParseTime(parts[1], &f.down) || !TalbParse::ParseTime(parts[2], &f.up))
        {
            return "'" + item + "' is not leaf:spine@start/down/up";
        }
        if (!f.down.IsStrictlyPositive() || !f.up.IsStrictlyPositive())
        {
            return "'" + item + "': down and up times must be > 0";
        }
        out->push_back(f);
    }
    return "";
}

void
TalbLeafSpineHelper::SetLinkRate(uint32_t leaf, uint32_t spine, DataRate rate)
{
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::SetLinkRate after Install");
    m_rateOverrides[{leaf, spine}] = rate;
}

void
TalbLeafSpineHelper::SetLinkFailure(uint32_t leaf, uint32_t spine, Time at)
{
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::SetLinkFailure after Install");
    m_failures.push_back({{leaf, spine}, at});
}

void
TalbLeafSpineHelper::SetLinkFlap(uint32_t leaf, uint32_t spine, Time start, Time down, Time up)
{
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::SetLinkFlap after Install");
    NS_ABORT_MSG_UNLESS(down.IsStrictlyPositive() && up.IsStrictlyPositive(),
                        "TalbLeafSpineHelper::SetLinkFlap: down and up times must be > 0");
    m_flaps.push_back({leaf, spine, start, down, up});
}

void
TalbLeafSpineHelper::SetOversubscription(double ratio)
{
    NS_ABORT_MSG_UNLESS(ratio > 0, "TalbLeafSpineHelper: oversubscription must be > 0");
    m_oversubscription = ratio;
}

Ptr<TalbRdmaHelper>
TalbLeafSpineHelper::GetRdmaHelper() const
{
    return m_rdma;
}

bool
TalbLeafSpineHelper::IsRdma() const
{
    return m_transport == TRANSPORT_RDMA;
}

std::pair<Ptr<NetDevice>, Ptr<NetDevice>>
TalbLeafSpineHelper::Connect(Ptr<Node> a,
                             Ptr<Node> b,
                             DataRate rate,
                             QueueSize aQueue,
                             QueueSize bQueue)
{
    Ptr<Node> nodes[2] = {a, b};
    QueueSize sizes[2] = {aQueue, bQueue};
    if (IsRdma())
    {
        Ptr<TalbPfcChannel> channel = CreateObject<TalbPfcChannel>();
        channel->SetAttribute("Delay", TimeValue(m_linkDelay));
        uint32_t mtu = m_rdma->GetDeviceMtu();
        Ptr<TalbPfcNetDevice> devs[2];
        for (int k = 0; k < 2; ++k)
        {
            devs[k] = CreateObject<TalbPfcNetDevice>();
            devs[k]->SetAddress(Mac48Address::Allocate());
            devs[k]->SetDataRate(rate);
            devs[k]->SetMtu(static_cast<uint16_t>(mtu));
            Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
            q->SetMaxSize(sizes[k]);
            q->SetAttribute("MarkThreshold", QueueSizeValue(m_ecnThreshold));
            m_rdma->ConfigureQueue(q, rate);
            devs[k]->SetQueue(q);
            nodes[k]->AddDevice(devs[k]);
            devs[k]->Attach(channel);
        }
        return {devs[0], devs[1]};
    }
    Ptr<PointToPointChannel> channel;
#ifdef NS3_MPI
    // As ns-3's PointToPointHelper does: a link that leaves this rank is a remote channel, and
    // its devices take packets from other ranks through an MpiReceiver.
    bool remote = MpiInterface::IsEnabled() && (a->GetSystemId() != MpiInterface::GetSystemId() ||
                                                b->GetSystemId() != MpiInterface::GetSystemId());
    channel = remote ? Ptr<PointToPointChannel>(CreateObject<PointToPointRemoteChannel>())
                     : CreateObject<PointToPointChannel>();
#else
    channel = CreateObject<PointToPointChannel>();
#endif
    channel->SetAttribute("Delay", TimeValue(m_linkDelay));
    Ptr<PointToPointNetDevice> devs[2];
    for (int k = 0; k < 2; ++k)
    {
        devs[k] = CreateObject<PointToPointNetDevice>();
        devs[k]->SetAddress(Mac48Address::Allocate());
        devs[k]->SetDataRate(rate);
        devs[k]->SetMtu(m_mtu);
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(sizes[k]);
        q->SetAttribute("MarkThreshold", QueueSizeValue(m_ecnThreshold));
        devs[k]->SetQueue(q);
        nodes[k]->AddDevice(devs[k]);
        devs[k]->Attach(channel);
#ifdef NS3_MPI
        if (remote)
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&PointToPointNetDevice::Receive, devs[k]));
            devs[k]->AggregateObject(receiver);
        }
#endif
    }
    return {devs[0], devs[1]};
}

uint32_t
TalbLeafSpineHelper::GetLeafRank(uint32_t leaf) const
{
    return static_cast<uint32_t>(uint64_t(leaf) * m_ranks / m_nLeaves);
}

uint32_t
TalbLeafSpineHelper::GetRanks() const
{
    return m_ranks;
}

namespace
{
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

void
TalbLeafSpineHelper::Install()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::Install called twice");
    if (m_oversubscription > 0)
    {
        m_fabricRate = DataRate(
            static_cast<uint64_t>(m_hostRate.GetBitRate() * static_cast<double>(m_hostsPerLeaf) /
                                  (m_nSpines * m_oversubscription)));
    }
    for (const auto& [key, rate] : m_rateOverrides)
    {
        NS_ABORT_MSG_UNLESS(key.first < m_nLeaves && key.second < m_nSpines,
                            "SetLinkRate: no link leaf " << key.first << " - spine " << key.second);
    }
    for (const auto& [key, at] : m_failures)
    {
        NS_ABORT_MSG_UNLESS(key.first < m_nLeaves && key.second < m_nSpines,
                            "SetLinkFailure: no link leaf " << key.first << " - spine "
                                                            << key.second);
    }
    NS_ABORT_MSG_IF(IsRdma() && m_stockRouting,
                    "TalbLeafSpineHelper: StockRouting needs IP on the switches; it works with "
                    "Transport tcp only");
    TypeId tcpTid;
    NS_ABORT_MSG_UNLESS(TypeId::LookupByNameFailSafe(m_tcpVariant, &tcpTid) &&
                            tcpTid.IsChildOf(TcpCongestionOps::GetTypeId()),
                        "TcpVariant '" << m_tcpVariant
                                       << "' is not a TcpCongestionOps TypeId name "
                                          "(e.g. ns3::TcpNewReno, ns3::TcpDctcp)");
    NS_ABORT_MSG_IF(m_ranks > m_nLeaves,
                    "TalbLeafSpineHelper: " << m_ranks << " ranks but " << m_nLeaves
                                            << " leaves; every rank needs a leaf");
    NS_ABORT_MSG_IF(m_ranks > 1 && (IsRdma() || m_stockRouting),
                    "TalbLeafSpineHelper: a fabric over several ranks needs Transport tcp "
                    "and TalbSwitch forwarding (no remote PFC channel, no StockRouting)");
    m_installed = true;

    // Node ids do not depend on the partition: hosts leaf by leaf, then leaves, then spines.
    uint32_t nHosts = m_nLeaves * m_hostsPerLeaf;
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        m_hosts.Create(m_hostsPerLeaf, GetLeafRank(l));
    }
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        m_leaves.Create(1, GetLeafRank(l));
    }
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        m_spines.Create(1, s % m_ranks);
    }

    for (uint32_t i = 0; i < nHosts; ++i)
    {
        auto devs = Connect(m_hosts.Get(i),
                            m_leaves.Get(i / m_hostsPerLeaf),
                            m_hostRate,
                            m_hostQueueSize,
                            m_queueSize);
        m_hostDevices.push_back(devs.first);
    }
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        for (uint32_t s = 0; s < m_nSpines; ++s)
        {
            m_links.push_back(Connect(m_leaves.Get(l),
                                      m_spines.Get(s),
                                      GetLinkRate(l, s),
                                      m_queueSize,
                                      m_queueSize));
        }
    }
    m_linkUp.assign(m_links.size(), true);

    if (IsRdma())
    {
        InstallRdmaHosts();
    }
    else
    {
        InstallHostStacks();
    }
    if (m_stockRouting)
    {
        InstallStockSwitches();
    }
    else
    {
        InstallTalbSwitches();
    }
    for (const auto& [key, at] : m_failures)
    {
        Simulator::Schedule(at,
                            &TalbLeafSpineHelper::FailLink,
                            Ptr<TalbLeafSpineHelper>(this),
                            key.first,
                            key.second);
    }
    for (uint32_t i = 0; i < m_flaps.size(); ++i)
    {
        Simulator::Schedule(m_flaps[i].start,
                            &TalbLeafSpineHelper::FlapCycle,
                            Ptr<TalbLeafSpineHelper>(this),
                            i);
    }
}

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
    Ipv4Mask planMask(prefix == 0 ? 0 : ~((1u << (32 - prefix)) - 1));
    Ipv4Address network = m_firstHost.CombineMask(planMask);
    NS_ABORT_MSG_IF(m_firstHost == network ||
                        Ipv4Address(last) == network.GetSubnetDirectedBroadcast(planMask),
                    "FirstHostAddress " << m_firstHost << " with " << nHosts
                                        << " hosts includes a network or broadcast address");
    return planMask;
}

void
TalbLeafSpineHelper::InstallRdmaHosts()
{
    HostPlanMask(); // checks the address plan
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
        Ptr<Node> leaf = m_leaves.Get(i / m_hostsPerLeaf);
        AddInterface(leaf, leaf->GetDevice(i % m_hostsPerLeaf), StockLinkAddress(i, 2), mask);
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
        hostLeaf[i] = i / m_hostsPerLeaf;
    }
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        Ptr<TalbSwitch> sw = CreateObject<TalbSwitch>();
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
            sw->SetPeer(h, l * m_hostsPerLeaf + h);
        }
        for (uint32_t s = 0; s < m_nSpines; ++s)
        {
            sw->SetUplink(m_hostsPerLeaf + s, s);
        }
        sw->SetLoadBalancer(m_lbFactory.Create<TalbLoadBalancer>());
        InstallSwitchPfc(sw);
        m_leafSwitches.push_back(sw);
    }
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        Ptr<TalbSwitch> sw = CreateObject<TalbSwitch>();
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
    // Every queued lossless byte is charged to an (ingress port, priority) holding at most
    // XOFF + headroom: a queue this large never drops a lossless packet.
    uint64_t bound = 0;
    uint32_t lossless = 0;
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        lossless += pfc->IsLossless(p) ? 1 : 0;
    }
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        bound += uint64_t(lossless) * (pfc->GetXoff() + pfc->GetHeadroom(port));
    }
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        Ptr<Queue<Packet>> q = sw->GetPort(port).queue;
        QueueSize size = q->GetMaxSize();
        if (size.GetUnit() == QueueSizeUnit::PACKETS || size.GetValue() < bound)
        {
            NS_ABORT_MSG_IF(bound > UINT32_MAX, "TalbLeafSpineHelper: PFC buffer bound too large");
            q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, static_cast<uint32_t>(bound)));
        }
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
            uint32_t dstLeaf = h / m_hostsPerLeaf;
            ports.clear();
            if (dstLeaf == l)
            {
                ports.push_back(h % m_hostsPerLeaf);
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
            uint32_t dstLeaf = h / m_hostsPerLeaf;
            ports.clear();
            if (IsLinkUp(dstLeaf, s))
            {
                ports.push_back(dstLeaf);
            }
            m_spineSwitches[s]->SetRoute(h, ports);
        }
    }
}

void
TalbLeafSpineHelper::FailLink(uint32_t leaf, uint32_t spine)
{
    NS_LOG_FUNCTION(this << leaf << spine);
    uint32_t k = leaf * m_nSpines + spine;
    if (!m_linkUp[k])
    {
        return;
    }
    m_linkUp[k] = false;
    m_baseRttMemo.clear();
    m_bottleneckMemo.clear();
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    for (auto& dev : ends)
    {
        // Queued packets are lost with the link; a packet on the wire is lost on arrival.
        Ptr<RateErrorModel> loseAll = CreateObject<RateErrorModel>();
        loseAll->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        loseAll->SetRate(1.0);
        if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev))
        {
            p2p->GetQueue()->Flush();
            p2p->SetReceiveErrorModel(loseAll);
        }
        else if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
        {
            pfc->FlushQueue();
            pfc->SetReceiveErrorModel(loseAll);
        }
    }
    if (m_stockRouting)
    {
        for (auto& dev : ends)
        {
            Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
            ipv4->SetDown(ipv4->GetInterfaceForDevice(dev));
        }
        Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
        return;
    }
    m_leafSwitches[leaf]->SetPortUp(m_hostsPerLeaf + spine, false);
    m_spineSwitches[spine]->SetPortUp(leaf, false);
    ComputeRoutes();
}

void
TalbLeafSpineHelper::RestoreLink(uint32_t leaf, uint32_t spine)
{
    NS_LOG_FUNCTION(this << leaf << spine);
    uint32_t k = leaf * m_nSpines + spine;
    if (m_linkUp[k])
    {
        return;
    }
    m_linkUp[k] = true;
    m_baseRttMemo.clear();
    m_bottleneckMemo.clear();
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    for (auto& dev : ends)
    {
        if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev))
        {
            p2p->SetReceiveErrorModel(nullptr);
        }
        else if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
        {
            pfc->SetReceiveErrorModel(nullptr);
        }
    }
    if (m_stockRouting)
    {
        for (auto& dev : ends)
        {
            Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
            ipv4->SetUp(ipv4->GetInterfaceForDevice(dev));
        }
        Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
        return;
    }
    m_leafSwitches[leaf]->SetPortUp(m_hostsPerLeaf + spine, true);
    m_spineSwitches[spine]->SetPortUp(leaf, true);
    ComputeRoutes();
}

void
TalbLeafSpineHelper::FlapCycle(uint32_t i)
{
    const LinkFlap& f = m_flaps[i];
    FailLink(f.leaf, f.spine);
    Simulator::Schedule(f.down,
                        &TalbLeafSpineHelper::RestoreLink,
                        Ptr<TalbLeafSpineHelper>(this),
                        f.leaf,
                        f.spine);
    Simulator::Schedule(f.down + f.up,
                        &TalbLeafSpineHelper::FlapCycle,
                        Ptr<TalbLeafSpineHelper>(this),
                        i);
}

int64_t
TalbLeafSpineHelper::AssignStreams(int64_t stream)
{
    CheckInstalled("AssignStreams");
    int64_t used = 0;
    for (const auto& sws : {m_leafSwitches, m_spineSwitches})
    {
        for (const auto& sw : sws)
        {
            used += sw->GetLoadBalancer()->AssignStreams(stream + used);
        }
    }
    if (IsRdma())
    {
        // The RED-like ECN profile's draws.
        for (const auto& sws : {m_leafSwitches, m_spineSwitches})
        {
            for (const auto& sw : sws)
            {
                for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
                {
                    used += DynamicCast<TalbPriorityQueue>(sw->GetPort(port).queue)
                                ->AssignStreams(stream + used);
                }
            }
        }
    }
    return used;
}

void
TalbLeafSpineHelper::CheckInstalled(const char* method) const
{
    NS_ABORT_MSG_UNLESS(m_installed, "TalbLeafSpineHelper::" << method << " before Install");
}

uint32_t
TalbLeafSpineHelper::CheckHost(uint32_t i, const char* method) const
{
    CheckInstalled(method);
    NS_ABORT_MSG_UNLESS(i < m_hosts.GetN(),
                        "TalbLeafSpineHelper::" << method << ": no host " << i << " (of "
                                                << m_hosts.GetN() << ")");
    return i;
}

uint32_t
TalbLeafSpineHelper::GetNHosts() const
{
    return m_hosts.GetN();
}

NodeContainer
TalbLeafSpineHelper::GetHosts() const
{
    CheckInstalled("GetHosts");
    return m_hosts;
}

Ptr<Node>
TalbLeafSpineHelper::GetHost(uint32_t i) const
{
    return m_hosts.Get(CheckHost(i, "GetHost"));
}

Ipv4Address
TalbLeafSpineHelper::GetHostAddress(uint32_t i) const
{
    return m_hostAddresses[CheckHost(i, "GetHostAddress")];
}

uint32_t
TalbLeafSpineHelper::GetLeafOfHost(uint32_t i) const
{
    return CheckHost(i, "GetLeafOfHost") / m_hostsPerLeaf;
}

Ptr<NetDevice>
TalbLeafSpineHelper::GetHostDevice(uint32_t i) const
{
    return m_hostDevices[CheckHost(i, "GetHostDevice")];
}

Ptr<TalbRdmaNic>
TalbLeafSpineHelper::GetRdmaNic(uint32_t i) const
{
    return GetHost(i)->GetObject<TalbRdmaNic>();
}

Ptr<Node>
TalbLeafSpineHelper::GetLeafNode(uint32_t leaf) const
{
    CheckInstalled("GetLeafNode");
    NS_ABORT_MSG_UNLESS(leaf < m_nLeaves, "GetLeafNode: no leaf " << leaf);
    return m_leaves.Get(leaf);
}

Ptr<Node>
TalbLeafSpineHelper::GetSpineNode(uint32_t spine) const
{
    CheckInstalled("GetSpineNode");
    NS_ABORT_MSG_UNLESS(spine < m_nSpines, "GetSpineNode: no spine " << spine);
    return m_spines.Get(spine);
}

Ptr<TalbSwitch>
TalbLeafSpineHelper::GetLeafSwitch(uint32_t leaf) const
{
    CheckInstalled("GetLeafSwitch");
    NS_ABORT_MSG_UNLESS(leaf < m_nLeaves, "GetLeafSwitch: no leaf " << leaf);
    return m_stockRouting ? nullptr : m_leafSwitches[leaf];
}

Ptr<TalbSwitch>
TalbLeafSpineHelper::GetSpineSwitch(uint32_t spine) const
{
    CheckInstalled("GetSpineSwitch");
    NS_ABORT_MSG_UNLESS(spine < m_nSpines, "GetSpineSwitch: no spine " << spine);
    return m_stockRouting ? nullptr : m_spineSwitches[spine];
}

Ptr<NetDevice>
TalbLeafSpineHelper::GetLinkDevice(uint32_t leaf, uint32_t spine, bool leafSide) const
{
    CheckInstalled("GetUplinkDevice/GetDownlinkDevice");
    NS_ABORT_MSG_UNLESS(leaf < m_nLeaves && spine < m_nSpines,
                        "no link leaf " << leaf << " - spine " << spine);
    const auto& link = m_links[leaf * m_nSpines + spine];
    return leafSide ? link.first : link.second;
}

Ptr<NetDevice>
TalbLeafSpineHelper::GetUplinkDevice(uint32_t leaf, uint32_t spine) const
{
    return GetLinkDevice(leaf, spine, true);
}

Ptr<NetDevice>
TalbLeafSpineHelper::GetDownlinkDevice(uint32_t spine, uint32_t leaf) const
{
    return GetLinkDevice(leaf, spine, false);
}

DataRate
TalbLeafSpineHelper::GetLinkRate(uint32_t leaf, uint32_t spine) const
{
    auto it = m_rateOverrides.find({leaf, spine});
    return it == m_rateOverrides.end() ? m_fabricRate : it->second;
}

bool
TalbLeafSpineHelper::IsLinkUp(uint32_t leaf, uint32_t spine) const
{
    CheckInstalled("IsLinkUp");
    return m_linkUp[leaf * m_nSpines + spine];
}

uint32_t
TalbLeafSpineHelper::BestSpine(uint32_t srcLeaf, uint32_t dstLeaf) const
{
    uint32_t best = UINT32_MAX;
    uint64_t bestRate = 0;
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        if (!IsLinkUp(srcLeaf, s) || !IsLinkUp(dstLeaf, s))
        {
            continue;
        }
        uint64_t rate =
            std::min(GetLinkRate(srcLeaf, s).GetBitRate(), GetLinkRate(dstLeaf, s).GetBitRate());
        if (rate > bestRate)
        {
            best = s;
            bestRate = rate;
        }
    }
    return best;
}

Time
TalbLeafSpineHelper::GetBaseRtt(uint32_t src,
                                uint32_t dst,
                                uint32_t dataBytes,
                                uint32_t ackBytes) const
{
    CheckHost(src, "GetBaseRtt");
    CheckHost(dst, "GetBaseRtt");
    // The key packs the four arguments in 16 bits each; larger ones are computed each time.
    bool small =
        src < (1u << 16) && dst < (1u << 16) && dataBytes < (1u << 16) && ackBytes < (1u << 16);
    uint64_t key =
        (uint64_t(src) << 48) | (uint64_t(dst) << 32) | (uint64_t(dataBytes) << 16) | ackBytes;
    if (small)
    {
        auto it = m_baseRttMemo.find(key);
        if (it != m_baseRttMemo.end())
        {
            return it->second;
        }
    }
    std::vector<DataRate> rates{m_hostRate};
    uint32_t srcLeaf = GetLeafOfHost(src);
    uint32_t dstLeaf = GetLeafOfHost(dst);
    if (srcLeaf != dstLeaf)
    {
        uint32_t s = BestSpine(srcLeaf, dstLeaf);
        NS_ABORT_MSG_IF(s == UINT32_MAX,
                        "GetBaseRtt: no path from host " << src << " to host " << dst);
        rates.push_back(GetLinkRate(srcLeaf, s));
        rates.push_back(GetLinkRate(dstLeaf, s));
    }
    rates.push_back(m_hostRate);
    Time rtt = 2 * m_linkDelay * static_cast<int64_t>(rates.size());
    for (const DataRate& r : rates)
    {
        rtt += r.CalculateBytesTxTime(dataBytes) + r.CalculateBytesTxTime(ackBytes);
    }
    if (small)
    {
        m_baseRttMemo.emplace(key, rtt);
    }
    return rtt;
}

DataRate
TalbLeafSpineHelper::GetBottleneckRate(uint32_t src, uint32_t dst) const
{
    CheckHost(src, "GetBottleneckRate");
    CheckHost(dst, "GetBottleneckRate");
    uint64_t key = (uint64_t(src) << 32) | dst;
    auto it = m_bottleneckMemo.find(key);
    if (it != m_bottleneckMemo.end())
    {
        return it->second;
    }
    uint64_t rate = m_hostRate.GetBitRate();
    uint32_t srcLeaf = GetLeafOfHost(src);
    uint32_t dstLeaf = GetLeafOfHost(dst);
    if (srcLeaf != dstLeaf)
    {
        uint32_t s = BestSpine(srcLeaf, dstLeaf);
        NS_ABORT_MSG_IF(s == UINT32_MAX,
                        "GetBottleneckRate: no path from host " << src << " to host " << dst);
        rate = std::min(
            {rate, GetLinkRate(srcLeaf, s).GetBitRate(), GetLinkRate(dstLeaf, s).GetBitRate()});
    }
    return m_bottleneckMemo.emplace(key, DataRate(rate)).first->second;
}

} // namespace ns3
