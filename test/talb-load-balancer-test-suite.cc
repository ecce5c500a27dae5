// Path selectors: each policy's defining behaviour, driven through SelectPath() on synthetic
// port states (fast, exact), plus small-fabric simulations through TalbLeafSpineHelper.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <set>

using namespace ns3;

namespace
{

/// A switch's port table without a switch: queues whose occupancy tests set directly.
struct FakeSwitch
{
    std::vector<TalbPortState> ports;
    std::vector<uint32_t> uplinks;

    FakeSwitch(uint32_t nUplinks)
    {
        // Port 0 leads to a host; ports 1..n are uplinks to spines 0..n-1.
        ports.resize(1 + nUplinks);
        for (uint32_t p = 0; p < ports.size(); ++p)
        {
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(QueueSize("100000p"));
            ports[p].queue = q;
            ports[p].rate = DataRate("10Gbps");
            if (p > 0)
            {
                ports[p].uplink = true;
                ports[p].peer = p - 1;
                uplinks.push_back(p);
            }
        }
    }

    void Fill(uint32_t port, uint32_t bytes)
    {
        ports[port].queue->Enqueue(Create<Packet>(bytes));
    }

    TalbCandidates Candidates() const
    {
        return TalbCandidates{uplinks.data(), static_cast<uint32_t>(uplinks.size())};
    }

    Ptr<TalbLoadBalancer> Make(const std::string& name, uint32_t leaf = 0)
    {
        ObjectFactory f;
        f.SetTypeId(TalbLoadBalancer::GetRegistry().Get(name));
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

TalbPacketContext
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

TalbPacketContext
TensorCtx(uint32_t flowHash, Time now, uint32_t tensor, uint8_t prio, uint8_t flags)
{
    TalbPacketContext c = Ctx(flowHash, now);
    c.hasLabel = true;
    c.label = talb_label{tensor, prio, flags};
    return c;
}

} // namespace

/// Short names map to the policies; unknown names are rejected (checked via the lookup).
class TalbEcmpFlowStickyTestCase : public TestCase
{
  public:
    TalbEcmpFlowStickyTestCase()
        : TestCase("TalbEcmpFlowSticky: a flow keeps its port, 400 flows spread over 4")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> lb = sw.Make("ecmp");
        uint64_t traced = 0;
        lb->TraceConnectWithoutContext("PathSelected",
                                       MakeBoundCallback(
                                           +[](uint64_t* n, uint32_t, uint32_t, uint32_t) { ++*n; },
                                           &traced));
        std::map<uint32_t, uint32_t> perPort;
        for (uint32_t flow = 0; flow < 400; ++flow)
        {
            TalbPacketContext c = Ctx(TalbMix32(flow), Seconds(0));
            uint32_t first = lb->SelectPath(c, sw.Candidates());
            for (int k = 0; k < 20; ++k)
            {
                sw.Fill(1 + k % 4, 1500); // load must not move an ECMP flow
                NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), first, "flow moved");
            }
            ++perPort[first];
        }
        NS_TEST_ASSERT_MSG_EQ(perPort.size(), 4, "not every port used");
        for (const auto& [port, n] : perPort)
        {
            NS_TEST_EXPECT_MSG_GT(n, 60u, "port " << port << " got too few flows");
        }
        NS_TEST_ASSERT_MSG_EQ(traced, lb->GetStats().nSelections, "trace vs stats");
        NS_TEST_ASSERT_MSG_EQ(lb->GetStats().nUntaggedSelections, 400u * 21, "selections");
        NS_TEST_ASSERT_MSG_EQ(lb->GetStats().nReroutes, 0, "ECMP never reroutes");
    }
};

/// RPS: one flow's packets go to every port.
class TalbRpsSpraysTestCase : public TestCase
{
  public:
    TalbRpsSpraysTestCase()
        : TestCase("TalbRpsSprays: one flow's 2000 packets use all 4 ports evenly")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> lb = sw.Make("rps");
        std::map<uint32_t, uint32_t> perPort;
        TalbPacketContext c = Ctx(42, Seconds(0));
        for (int k = 0; k < 2000; ++k)
        {
            ++perPort[lb->SelectPath(c, sw.Candidates())];
        }
        NS_TEST_ASSERT_MSG_EQ(perPort.size(), 4, "not every port used");
        for (const auto& [port, n] : perPort)
        {
            NS_TEST_EXPECT_MSG_GT(n, 400u, "port " << port << " got too few packets");
        }
    }
};

