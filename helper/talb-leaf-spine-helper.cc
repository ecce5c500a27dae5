// TalbLeafSpineHelper: attributes, Install() and the accessors. Its links (parsing the link
// options, devices and channels, failures and flaps) are in talb-leaf-spine-links.cc, its
// hosts' stacks, switches and routes in talb-leaf-spine-nodes.cc.
#include "talb-leaf-spine-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-nvlink-port.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/tcp-congestion-ops.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLeafSpineHelper");

NS_OBJECT_ENSURE_REGISTERED(TalbLeafSpineHelper);

// One AddAttribute per fabric attribute: long, but read as a table.
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
            .AddAttribute("FailureDetection",
                          "Time from a leaf-spine link failing (SetLinkFailure, SetLinkFlap) to "
                          "the switches taking it out of their routes: a control plane's "
                          "detection and convergence. In between, packets routed to the link "
                          "are lost (a blackhole) and a load balancer sees the port as up. 0: "
                          "at once",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TalbLeafSpineHelper::m_failureDetection),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("QueueSize",
                          "Buffer of each switch port (TalbPriorityQueue MaxSize)",
                          QueueSizeValue(QueueSize("600000B")),
                          MakeQueueSizeAccessor(&TalbLeafSpineHelper::m_queueSize),
                          MakeQueueSizeChecker())
            .AddAttribute("SharedBuffer",
                          "Bytes of one shared buffer per switch (TalbSharedBuffer Size: its "
                          "egress queues share it under dynamic thresholds, PFC's XOFF becomes "
                          "dynamic on it); 0: per-port buffers of QueueSize only",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&TalbLeafSpineHelper::m_sharedBuffer),
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
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("GpusPerServer",
                          "GPUs per server, one host (NIC) each: a server is this many "
                          "consecutive hosts, joined by NVLink (TalbNvlinkPort). 1: no servers",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TalbLeafSpineHelper::m_gpusPerServer),
                          MakeUintegerChecker<uint32_t>(1, 1024))
            .AddAttribute("RailOptimized",
                          "Wire servers in rails: NIC i of every server of a group of "
                          "GpusPerServer leaves on leaf i of the group (false: all NICs of a "
                          "server under one leaf); see TalbServerLayout",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbLeafSpineHelper::m_railOptimized),
                          MakeBooleanChecker())
            .AddAttribute("NvlinkRate",
                          "Each GPU's egress rate on its server's NVLink (TalbNvlinkPort "
                          "DataRate; GpusPerServer > 1)",
                          DataRateValue(DataRate(TalbNvlinkPort::DEFAULT_RATE)),
                          MakeDataRateAccessor(&TalbLeafSpineHelper::m_nvlinkRate),
                          MakeDataRateChecker())
            .AddAttribute("NvlinkLatency",
                          "Latency of a message between two GPUs of one server (TalbNvlinkPort "
                          "Latency; GpusPerServer > 1)",
                          TimeValue(Time(TalbNvlinkPort::DEFAULT_LATENCY)),
                          MakeTimeAccessor(&TalbLeafSpineHelper::m_nvlinkLatency),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("LinkDrop",
                            "A leaf-spine link lost a packet: sent onto it while it was down "
                            "(SetLinkFailure, SetLinkFlap; with FailureDetection, the "
                            "blackhole's) or lost at random (SetLinkLoss)",
                            MakeTraceSourceAccessor(&TalbLeafSpineHelper::m_linkDropTrace),
                            "ns3::TalbLeafSpineHelper::LinkDropTracedCallback");
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
      m_gpusPerServer(1),
      m_railOptimized(false),
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
TalbLeafSpineHelper::SetLinkLoss(uint32_t leaf, uint32_t spine, double probability)
{
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::SetLinkLoss after Install");
    NS_ABORT_MSG_UNLESS(probability >= 0 && probability < 1,
                        "TalbLeafSpineHelper::SetLinkLoss: probability " << probability
                                                                         << " is not in [0, 1)");
    m_losses[{leaf, spine}] = probability;
}

uint64_t
TalbLeafSpineHelper::GetLinkLossDrops() const
{
    return m_lossDrops;
}

uint64_t
TalbLeafSpineHelper::GetFailedLinkDrops() const
{
    return m_failedDrops;
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

void
TalbLeafSpineHelper::Install()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_installed, "TalbLeafSpineHelper::Install called twice");
    CheckConfig();
    m_installed = true;
    CreateNodes();
    ConnectLinks();
    if (IsRdma())
    {
        InstallRdmaHosts();
    }
    else
    {
        InstallHostStacks();
    }
    InstallNvlinkPorts();
    if (m_stockRouting)
    {
        InstallStockSwitches();
    }
    else
    {
        InstallTalbSwitches();
    }
    ScheduleLinkEvents();
}

