// Hermes through the switch: the sensing plumbing (tags, spine updates, feedback, ageing) on
// synthetic ports, and on a two-leaf fabric its cautious rerouting: flows on a slow remote path
// move to the good one and stay; flows on good paths never move.
#include "talb-test-fabric.h"
#include "talb-test-ports.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>

using namespace ns3;

namespace
{

using talbtest::TestPorts;

/// \return a Hermes balancer attached to \p ports as a leaf or a spine
Ptr<TalbHermesLb>
MakeHermes(TestPorts& ports, bool leaf)
{
    Ptr<TalbHermesLb> lb = CreateObject<TalbHermesLb>();
    lb->Attach(ports.Info(leaf), &ports.ports);
    lb->AssignStreams(3);
    return lb;
}

TalbPacketContext
Ctx(uint32_t flowHash, uint32_t srcLeaf, uint32_t dstLeaf, Packet* p = nullptr)
{
    TalbPacketContext c;
    c.flowHash = flowHash;
    c.size = 1500;
    c.srcLeaf = srcLeaf;
    c.dstLeaf = dstLeaf;
    c.now = Simulator::Now();
    c.packet = p;
    return c;
}

/// \return a two-leaf, two-spine fabric of two hosts per leaf at 10 Gb/s, not yet installed
Ptr<TalbLeafSpineHelper>
TwoByTwoFabric()
{
    TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Leaves", UintegerValue(2));
    f->SetAttribute("Spines", UintegerValue(2));
    f->SetAttribute("HostsPerLeaf", UintegerValue(2));
    f->SetAttribute("HostRate", DataRateValue(DataRate("10Gbps")));
    f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
    return f;
}

/// Counts into \p up[s] the bytes leaf 0 sends to spine s (s = 0, 1).
void
CountUplinkBytes(Ptr<TalbLeafSpineHelper> f, std::vector<uint64_t>* up)
{
    up->assign(2, 0);
    for (uint32_t s = 0; s < 2; ++s)
    {
        f->GetUplinkDevice(0, s)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(
                +[](uint64_t* n, Ptr<const Packet> p) { *n += p->GetSize(); },
                &(*up)[s]));
    }
}

} // namespace

