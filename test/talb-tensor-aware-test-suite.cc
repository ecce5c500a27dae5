// TaLB (TalbTensorAwareLb). Version 1: tensor integrity for low-priority tensors, mid-tensor
// moves for high-priority ones, entries freed by LAST or aged out, untagged packets to the
// fallback. Version 2 (the default): placement by the other tensor flows on a port, moves of
// every priority bounded by the reordering they cause (the core's rules: gtest
// TalbLbCoreTensorAwareV2; here through the ns-3 selector, its attributes and on a fabric).
#include "talb-lb-test-util.h"

#include "ns3/test.h"

#include <map>
#include <set>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/// Leaf 1 reports (piggybacked on a packet to leaf 0 at \p at) that the path via \p spine
/// towards it has metric 7 of 7, the top of the default 3 bits.
void
ReportCongested(Ptr<TalbLoadBalancer> lb, uint32_t spine, Time at)
{
    Ptr<Packet> p = Create<Packet>(100);
    TalbCongaTag tag;
    tag.SetPath(0);
    tag.SetFeedback(static_cast<uint8_t>(spine), 7);
    p->AddPacketTag(tag);
    TalbPacketContext in = Ctx(99, at, PeekPointer(p));
    in.srcLeaf = 1;
    in.dstLeaf = 0;
    lb->PacketIn(in);
}

/// TaLB of decision \p version (1: the cases below test v1's rules) with \p attributes.
Ptr<TalbTensorAwareLb>
MakeTalb(FakeSwitch& sw,
         uint32_t version = 1,
         std::vector<std::pair<std::string, std::string>> attributes = {})
{
    attributes.emplace_back("Version", std::to_string(version));
    return DynamicCast<TalbTensorAwareLb>(sw.Make("talb", attributes));
}

} // namespace

/// A low-priority tensor keeps its port however congested that port becomes.
class TalbTensorAwareLowKeepsPortTestCase : public TestCase
{
  public:
    TalbTensorAwareLowKeepsPortTestCase()
        : TestCase("TalbTensorAwareLowKeepsPort: priority 7 stays on its congested port")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
        TalbPacketContext lo = TensorCtx(10, MicroSeconds(1), 100, 7, TALB_FLAG_FIRST);
        uint32_t loPort = lb->SelectPath(lo, sw.Candidates());
        sw.Fill(loPort, 100000);
        lo.label.flags = 0;
        for (int k = 0; k < 50; ++k)
        {
            lo.now += MicroSeconds(1);
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(lo, sw.Candidates()), loPort, "low moved");
        }
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nReroutes, 0, "no reroute");
    }
};

/// A new high-priority tensor avoids a congested port, and moves mid-tensor once its own port
/// is congested by more than MoveMargin.
class TalbTensorAwareHighMovesTestCase : public TestCase
{
  public:
    TalbTensorAwareHighMovesTestCase()
        : TestCase("TalbTensorAwareHighMoves: priority 0 avoids congestion and moves mid-tensor")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
        uint64_t reroutes = 0;
        lb->TraceConnectWithoutContext(
            "Reroute",
            MakeBoundCallback(
                +[](uint64_t* n, uint32_t, uint32_t, uint32_t, uint32_t) { ++*n; },
                &reroutes));
        sw.Fill(1, 100000);
        TalbPacketContext hi = TensorCtx(20, MicroSeconds(1), 200, 0, TALB_FLAG_FIRST);
        uint32_t hiPort = lb->SelectPath(hi, sw.Candidates());
        NS_TEST_EXPECT_MSG_EQ(hiPort, 2u, "high placed on the congested port");
        hi.label.flags = 0;
        sw.Fill(hiPort, 200000);
        hi.now += MicroSeconds(1);
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(hi, sw.Candidates()), 1u, "did not move");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nMidTensorMoves, 1, "one move");
        NS_TEST_EXPECT_MSG_EQ(reroutes, lb->GetStats().nReroutes, "trace vs stats");
        NS_TEST_EXPECT_MSG_EQ(reroutes, 1, "one reroute");
    }
};