void
TalbLeafSpineHelper::CheckConfig()
{
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
    for (const auto& [key, p] : m_losses)
    {
        NS_ABORT_MSG_UNLESS(key.first < m_nLeaves && key.second < m_nSpines,
                            "SetLinkLoss: no link leaf " << key.first << " - spine " << key.second);
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
    std::string layout =
        TalbServerLayout::Check(m_nLeaves, m_hostsPerLeaf, m_gpusPerServer, m_railOptimized);
    NS_ABORT_MSG_UNLESS(layout.empty(), "TalbLeafSpineHelper: " << layout);
    // A rail group's leaves may lie on several ranks, and a server's GPUs with them.
    NS_ABORT_MSG_IF(m_ranks > 1 && m_railOptimized && m_gpusPerServer > 1,
                    "TalbLeafSpineHelper: RailOptimized servers cannot be partitioned over "
                    "ranks (a server's NVLink would cross ranks)");
    m_layout = TalbServerLayout(m_nLeaves, m_hostsPerLeaf, m_gpusPerServer, m_railOptimized);
}

void
TalbLeafSpineHelper::CreateNodes()
{
    // Node ids do not depend on the partition: hosts in host order (without rails, leaf by
    // leaf), then leaves, then spines.
    for (uint32_t i = 0; i < m_layout.GetNHosts(); ++i)
    {
        m_hosts.Create(1, GetLeafRank(m_layout.GetLeaf(i)));
    }
    for (uint32_t l = 0; l < m_nLeaves; ++l)
    {
        m_leaves.Create(1, GetLeafRank(l));
    }
    for (uint32_t s = 0; s < m_nSpines; ++s)
    {
        m_spines.Create(1, s % m_ranks);
    }
}

void
TalbLeafSpineHelper::ConnectLinks()
{
    // In host order, each leaf's ports come in port order (TalbServerLayout::GetLeafPort).
    uint32_t nHosts = m_nLeaves * m_hostsPerLeaf;
    for (uint32_t i = 0; i < nHosts; ++i)
    {
        auto devs = Connect(m_hosts.Get(i),
                            m_leaves.Get(m_layout.GetLeaf(i)),
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
    m_linkEpoch.assign(m_links.size(), 0);
}

void
TalbLeafSpineHelper::InstallNvlinkPorts()
{
    if (m_gpusPerServer == 1)
    {
        return;
    }
    for (uint32_t i = 0; i < m_hosts.GetN(); ++i)
    {
        Ptr<TalbNvlinkPort> port = CreateObject<TalbNvlinkPort>();
        port->SetAttribute("DataRate", DataRateValue(m_nvlinkRate));
        port->SetAttribute("Latency", TimeValue(m_nvlinkLatency));
        port->SetGpu(m_layout.GetServer(i), m_layout.GetGpu(i), m_hostAddresses[i]);
        m_hosts.Get(i)->AggregateObject(port);
    }
}

void
TalbLeafSpineHelper::ScheduleLinkEvents()
{
    for (uint32_t k = 0; k < m_links.size(); ++k)
    {
        // The leaf's device receives what the spine sent, and the other way round.
        m_links[k].first->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeBoundCallback(&TalbLeafSpineHelper::CountLinkDrop, this, k, false));
        m_links[k].second->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeBoundCallback(&TalbLeafSpineHelper::CountLinkDrop, this, k, true));
    }
    for (const auto& [key, p] : m_losses)
    {
        if (p == 0)
        {
            continue;
        }
        uint32_t k = key.first * m_nSpines + key.second;
        auto make = [p]() {
            Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
            em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            em->SetRate(p);
            return em;
        };
        m_lossModels[k] = {make(), make()};
        SetLinkErrorModels(k, m_lossModels[k].first, m_lossModels[k].second);
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
    // The lossy links' draws last (none without SetLinkLoss: the other streams stay put).
    for (auto& [k, models] : m_lossModels)
    {
        used += models.first->AssignStreams(stream + used);
        used += models.second->AssignStreams(stream + used);
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
    return m_layout.GetLeaf(CheckHost(i, "GetLeafOfHost"));
}

const TalbServerLayout&
TalbLeafSpineHelper::GetServerLayout() const
{
    CheckInstalled("GetServerLayout");
    return m_layout;
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

std::vector<Ptr<TalbSwitch>>
TalbLeafSpineHelper::GetSwitches() const
{
    CheckInstalled("GetSwitches");
    std::vector<Ptr<TalbSwitch>> all;
    if (!m_stockRouting)
    {
        all = m_leafSwitches;
        all.insert(all.end(), m_spineSwitches.begin(), m_spineSwitches.end());
    }
    return all;
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

Ptr<TalbPriorityQueue>
TalbLeafSpineHelper::GetPortQueue(Ptr<NetDevice> dev)
{
    if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
    {
        return pfc->GetQueue();
    }
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    return p2p ? DynamicCast<TalbPriorityQueue>(p2p->GetQueue()) : nullptr;
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