/// The destination leaf learns and feeds back; the source leaf reads feedback and avoids the
/// congested path; spines add their delay and mark; feedback ages out.
class TalbHermesSensingTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbHermesSensingTestCase()
        : talbtest::SimulationTestCase(
              "TalbHermesSensing: tags measure paths, feedback updates the sender's view, "
              "new flows avoid the congested path, old feedback ages out")
    {
    }

  private:
    void DoRun() override
    {
        TestPorts leaf(2);
        Ptr<TalbHermesLb> lb = MakeHermes(leaf, true);
        // A packet from leaf 1 reaches this (destination) leaf 0: it met a marking queue and
        // 100 us of queueing on its path 1, and feeds back that leaf 0's path 1 towards leaf 1
        // is congested.
        Ptr<Packet> p = Create<Packet>(100);
        TalbHermesTag tag;
        tag.Set().path = 1;
        tag.Set().marked = true;
        tag.Set().delayNs = 100000;
        tag.Set().hasFeedback = true;
        tag.Set().fbPath = 1;
        tag.Set().fbEcnFraction = 58982; // 0.9
        tag.Set().fbDelayNs = 100000;
        p->AddPacketTag(tag);
        TalbPacketContext in = Ctx(1, 1, 0, PeekPointer(p));
        lb->PacketIn(in);
        NS_TEST_ASSERT_MSG_EQ(p->PeekPacketTag(tag), false, "destination leaf removes the tag");
        talb::lb::RemotePath r = lb->GetRemotePath(1, 1);
        NS_TEST_ASSERT_MSG_EQ(r.known, true, "feedback stored");
        NS_TEST_ASSERT_MSG_EQ_TOL(r.ecnFraction, 0.9, 1e-4, "fed-back ECN fraction");
        NS_TEST_ASSERT_MSG_EQ(r.delayNs, 100000, "fed-back delay");
        NS_TEST_ASSERT_MSG_EQ(lb->Classify(2, 1), talb::lb::Hermes::CONGESTED, "path 1");
        NS_TEST_ASSERT_MSG_EQ(lb->Classify(1, 1), talb::lb::Hermes::GOOD, "path 0");
        for (uint32_t flow = 0; flow < 100; ++flow)
        {
            TalbPacketContext c = Ctx(flow, 0, 1);
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, leaf.All()), 1u, "new flow on path 0");
        }
        // The forward tag of a packet to leaf 1 on port 2: its path, the uplink's state, and
        // the feedback of what this leaf measured from leaf 1 on path 1 (one marked sample).
        leaf.Fill(2, 100000); // 80 us at 10 Gb/s, above the 97.5 KB mark
        Ptr<Packet> q = Create<Packet>(100);
        TalbPacketContext out = Ctx(3, 0, 1, PeekPointer(q));
        lb->PacketOut(out, 2);
        NS_TEST_ASSERT_MSG_EQ(q->PeekPacketTag(tag), true, "source leaf adds a tag");
        NS_TEST_ASSERT_MSG_EQ(+tag.Get().path, 1, "path = spine of port 2");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().marked, true, "uplink queue at the mark");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().delayNs, 80000u, "uplink queueing delay");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().hasFeedback, true, "feedback piggybacked");
        NS_TEST_ASSERT_MSG_EQ(+tag.Get().fbPath, 1, "feedback path");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().fbEcnFraction, 65535, "one marked sample");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().fbDelayNs, 100000u, "one delay sample");

        // A spine adds its egress queue's delay and its mark.
        TestPorts spinePorts(2);
        Ptr<TalbHermesLb> spine = MakeHermes(spinePorts, false);
        spinePorts.Fill(1, 12500); // 10 us
        tag.Set().marked = false;
        q->ReplacePacketTag(tag);
        TalbPacketContext hop = Ctx(3, 0, 1, PeekPointer(q));
        spine->PacketOut(hop, 1);
        q->PeekPacketTag(tag);
        NS_TEST_ASSERT_MSG_EQ(tag.Get().delayNs, 90000u, "spine adds its delay");
        NS_TEST_ASSERT_MSG_EQ(tag.Get().marked, false, "spine queue below the mark");

        // Feedback older than MetricAgingTime (1 ms) is unknown again.
        Simulator::Stop(MilliSeconds(2));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(lb->GetRemotePath(1, 1).known, false, "aged");
        // Without feedback the path is judged by its uplink alone: 80 us queued, no ECN
        // fraction known: gray, no longer congested.
        NS_TEST_ASSERT_MSG_EQ(lb->Classify(2, 1), talb::lb::Hermes::GRAY, "aged path");
        Simulator::Destroy();
    }
};

/// Hermes on a two-leaf, two-spine fabric with one TCP flow from each host of leaf 0.
class TalbHermesFabricTestCase : public talbtest::SimulationTestCase
{
  public:
    /// \param slowRemote make the spine 1 - leaf 1 link 1 Gb/s (of 10)
    explicit TalbHermesFabricTestCase(bool slowRemote)
        : talbtest::SimulationTestCase(
              slowRemote ? "TalbHermesFabric: flows leave a slow remote path for the good "
                           "one and do not come back"
                         : "TalbHermesFabric: flows on good paths are never rerouted"),
          m_slowRemote(slowRemote)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = TwoByTwoFabric();
        f->SetLoadBalancer("hermes");
        if (m_slowRemote)
        {
            f->SetLinkRate(1, 1, DataRate("1Gbps"));
        }
        f->Install();
        f->AssignStreams(7);
        std::vector<Ptr<TalbBulkSink>> sinks;
        const uint64_t bytes = 3000000;
        for (uint32_t h = 0; h < 2; ++h)
        {
            TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), 6000 + h));
            sinks.push_back(DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(2 + h)).Get(0)));
            BulkSendHelper bulk("ns3::TcpSocketFactory",
                                InetSocketAddress(f->GetHostAddress(2 + h), 6000 + h));
            bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
            // Staggered starts: the second flow sees the first one's uplink busy.
            bulk.Install(f->GetHost(h)).Start(MicroSeconds(10 + 300 * h));
        }
        std::vector<uint64_t> up;
        CountUplinkBytes(f, &up);
        Simulator::Stop(MilliSeconds(40));
        Simulator::Run();
        Ptr<TalbLoadBalancer> lb = f->GetLeafSwitch(0)->GetLoadBalancer();
        uint64_t reroutes = lb->GetStats().nReroutes;
        for (uint32_t h = 0; h < 2; ++h)
        {
            NS_TEST_ASSERT_MSG_EQ(sinks[h]->GetTotalRx(), bytes, "flow " << h << " incomplete");
        }
        uint64_t total = up[0] + up[1];
        if (m_slowRemote)
        {
            NS_TEST_EXPECT_MSG_GT(up[0],
                                  total * 8 / 10,
                                  "fast path got " << up[0] << " of " << total);
            // The second flow avoids the first one's busy uplink, so one of them starts on the
            // slow path and must leave it; neither comes back.
            NS_TEST_EXPECT_MSG_GT_OR_EQ(reroutes, 1u, "no flow left the slow path");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(reroutes, 2u, "cautious: at most one move per flow");
        }
        else
        {
            NS_TEST_ASSERT_MSG_EQ(reroutes, 0u, "a flow on a good path moved");
            NS_TEST_EXPECT_MSG_GT(std::min(up[0], up[1]), total / 3, "flows not spread");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    bool m_slowRemote;
};

