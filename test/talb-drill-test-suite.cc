// DRILL (TalbDrillLb): each packet takes the least-queued of d sampled ports and m remembered.
#include "talb-lb-test-util.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::talbtest;

/// Packets avoid a port with a standing queue.
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
        NS_TEST_EXPECT_MSG_LT_OR_EQ(onLoaded, 1u, "DRILL used the loaded port");
    }
};

/// Without memory (m=0) and one sample (d=1), DRILL is random: it uses the loaded port too.
class TalbDrillMemorylessTestCase : public TestCase
{
  public:
    TalbDrillMemorylessTestCase()
        : TestCase("TalbDrillMemoryless: d=1, m=0 is random and hits the loaded port")
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TalbDrillLb::Samples", UintegerValue(1));
        Config::SetDefault("ns3::TalbDrillLb::Memory", UintegerValue(0));
        FakeSwitch sw(2);
        sw.Fill(1, 60000);
        Ptr<TalbLoadBalancer> lb = sw.Make("drill");
        Config::Reset();
        TalbPacketContext c = Ctx(5, Seconds(0));
        uint32_t onLoaded = 0;
        for (int k = 0; k < 1000; ++k)
        {
            onLoaded += lb->SelectPath(c, sw.Candidates()) == 1;
        }
        NS_TEST_EXPECT_MSG_GT(onLoaded, 400u, "d=1 without memory should be random");
        NS_TEST_EXPECT_MSG_LT(onLoaded, 600u, "d=1 without memory should be random");
    }
};

/// On a fabric, a slow local uplink keeps a queue; DRILL sends most packets on the fast one.
class TalbDrillFabricAvoidsSlowLinkTestCase : public SimulationTestCase
{
  public:
    TalbDrillFabricAvoidsSlowLinkTestCase()
        : SimulationTestCase("TalbDrillFabricAvoidsSlowLink: most packets avoid a 1 Gbps uplink")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> up;
        RunAroundSlowLink("drill", false, &up);
        uint64_t total = up[0] + up[1];
        NS_TEST_ASSERT_MSG_GT(total, 1000u, "flows did not run");
        NS_TEST_EXPECT_MSG_GT(up[0],
                              total * 7 / 10,
                              "fast uplink got " << up[0] << " of " << total);
    }
};

/// The talb-drill suite.
class TalbDrillTestSuite : public TestSuite
{
  public:
    TalbDrillTestSuite()
        : TestSuite("talb-drill", UNIT)
    {
        AddTestCase(new TalbDrillAvoidsLoadTestCase, TestCase::QUICK);
        AddTestCase(new TalbDrillMemorylessTestCase, TestCase::QUICK);
        AddTestCase(new TalbDrillFabricAvoidsSlowLinkTestCase, TestCase::QUICK);
    }
};

static TalbDrillTestSuite g_talbDrillTestSuite; //!< the suite's instance
