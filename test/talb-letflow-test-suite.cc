// LetFlow (TalbLetFlowLb): a flowlet keeps its port; a new flowlet takes a random one.
#include "talb-lb-test-util.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::talbtest;

/// The port changes only after a gap longer than FlowletTimeout, and then often does.
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
        TalbPacketContext c = Ctx(99, Seconds(1));
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
        NS_TEST_EXPECT_MSG_GT(changesAtGap, 50u, "new flowlets should often change port");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nReroutes, changesAtGap, "reroutes = changes");
    }
};

/// A flowlet whose port left the candidates (a failed link) moves at once.
class TalbLetFlowFailedPortTestCase : public TestCase
{
  public:
    TalbLetFlowFailedPortTestCase()
        : TestCase("TalbLetFlowFailedPort: a flowlet leaves a port that is no candidate")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(3);
        Ptr<TalbLoadBalancer> lb = sw.Make("letflow");
        TalbPacketContext c = Ctx(7, Seconds(1));
        uint32_t port = lb->SelectPath(c, sw.Candidates());
        std::vector<uint32_t> survivors;
        for (uint32_t p : sw.uplinks)
        {
            if (p != port)
            {
                survivors.push_back(p);
            }
        }
        c.now += MicroSeconds(1); // well within the flowlet timeout
        uint32_t moved = lb->SelectPath(c, TalbCandidates{survivors.data(), 2});
        NS_TEST_EXPECT_MSG_NE(moved, port, "stayed on a failed port");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nReroutes, 1, "the move is a reroute");
        c.now += MicroSeconds(1);
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), moved, "the flowlet moved back");
    }
};

/// FlowletPick=LeastQueued, set as TaLB's go-back-N fallback gets it (the attribute's default):
/// no new flowlet starts on the loaded port, and a flowlet stays where it started.
class TalbLetFlowLeastQueuedTestCase : public TestCase
{
  public:
    TalbLetFlowLeastQueuedTestCase()
        : TestCase("TalbLetFlowLeastQueued: new flowlets avoid a loaded port, flowlets stay whole")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TalbLetFlowLb::FlowletPick", StringValue("LeastQueued"));
        FakeSwitch sw(3);
        Ptr<TalbLoadBalancer> lb = sw.Make("letflow");
        Config::Reset();
        sw.Fill(sw.uplinks[0], 60000);
        TalbPacketContext c = Ctx(1, Seconds(1));
        uint32_t onLoaded = 0;
        for (int flow = 0; flow < 200; ++flow)
        {
            c.flowHash = flow;
            onLoaded += lb->SelectPath(c, sw.Candidates()) == sw.uplinks[0];
        }
        NS_TEST_EXPECT_MSG_EQ(onLoaded, 0u, "a new flowlet started on the loaded port");
        // Within its flowlet a flow keeps its port even once that port is the loaded one.
        c.flowHash = 7;
        uint32_t port = lb->SelectPath(c, sw.Candidates());
        sw.Fill(port, 60000);
        c.now += MicroSeconds(1);
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(c, sw.Candidates()), port, "moved within a flowlet");
    }
};

/// On a fabric, one connection's bursts 400 us apart change uplink only across the gaps.
class TalbLetFlowFabricFlowletsTestCase : public SimulationTestCase
{
  public:
    TalbLetFlowFabricFlowletsTestCase()
        : SimulationTestCase(
              "TalbLetFlowFabricFlowlets: one flow's bursts change uplink only across gaps > 100us")
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
        TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), 5100));
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
        NS_TEST_EXPECT_MSG_GT(changes, 5u, "new flowlets never changed path");
    }
};

/// The talb-letflow suite.
class TalbLetFlowTestSuite : public TestSuite
{
  public:
    TalbLetFlowTestSuite()
        : TestSuite("talb-letflow", UNIT)
    {
        AddTestCase(new TalbLetFlowGapTestCase, TestCase::QUICK);
        AddTestCase(new TalbLetFlowFailedPortTestCase, TestCase::QUICK);
        AddTestCase(new TalbLetFlowLeastQueuedTestCase, TestCase::QUICK);
        AddTestCase(new TalbLetFlowFabricFlowletsTestCase, TestCase::QUICK);
    }
};

static TalbLetFlowTestSuite g_talbLetFlowTestSuite; //!< the suite's instance