/**
 * Hermes's sensing of random drops (LossSensing) on a two-leaf, two-spine DCTCP fabric whose
 * leaf 0 - spine 1 link loses 5 % of its packets: with it the leaf fails that path and sends
 * less than half the bytes it sends there without it.
 */
class TalbHermesLossSensingTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbHermesLossSensingTestCase()
        : talbtest::SimulationTestCase(
              "TalbHermesLossSensing: a path losing 5 % without congestion is failed and left")
    {
    }

  private:
    struct Run
    {
        uint64_t lossyBytes{0}; //!< sent on leaf 0's uplink to spine 1
        uint64_t totalBytes{0}; //!< sent on leaf 0's uplinks
        uint64_t pathsFailed{0};
    };

    Run Simulate(bool sensing)
    {
        Ptr<TalbLeafSpineHelper> f = TwoByTwoFabric();
        f->SetAttribute("TcpVariant", StringValue("ns3::TcpDctcp"));
        f->SetLoadBalancer("hermes", "LossSensing", BooleanValue(sensing));
        f->SetLinkLoss(0, 1, 0.05);
        f->Install();
        f->AssignStreams(7);
        const uint64_t bytes = 4000000;
        std::vector<Ptr<TalbBulkSink>> sinks;
        for (uint32_t k = 0; k < 4; ++k)
        {
            uint16_t port = 6000 + k;
            TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), port));
            sinks.push_back(DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(2 + k % 2)).Get(0)));
            BulkSendHelper bulk("ns3::TcpSocketFactory",
                                InetSocketAddress(f->GetHostAddress(2 + k % 2), port));
            bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
            bulk.Install(f->GetHost(k % 2)).Start(MicroSeconds(10 + 2000 * k));
        }
        Run r;
        std::vector<uint64_t> up;
        CountUplinkBytes(f, &up);
        Simulator::Stop(Seconds(2));
        Simulator::Run();
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(sinks[k]->GetTotalRx(), bytes, "flow " << k << " incomplete");
        }
        r.lossyBytes = up[1];
        r.totalBytes = up[0] + up[1];
        r.pathsFailed =
            DynamicCast<TalbHermesLb>(f->GetLeafSwitch(0)->GetLoadBalancer())->GetPathsFailed();
        Simulator::Destroy();
        Config::Reset();
        return r;
    }

    void DoRun() override
    {
        Run off = Simulate(false);
        Run on = Simulate(true);
        NS_TEST_EXPECT_MSG_EQ(off.pathsFailed, 0u, "no sensing, no failed path");
        NS_TEST_EXPECT_MSG_LT(on.lossyBytes * 2,
                              off.lossyBytes,
                              "with sensing " << on.lossyBytes << " of " << on.totalBytes
                                              << ", without " << off.lossyBytes << " of "
                                              << off.totalBytes);
        NS_TEST_EXPECT_MSG_GT(on.pathsFailed, 0u, "the lossy path was never failed");
        NS_TEST_EXPECT_MSG_LT(on.lossyBytes,
                              on.totalBytes / 5,
                              "the lossy uplink carried " << on.lossyBytes << " of "
                                                          << on.totalBytes);
    }
};

class TalbHermesTestSuite : public TestSuite
{
  public:
    TalbHermesTestSuite()
        : TestSuite("talb-hermes", UNIT)
    {
        AddTestCase(new TalbHermesSensingTestCase, TestCase::QUICK);
        AddTestCase(new TalbHermesFabricTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbHermesFabricTestCase(true), TestCase::QUICK);
        AddTestCase(new TalbHermesLossSensingTestCase, TestCase::QUICK);
    }
};

static TalbHermesTestSuite g_talbHermesTestSuite;