/// The LAST packet frees the tensor's entry.
class TalbTensorAwareLastFreesTestCase : public TestCase
{
  public:
    TalbTensorAwareLastFreesTestCase()
        : TestCase("TalbTensorAwareLastFrees: LAST frees the entries of two tensors")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
        TalbPacketContext a = TensorCtx(10, MicroSeconds(1), 100, 7, TALB_FLAG_FIRST);
        TalbPacketContext b = TensorCtx(20, MicroSeconds(1), 200, 0, TALB_FLAG_FIRST);
        lb->SelectPath(a, sw.Candidates());
        lb->SelectPath(b, sw.Candidates());
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(MicroSeconds(1)), 2, "two tensors held");
        a.label.flags = TALB_FLAG_LAST;
        b.label.flags = TALB_FLAG_LAST;
        lb->SelectPath(a, sw.Candidates());
        lb->SelectPath(b, sw.Candidates());
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(MicroSeconds(1)), 0, "LAST did not free");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nFreedOnLast, 2, "freed on LAST");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nInserted, 2, "inserted");
    }
};

/// An entry idle for longer than IdleTimeout is no longer live.
class TalbTensorAwareIdleAgingTestCase : public TestCase
{
  public:
    TalbTensorAwareIdleAgingTestCase()
        : TestCase("TalbTensorAwareIdleAging: an entry idle > IdleTimeout (10 ms) ages out")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
        TalbPacketContext c = TensorCtx(40, MicroSeconds(1), 300, 5, TALB_FLAG_FIRST);
        lb->SelectPath(c, sw.Candidates());
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(MicroSeconds(1)), 1, "entry inserted");
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(MilliSeconds(20)), 0, "entry aged");
        NS_TEST_EXPECT_MSG_EQ(lb->GetHeldEntries(), 1, "held until reclaimed");
    }
};

/// Untagged packets go to the Fallback policy.
class TalbTensorAwareFallbackTestCase : public TestCase
{
  public:
    TalbTensorAwareFallbackTestCase()
        : TestCase("TalbTensorAwareFallback: untagged packets are chosen by the fallback")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
        TalbPacketContext untagged = Ctx(30, MicroSeconds(1));
        lb->SelectPath(untagged, sw.Candidates());
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nFallback, 1, "fallback used");
        NS_TEST_EXPECT_MSG_EQ(lb->GetHeldEntries(), 0, "no tensor entry for untagged");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nUntaggedSelections, 1, "counted untagged");
        NS_TEST_EXPECT_MSG_EQ(lb->CanBeFallback(), false, "TaLB itself is no fallback");
    }
};

/// The least recently used live entry is evicted when a probe window is full.
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
        Ptr<TalbTensorAwareLb> lb = MakeTalb(sw);
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
        NS_TEST_EXPECT_MSG_EQ(evicted, 1, "one eviction traced");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nEvicted, 1, "one eviction counted");
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(MicroSeconds(6)), 4, "table full");
    }
};

/// RemoteAwareness: the leaf-to-leaf feedback steers a new tensor off an uplink whose path is
/// congested beyond the leaf; without the attribute, the two uplinks tie; feedback ages out.
class TalbTensorAwareV2RemoteTestCase : public TestCase
{
  public:
    TalbTensorAwareV2RemoteTestCase()
        : TestCase("TalbTensorAwareV2Remote: new tensors avoid a remotely congested path when "
                   "RemoteAwareness is on; the feedback ages out")
    {
    }

  private:
    /// \return per port, how many of \p n new tensors (each on its own flow, 150 us apart so
    /// that none shares a port with another) were placed there, the first at \p start
    static std::vector<uint32_t> PlaceTensors(Ptr<TalbLoadBalancer> lb,
                                              const FakeSwitch& sw,
                                              Time start,
                                              uint32_t n)
    {
        std::vector<uint32_t> placed(3, 0);
        for (uint32_t i = 0; i < n; ++i)
        {
            TalbPacketContext c = TensorCtx(100 + i, start + MicroSeconds(150) * i, 1, 5, 0);
            ++placed[lb->SelectPath(c, sw.Candidates())];
        }
        return placed;
    }

