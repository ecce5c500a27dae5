// ECMP (TalbEcmpLb): a flow's packets keep one port, chosen by hashing its 5-tuple.
#include "talb-lb-test-util.h"

#include "ns3/test.h"

#include <map>
#include <vector>

using namespace ns3;
using namespace ns3::talbtest;

/// A flow keeps its port whatever the queues hold; 400 flows spread over 4 ports.
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
        lb->TraceConnectWithoutContext(
            "PathSelected",
            MakeBoundCallback(
                +[](uint64_t* n, const TalbPacketContext&, uint32_t) { ++*n; },
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
        NS_TEST_EXPECT_MSG_EQ(traced, lb->GetStats().nSelections, "trace vs stats");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nUntaggedSelections, 400u * 21, "selections");
        NS_TEST_EXPECT_MSG_EQ(lb->GetStats().nReroutes, 0, "ECMP never reroutes");
    }
};

/// Salt 0 derives a per-switch salt: two switches split the same flows differently.
class TalbEcmpPerSwitchSaltTestCase : public TestCase
{
  public:
    TalbEcmpPerSwitchSaltTestCase()
        : TestCase("TalbEcmpPerSwitchSalt: switches with different ids hash flows differently")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch a(4);
        FakeSwitch b(4);
        Ptr<TalbLoadBalancer> lbA = a.Make("ecmp");
        ObjectFactory f;
        f.SetTypeId("ns3::TalbEcmpLb");
        Ptr<TalbLoadBalancer> lbB = f.Create<TalbLoadBalancer>();
        TalbSwitchInfo info;
        info.switchId = 8;
        info.nLeaves = 2;
        info.nSpines = 4;
        lbB->Attach(info, &b.ports);
        uint32_t differ = 0;
        for (uint32_t flow = 0; flow < 200; ++flow)
        {
            TalbPacketContext c = Ctx(TalbMix32(flow), Seconds(0));
            differ += lbA->SelectPath(c, a.Candidates()) != lbB->SelectPath(c, b.Candidates());
        }
        NS_TEST_EXPECT_MSG_GT(differ, 100u, "the salt does not decorrelate switches");
    }
};

/**
 * Salt 0 also derives from the RNG seed and run: another run hashes the same flows onto other
 * ports (so ECMP's results vary across seeds), the same run onto the same ones.
 */
class TalbEcmpRunSaltTestCase : public TestCase
{
  public:
    TalbEcmpRunSaltTestCase()
        : TestCase("TalbEcmpRunSalt: runs 1 and 2 hash 200 flows differently, run 1 twice alike")
    {
    }

  private:
    /// \return the ports of 200 flows at a fresh switch (same node id) under RNG run \p run
    static std::vector<uint32_t> Ports(uint64_t run)
    {
        RngSeedManager::SetRun(run);
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> lb = sw.Make("ecmp");
        std::vector<uint32_t> ports;
        for (uint32_t flow = 0; flow < 200; ++flow)
        {
            TalbPacketContext c = Ctx(TalbMix32(flow), Seconds(0));
            ports.push_back(lb->SelectPath(c, sw.Candidates()));
        }
        return ports;
    }

    void DoRun() override
    {
        const uint64_t saved = RngSeedManager::GetRun();
        std::vector<uint32_t> run1 = Ports(1);
        std::vector<uint32_t> run2 = Ports(2);
        std::vector<uint32_t> run1Again = Ports(1);
        RngSeedManager::SetRun(saved);
        uint32_t differ = 0;
        for (std::size_t i = 0; i < run1.size(); ++i)
        {
            differ += run1[i] != run2[i];
        }
        NS_TEST_EXPECT_MSG_GT(differ, 100u, "runs 1 and 2 hash flows alike");
        NS_TEST_EXPECT_MSG_EQ((run1 == run1Again), true, "the same run hashes flows differently");
        NS_TEST_EXPECT_MSG_NE(TalbEcmpLb::GetRunKey(), 0u, "run 1 keys no salt");
    }
};

/// On a fabric, one TCP flow's packets all take one uplink.
class TalbEcmpFabricPinsFlowTestCase : public SimulationTestCase
{
  public:
    TalbEcmpFabricPinsFlowTestCase()
        : SimulationTestCase("TalbEcmpFabricPinsFlow: one flow stays on one of 2 uplinks")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> up;
        RunSingleFlow("ecmp", &up);
        NS_TEST_ASSERT_MSG_GT(up[0] + up[1], 200u, "flow did not run");
        NS_TEST_EXPECT_MSG_EQ(std::min(up[0], up[1]), 0, "one flow split over two uplinks");
    }
};

/// The talb-ecmp suite.
class TalbEcmpTestSuite : public TestSuite
{
  public:
    TalbEcmpTestSuite()
        : TestSuite("talb-ecmp", UNIT)
    {
        AddTestCase(new TalbEcmpFlowStickyTestCase, TestCase::QUICK);
        AddTestCase(new TalbEcmpPerSwitchSaltTestCase, TestCase::QUICK);
        AddTestCase(new TalbEcmpRunSaltTestCase, TestCase::QUICK);
        AddTestCase(new TalbEcmpFabricPinsFlowTestCase, TestCase::QUICK);
    }
};

static TalbEcmpTestSuite g_talbEcmpTestSuite; //!< the suite's instance
