// GPU servers and rails: TalbServerLayout (one leaf per server, rails, the sizes it refuses),
// the leaf-spine helper wiring NIC i of each server to rail leaf i (and routing between rails),
// and the NVLink channel of TalbNvlinkTransport: latency + bytes / rate, per-GPU egress
// serialization, delivery in order, no packet on the fabric, other pairs on the inner transport.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// A message of one part of \p bytes payload bytes, labelled \p opId.
TalbMessage
OnePartMessage(uint32_t opId, uint64_t bytes)
{
    TalbMessage m;
    m.opId = opId;
    TalbMessage::Part p;
    p.tensorId = opId;
    p.priority = 3;
    p.bytes = bytes;
    p.first = true;
    p.last = true;
    m.parts.push_back(p);
    return m;
}

/// What a channel delivered: opIds, times and flow records, in delivery order.
struct Deliveries
{
    std::vector<uint32_t> opIds;
    std::vector<Time> times;
    std::vector<TalbFlowRecord> records;

    void Add(Ptr<TalbMessageChannel>, const TalbMessage& m, const TalbFlowRecord& r)
    {
        opIds.push_back(m.opId);
        times.push_back(Simulator::Now());
        records.push_back(r);
    }

    TalbMessageChannel::DeliveredCallback Callback()
    {
        return MakeCallback(&Deliveries::Add, this);
    }
};

void
CountPacket(uint64_t* n, Ptr<const Packet>)
{
    ++*n;
}

/// A TCP fabric of servers of \p gpus GPUs (installed), with the other sizes given.
Ptr<TalbLeafSpineHelper>
MakeServerFabric(uint32_t leaves, uint32_t hostsPerLeaf, uint32_t gpus, bool rails)
{
    talbtest::ConfigureTcp(1500);
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Leaves", UintegerValue(leaves));
    f->SetAttribute("Spines", UintegerValue(2));
    f->SetAttribute("HostsPerLeaf", UintegerValue(hostsPerLeaf));
    f->SetAttribute("GpusPerServer", UintegerValue(gpus));
    f->SetAttribute("RailOptimized", BooleanValue(rails));
    f->SetAttribute("HostRate", StringValue("100Gbps"));
    f->SetAttribute("FabricRate", StringValue("100Gbps"));
    f->SetAttribute("NvlinkRate", StringValue("800Gbps"));
    f->SetAttribute("NvlinkLatency", StringValue("2us"));
    f->Install();
    return f;
}

} // namespace

/// One leaf per server: host h under leaf h / hostsPerLeaf, servers of consecutive hosts.
class TalbServerLayoutOneLeaf : public TestCase
{
  public:
    TalbServerLayoutOneLeaf()
        : TestCase("TalbServerLayout: without rails a server's GPUs sit under one leaf, in order")
    {
    }

  private:
    void DoRun() override
    {
        TalbServerLayout l(2, 8, 4, false);
        NS_TEST_ASSERT_MSG_EQ(l.GetNHosts(), 16, "hosts");
        NS_TEST_ASSERT_MSG_EQ(l.GetNServers(), 4, "servers");
        for (uint32_t h = 0; h < l.GetNHosts(); ++h)
        {
            NS_TEST_EXPECT_MSG_EQ(l.GetServer(h), h / 4, "server of host " << h);
            NS_TEST_EXPECT_MSG_EQ(l.GetGpu(h), h % 4, "GPU of host " << h);
            NS_TEST_EXPECT_MSG_EQ(l.GetLeaf(h), h / 8, "leaf of host " << h);
            NS_TEST_EXPECT_MSG_EQ(l.GetLeafPort(h), h % 8, "port of host " << h);
            NS_TEST_EXPECT_MSG_EQ(l.GetHostAt(l.GetLeaf(h), l.GetLeafPort(h)), h, "inverse");
            NS_TEST_EXPECT_MSG_EQ(l.GetHost(l.GetServer(h), l.GetGpu(h)), h, "GetHost");
        }
        std::vector<uint32_t> server2{8, 9, 10, 11};
        NS_TEST_EXPECT_MSG_EQ((l.GetHostsOfServer(2) == server2), true, "hosts of server 2");
        NS_TEST_EXPECT_MSG_EQ(l.IsSameServer(4, 7), true, "4 and 7");
        NS_TEST_EXPECT_MSG_EQ(l.IsSameServer(3, 4), false, "3 and 4");
        // Every server's GPUs share its leaf.
        for (uint32_t s = 0; s < l.GetNServers(); ++s)
        {
            for (uint32_t h : l.GetHostsOfServer(s))
            {
                NS_TEST_EXPECT_MSG_EQ(l.GetLeaf(h), l.GetLeaf(l.GetHost(s, 0)), "server " << s);
            }
        }
        // One GPU per server is the fabric without servers.
        TalbServerLayout flat(3, 5, 1, false);
        for (uint32_t h = 0; h < flat.GetNHosts(); ++h)
        {
            NS_TEST_EXPECT_MSG_EQ(flat.GetLeaf(h), h / 5, "flat leaf of host " << h);
            NS_TEST_EXPECT_MSG_EQ(flat.GetServer(h), h, "flat server of host " << h);
        }
    }
};