/// LetFlow: the port changes only after a gap longer than FlowletTimeout.
class TalbLetFlowGapTestCase : public TestCase
{
  public:
    TalbLetFlowGapTestCase()
        : TestCase("TalbLetFlowGap: path changes only after a gap > FlowletTimeout (50us)")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> lb = sw.Make("letflow");
        lb->SetAttribute("FlowletTimeout", TimeValue(MicroSeconds(50)));
        Time now = Seconds(1);
        TalbPacketContext c = Ctx(99, now);
        uint32_t port = lb->SelectPath(c, sw.Candidates());
        uint32_t changesAtGap = 0;
        for (int burst = 0; burst < 100; ++burst)
        {
            for (int k = 0; k < 20; ++k)
            {
                c.now += MicroSeconds(49); // within the timeout: must stay
                NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), port, "moved in flowlet");
            }
            c.now += MicroSeconds(51);
            uint32_t next = lb->SelectPath(c, sw.Candidates());
            changesAtGap += next != port;
            port = next;
        }
        NS_TEST_ASSERT_MSG_GT(changesAtGap, 50u, "new flowlets should often change port");
        NS_TEST_ASSERT_MSG_EQ(lb->GetStats().nReroutes, changesAtGap, "reroutes = changes");
    }
};

/// DRILL: packets avoid a port with a standing queue.
class TalbDrillAvoidsLoadTestCase : public TestCase
{
  public:
    TalbDrillAvoidsLoadTestCase()
        : TestCase("TalbDrillAvoidsLoad: d=2, m=1 never picks the loaded port after warm-up")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        sw.Fill(1, 60000);
        Ptr<TalbLoadBalancer> lb = sw.Make("drill");
        TalbPacketContext c = Ctx(5, Seconds(0));
        uint32_t onLoaded = 0;
        for (int k = 0; k < 1000; ++k)
        {
            c.flowHash = k;
            onLoaded += lb->SelectPath(c, sw.Candidates()) == 1;
        }
        // Only the very first packet can miss the idle port (both samples on port 1).
        NS_TEST_ASSERT_MSG_LT_OR_EQ(onLoaded, 1u, "DRILL used the loaded port");
    }
};

/// CONGA: remote congestion fed back by the destination leaf steers new flowlets away.
class TalbCongaFeedbackTestCase : public TestCase
{
  public:
    TalbCongaFeedbackTestCase()
        : TestCase("TalbCongaFeedback: feedback that spine 1 is congested moves flowlets to 0")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbCongaLb> lb = DynamicCast<TalbCongaLb>(sw.Make("conga"));
        lb->SetAttribute("FlowletTimeout", TimeValue(MicroSeconds(10)));
        // A packet from leaf 1 arrives at this (destination) leaf 0 carrying feedback: the
        // path via spine 1 towards leaf 1 is congested (metric 7 of 7).
        Ptr<Packet> p = Create<Packet>(100);
        TalbCongaTag tag;
        tag.SetPath(0);
        tag.SetCe(0);
        tag.SetFeedback(1, 7);
        p->AddPacketTag(tag);
        TalbPacketContext in = Ctx(1, MicroSeconds(1), PeekPointer(p));
        in.srcLeaf = 1;
        in.dstLeaf = 0;
        lb->PacketIn(in);
        NS_TEST_ASSERT_MSG_EQ(p->PeekPacketTag(tag), false, "destination leaf removes the tag");
        NS_TEST_ASSERT_MSG_EQ(+lb->GetCongestionToLeaf(1, 1, MicroSeconds(1)), 7, "feedback");
        for (uint32_t flow = 0; flow < 200; ++flow)
        {
            TalbPacketContext c = Ctx(flow, MicroSeconds(2));
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), 1u, "flowlet on spine 1");
        }
        // The forward tag records path and local CE; the feedback slot carries what this leaf
        // measured from leaf 1 (path 0, CE 0).
        Ptr<Packet> q = Create<Packet>(100);
        TalbPacketContext out = Ctx(3, MicroSeconds(3), PeekPointer(q));
        lb->PacketOut(out, 2);
        NS_TEST_ASSERT_MSG_EQ(q->PeekPacketTag(tag), true, "source leaf adds a tag");
        NS_TEST_ASSERT_MSG_EQ(+tag.GetPath(), 1, "path = spine of port 2");
        NS_TEST_ASSERT_MSG_EQ(tag.HasFeedback(), true, "feedback piggybacked");
        NS_TEST_ASSERT_MSG_EQ(+tag.GetFeedbackPath(), 0, "feedback path");
    }
};