    void DoRun() override
    {
        {
            FakeSwitch sw(2);
            Ptr<TalbLoadBalancer> lb = sw.Make("talb", {{"RemoteAwareness", "true"}});
            ReportCongested(lb, 1, MicroSeconds(1));
            std::vector<uint32_t> placed = PlaceTensors(lb, sw, MicroSeconds(2), 40);
            NS_TEST_EXPECT_MSG_EQ(placed[1], 40u, "every tensor on port 1 (spine 0)");
            // The report is older than RemoteAgingTime (10 ms): the uplinks tie again.
            placed = PlaceTensors(lb, sw, MilliSeconds(20), 40);
            NS_TEST_EXPECT_MSG_GT(placed[1], 5u, "aged: port 1 used");
            NS_TEST_EXPECT_MSG_GT(placed[2], 5u, "aged: port 2 used");
        }
        {
            FakeSwitch sw(2);
            Ptr<TalbLoadBalancer> lb = sw.Make("talb");
            ReportCongested(lb, 1, MicroSeconds(1));
            std::vector<uint32_t> placed = PlaceTensors(lb, sw, MicroSeconds(2), 40);
            NS_TEST_EXPECT_MSG_GT(placed[2], 5u, "off: the feedback is ignored, port 2 used");
        }
    }
};

/// RemoteAwareness: a tensor does not flee its own port's reported congestion (its own load is
/// part of it), mid-flow or after a pause, and the leaf tags what it sends to another leaf only
/// when the attribute is on.
class TalbTensorAwareV2RemoteStaysTestCase : public TestCase
{
  public:
    TalbTensorAwareV2RemoteStaysTestCase()
        : TestCase("TalbTensorAwareV2RemoteStays: a tensor's next tensor, or the flow after a "
                   "pause, stays on its port whatever that path's feedback; uplink packets "
                   "carry the tag only when on")
    {
    }

  private:
    void DoRun() override
    {
        for (bool remote : {false, true})
        {
            FakeSwitch sw(2);
            Ptr<TalbLoadBalancer> lb =
                sw.Make("talb", {{"RemoteAwareness", remote ? "true" : "false"}});
            TalbPacketContext first = TensorCtx(1, MicroSeconds(2), 1, 5, 0);
            uint32_t port = lb->SelectPath(first, sw.Candidates());
            // Leaf 1 reports the path behind that port fully congested (spine = port - 1).
            ReportCongested(lb, port - 1, MicroSeconds(3));
            TalbPacketContext next = TensorCtx(1, MicroSeconds(4), 2, 5, 0);
            NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(next, sw.Candidates()),
                                  port,
                                  "next tensor stays (remote " << remote << ")");
            // Leaf 1 reports the other path congested too. After a pause longer than
            // ActiveWindow the flow is placed anew: its last port's report still holds its own
            // load, so only the other port pays (off: the two tie, either may be taken).
            ReportCongested(lb, 2 - port, MicroSeconds(5));
            TalbPacketContext resumed = TensorCtx(1, MicroSeconds(300), 3, 5, 0);
            uint32_t again = lb->SelectPath(resumed, sw.Candidates());
            if (remote)
            {
                NS_TEST_EXPECT_MSG_EQ(again, port, "after a pause, back on its last port");
            }
            Ptr<Packet> q = Create<Packet>(100);
            TalbPacketContext out = Ctx(1, MicroSeconds(301), PeekPointer(q));
            lb->PacketOut(out, port);
            TalbCongaTag tag;
            NS_TEST_EXPECT_MSG_EQ(q->PeekPacketTag(tag), remote, "feedback tag on an uplink");
        }
    }
};

/// RemoteSprayBytes: while another job's tensor flow shares the uplinks, sprayed packets avoid
/// the path the feedback reports saturated; placements do not pay it (that is RemoteAwareness).
class TalbTensorAwareV2RemoteSprayTestCase : public TestCase
{
  public:
    TalbTensorAwareV2RemoteSprayTestCase()
        : TestCase("TalbTensorAwareV2RemoteSpray: sprayed packets avoid a reported saturated "
                   "path while another job shares the uplinks; placements ignore it")
    {
    }