/// Rails: NIC i of every server of a group of G leaves on leaf i of the group.
class TalbServerLayoutRails : public TestCase
{
  public:
    TalbServerLayoutRails()
        : TestCase("TalbServerLayout: rail-optimized, GPU i of each server on leaf i of its group")
    {
    }

  private:
    void DoRun() override
    {
        // 8 leaves in 2 rail groups of 4; 2 servers per group (hostsPerLeaf 2): 4 servers.
        TalbServerLayout l(8, 2, 4, true);
        NS_TEST_ASSERT_MSG_EQ(l.GetNServers(), 4, "servers");
        for (uint32_t s = 0; s < l.GetNServers(); ++s)
        {
            for (uint32_t gpu = 0; gpu < 4; ++gpu)
            {
                uint32_t h = l.GetHost(s, gpu);
                NS_TEST_EXPECT_MSG_EQ(l.GetLeaf(h), (s / 2) * 4 + gpu, "server " << s);
                NS_TEST_EXPECT_MSG_EQ(l.GetLeaf(h) % 4, gpu, "rail of GPU " << gpu);
                NS_TEST_EXPECT_MSG_EQ(l.GetLeafPort(h), s % 2, "port, server " << s);
                NS_TEST_EXPECT_MSG_EQ(l.GetHostAt(l.GetLeaf(h), l.GetLeafPort(h)), h, "inverse");
            }
        }
        // Every leaf port holds exactly one host.
        std::vector<uint32_t> seen(l.GetNHosts(), 0);
        for (uint32_t leaf = 0; leaf < 8; ++leaf)
        {
            for (uint32_t port = 0; port < 2; ++port)
            {
                ++seen[l.GetHostAt(leaf, port)];
            }
        }
        for (uint32_t h = 0; h < l.GetNHosts(); ++h)
        {
            NS_TEST_EXPECT_MSG_EQ(seen[h], 1, "host " << h << " on one port");
        }
    }
};

/// The sizes a layout refuses, each with a message naming the parameter.
class TalbServerLayoutRefusals : public TestCase
{
  public:
    TalbServerLayoutRefusals()
        : TestCase("TalbServerLayout: leaves not a multiple of gpusPerServer (rails), or "
                   "gpusPerServer not dividing hostsPerLeaf (one leaf), are refused by name")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(TalbServerLayout::Check(4, 16, 8, false), "", "8 | 16");
        NS_TEST_EXPECT_MSG_EQ(TalbServerLayout::Check(8, 3, 8, true), "", "8 | 8 leaves");
        std::string rails = TalbServerLayout::Check(6, 4, 4, true);
        NS_TEST_EXPECT_MSG_NE(rails.find("railOptimized"), std::string::npos, rails);
        NS_TEST_EXPECT_MSG_NE(rails.find("leaves (6)"), std::string::npos, rails);
        std::string oneLeaf = TalbServerLayout::Check(4, 6, 4, false);
        NS_TEST_EXPECT_MSG_NE(oneLeaf.find("hostsPerLeaf (6)"), std::string::npos, oneLeaf);
        NS_TEST_EXPECT_MSG_NE(TalbServerLayout::Check(4, 4, 0, false), "", "zero GPUs");
    }
};

/// The helper wires each host's NIC to the leaf port its layout names, and routes between
/// rails (through a spine) and within a rail (through the leaf).
class TalbLeafSpineRailWiring : public talbtest::SimulationTestCase
{
  public:
    TalbLeafSpineRailWiring()
        : SimulationTestCase("TalbLeafSpineHelper: RailOptimized puts NIC i of each server on "
                             "rail leaf i; TCP messages cross rails and stay in a rail")
    {
    }

