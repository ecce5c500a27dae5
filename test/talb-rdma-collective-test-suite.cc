// Collectives over the RDMA transport ("rdma") through the scenario runner's own configuration
// (TalbScenario, as talb-scenario --transport=rdma builds it): the ring all-reduce of one 100 MB
// tensor on an idle RDMA fabric against its analytic time, at 8 and 16 workers and 10 and
// 100 Gb/s, with flow records in the TCP channel's format; and no go-back-N under ECMP on an
// idle fabric with a queue pair per priority.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

using namespace ns3;

namespace
{

/// Rows of a CSV file with a header line, as column name -> value maps.
std::vector<std::map<std::string, std::string>>
ReadCsv(const std::string& path)
{
    std::vector<std::map<std::string, std::string>> rows;
    std::ifstream in(path);
    std::string line;
    std::vector<std::string> names;
    auto split = [](const std::string& text) {
        std::vector<std::string> fields;
        std::stringstream ss(text);
        std::string field;
        while (std::getline(ss, field, ','))
        {
            fields.push_back(field);
        }
        return fields;
    };
    if (std::getline(in, line))
    {
        names = split(line);
    }
    while (std::getline(in, line))
    {
        std::vector<std::string> fields = split(line);
        std::map<std::string, std::string> row;
        for (std::size_t i = 0; i < fields.size() && i < names.size(); ++i)
        {
            row[names[i]] = fields[i];
        }
        rows.push_back(row);
    }
    return rows;
}

/// A test case that runs the scenario runner's own configuration (TalbScenario) with ecmp.
class TalbRdmaScenarioTestCase : public TestCase
{
  protected:
    using TestCase::TestCase;

    /// \return the result of \p params (talb-scenario parameters) run with lb ecmp into \p out
    TalbScenario::Result RunEcmp(const std::vector<std::pair<std::string, std::string>>& params,
                                 const std::string& out)
    {
        TalbScenarioConfig config;
        TalbScenario::DeclareParameters(config);
        for (const auto& kv : params)
        {
            std::string error = config.Set(kv.first, kv.second, "test");
            NS_TEST_EXPECT_MSG_EQ(error, "", "parameter " << kv.first);
        }
        NS_TEST_EXPECT_MSG_EQ(config.Set("out", out, "test"), "", "parameter out");
        TalbScenario::Spec spec;
        std::vector<std::string> errors;
        bool parsed = TalbScenario::Parse(config, &spec, &errors);
        NS_TEST_EXPECT_MSG_EQ(parsed, true, (errors.empty() ? "" : errors[0]));
        TalbScenario::Result r = TalbScenario::Run(spec, "ecmp", out);
        Config::Reset();
        return r;
    }
};

/**
 * One tensor of S = 100 MB (test/data/talb-one-tensor-model.csv), ring all-reduce among N
 * workers under one leaf of the runner's RDMA fabric (talb-scenario --transport=rdma --leaves=1
 * --hostsPerLeaf=N --scheduler wfbp, everything else the runner's defaults). Each step sends
 * m = S/N + 16 bytes (chunk and frame header) as one RDMA SEND of p = ceil(m / MTU) packets,
 * each carrying 82 bytes of IPv4, UDP, BTH, ICRC, Ethernet and PHY overhead; the next step starts
 * when the chunk has arrived:
 *   T = 2(N-1) * [ (m + 82 p) * 8/B + (MTU + 82) * 8/B + 2 d ]
 * (serialisation on the sender's link, store-and-forward of the last full packet at the leaf,
 * propagation over both links). The tensor's comm_ns in tensors.csv must be within 2 %.
 */
class TalbRdmaRingAllReduceAnalytic : public TalbRdmaScenarioTestCase
{
  public:
    TalbRdmaRingAllReduceAnalytic(uint32_t workers, std::string rate)
        : TalbRdmaScenarioTestCase(
              "TalbRdmaRingAllReduceAnalytic: talb-scenario --transport=rdma, 100 MB among " +
              std::to_string(workers) + " workers at " + rate + " within 2 % of the analytic time"),
          m_workers(workers),
          m_rate(rate)
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const uint64_t s = 100000000;
        const Time delay = MicroSeconds(1);
        const std::string out =
            CreateTempDirFilename("ring-" + std::to_string(m_workers) + "-" + m_rate);
        TalbScenario::Result r =
            RunEcmp({{"transport", "rdma"},
                     {"leaves", "1"},
                     {"hostsPerLeaf", std::to_string(m_workers)},
                     {"hostRate", m_rate},
                     {"linkDelay", "1us"},
                     {"model", CreateDataDirFilename("data/talb-one-tensor-model.csv")},
                     {"jobs", "workers=" + std::to_string(m_workers) + ",scheduler=wfbp"},
                     {"iterations", "1"},
                     {"warmup", "0"},
                     {"bgLoad", "0"},
                     {"progress", "false"}},
                    out);
        NS_TEST_ASSERT_MSG_EQ(r.iterationsDone, m_workers, "every worker finished its iteration");
        auto tensors = ReadCsv(out + "/tensors.csv");
        NS_TEST_ASSERT_MSG_EQ(tensors.size(), 1, "one tensor record");
        NS_TEST_ASSERT_MSG_EQ(tensors[0]["bytes"], std::to_string(s), "tensor bytes");
        double measured = std::stod(tensors[0]["comm_ns"]) * 1e-9;
        const uint32_t mtu = 4096; // the NIC's default payload MTU, which the runner keeps
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
        auto flows = ReadCsv(out + "/flows.csv");
        NS_TEST_ASSERT_MSG_EQ(flows.size(), 2 * (m_workers - 1) * m_workers, "messages");
        for (auto& f : flows)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(std::stod(f["size_bytes"]),
                                      m,
                                      1.0,
                                      "chunk size is S/N + header");
            NS_TEST_EXPECT_MSG_EQ(f["dst_port"], "4791", "RoCEv2 port");
            NS_TEST_EXPECT_MSG_EQ(f["kind"], "tensor", "kind of the flow");
            NS_TEST_EXPECT_MSG_EQ(f["job"], "0", "job of the flow");
        }
    }

    uint32_t m_workers;
    std::string m_rate;
};