  private:
    void DoRun() override
    {
        for (bool on : {false, true})
        {
            FakeSwitch sw(2);
            Ptr<TalbLoadBalancer> lb = sw.Make("talb", {{"RemoteSprayBytes", on ? "30000" : "0"}});
            // Job 2's flow on an uplink: job 1's flow spreads its packets (Spray=Contended).
            TalbPacketContext other =
                TensorCtx(50, MicroSeconds(1), talb_make_tensor_id(2, 7), 5, 0);
            lb->SelectPath(other, sw.Candidates());
            ReportCongested(lb, 0, MicroSeconds(1)); // the path via spine 0, port 1
            std::vector<uint32_t> used(3, 0);
            for (uint32_t i = 0; i < 40; ++i)
            {
                TalbPacketContext c =
                    TensorCtx(1, MicroSeconds(2 + i), talb_make_tensor_id(1, 3), 5, 0);
                ++used[lb->SelectPath(c, sw.Candidates())];
            }
            if (on)
            {
                NS_TEST_EXPECT_MSG_EQ(used[2], 40u, "every sprayed packet avoids port 1");
            }
            else
            {
                NS_TEST_EXPECT_MSG_GT(used[1], 5u, "off: port 1 used");
                NS_TEST_EXPECT_MSG_GT(used[2], 5u, "off: port 2 used");
            }
        }
        // One job, nothing sprayed: new tensors land on the reported path as on the other one,
        // and the leaf still runs the feedback (its uplink packets carry the tag).
        FakeSwitch sw(2);
        Ptr<TalbLoadBalancer> lb = sw.Make("talb", {{"RemoteSprayBytes", "30000"}});
        ReportCongested(lb, 0, MicroSeconds(1));
        uint32_t onPort1 = 0;
        for (uint32_t i = 0; i < 40; ++i)
        {
            // 150 us apart: each tensor alone on the uplinks
            TalbPacketContext c = TensorCtx(100 + i, MicroSeconds(2 + 150 * i), 1, 5, 0);
            onPort1 += lb->SelectPath(c, sw.Candidates()) == 1 ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_GT(onPort1, 5u, "placements are not charged the report");
        NS_TEST_EXPECT_MSG_LT(onPort1, 35u, "placements are not charged the report");
        Ptr<Packet> q = Create<Packet>(100);
        TalbPacketContext out = Ctx(1, MicroSeconds(7000), PeekPointer(q));
        lb->PacketOut(out, 1);
        TalbCongaTag tag;
        NS_TEST_EXPECT_MSG_EQ(q->PeekPacketTag(tag), true, "feedback tag on an uplink");
    }
};

/// SprayQueue through the attribute, on the switch's band queues: while another job shares the
/// uplinks a sprayed packet counts every band's bytes by default, only those at or above its
/// priority with SprayQueue=AtOrAbove.
class TalbTensorAwareV2SprayQueueTestCase : public TestCase
{
  public:
    TalbTensorAwareV2SprayQueueTestCase()
        : TestCase("TalbTensorAwareV2SprayQueue: sprayed packets count every band while another "
                   "job shares the uplinks (AtOrAbove: their own wait)")
    {
    }

  private:
    void DoRun() override
    {
        for (std::string queue : {"", "AtOrAbove", "All"})
        {
            FakeSwitch sw(2);
            for (uint32_t p = 1; p <= 2; ++p)
            {
                Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
                q->SetMaxSize(QueueSize("1000p"));
                sw.ports[p].queue = q;
            }
            // Port 1: 20000 bytes of priority 6; port 2: 5000 bytes of priority 2.
            for (uint32_t i = 0; i < 4; ++i)
            {
                Ptr<Packet> lo = Create<Packet>(5000);
                lo->AddPacketTag(TalbTag(9, 6, 0));
                sw.ports[1].queue->Enqueue(lo);
            }
            Ptr<Packet> hi = Create<Packet>(5000);
            hi->AddPacketTag(TalbTag(9, 2, 0));
            sw.ports[2].queue->Enqueue(hi);
            Ptr<TalbLoadBalancer> lb =
                queue.empty() ? sw.Make("talb") : sw.Make("talb", {{"SprayQueue", queue}});
            // Job 2's flow on an uplink: job 1's flow spreads its packets (Spray=Contended).
            TalbPacketContext other =
                TensorCtx(50, MicroSeconds(1), talb_make_tensor_id(2, 7), 5, 0);
            lb->SelectPath(other, sw.Candidates());
            std::vector<uint32_t> used(3, 0);
            for (uint32_t i = 0; i < 10; ++i)
            {
                TalbPacketContext c =
                    TensorCtx(1, MicroSeconds(2 + i), talb_make_tensor_id(1, 3), 2, 0);
                ++used[lb->SelectPath(c, sw.Candidates())];
            }
            const uint32_t expected = queue == "AtOrAbove" ? 1 : 2;
            NS_TEST_EXPECT_MSG_EQ(used[expected],
                                  10u,
                                  "SprayQueue=" << (queue.empty() ? "default" : queue)
                                                << ": every packet to port " << expected);
        }
    }
};

/// On a fabric: every low-priority tensor stays on one uplink; high-priority tensors placed on
/// a slow uplink move off it mid-tensor; every entry is freed by LAST.
class TalbTensorAwareFabricTestCase : public SimulationTestCase
{
  public:
    TalbTensorAwareFabricTestCase()
        : SimulationTestCase("TalbTensorAwareFabric: low tensors keep one path, high tensors "
                             "leave a congested one, LAST frees entries")
    {
    }

