// Collectives over the RDMA transport ("rdma") through the scenario runner's own configuration
// (TalbScenario, as talb-scenario --transport=rdma builds it): the ring all-reduce of one 100 MB
// tensor on an idle RDMA fabric against its analytic time, at 8 and 16 workers and 10 and
// 100 Gb/s, with flow records in the TCP channel's format; and no go-back-N under ECMP on an
// idle fabric with a queue pair per priority or one queue pair in one traffic class.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cmath>
#include <fstream>
#include <map>
#include <set>
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
class TalbRdmaRingAllReduceAnalytic : public talbtest::SimulationTestCase
{
  public:
    TalbRdmaRingAllReduceAnalytic(uint32_t workers, std::string rate)
        : SimulationTestCase(
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
            RunScenario({{"transport", "rdma"},
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
                        "ecmp",
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
 * What the switch ports queued of each queue pair's data packets (keyed by source address and
 * destination queue pair): the bands the queues gave them (also their PFC priority: the switch's
 * PFC classifies by the same rule), their DSCPs and their TaLB options' priorities.
 */
struct QueuePairClasses
{
    using Key = std::pair<uint32_t, uint32_t>;
    std::map<Key, std::set<uint8_t>> bands;
    std::map<Key, std::set<uint8_t>> dscps;
    std::map<Key, std::set<uint8_t>> labels;
    uint64_t packets{0};

    static void Enqueued(QueuePairClasses* seen,
                         Ptr<TalbPriorityQueue> queue,
                         Ptr<const Packet> packet)
    {
        TalbRoceHeader h;
        packet->PeekHeader(h);
        if (!TalbRoceHeader::IsData(h.GetOpcode()))
        {
            return;
        }
        Key key{h.GetSource().Get(), h.GetDestQp()};
        ++seen->packets;
        seen->bands[key].insert(queue->Classify(packet));
        seen->dscps[key].insert(h.GetTos() >> 2);
        TalbTag tag;
        if (packet->PeekPacketTag(tag))
        {
            seen->labels[key].insert(tag.GetPriority());
        }
    }

    /// Trace every switch port's queue (once the fabric is built).
    void ConnectAll()
    {
        for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
        {
            Ptr<Node> node = NodeList::GetNode(n);
            for (uint32_t d = 0; node->GetObject<TalbSwitch>() && d < node->GetNDevices(); ++d)
            {
                if (auto dev = DynamicCast<TalbPfcNetDevice>(node->GetDevice(d)))
                {
                    dev->GetQueue()->TraceConnectWithoutContext(
                        "Enqueue",
                        MakeBoundCallback(&QueuePairClasses::Enqueued, this, dev->GetQueue()));
                }
            }
        }
    }

    /// \return the largest number of distinct values one queue pair had in \p sets
    static std::size_t MaxPerQueuePair(const std::map<Key, std::set<uint8_t>>& sets)
    {
        std::size_t most = 0;
        for (const auto& kv : sets)
        {
            most = std::max(most, kv.second.size());
        }
        return most;
    }

    /// \return every value of \p sets
    static std::set<uint8_t> All(const std::map<Key, std::set<uint8_t>>& sets)
    {
        std::set<uint8_t> all;
        for (const auto& kv : sets)
        {
            all.insert(kv.second.begin(), kv.second.end());
        }
        return all;
    }
};

/**
 * ECMP never moves a flow, so on an idle lossless fabric nothing can reorder a queue pair's
 * packets but the switches' priority bands. ResNet50's fused buckets mix tensors of several
 * priorities in one message: with one queue pair per channel whose packets take their own
 * tensor's band (rdmaQueuePairs single, rdmaTrafficClass tensor) a later high-priority packet
 * overtakes an earlier low-priority one and the responder NAKs. Neither a queue pair per
 * priority (perPriority, tensor: each queue pair in its priority's class) nor one queue pair in
 * one traffic class (single with a fixed class, NCCL_IB_TC) draws a NAK, an out-of-order packet
 * or a retransmission. With the fixed class every data packet of every queue pair has that
 * class's DSCP and is queued (and PFC-accounted) in its band at every switch, while its TaLB
 * option still carries its own tensor's priority (several per queue pair). Through TalbScenario
 * (talb-scenario --transport=rdma --lb=ecmp --bgLoad=0 --portScheduling=strict, one iteration).
 */
class TalbRdmaPriorityReorderTest : public talbtest::SimulationTestCase
{
  public:
    TalbRdmaPriorityReorderTest()
        : SimulationTestCase(
              "TalbRdmaPriorityReorderTest: ECMP on an idle RDMA fabric: no NAK with a queue "
              "pair per priority or one queue pair in one traffic class, NAKs with one queue "
              "pair whose packets change band")
    {
    }

  private:
    TalbScenario::Result Run(const std::string& queuePairs,
                             const std::string& trafficClass,
                             QueuePairClasses* seen)
    {
        TalbScenario::Result r =
            RunScenario({{"transport", "rdma"},
                         {"portScheduling", "strict"},
                         {"jobs", "workers=8,scheduler=fusion"},
                         {"rdmaQueuePairs", queuePairs},
                         {"rdmaTrafficClass", trafficClass},
                         {"iterations", "1"},
                         {"warmup", "0"},
                         {"bgLoad", "0"},
                         {"progress", "false"}},
                        "ecmp",
                        CreateTempDirFilename("reorder-" + queuePairs + "-" + trafficClass),
                        [seen]() { seen->ConnectAll(); });
        NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, 8, "every worker finished its iteration");
        NS_TEST_EXPECT_MSG_GT(seen->packets, 10000, "data packets seen at the switches");
        return r;
    }

    void ExpectNoGoBackN(const TalbScenario::Result& r, const std::string& mode)
    {
        NS_TEST_EXPECT_MSG_EQ(r.rdma.naks, 0, mode << ": NAKs");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.outOfOrder, 0, mode << ": out-of-order packets");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.retransmittedBytes, 0, mode << ": retransmitted bytes");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.timeouts, 0, mode << ": timeouts");
    }

    void DoRun() override
    {
        using C = QueuePairClasses;
        C perPriority;
        ExpectNoGoBackN(Run("perPriority", "tensor", &perPriority), "queue pair per priority");
        NS_TEST_EXPECT_MSG_EQ(C::MaxPerQueuePair(perPriority.bands), 1, "bands of a queue pair");

        C fixed;
        ExpectNoGoBackN(Run("single", "3", &fixed), "one queue pair in class 3");
        NS_TEST_EXPECT_MSG_EQ(C::All(fixed.bands).size(), 1, "one band for every queue pair");
        NS_TEST_EXPECT_MSG_EQ(+*C::All(fixed.bands).begin(), 3, "... the fixed class's");
        NS_TEST_EXPECT_MSG_EQ(C::All(fixed.dscps).size(), 1, "one DSCP for every queue pair");
        NS_TEST_EXPECT_MSG_EQ(+*C::All(fixed.dscps).begin(),
                              +talb_dscp_from_priority(3),
                              "... the fixed class's");
        NS_TEST_EXPECT_MSG_GT(C::MaxPerQueuePair(fixed.labels),
                              1,
                              "a queue pair's TaLB options carry several tensor priorities");
        NS_TEST_EXPECT_MSG_GT(C::All(fixed.labels).size(), 4, "tensor priorities in the options");

        C single;
        TalbScenario::Result r = Run("single", "tensor", &single);
        NS_TEST_EXPECT_MSG_GT(r.rdma.naks, 10, "NAKs with one queue pair of many bands");
        NS_TEST_EXPECT_MSG_GT(r.rdma.outOfOrder, r.rdma.naks, "out-of-order packets");
        NS_TEST_EXPECT_MSG_GT(C::MaxPerQueuePair(single.bands), 1, "bands of a queue pair");
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