/**
 * ECMP never moves a flow, so on an idle lossless fabric nothing can reorder a queue pair's
 * packets but the switches' priority bands. ResNet50's fused buckets mix tensors of several
 * priorities in one message: with one queue pair per channel whose packets take their own
 * tensor's band (QueuePairs Single) a later high-priority packet overtakes an earlier
 * low-priority one and the responder NAKs; with one queue pair per priority (the default: each
 * queue pair in one traffic class, as RoCE NICs set it) there is no NAK, no out-of-order packet
 * and no retransmission. Through TalbScenario (talb-scenario --transport=rdma --lb=ecmp
 * --bgLoad=0 --portScheduling=strict, one iteration).
 */
class TalbRdmaPriorityReorderTest : public TalbRdmaScenarioTestCase
{
  public:
    TalbRdmaPriorityReorderTest()
        : TalbRdmaScenarioTestCase(
              "TalbRdmaPriorityReorderTest: ECMP on an idle RDMA fabric: no NAK with a queue "
              "pair per priority, NAKs with one queue pair whose packets change band")
    {
    }

  private:
    TalbScenario::Result Run(const std::string& queuePairs)
    {
        TalbScenario::Result r =
            RunEcmp({{"transport", "rdma"},
                     {"portScheduling", "strict"},
                     {"jobs", "workers=8,scheduler=fusion,trans.QueuePairs=" + queuePairs},
                     {"iterations", "1"},
                     {"warmup", "0"},
                     {"bgLoad", "0"},
                     {"progress", "false"}},
                    CreateTempDirFilename("reorder-" + queuePairs));
        NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, 8, "every worker finished its iteration");
        return r;
    }

    void DoRun() override
    {
        TalbScenario::Result perPriority = Run("PerPriority");
        NS_TEST_EXPECT_MSG_EQ(perPriority.rdma.naks, 0, "NAKs with a queue pair per priority");
        NS_TEST_EXPECT_MSG_EQ(perPriority.rdma.outOfOrder, 0, "out-of-order packets");
        NS_TEST_EXPECT_MSG_EQ(perPriority.rdma.retransmittedBytes, 0, "retransmitted bytes");
        NS_TEST_EXPECT_MSG_EQ(perPriority.rdma.timeouts, 0, "timeouts");

        TalbScenario::Result single = Run("Single");
        NS_TEST_EXPECT_MSG_GT(single.rdma.naks, 10, "NAKs with one queue pair of many bands");
        NS_TEST_EXPECT_MSG_GT(single.rdma.outOfOrder, single.rdma.naks, "out-of-order packets");
    }
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
        AddTestCase(new TalbRdmaPriorityReorderTest(), TestCase::QUICK);
    }
};

static TalbRdmaCollectiveTestSuite g_talbRdmaCollectiveTestSuite;

} // namespace
