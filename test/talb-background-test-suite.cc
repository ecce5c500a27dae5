// Background traffic: Poisson flows at a target load, every flow delivered and recorded, over
// TCP hosts and over RDMA hosts (one queue pair per flow, destroyed when it is done).
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
 * target, and every flow arrives whole and is recorded as background. Over TCP the hosts sit on
 * a star; over RDMA under one leaf of an RDMA fabric (TalbLeafSpineHelper, Transport rdma),
 * where each flow's records carry the RoCEv2 port and its queue pairs are gone at the end.
 */
class TalbBackgroundLoadTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbBackgroundLoadTestCase(bool rdma)
        : talbtest::SimulationTestCase(std::string("background traffic over ") +
                                       (rdma ? "rdma" : "tcp") +
                                       " offers the target load within 5% and delivers every "
                                       "flow"),
          m_rdma(rdma)
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const uint32_t n = 4;
        const double load = 0.3;
        const Time window = Seconds(2);
        NodeContainer hosts;
        Ptr<TalbLeafSpineHelper> fabric;
        if (m_rdma)
        {
            fabric = CreateObject<TalbLeafSpineHelper>();
            fabric->SetAttribute("Transport", StringValue("rdma"));
            fabric->SetAttribute("Leaves", UintegerValue(1));
            fabric->SetAttribute("HostsPerLeaf", UintegerValue(n));
            fabric->SetAttribute("HostRate", StringValue("1Gbps"));
            fabric->SetAttribute("LinkDelay", TimeValue(MicroSeconds(1)));
            fabric->Install();
            hosts = fabric->GetHosts();
        }
        else
        {
            ConfigureTcp(9000);
            hosts = StarFabric(n, DataRate("1Gbps"), MicroSeconds(1));
        }
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
            if (m_rdma)
            {
                NS_TEST_EXPECT_MSG_EQ(r.dstPort, TalbRoceHeader::UDP_PORT, "RoCEv2 port");
                NS_TEST_EXPECT_MSG_GT(r.srcPort, 0, "queue pair's UDP source port");
            }
        }
        if (m_rdma)
        {
            uint64_t sent = 0;
            for (uint32_t i = 0; i < n; ++i)
            {
                Ptr<TalbRdmaNic> nic = fabric->GetRdmaNic(i);
                NS_TEST_EXPECT_MSG_EQ(nic->GetNQueuePairs(), 0, "queue pairs left behind");
                sent += nic->GetStats().dataPacketsSent;
            }
            // 100 kB in 4096-byte packets: 25 per flow. A few go back: a queue pair that DCQCN
            // cut towards MinRate can take longer than RetransmitTimeout for AckInterval packets.
            NS_TEST_EXPECT_MSG_GT_OR_EQ(sent, 25 * log.done.size(), "data packets sent");
            NS_TEST_EXPECT_MSG_LT(sent, 25 * log.done.size() * 1.001, "data packets resent");
        }
    }

    bool m_rdma;
};

class TalbBackgroundTestSuite : public TestSuite
{
  public:
    TalbBackgroundTestSuite()
        : TestSuite("talb-background", UNIT)
    {
        AddTestCase(new TalbBackgroundLoadTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbBackgroundLoadTestCase(true), TestCase::QUICK);
    }
};

static TalbBackgroundTestSuite g_talbBackgroundTestSuite;

} // namespace