/// TaLB on synthetic ports: integrity, high-priority moves, LAST frees, fallback, eviction.
class TalbTensorAwareUnitTestCase : public TestCase
{
  public:
    TalbTensorAwareUnitTestCase()
        : TestCase("TalbTensorAwareUnit: low keeps its port, high moves, LAST frees, evicts")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = DynamicCast<TalbTensorAwareLb>(sw.Make("talb"));
        uint64_t reroutes = 0;
        lb->TraceConnectWithoutContext(
            "Reroute",
            MakeBoundCallback(
                +[](uint64_t* n, uint32_t, uint32_t, uint32_t, uint32_t) { ++*n; },
                &reroutes));
        Time now = MicroSeconds(1);
        // Low priority (7): first packet placed, then its port congests: it must stay.
        TalbPacketContext lo = TensorCtx(10, now, 100, 7, TALB_FLAG_FIRST);
        uint32_t loPort = lb->SelectPath(lo, sw.Candidates());
        sw.Fill(loPort, 100000);
        lo.label.flags = 0;
        for (int k = 0; k < 50; ++k)
        {
            lo.now += MicroSeconds(1);
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(lo, sw.Candidates()), loPort, "low moved");
        }
        // High priority (0) starting now avoids the congested port...
        TalbPacketContext hi = TensorCtx(20, lo.now, 200, 0, TALB_FLAG_FIRST);
        uint32_t hiPort = lb->SelectPath(hi, sw.Candidates());
        NS_TEST_ASSERT_MSG_NE(hiPort, loPort, "high placed on the congested port");
        // ...and moves mid-tensor once its port is congested by more than MoveMargin.
        hi.label.flags = 0;
        sw.Fill(hiPort, 200000);
        uint32_t moved = lb->SelectPath(hi, sw.Candidates());
        NS_TEST_ASSERT_MSG_EQ(moved, loPort, "high-priority tensor did not move");
        NS_TEST_ASSERT_MSG_EQ(lb->GetTableStats().nMidTensorMoves, 1, "one move");
        NS_TEST_ASSERT_MSG_EQ(reroutes, lb->GetStats().nReroutes, "trace vs stats");
        NS_TEST_ASSERT_MSG_EQ(lb->GetLiveEntries(hi.now), 2, "two tensors held");
        // LAST frees both entries.
        lo.label.flags = TALB_FLAG_LAST;
        hi.label.flags = TALB_FLAG_LAST;
        lb->SelectPath(lo, sw.Candidates());
        lb->SelectPath(hi, sw.Candidates());
        NS_TEST_ASSERT_MSG_EQ(lb->GetLiveEntries(hi.now), 0, "LAST did not free");
        NS_TEST_ASSERT_MSG_EQ(lb->GetTableStats().nFreedOnLast, 2, "freed on LAST");
        // Untagged goes to the fallback.
        TalbPacketContext untagged = Ctx(30, hi.now);
        lb->SelectPath(untagged, sw.Candidates());
        NS_TEST_ASSERT_MSG_EQ(lb->GetTableStats().nFallback, 1, "fallback used");
        // Idle aging: an entry older than IdleTimeout is not live.
        TalbPacketContext idle = TensorCtx(40, hi.now, 300, 5, TALB_FLAG_FIRST);
        lb->SelectPath(idle, sw.Candidates());
        NS_TEST_ASSERT_MSG_EQ(lb->GetLiveEntries(hi.now), 1, "entry inserted");
        NS_TEST_ASSERT_MSG_EQ(lb->GetLiveEntries(hi.now + MilliSeconds(20)), 0, "entry aged");
    }
};