  private:
    void DoRun() override
    {
        // 4 leaves = one rail group of 4; 2 servers of 4 GPUs.
        Ptr<TalbLeafSpineHelper> f = MakeServerFabric(4, 2, 4, true);
        const TalbServerLayout& layout = f->GetServerLayout();
        NS_TEST_ASSERT_MSG_EQ(layout.GetNServers(), 2, "servers");
        for (uint32_t h = 0; h < f->GetNHosts(); ++h)
        {
            uint32_t leaf = layout.GetLeaf(h);
            NS_TEST_EXPECT_MSG_EQ(leaf, h % 4, "host " << h << " is on rail " << h % 4);
            NS_TEST_EXPECT_MSG_EQ(f->GetLeafOfHost(h), leaf, "GetLeafOfHost");
            Ptr<NetDevice> port = f->GetLeafNode(leaf)->GetDevice(layout.GetLeafPort(h));
            Ptr<Channel> ch = port->GetChannel();
            Ptr<NetDevice> other = ch->GetDevice(0) == port ? ch->GetDevice(1) : ch->GetDevice(0);
            NS_TEST_EXPECT_MSG_EQ(other, f->GetHostDevice(h), "leaf port leads to host " << h);
            Ptr<TalbNvlinkPort> nv = f->GetHost(h)->GetObject<TalbNvlinkPort>();
            NS_TEST_ASSERT_MSG_NE(nv, nullptr, "host " << h << " has an NVLink port");
            NS_TEST_EXPECT_MSG_EQ(nv->GetServer(), h / 4, "NVLink port's server");
            NS_TEST_EXPECT_MSG_EQ(nv->GetGpu(), h % 4, "NVLink port's GPU");
        }
        Ptr<TalbTransport> tcp = CreateObject<TalbTcpTransport>();
        tcp->Setup(5000);
        // GPU 0 of server 0 to GPU 0 of server 1 (one rail leaf), and to GPU 1 (via a spine).
        Deliveries sameRail;
        Deliveries crossRail;
        Ptr<TalbMessageChannel> a =
            tcp->Connect(f->GetHost(0), 0, f->GetHost(4), 4, sameRail.Callback());
        Ptr<TalbMessageChannel> b =
            tcp->Connect(f->GetHost(0), 0, f->GetHost(5), 5, crossRail.Callback());
        a->Send(OnePartMessage(1, 100000));
        b->Send(OnePartMessage(2, 100000));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(sameRail.opIds.size(), 1, "same rail delivered");
        NS_TEST_EXPECT_MSG_EQ(crossRail.opIds.size(), 1, "cross rail delivered");
        tcp->Dispose();
    }
};

/// NVLink: latency + bytes / rate, per-GPU serialization, order, no packets, inner elsewhere.
class TalbNvlinkChannelTiming : public talbtest::SimulationTestCase
{
  public:
    TalbNvlinkChannelTiming()
        : SimulationTestCase("TalbNvlinkTransport: GPUs of one server get latency + bytes over "
                             "rate in order, one egress per GPU, no packet on the fabric; "
                             "other pairs use the inner transport")
    {
    }