  private:
    /// First transmission of each tensor at leaf 0: tensor id -> uplinks its packets took
    /// until its LAST packet. (A retransmission after LAST finds no entry and is placed anew.)
    struct Seen
    {
        std::map<uint32_t, std::set<uint32_t>> ports;
        std::set<uint32_t> done;
    };

    static void Forwarded(Seen* s, Ptr<const Packet> p, uint32_t, uint32_t out)
    {
        TalbTag tag;
        if (out >= 4 && p->PeekPacketTag(tag) && !s->done.count(tag.GetTensorId()))
        {
            s->ports[tag.GetTensorId()].insert(out);
            if (tag.IsLast())
            {
                s->done.insert(tag.GetTensorId());
            }
        }
    }

    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("talb", 2, 4);
        f->SetLoadBalancer("talb", "Version", UintegerValue(1));
        f->SetLinkRate(0, 1, DataRate("1Gbps"));
        f->Install();
        f->AssignStreams(5);
        Ptr<TalbTensorAwareLb> lb =
            DynamicCast<TalbTensorAwareLb>(f->GetLeafSwitch(0)->GetLoadBalancer());
        Seen seen;
        f->GetLeafSwitch(0)->TraceConnectWithoutContext("Forward",
                                                        MakeBoundCallback(&Forwarded, &seen));
        std::vector<uint32_t> moved; // tensor ids
        lb->TraceConnectWithoutContext(
            "Reroute",
            MakeBoundCallback(
                +[](std::vector<uint32_t>* v, uint32_t, uint32_t t, uint32_t, uint32_t) {
                    v->push_back(t);
                },
                &moved));
        // Hosts 0-3 each send 6 tensors to hosts 4-7: even ids high (prio 1), odd low (prio 6).
        uint32_t nTensors = 0;
        for (uint32_t h = 0; h < 4; ++h)
        {
            uint16_t port = 6000 + h;
            TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), port));
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
        NS_TEST_EXPECT_MSG_EQ(seen.ports.size(), nTensors, "not every tensor crossed leaf 0");
        NS_TEST_EXPECT_MSG_EQ(seen.done.size(), nTensors, "not every tensor finished");
        for (const auto& [id, set] : seen.ports)
        {
            if (id % 2)
            {
                NS_TEST_EXPECT_MSG_EQ(set.size(), 1, "low-priority tensor " << id << " split");
            }
        }
        NS_TEST_EXPECT_MSG_GT(moved.size(), 0u, "no high-priority tensor moved");
        for (uint32_t id : moved)
        {
            NS_TEST_EXPECT_MSG_EQ(id % 2, 0, "low-priority tensor " << id << " was moved");
        }
        const auto& st = lb->GetTableStats();
        NS_TEST_EXPECT_MSG_EQ(lb->GetLiveEntries(Simulator::Now()), 0, "entries left");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(st.nFreedOnLast, nTensors, "LAST frees each tensor's entry");
        NS_TEST_EXPECT_MSG_EQ(st.nInserted,
                              st.nFreedOnLast + st.nAgedOut + st.nEvicted,
                              "table identity");
    }
};