/// TaLB evicts the least recently used live entry when a probe window is full.
class TalbTensorAwareEvictTestCase : public TestCase
{
  public:
    TalbTensorAwareEvictTestCase()
        : TestCase("TalbTensorAwareEvict: TableSize 4, ProbeLimit 4: the 5th tensor evicts")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TalbTensorAwareLb::TableSize", UintegerValue(4));
        Config::SetDefault("ns3::TalbTensorAwareLb::ProbeLimit", UintegerValue(4));
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = DynamicCast<TalbTensorAwareLb>(sw.Make("talb"));
        Config::Reset();
        uint64_t evicted = 0;
        lb->TraceConnectWithoutContext("TableEvict",
                                       MakeBoundCallback(
                                           +[](uint64_t* n, uint32_t, uint32_t) { ++*n; },
                                           &evicted));
        for (uint32_t t = 0; t < 5; ++t)
        {
            TalbPacketContext c = TensorCtx(1, MicroSeconds(1 + t), t, 6, TALB_FLAG_FIRST);
            lb->SelectPath(c, sw.Candidates());
        }
        NS_TEST_ASSERT_MSG_EQ(evicted, 1, "one eviction traced");
        NS_TEST_ASSERT_MSG_EQ(lb->GetTableStats().nEvicted, 1, "one eviction counted");
        NS_TEST_ASSERT_MSG_EQ(lb->GetLiveEntries(MicroSeconds(6)), 4, "table full");
    }
};

// ---- small-fabric simulations ------------------------------------------------------------------

namespace
{

/// A 2-leaf fabric with hosts 0..n-1 under leaf 0 and n..2n-1 under leaf 1.
Ptr<TalbLeafSpineHelper>
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

void
AddBulk(Ptr<TalbLeafSpineHelper> f, uint32_t src, uint32_t dst, uint16_t port, uint64_t bytes)
{
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    sink.Install(f->GetHost(dst));
    BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(f->GetHostAddress(dst), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
    bulk.Install(f->GetHost(src)).Start(MicroSeconds(10));
}

/// Packets per uplink of leaf 0 (MacTx of its uplink devices).
std::vector<uint64_t>
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
    return *counts;
}

} // namespace

/// Fabric: ECMP keeps one flow on one uplink; RPS spreads it.
class TalbFabricSingleFlowTestCase : public TestCase
{
  public:
    TalbFabricSingleFlowTestCase(std::string lb, bool spread)
        : TestCase("TalbFabricSingleFlow: " + lb + (spread ? " spreads" : " pins") +
                   " one flow over 2 spines"),
          m_lb(lb),
          m_spread(spread)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(m_lb, 2, 1);
        f->Install();
        f->AssignStreams(3);
        AddBulk(f, 0, 1, 5000, 300000);
        std::vector<uint64_t> up;
        CountUplinks(f, 2, &up);
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        uint64_t total = up[0] + up[1];
        NS_TEST_ASSERT_MSG_GT(total, 200u, "flow did not run");
        uint64_t minor = std::min(up[0], up[1]);
        if (m_spread)
        {
            NS_TEST_EXPECT_MSG_GT(minor, total / 4, "one flow not sprayed");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(minor, 0, "one flow split over two uplinks");
        }
        Simulator::Destroy();
    }

    std::string m_lb;
    bool m_spread;
};