  private:
    void DoRun() override
    {
        // 2 leaves x 8 hosts, servers of 8 under one leaf each.
        Ptr<TalbLeafSpineHelper> f = MakeServerFabric(2, 8, 8, false);
        uint64_t packets = 0;
        for (uint32_t h = 0; h < f->GetNHosts(); ++h)
        {
            f->GetHostDevice(h)->TraceConnectWithoutContext(
                "MacTx",
                MakeBoundCallback(&CountPacket, &packets));
        }
        Ptr<TalbTransport> inner = CreateObject<TalbTcpTransport>();
        Ptr<TalbTransport> t = TalbNvlinkTransport::Wrap(inner, f->GetHosts());
        NS_TEST_ASSERT_MSG_NE(DynamicCast<TalbNvlinkTransport>(t), nullptr, "wrapped");
        t->Setup(5000);
        Deliveries toOne;
        Deliveries toTwo;
        Ptr<TalbMessageChannel> c01 =
            t->Connect(f->GetHost(0), 0, f->GetHost(1), 1, toOne.Callback());
        Ptr<TalbMessageChannel> c02 =
            t->Connect(f->GetHost(0), 0, f->GetHost(2), 2, toTwo.Callback());
        NS_TEST_EXPECT_MSG_NE(DynamicCast<TalbNvlinkMessageChannel>(c01), nullptr, "NVLink");
        const DataRate rate("800Gbps");
        const Time latency = MicroSeconds(2);
        const std::vector<uint64_t> sizes{1000000, 10, 400000};
        // At 1 ms: three messages to GPU 1, then one to GPU 2, all from GPU 0.
        Simulator::Schedule(MilliSeconds(1), [&]() {
            for (uint32_t k = 0; k < sizes.size(); ++k)
            {
                c01->Send(OnePartMessage(k, sizes[k]));
            }
            c02->Send(OnePartMessage(9, 500000));
        });
        Simulator::Stop(MilliSeconds(5));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(toOne.opIds.size(), sizes.size(), "every message delivered");
        Time sent = MilliSeconds(1);
        for (uint32_t k = 0; k < sizes.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(toOne.opIds[k], k, "delivered in order");
            uint64_t bytes = sizes[k] + TALB_FRAME_LEN;
            sent += rate.CalculateBytesTxTime(bytes);
            NS_TEST_EXPECT_MSG_EQ(toOne.times[k], sent + latency, "message " << k);
            const TalbFlowRecord& r = toOne.records[k];
            NS_TEST_EXPECT_MSG_EQ(r.nvlink, true, "kind nvlink");
            NS_TEST_EXPECT_MSG_EQ(r.sizeBytes, bytes, "size, header included");
            NS_TEST_EXPECT_MSG_EQ(r.start, MilliSeconds(1), "start");
            NS_TEST_EXPECT_MSG_EQ(r.src, f->GetHostAddress(0), "src");
            NS_TEST_EXPECT_MSG_EQ(r.dst, f->GetHostAddress(1), "dst");
        }
        // GPU 0's egress is one port: the message to GPU 2 waits for the three before it.
        NS_TEST_ASSERT_MSG_EQ(toTwo.times.size(), 1, "message to GPU 2");
        NS_TEST_EXPECT_MSG_EQ(toTwo.times[0],
                              sent + rate.CalculateBytesTxTime(500000 + TALB_FRAME_LEN) + latency,
                              "serialized behind the first three");
        NS_TEST_EXPECT_MSG_EQ(packets, 0, "no packet left a host");
        NS_TEST_EXPECT_MSG_EQ(c01->GetPending(), 0, "nothing pending");

        // Another server: the inner transport's channel, through the fabric.
        Deliveries remote;
        Ptr<TalbMessageChannel> c08 =
            t->Connect(f->GetHost(0), 0, f->GetHost(8), 8, remote.Callback());
        NS_TEST_EXPECT_MSG_NE(DynamicCast<TalbTcpMessageChannel>(c08), nullptr, "TCP");
        c08->Send(OnePartMessage(7, 100000));
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(remote.opIds.size(), 1, "delivered across servers");
        NS_TEST_EXPECT_MSG_EQ(remote.records.at(0).nvlink, false, "a fabric flow");
        NS_TEST_EXPECT_MSG_GT(packets, 0, "across servers the fabric carries it");
        NS_TEST_EXPECT_MSG_EQ(t->GetNChannels(), 3, "the decorator owns every channel");
        t->Dispose();
    }
};

/// Without servers nothing is wrapped: one GPU per server is today's fabric.
class TalbNvlinkWrapNeedsServers : public talbtest::SimulationTestCase
{
  public:
    TalbNvlinkWrapNeedsServers()
        : SimulationTestCase("TalbNvlinkTransport::Wrap: hosts without NVLink ports keep the "
                             "transport as it is")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeServerFabric(2, 2, 1, false);
        NS_TEST_EXPECT_MSG_EQ(f->GetHost(0)->GetObject<TalbNvlinkPort>(), nullptr, "no port");
        Ptr<TalbTransport> inner = CreateObject<TalbTcpTransport>();
        NS_TEST_EXPECT_MSG_EQ(TalbNvlinkTransport::Wrap(inner, f->GetHosts()), inner, "as is");
    }
};

class TalbGpuServerTestSuite : public TestSuite
{
  public:
    TalbGpuServerTestSuite()
        : TestSuite("talb-gpu-server", UNIT)
    {
        AddTestCase(new TalbServerLayoutOneLeaf, TestCase::QUICK);
        AddTestCase(new TalbServerLayoutRails, TestCase::QUICK);
        AddTestCase(new TalbServerLayoutRefusals, TestCase::QUICK);
        AddTestCase(new TalbLeafSpineRailWiring, TestCase::QUICK);
        AddTestCase(new TalbNvlinkChannelTiming, TestCase::QUICK);
        AddTestCase(new TalbNvlinkWrapNeedsServers, TestCase::QUICK);
    }
};

static TalbGpuServerTestSuite g_talbGpuServerTestSuite;