/// Version 2 (the default) through the ns-3 selector: a second tensor flow avoids the first
/// one's uplink although that uplink's queue is the shorter one, and a low-priority tensor moves
/// mid-tensor (MinMoveInterval later) when its uplink is shared and another one is free.
class TalbTensorAwareV2SpreadsFlowsTestCase : public TestCase
{
  public:
    TalbTensorAwareV2SpreadsFlowsTestCase()
        : TestCase("TalbTensorAwareV2SpreadsFlows: v2 keeps tensor flows apart, low ones move")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(3);
        Ptr<TalbTensorAwareLb> lb = DynamicCast<TalbTensorAwareLb>(sw.Make("talb"));
        UintegerValue version;
        lb->GetAttribute("Version", version);
        NS_TEST_ASSERT_MSG_EQ(version.Get(), 2, "v2 is the default");
        uint32_t two[] = {sw.uplinks[0], sw.uplinks[1]};
        TalbCandidates firstTwo{two, 2};
        TalbPacketContext a = TensorCtx(10, MicroSeconds(1), 100, 7, TALB_FLAG_FIRST);
        uint32_t pa = lb->SelectPath(a, firstTwo);
        uint32_t other = pa == two[0] ? two[1] : two[0];
        sw.Fill(other, 9000);
        TalbPacketContext b = TensorCtx(20, MicroSeconds(2), 200, 7, TALB_FLAG_FIRST);
        NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(b, firstTwo), other, "second flow joined the first");
        // A third flow has to share an uplink while only two are offered ...
        TalbPacketContext c = TensorCtx(30, MicroSeconds(3), 300, 7, TALB_FLAG_FIRST);
        uint32_t pc = lb->SelectPath(c, firstTwo);
        a.label.flags = b.label.flags = c.label.flags = 0;
        for (int t = 10; t < 200; t += 10)
        {
            a.now = b.now = c.now = MicroSeconds(t);
            lb->SelectPath(a, firstTwo);
            lb->SelectPath(b, firstTwo);
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, firstTwo), pc, "moved too early");
        }
        // ... and moves to the third once it is offered, although its priority is low.
        c.now = MicroSeconds(200);
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), sw.uplinks[2], "did not move");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nMidTensorMoves, 1, "one move");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nReroutes, 1, "one reroute");
    }
};

/// \return a RoCEv2 packet with \p payload bytes of data (\p roce) or the same bytes as a UDP
/// packet to another port
static Ptr<Packet>
Datagram(bool roce, uint32_t payload = 1000)
{
    TalbRoceHeader h;
    h.SetSource(Ipv4Address("10.0.0.1"));
    h.SetDestination(Ipv4Address("10.0.0.7"));
    h.SetIpPayloadBytes(8 + 12 + payload + 4);
    h.SetSourcePort(0xC123);
    h.SetOpcode(TalbRoceHeader::OP_SEND_MIDDLE);
    h.SetDestQp(7);
    Ptr<Packet> p = Create<Packet>(payload + 4);
    p->AddHeader(h);
    if (!roce)
    {
        // The same bytes with UDP destination port 4790.
        std::vector<uint8_t> bytes(p->GetSize());
        p->CopyData(bytes.data(), bytes.size());
        bytes[20 + 3] ^= 1;
        p = Create<Packet>(bytes.data(), bytes.size());
    }
    return p;
}

/// Points \p c at \p packet with the go-back-N flag TalbSwitch reads from its headers.
static void
SwitchReads(TalbPacketContext& c, Ptr<Packet> packet)
{
    c.packet = PeekPointer(packet);
    c.goBackN = TalbPriorityQueue::Read(packet).headers.rocev2;
}

/// Version 2 on RoCEv2 (SafeMoves GoBackN, and the default GoBackNUnlessUntagged, the same
/// without untagged traffic): the switch marks RoCEv2 packets (UDP to 4791) go-back-N, and the
/// selector holds the mid-tensor move that the test above sees a TCP flow take, until the flow's
/// old path has drained plus SafeMoveSlack; SafeMoves Never restores the move.
class TalbTensorAwareV2SafeMovesTestCase : public TestCase
{
  public:
    TalbTensorAwareV2SafeMovesTestCase()
        : TestCase("TalbTensorAwareV2SafeMoves: a RoCEv2 flow moves only once its path drained")
    {
    }

