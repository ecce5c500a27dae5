// Background traffic: Poisson flows at a target load, every flow delivered and recorded.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <set>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

class FlowLog
{
  public:
    void Started(const TalbFlowRecord& r)
    {
        started.push_back(r);
    }

    void Done(const TalbFlowRecord& r)
    {
        done.push_back(r);
    }

    std::vector<TalbFlowRecord> started;
    std::vector<TalbFlowRecord> done;
};

/**
 * 4 hosts at 1 Gbps, target load 0.3, 100 kB flows for 2 s (about 3000 flows): the offered
 * load (bytes of flows started in the window / (window x hosts x rate)) is within 5 % of the
 * target, and every flow arrives whole and is recorded as background.
 */
class TalbBackgroundLoadTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbBackgroundLoadTestCase()
        : talbtest::SimulationTestCase(
              "background traffic offers the target load within 5% and delivers every flow")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const uint32_t n = 4;
        const double load = 0.3;
        const Time window = Seconds(2);
        ConfigureTcp(9000);
        NodeContainer hosts = StarFabric(n, DataRate("1Gbps"), MicroSeconds(1));
        TalbBackgroundTrafficHelper helper(CreateDataDirFilename("data/talb-constant-100k-cdf.txt"),
                                           load,
                                           "1Gbps");
        helper.SetStartStop(Seconds(0), window);
        ApplicationContainer apps = helper.Install(hosts);
        TalbBackgroundTrafficHelper::AssignStreams(apps, 7);
        FlowLog log;
        for (uint32_t i = 0; i < apps.GetN(); ++i)
        {
            apps.Get(i)->TraceConnectWithoutContext("FlowStarted",
                                                    MakeCallback(&FlowLog::Started, &log));
            apps.Get(i)->TraceConnectWithoutContext("FlowDone", MakeCallback(&FlowLog::Done, &log));
        }
        Simulator::Stop(window + Seconds(1));
        Simulator::Run();

        uint64_t bytes = 0;
        std::set<std::pair<uint32_t, uint32_t>> pairs;
        for (const auto& r : log.started)
        {
            bytes += r.sizeBytes;
            pairs.insert({r.src.Get(), r.dst.Get()});
            NS_TEST_EXPECT_MSG_NE(r.src, r.dst, "a flow to itself");
        }
        double offered = bytes * 8.0 / (window.GetSeconds() * n * 1e9);
        NS_TEST_EXPECT_MSG_EQ_TOL(offered, load, 0.05 * load, "offered load");
        NS_TEST_EXPECT_MSG_EQ(pairs.size(), n * (n - 1), "every ordered pair used");
        NS_TEST_ASSERT_MSG_EQ(log.done.size(), log.started.size(), "flows delivered");
        for (const auto& r : log.done)
        {
            NS_TEST_EXPECT_MSG_EQ(r.sizeBytes, 100000, "flow size");
            NS_TEST_EXPECT_MSG_EQ(r.background, true, "kind");
            NS_TEST_EXPECT_MSG_EQ(r.job, -1, "job of a background flow");
            NS_TEST_EXPECT_MSG_EQ(r.tensor, -1, "tensor of a background flow");
            NS_TEST_EXPECT_MSG_GT(r.end, r.start, "fct");
        }
    }
};

class TalbBackgroundTestSuite : public TestSuite
{
  public:
    TalbBackgroundTestSuite()
        : TestSuite("talb-background", UNIT)
    {
        AddTestCase(new TalbBackgroundLoadTestCase, TestCase::QUICK);
    }
};

static TalbBackgroundTestSuite g_talbBackgroundTestSuite;

} // namespace
