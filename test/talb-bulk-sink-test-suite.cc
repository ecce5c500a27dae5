// TalbBulkSink and talb's TCP readers with packet metadata on, as every suite of an in-tree
// ns-3 test-runner has it (ns-3's ns3tcp suites turn it on at start-up): sprayed flows are read
// in bounded chunks, so releasing a filled hole costs linear, not quadratic, metadata copies.
#include "talb-test-fabric.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <algorithm>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbBulkSinkTestSuite");

/// Four 2 MB TCP flows sprayed per packet (RPS) between two leaves, metadata on.
class TalbBulkSinkChunkTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbBulkSinkChunkTestCase()
        : talbtest::SimulationTestCase(
              "TalbBulkSink: with packet metadata on, four sprayed 2 MB flows complete, read in "
              "chunks of at most TALB_SOCKET_READ_CHUNK bytes")
    {
    }

  private:
    static void Rx(uint32_t* largest, uint64_t* chunks, Ptr<const Packet> p, const Address&)
    {
        *largest = std::max(*largest, p->GetSize());
        ++*chunks;
    }

    void DoRun() override
    {
        Packet::EnablePrinting();
        TalbHostConfig::ApplyDefaults(1500);
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
        f->SetLoadBalancer("rps");
        f->Install();
        f->AssignStreams(1);
        const uint64_t size = 2000000;
        const uint32_t pairs[4][2] = {{0, 2}, {1, 3}, {2, 0}, {3, 1}};
        std::vector<Ptr<TalbBulkSink>> sinks;
        uint32_t largest = 0;
        uint64_t chunks = 0;
        for (uint32_t k = 0; k < 4; ++k)
        {
            uint16_t port = 7000 + k;
            TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), port));
            sinks.push_back(
                DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(pairs[k][1])).Get(0)));
            sinks.back()->TraceConnectWithoutContext("Rx",
                                                     MakeBoundCallback(&Rx, &largest, &chunks));
            BulkSendHelper bulk("ns3::TcpSocketFactory",
                                InetSocketAddress(f->GetHostAddress(pairs[k][1]), port));
            bulk.SetAttribute("MaxBytes", UintegerValue(size));
            bulk.Install(f->GetHost(pairs[k][0])).Start(MicroSeconds(10 + k));
        }
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(sinks[k]->GetTotalRx(), size, "flow " << k << " incomplete");
        }
        NS_TEST_EXPECT_MSG_GT(chunks, 4 * size / TALB_SOCKET_READ_CHUNK, "too few reads");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(largest, TALB_SOCKET_READ_CHUNK, "a read over the chunk");
    }
};

/// The runner's TCP job and background traffic (message channel, background sink) with metadata on.
class TalbBulkSinkScenarioTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbBulkSinkScenarioTestCase()
        : talbtest::SimulationTestCase("TalbBulkSink: with packet metadata on, the runner's TCP "
                                       "job with background over DRILL completes its iterations")
    {
    }

  private:
    void DoRun() override
    {
        Packet::EnablePrinting();
        std::string dir = CreateTempDirFilename("talb-bulk-sink");
        TalbScenario::Result r = RunScenario({{"leaves", "2"},
                                              {"hostsPerLeaf", "2"},
                                              {"spines", "2"},
                                              {"iterations", "1"},
                                              {"warmup", "0"},
                                              {"bgLoad", "0.3"},
                                              {"lb", "drill"},
                                              {"progress", "false"},
                                              {"jobs", "model=resnet50,workers=4"}},
                                             "drill",
                                             dir);
        NS_TEST_EXPECT_MSG_GT(r.iterationsExpected, 0u, "no iterations asked");
        NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, r.iterationsExpected, "the job did not finish");
        NS_TEST_EXPECT_MSG_GT(r.backgroundFlows, 0u, "no background flow completed");
    }
};

class TalbBulkSinkTestSuite : public TestSuite
{
  public:
    TalbBulkSinkTestSuite()
        : TestSuite("talb-bulk-sink", UNIT)
    {
        AddTestCase(new TalbBulkSinkChunkTestCase, TestCase::QUICK);
        AddTestCase(new TalbBulkSinkScenarioTestCase, TestCase::QUICK);
    }
};

static TalbBulkSinkTestSuite g_talbBulkSinkTestSuite;