  private:
    /// Three flows on two of three uplinks until 190 us, then the third is offered to flow 30
    /// (its packets \p packet) at 200 us and, with \p later, again after the slack.
    /// \return flow 30's uplinks at 200 us and later
    static std::pair<bool, bool> Moves(Ptr<Packet> packet, const std::string& safeMoves)
    {
        FakeSwitch sw(3);
        Ptr<TalbTensorAwareLb> lb = DynamicCast<TalbTensorAwareLb>(sw.Make("talb"));
        lb->SetAttribute("SafeMoves", StringValue(safeMoves));
        lb->SetAttribute("SafeMoveSlack", TimeValue(MicroSeconds(50)));
        uint32_t two[] = {sw.uplinks[0], sw.uplinks[1]};
        TalbCandidates firstTwo{two, 2};
        TalbPacketContext a = TensorCtx(10, MicroSeconds(1), 100, 7, TALB_FLAG_FIRST);
        TalbPacketContext b = TensorCtx(20, MicroSeconds(1), 200, 7, TALB_FLAG_FIRST);
        TalbPacketContext c = TensorCtx(30, MicroSeconds(1), 300, 7, TALB_FLAG_FIRST);
        SwitchReads(c, packet);
        for (int t = 1; t < 200; t += 10)
        {
            a.now = b.now = c.now = MicroSeconds(t);
            lb->SelectPath(a, firstTwo);
            lb->SelectPath(b, firstTwo);
            lb->SelectPath(c, firstTwo);
            a.label.flags = b.label.flags = c.label.flags = 0;
        }
        c.now = MicroSeconds(200);
        bool early = lb->SelectPath(c, sw.Candidates()) == sw.uplinks[2];
        a.now = b.now = MicroSeconds(250);
        lb->SelectPath(a, firstTwo);
        lb->SelectPath(b, firstTwo);
        c.now = MicroSeconds(260); // its 200 us packet left an empty port at once: drained
        bool later = lb->SelectPath(c, sw.Candidates()) == sw.uplinks[2];
        return {early, later};
    }

    void DoRun() override
    {
        auto roce = Moves(Datagram(true), "GoBackN");
        NS_TEST_EXPECT_MSG_EQ(roce.first, false, "a RoCEv2 flow moved before its path drained");
        NS_TEST_EXPECT_MSG_EQ(roce.second, true, "a RoCEv2 flow did not move once drained");
        auto unless = Moves(Datagram(true), "GoBackNUnlessUntagged");
        NS_TEST_EXPECT_MSG_EQ(unless.first, false, "the default: moved before its path drained");
        NS_TEST_EXPECT_MSG_EQ(unless.second, true, "the default: did not move once drained");
        auto udp = Moves(Datagram(false), "GoBackN");
        NS_TEST_EXPECT_MSG_EQ(udp.first, true, "another UDP flow waited like RoCEv2");
        auto never = Moves(Datagram(true), "Never");
        NS_TEST_EXPECT_MSG_EQ(never.first, true, "SafeMoves Never: the RoCEv2 flow waited");
        auto always = Moves(Datagram(false), "Always");
        NS_TEST_EXPECT_MSG_EQ(always.first, false, "SafeMoves Always: a UDP flow moved at once");
    }
};

/// Untagged RoCEv2 data goes to GoBackNFallback (letflow by default: a flow's packets stay on
/// one port), RoCEv2 ACK-sized packets and other untagged data to Fallback (drill: spread);
/// GoBackNFallback empty: Fallback chooses for all. The go-back-N fallback takes no random
/// stream of its own, and one that cannot be it is reported before attaching.
class TalbTensorAwareGoBackNFallbackTestCase : public TestCase
{
  public:
    TalbTensorAwareGoBackNFallbackTestCase()
        : TestCase("TalbTensorAwareGoBackNFallback: untagged RoCEv2 data is kept in order")
    {
    }