/// Fabric LetFlow: one TCP connection sends 30 bursts 400 us apart; at leaf 0 its packets
/// change uplink only after a gap longer than FlowletTimeout (100 us), and do change.
class TalbFabricLetFlowTestCase : public TestCase
{
  public:
    TalbFabricLetFlowTestCase()
        : TestCase("TalbFabricLetFlow: one flow's bursts change uplink only across gaps > 100us")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TalbLetFlowLb::FlowletTimeout", TimeValue(MicroSeconds(100)));
        Ptr<TalbLeafSpineHelper> f = MakeFabric("letflow", 4, 1);
        f->Install();
        Config::Reset();
        f->AssignStreams(9);
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), 5100));
        sink.Install(f->GetHost(1));
        Ptr<TalbTensorSource> src = CreateObject<TalbTensorSource>();
        src->SetAttribute("Remote", AddressValue(InetSocketAddress(f->GetHostAddress(1), 5100)));
        for (uint32_t b = 0; b < 30; ++b)
        {
            src->AddTensor(b, 3, 8000, MicroSeconds(200 + 400 * b));
        }
        f->GetHost(0)->AddApplication(src);
        src->SetStartTime(MicroSeconds(10));

        struct Arrival
        {
            Time t;
            uint32_t port;
        };

        std::vector<Arrival> seen;
        f->GetLeafSwitch(0)->TraceConnectWithoutContext(
            "Forward",
            MakeBoundCallback(
                +[](std::vector<Arrival>* v, Ptr<const Packet> p, uint32_t, uint32_t out) {
                    if (out >= 1 && p->GetSize() > 500)
                    {
                        v->push_back({Simulator::Now(), out});
                    }
                },
                &seen));
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(seen.size(), 150u, "too few data packets");
        uint32_t changes = 0;
        for (size_t k = 1; k < seen.size(); ++k)
        {
            if (seen[k].port != seen[k - 1].port)
            {
                ++changes;
                NS_TEST_EXPECT_MSG_GT(seen[k].t - seen[k - 1].t,
                                      MicroSeconds(100),
                                      "path changed within a flowlet at " << seen[k].t);
            }
        }
        NS_TEST_ASSERT_MSG_GT(changes, 5u, "new flowlets never changed path");
        Simulator::Destroy();
    }
};

/// Fabric: a slow uplink (1 Gbps of 10) keeps a queue; DRILL, CONGA (local DRE) and TaLB send
/// most packets on the fast one. ECMP-style hashing would not.
class TalbFabricAvoidSlowTestCase : public TestCase
{
  public:
    TalbFabricAvoidSlowTestCase(std::string lb, bool remote)
        : TestCase("TalbFabricAvoidSlow: " + lb + " avoids a slow " +
                   (remote ? "remote (spine 1 -> leaf 1)" : "local (leaf 0 -> spine 1)") + " link"),
          m_lb(lb),
          m_remote(remote)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(m_lb, 2, 4);
        f->SetLinkRate(m_remote ? 1 : 0, 1, DataRate("1Gbps"));
        Config::SetDefault("ns3::TalbCongaLb::FlowletTimeout", TimeValue(MicroSeconds(50)));
        Config::SetDefault("ns3::TalbLetFlowLb::FlowletTimeout", TimeValue(MicroSeconds(50)));
        f->Install();
        Config::Reset();
        f->AssignStreams(3);
        for (uint32_t h = 0; h < 4; ++h)
        {
            AddBulk(f, h, 4 + h, 5000 + h, 2000000);
        }
        std::vector<uint64_t> up;
        CountUplinks(f, 2, &up);
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        uint64_t total = up[0] + up[1];
        NS_TEST_ASSERT_MSG_GT(total, 1000u, "flows did not run");
        NS_TEST_EXPECT_MSG_GT(up[0],
                              total * 7 / 10,
                              m_lb << ": fast uplink got " << up[0] << " of " << total);
        Simulator::Destroy();
    }

    std::string m_lb;
    bool m_remote;
};

/// Fabric TaLB: every low-priority tensor stays on one uplink; high-priority tensors placed on
/// a slow uplink move off it mid-tensor; every entry is freed by LAST.
class TalbFabricTensorAwareTestCase : public TestCase
{
  public:
    TalbFabricTensorAwareTestCase()
        : TestCase("TalbFabricTensorAware: low tensors keep one path, high tensors leave a "
                   "congested one, LAST frees entries")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("talb", 2, 4);
        f->SetLinkRate(0, 1, DataRate("1Gbps"));
        f->Install();
        f->AssignStreams(5);
        Ptr<TalbTensorAwareLb> lb =
            DynamicCast<TalbTensorAwareLb>(f->GetLeafSwitch(0)->GetLoadBalancer());

        // First transmission of each tensor at leaf 0: tensor id -> uplinks its packets took
        // until its LAST packet. (A retransmission after LAST finds no entry and is placed anew,
        // like a first packet.)
        struct Seen
        {
            std::map<uint32_t, std::set<uint32_t>> ports;
            std::set<uint32_t> done;
        } seen;

