// Collectives over the RDMA transport ("rdma"): the ring all-reduce of one 100 MB tensor on an
// idle RDMA fabric against its analytic time, at 8 and 16 workers and 10 and 100 Gb/s, with
// flow records in the TCP channel's format.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cmath>

using namespace ns3;
using namespace ns3::talbtest;

/**
 * One tensor of S bytes, ring all-reduce among N workers under one leaf of an RDMA fabric
 * (TalbLeafSpineHelper, Transport rdma). Each step sends m = S/N + 16 bytes (chunk and frame
 * header) as one RDMA SEND of p = ceil(m / MTU) packets, each carrying 82 bytes of IPv4, UDP,
 * BTH, ICRC, Ethernet and PHY overhead; the next step starts when the chunk has arrived:
 *   T = 2(N-1) * [ (m + 82 p) * 8/B + (MTU + 82) * 8/B + 2 d ]
 * (serialisation on the sender's link, store-and-forward of the last full packet at the leaf,
 * propagation over both links). The measured time must be within 2 %.
 */
class TalbRdmaRingAllReduceAnalytic : public TestCase
{
  public:
    TalbRdmaRingAllReduceAnalytic(uint32_t workers, std::string rate)
        : TestCase("TalbRdmaRingAllReduceAnalytic: 100 MB among " + std::to_string(workers) +
                   " workers at " + rate + " over rdma within 2 % of the analytic time"),
          m_workers(workers),
          m_rate(rate)
    {
    }

  private:
    void DoRun() override
    {
        const uint64_t s = 100000000; // 25e6 fp32 parameters
        const Time delay = MicroSeconds(1);
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("Leaves", UintegerValue(1));
        f->SetAttribute("HostsPerLeaf", UintegerValue(m_workers));
        f->SetAttribute("HostRate", StringValue(m_rate));
        f->SetAttribute("LinkDelay", TimeValue(delay));
        f->Install();
        const uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({s / 4}, 500000, 500000));
        helper.SetJobAttribute("Iterations", UintegerValue(1));
        helper.SetTransport("rdma");
        ApplicationContainer apps = helper.Install(f->GetHosts());
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        JobRecorder rec;
        rec.Attach(job);
        bool finished = RunJob(job, Seconds(10));

        NS_TEST_ASSERT_MSG_EQ(finished, true, "job did not finish");
        NS_TEST_ASSERT_MSG_EQ(rec.tensors.size(), 1, "one tensor record");
        double measured = (rec.tensors[0].done - rec.tensors[0].ready).GetSeconds();
        const uint32_t overhead = TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES +
                                  TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
        double m = double(s) / m_workers + TALB_FRAME_LEN;
        double wire = m + std::ceil(m / mtu) * overhead;
        double bits = 8.0 / DataRate(m_rate).GetBitRate();
        double step = wire * bits + (mtu + overhead) * bits + 2 * delay.GetSeconds();
        double expected = 2 * (m_workers - 1) * step;
        NS_TEST_EXPECT_MSG_EQ_TOL(measured,
                                  expected,
                                  0.02 * expected,
                                  "ring all-reduce time off the analytic bound");
        NS_TEST_ASSERT_MSG_EQ(rec.flows.size(), 2 * (m_workers - 1) * m_workers, "messages");
        for (const auto& r : rec.flows)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(r.sizeBytes), m, 1.0, "chunk size is S/N + header");
            NS_TEST_EXPECT_MSG_EQ(r.dstPort, TalbRoceHeader::UDP_PORT, "RoCEv2 port");
            NS_TEST_EXPECT_MSG_EQ(r.job, 0, "job of the flow");
        }
    }

    uint32_t m_workers;
    std::string m_rate;
};

class TalbRdmaCollectiveTestSuite : public TestSuite
{
  public:
    TalbRdmaCollectiveTestSuite()
        : TestSuite("talb-rdma-collective", UNIT)
    {
        for (uint32_t n : {8, 16})
        {
            for (const char* rate : {"10Gbps", "100Gbps"})
            {
                AddTestCase(new TalbRdmaRingAllReduceAnalytic(n, rate), TestCase::QUICK);
            }
        }
    }
};

static TalbRdmaCollectiveTestSuite g_talbRdmaCollectiveTestSuite;
