// Shared by the load-balancer test suites (not part of the module): a switch's port table
// without a switch, packet contexts, and a two-leaf fabric with bulk flows.
#ifndef TALB_LB_TEST_UTIL_H
#define TALB_LB_TEST_UTIL_H

#include "talb-test-fabric.h"
#include "talb-test-ports.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"

#include <string>
#include <vector>

namespace ns3
{
namespace talbtest
{

/// A switch's port table without a switch (TestPorts), and balancers attached to it.
struct FakeSwitch : public TestPorts
{
    explicit FakeSwitch(uint32_t nUplinks)
        : TestPorts(nUplinks)
    {
    }

    TalbCandidates Candidates() const
    {
        return All();
    }

    /// A balancer of policy \p name, through the registry like the helpers, attached to leaf
    /// \p leaf of a two-leaf fabric, streams fixed.
    Ptr<TalbLoadBalancer> Make(const std::string& name, uint32_t leaf = 0)
    {
        return Make(name, {}, leaf);
    }

    /// The same with attributes \p attributes (name, value as text) set before attaching.
    Ptr<TalbLoadBalancer> Make(const std::string& name,
                               const std::vector<std::pair<std::string, std::string>>& attributes,
                               uint32_t leaf = 0)
    {
        ObjectFactory f;
        f.SetTypeId(TalbLoadBalancer::GetRegistry().Get(name));
        for (const auto& [attribute, value] : attributes)
        {
            f.Set(attribute, StringValue(value));
        }
        Ptr<TalbLoadBalancer> lb = f.Create<TalbLoadBalancer>();
        TalbSwitchInfo info;
        info.switchId = 7;
        info.isLeaf = true;
        info.index = leaf;
        info.nLeaves = 2;
        info.nSpines = uplinks.size();
        lb->Attach(info, &ports);
        lb->AssignStreams(11);
        return lb;
    }
};

/// An untagged packet of flow \p flowHash from leaf 0 to leaf 1.
inline TalbPacketContext
Ctx(uint32_t flowHash, Time now, Packet* p = nullptr)
{
    TalbPacketContext c;
    c.flowHash = flowHash;
    c.size = 1500;
    c.srcLeaf = 0;
    c.dstLeaf = 1;
    c.now = now;
    c.packet = p;
    return c;
}

/// A tagged packet of \p tensor with priority \p prio and TALB_FLAG_* \p flags.
inline TalbPacketContext
TensorCtx(uint32_t flowHash, Time now, uint32_t tensor, uint8_t prio, uint8_t flags)
{
    TalbPacketContext c = Ctx(flowHash, now);
    c.hasLabel = true;
    c.label = talb_label{tensor, prio, flags};
    return c;
}

/// A 2-leaf fabric with hosts 0..n-1 under leaf 0 and n..2n-1 under leaf 1, not installed.
inline Ptr<TalbLeafSpineHelper>
MakeFabric(const std::string& lb, uint32_t spines, uint32_t hostsPerLeaf)
{
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Leaves", UintegerValue(2));
    f->SetAttribute("Spines", UintegerValue(spines));
    f->SetAttribute("HostsPerLeaf", UintegerValue(hostsPerLeaf));
    f->SetAttribute("HostRate", DataRateValue(DataRate("10Gbps")));
    f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
    f->SetLoadBalancer(lb);
    return f;
}

/// A TCP bulk transfer of \p bytes from host \p src to host \p dst.
inline void
AddBulk(Ptr<TalbLeafSpineHelper> f, uint32_t src, uint32_t dst, uint16_t port, uint64_t bytes)
{
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(f->GetHost(dst));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(f->GetHostAddress(dst), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.Install(f->GetHost(src)).Start(MicroSeconds(10));
}

/// Count the packets leaf 0 sends on each uplink into \p counts (MacTx of its uplinks).
inline void
CountUplinks(Ptr<TalbLeafSpineHelper> f, uint32_t spines, std::vector<uint64_t>* counts)
{
    counts->assign(spines, 0);
    for (uint32_t s = 0; s < spines; ++s)
    {
        f->GetUplinkDevice(0, s)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(
                +[](uint64_t* n, Ptr<const Packet>) { ++*n; },
                &(*counts)[s]));
    }
}

/**
 * Leaf 0 sends \p flows bulk flows to leaf 1 over 2 spines, one link slowed to 1 Gbps (leaf 0
 * to spine 1, or spine 1 to leaf 1 when \p remote); \p up receives the packets per uplink.
 */
inline void
RunAroundSlowLink(const std::string& lb, bool remote, std::vector<uint64_t>* up)
{
    Ptr<TalbLeafSpineHelper> f = MakeFabric(lb, 2, 4);
    f->SetLinkRate(remote ? 1 : 0, 1, DataRate("1Gbps"));
    Config::SetDefault("ns3::TalbCongaLb::FlowletTimeout", TimeValue(MicroSeconds(50)));
    Config::SetDefault("ns3::TalbLetFlowLb::FlowletTimeout", TimeValue(MicroSeconds(50)));
    f->Install();
    Config::Reset();
    f->AssignStreams(3);
    for (uint32_t h = 0; h < 4; ++h)
    {
        AddBulk(f, h, 4 + h, 5000 + h, 2000000);
    }
    CountUplinks(f, 2, up);
    Simulator::Stop(MilliSeconds(10));
    Simulator::Run();
}

/// One bulk flow over 2 spines; \p up receives the packets per uplink.
inline void
RunSingleFlow(const std::string& lb, std::vector<uint64_t>* up)
{
    Ptr<TalbLeafSpineHelper> f = MakeFabric(lb, 2, 1);
    f->Install();
    f->AssignStreams(3);
    AddBulk(f, 0, 1, 5000, 300000);
    CountUplinks(f, 2, up);
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
}

} // namespace talbtest
} // namespace ns3

#endif /* TALB_LB_TEST_UTIL_H */