        f->GetLeafSwitch(0)->TraceConnectWithoutContext(
            "Forward",
            MakeBoundCallback(
                +[](Seen* s, Ptr<const Packet> p, uint32_t, uint32_t out) {
                    TalbTag tag;
                    if (out >= 4 && p->PeekPacketTag(tag) && !s->done.count(tag.GetTensorId()))
                    {
                        s->ports[tag.GetTensorId()].insert(out);
                        if (tag.IsLast())
                        {
                            s->done.insert(tag.GetTensorId());
                        }
                    }
                },
                &seen));
        std::vector<std::pair<uint32_t, uint32_t>> moves; // (tensor, old port)
        lb->TraceConnectWithoutContext("Reroute",
                                       MakeBoundCallback(
                                           +[](std::vector<std::pair<uint32_t, uint32_t>>* v,
                                               uint32_t,
                                               uint32_t t,
                                               uint32_t oldPort,
                                               uint32_t) {
                                               v->push_back({t, oldPort});
                                           },
                                           &moves));
        // Hosts 0-3 each send 6 tensors to hosts 4-7: even ids high (prio 1), odd low (prio 6).
        uint32_t nTensors = 0;
        for (uint32_t h = 0; h < 4; ++h)
        {
            uint16_t port = 6000 + h;
            PacketSinkHelper sink("ns3::TcpSocketFactory",
                                  InetSocketAddress(Ipv4Address::GetAny(), port));
            sink.Install(f->GetHost(4 + h));
            Ptr<TalbTensorSource> src = CreateObject<TalbTensorSource>();
            src->SetAttribute("Remote",
                              AddressValue(InetSocketAddress(f->GetHostAddress(4 + h), port)));
            for (uint32_t t = 0; t < 6; ++t)
            {
                uint32_t id = h * 100 + t;
                src->AddTensor(id, (id % 2) ? 6 : 1, 200000, MicroSeconds(10));
                ++nTensors;
            }
            f->GetHost(h)->AddApplication(src);
            src->SetStartTime(MicroSeconds(10 + h));
        }
        Simulator::Stop(MilliSeconds(40));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(seen.ports.size(), nTensors, "not every tensor crossed leaf 0");
        NS_TEST_ASSERT_MSG_EQ(seen.done.size(), nTensors, "not every tensor finished");
        for (const auto& [id, set] : seen.ports)
        {
            if (id % 2)
            {
                NS_TEST_EXPECT_MSG_EQ(set.size(), 1, "low-priority tensor " << id << " split");
            }
        }
        NS_TEST_ASSERT_MSG_GT(moves.size(), 0u, "no high-priority tensor moved");
        for (const auto& [id, oldPort] : moves)
        {
            NS_TEST_EXPECT_MSG_EQ(id % 2, 0, "low-priority tensor " << id << " was moved");
        }
        const auto& st = lb->GetTableStats();
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(Simulator::Now()), 0, "entries left");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(st.nFreedOnLast, nTensors, "LAST frees each tensor's entry");
        NS_TEST_EXPECT_MSG_EQ(st.nInserted,
                              st.nFreedOnLast + st.nAgedOut + st.nEvicted,
                              "table identity");
        Simulator::Destroy();
    }
};

/// The talb-load-balancer suite.
class TalbLoadBalancerTestSuite : public TestSuite
{
  public:
    TalbLoadBalancerTestSuite()
        : TestSuite("talb-load-balancer", UNIT)
    {
        AddTestCase(new TalbEcmpFlowStickyTestCase, TestCase::QUICK);
        AddTestCase(new TalbRpsSpraysTestCase, TestCase::QUICK);
        AddTestCase(new TalbLetFlowGapTestCase, TestCase::QUICK);
        AddTestCase(new TalbDrillAvoidsLoadTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaFeedbackTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareUnitTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareEvictTestCase, TestCase::QUICK);
        AddTestCase(new TalbFabricSingleFlowTestCase("ecmp", false), TestCase::QUICK);
        AddTestCase(new TalbFabricSingleFlowTestCase("rps", true), TestCase::QUICK);
        AddTestCase(new TalbFabricLetFlowTestCase, TestCase::QUICK);
        AddTestCase(new TalbFabricAvoidSlowTestCase("drill", false), TestCase::QUICK);
        AddTestCase(new TalbFabricAvoidSlowTestCase("conga", true), TestCase::QUICK);
        AddTestCase(new TalbFabricTensorAwareTestCase, TestCase::QUICK);
    }
};

static TalbLoadBalancerTestSuite g_talbLoadBalancerTestSuite;