  private:
    /// \return how many uplinks 40 packets of one untagged flow (\p packet), 1 us apart, took;
    /// each stays queued on its uplink (DRILL sees them)
    static size_t Uplinks(Ptr<TalbLoadBalancer> lb, FakeSwitch& sw, Ptr<Packet> packet)
    {
        std::set<uint32_t> ports;
        for (int t = 1; t <= 40; ++t)
        {
            TalbPacketContext c = Ctx(30, MicroSeconds(t));
            SwitchReads(c, packet);
            c.size = packet->GetSize();
            uint32_t port = lb->SelectPath(c, sw.Candidates());
            sw.Fill(port, c.size);
            ports.insert(port);
        }
        return ports.size();
    }

    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbTensorAwareLb> lb = DynamicCast<TalbTensorAwareLb>(sw.Make("talb"));
        size_t roce = Uplinks(lb, sw, Datagram(true));
        size_t acks = Uplinks(lb, sw, Datagram(true, 0));
        size_t udp = Uplinks(lb, sw, Datagram(false));
        NS_TEST_EXPECT_MSG_EQ(roce, 1, "RoCEv2 data was spread");
        NS_TEST_EXPECT_MSG_GT(udp, 1, "other UDP data: not drill");
        NS_TEST_EXPECT_MSG_GT(acks, 1, "RoCEv2 ACKs: not drill");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nGoBackNFallback, 40, "not the go-back-N one");
        NS_TEST_EXPECT_MSG_EQ(lb->GetTableStats().nFallback, 120, "not every untagged packet");

        Ptr<TalbTensorAwareLb> one =
            DynamicCast<TalbTensorAwareLb>(sw.Make("talb", {{"GoBackNFallback", ""}}));
        size_t oneRoce = Uplinks(one, sw, Datagram(true));
        NS_TEST_EXPECT_MSG_GT(oneRoce, 1, "empty: RoCEv2 data not sprayed by drill");
        NS_TEST_EXPECT_MSG_EQ(one->GetTableStats().nGoBackNFallback, 0, "empty: still used");
        NS_TEST_EXPECT_MSG_EQ(lb->AssignStreams(100),
                              one->AssignStreams(100),
                              "the go-back-N fallback took a stream of its own");

        for (const char* name : {"hermes", "talb"})
        {
            ObjectFactory f("ns3::TalbTensorAwareLb");
            f.Set("GoBackNFallback", StringValue(name));
            std::string error = f.Create<TalbLoadBalancer>()->CheckConfiguration(TalbSwitchInfo());
            NS_TEST_EXPECT_MSG_NE(error.find(std::string("GoBackNFallback '") + name + "'"),
                                  std::string::npos,
                                  "not reported: " << error);
        }
    }
};

/// Moves=Congestion and Moves=Contended decide by the remote feedback, and Spray=SharedDestination
/// sprays by what it reports: without RemoteAwareness the configuration is refused with the
/// reason, and with it accepted.
class TalbTensorAwareCongestionMovesTestCase : public TestCase
{
  public:
    TalbTensorAwareCongestionMovesTestCase()
        : TestCase("TalbTensorAwareCongestionMoves: Moves=Congestion or Contended and "
                   "Spray=SharedDestination need RemoteAwareness")
    {
    }

  private:
    void DoRun() override
    {
        const std::pair<const char*, const char*> settings[] = {{"Moves", "Congestion"},
                                                                {"Moves", "Contended"},
                                                                {"Spray", "SharedDestination"}};
        for (const auto& [name, value] : settings)
        {
            for (bool remote : {false, true})
            {
                ObjectFactory f("ns3::TalbTensorAwareLb");
                f.Set(name, StringValue(value));
                f.Set("RemoteAwareness", BooleanValue(remote));
                std::string error =
                    f.Create<TalbLoadBalancer>()->CheckConfiguration(TalbSwitchInfo());
                if (remote)
                {
                    NS_TEST_EXPECT_MSG_EQ(error, "", value << ": refused with RemoteAwareness");
                }
                else
                {
                    NS_TEST_EXPECT_MSG_NE(error.find("RemoteAwareness=true"),
                                          std::string::npos,
                                          value << ": not reported: " << error);
                }
            }
        }
    }
};

/// The talb-tensor-aware suite.
class TalbTensorAwareTestSuite : public TestSuite
{
  public:
    TalbTensorAwareTestSuite()
        : TestSuite("talb-tensor-aware", UNIT)
    {
        AddTestCase(new TalbTensorAwareLowKeepsPortTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareHighMovesTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareLastFreesTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2SpreadsFlowsTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2SafeMovesTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareIdleAgingTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareFallbackTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareGoBackNFallbackTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareCongestionMovesTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareEvictTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareFabricTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2RemoteTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2RemoteStaysTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2RemoteSprayTestCase, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareV2SprayQueueTestCase, TestCase::QUICK);
    }
};

static TalbTensorAwareTestSuite g_talbTensorAwareTestSuite; //!< the suite's instance
