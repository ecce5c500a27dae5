// RPS (TalbRpsLb): every packet takes a port at random.
#include "talb-lb-test-util.h"

#include "ns3/test.h"

#include <map>

using namespace ns3;
using namespace ns3::talbtest;

/// One flow's packets go to every port, evenly.
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

/// AssignStreams fixes the choices: two balancers on the same stream choose alike.
class TalbRpsStreamsRepeatTestCase : public TestCase
{
  public:
    TalbRpsStreamsRepeatTestCase()
        : TestCase("TalbRpsStreamsRepeat: the same stream gives the same sequence of ports")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch a(4);
        FakeSwitch b(4);
        Ptr<TalbLoadBalancer> lbA = a.Make("rps");
        Ptr<TalbLoadBalancer> lbB = b.Make("rps");
        TalbPacketContext c = Ctx(42, Seconds(0));
        for (int k = 0; k < 100; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(lbA->SelectPath(c, a.Candidates()),
                                  lbB->SelectPath(c, b.Candidates()),
                                  "packet " << k);
        }
    }
};

/// On a fabric, one TCP flow's packets use both uplinks.
class TalbRpsFabricSpraysFlowTestCase : public SimulationTestCase
{
  public:
    TalbRpsFabricSpraysFlowTestCase()
        : SimulationTestCase("TalbRpsFabricSpraysFlow: one flow uses both of 2 uplinks")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> up;
        RunSingleFlow("rps", &up);
        uint64_t total = up[0] + up[1];
        NS_TEST_ASSERT_MSG_GT(total, 200u, "flow did not run");
        NS_TEST_EXPECT_MSG_GT(std::min(up[0], up[1]), total / 4, "one flow not sprayed");
    }
};

/// The talb-rps suite.
class TalbRpsTestSuite : public TestSuite
{
  public:
    TalbRpsTestSuite()
        : TestSuite("talb-rps", UNIT)
    {
        AddTestCase(new TalbRpsSpraysTestCase, TestCase::QUICK);
        AddTestCase(new TalbRpsStreamsRepeatTestCase, TestCase::QUICK);
        AddTestCase(new TalbRpsFabricSpraysFlowTestCase, TestCase::QUICK);
    }
};

static TalbRpsTestSuite g_talbRpsTestSuite; //!< the suite's instance
