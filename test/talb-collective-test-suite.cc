// Collectives over real TCP: the ring all-reduce against its analytic time, the bytes each
// pattern moves, and the tensor byte tags' FIRST / LAST markers.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <set>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/**
 * One 100 MB tensor, ring all-reduce among 8 workers on an idle non-blocking star at 100 Gb/s.
 * Tested formula (doc/talb-generator.rst): with m = S/N + 16 application bytes per step (the
 * chunk and its header), MSS = MTU - 52 and 54 bytes of IPv4/TCP/PPP overhead per packet,
 *   T = 2(N-1) * [ (m + ceil(m/MSS) * 54) * 8/B  +  2 d  +  (MSS + 54) * 8/B ]
 * i.e. per step the chunk's serialisation on the sender's link, the propagation of its last
 * packet over both links and that packet's store-and-forward at the router; the next step
 * starts when the previous one has arrived. The measured comm time must be within 5 %.
 */
class TalbRingAllReduceAnalyticTestCase : public TestCase
{
  public:
    TalbRingAllReduceAnalyticTestCase()
        : TestCase("ring all-reduce of one 100 MB tensor among 8 workers is within 5% of the "
                   "analytic time")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 8;
        const uint32_t mtu = 9000;
        const uint64_t s = 100000000; // 25e6 fp32 parameters
        const DataRate rate("100Gbps");
        const Time delay = MicroSeconds(1);
        ConfigureTcp(mtu);
        NodeContainer hosts = StarFabric(n, rate, delay);
        TalbTrainingJobHelper helper;
        // 1 ms of compute before the gradient is ready: the connections are up by then.
        helper.SetModel(SyntheticModel({s / 4}, 500000, 500000));
        helper.SetJobAttribute("Iterations", UintegerValue(1));
        ApplicationContainer apps = helper.Install(hosts);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        JobRecorder rec;
        rec.Attach(job);
        NS_TEST_ASSERT_MSG_EQ(RunJob(job, Seconds(1)), true, "job did not finish");

        NS_TEST_ASSERT_MSG_EQ(rec.tensors.size(), 1, "one tensor record");
        double measured = (rec.tensors[0].done - rec.tensors[0].ready).GetSeconds();
        const uint32_t mss = mtu - 52;
        double m = double(s) / n + TALB_FRAME_LEN;
        double wire = m + std::ceil(m / mss) * PACKET_OVERHEAD;
        double bits = 8.0 / rate.GetBitRate();
        double step = wire * bits + 2 * delay.GetSeconds() + (mss + PACKET_OVERHEAD) * bits;
        double expected = 2 * (n - 1) * step;
        NS_TEST_EXPECT_MSG_EQ_TOL(measured,
                                  expected,
                                  0.05 * expected,
                                  "ring all-reduce time off the analytic bound");
        // 2(N-1) messages of S/N (+ header) per worker.
        NS_TEST_ASSERT_MSG_EQ(rec.flows.size(), 2 * (n - 1) * n, "messages sent");
        for (const auto& f : rec.flows)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(f.sizeBytes), m, 1.0, "chunk size is S/N + header");
        }
    }
};

/// Sums payload bytes of messages by direction (worker -> server, server -> worker).
class TalbParameterServerBytesTestCase : public TestCase
{
  public:
    TalbParameterServerBytesTestCase(uint32_t servers)
        : TestCase(servers ? "parameter server with 2 dedicated servers moves 2 N S bytes"
                           : "colocated parameter server moves 2 (N-1) S bytes"),
          m_servers(servers)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        const uint64_t s = 4000000;
        ConfigureTcp(9000);
        NodeContainer all = StarFabric(n + m_servers, DataRate("10Gbps"), MicroSeconds(1));
        NodeContainer workers;
        NodeContainer servers;
        for (uint32_t i = 0; i < all.GetN(); ++i)
        {
            (i < n ? workers : servers).Add(all.Get(i));
        }
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({s / 4}, 100000, 100000));
        helper.SetJobAttribute("Iterations", UintegerValue(2));
        helper.SetCollective("ps");
        if (m_servers)
        {
            helper.SetParameterServers(servers);
        }
        ApplicationContainer apps = helper.Install(workers);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        JobRecorder rec;
        rec.Attach(job);
        std::set<Ipv4Address> serverAddrs;
        for (uint32_t i = 0; i < servers.GetN(); ++i)
        {
            serverAddrs.insert(TalbTransport::GetHostAddress(servers.Get(i)));
        }
        NS_TEST_ASSERT_MSG_EQ(RunJob(job, Seconds(1)), true, "job did not finish");

        uint64_t push = 0; // to a dedicated server
        uint64_t total = 0;
        uint64_t messages = rec.flows.size();
        for (const auto& f : rec.flows)
        {
            uint64_t payload = f.sizeBytes - TALB_FRAME_LEN;
            total += payload;
            push += serverAddrs.count(f.dst) ? payload : 0;
        }
        const uint64_t iterations = 2;
        if (m_servers)
        {
            // Every worker pushes S (sharded over the servers) and pulls S back.
            NS_TEST_EXPECT_MSG_EQ(push, iterations * n * s, "bytes pushed");
            NS_TEST_EXPECT_MSG_EQ(total - push, iterations * n * s, "bytes pulled");
            NS_TEST_EXPECT_MSG_EQ(messages, iterations * 2 * n * m_servers, "messages");
        }
        else
        {
            // N shards; each worker's own shard stays local.
            NS_TEST_EXPECT_MSG_EQ(total, iterations * 2 * (n - 1) * s, "bytes moved");
            NS_TEST_EXPECT_MSG_EQ(messages, iterations * 2 * n * (n - 1), "messages");
        }
        NS_TEST_EXPECT_MSG_EQ(rec.tensors.size(), iterations, "one tensor record per iteration");
    }

    uint32_t m_servers;
};

/// Counts the FIRST / LAST byte-tag markers every TCP data segment carries, per tensor id.
class MarkerCounter
{
  public:
    void Tx(Ptr<const Packet> segment, const TcpHeader&, Ptr<const TcpSocketBase>)
    {
        static const TypeId tid = TalbTensorByteTag::GetTypeId();
        ByteTagIterator it = segment->GetByteTagIterator();
        TalbTensorByteTag tag;
        bool tagged = false;
        while (it.HasNext())
        {
            ByteTagIterator::Item item = it.Next();
            if (item.GetTypeId() != tid)
            {
                continue;
            }
            item.GetTag(tag);
            if (tag.GetFlags() & TALB_FLAG_FIRST)
            {
                ++first[tag.GetTensorId()];
            }
            if (tag.GetFlags() & TALB_FLAG_LAST)
            {
                ++last[tag.GetTensorId()];
            }
            if (tag.GetFlags() == 0)
            {
                tagged = true;
            }
        }
        if (segment->GetSize() > 0 && !tagged)
        {
            untagged = true;
        }
    }

    std::map<uint32_t, uint32_t> first;
    std::map<uint32_t, uint32_t> last;
    bool untagged{false};
};

/**
 * The TCP channel's retransmission counters (run.json's tcp_retransmitted_* and tcp_timeouts): a
 * ring of four over a star, one tensor (one priority, so no reordering in the router's queue).
 * Without loss nothing is sent twice and nothing times out; with 1 % of the packets into host 1
 * lost, the senders retransmit and count it (an RTO retransmits at least one segment); when
 * host 1 receives nothing for 2 ms mid-transfer no duplicate ACK can start a fast retransmit,
 * so the senders into it (and host 1, whose ACKs are lost) time out.
 */
class TalbTcpRetransmissionCountTestCase : public TestCase
{
  public:
    enum class Loss
    {
        kNone,
        kRandom,
        kBlackout
    };

    TalbTcpRetransmissionCountTestCase(Loss loss)
        : TestCase(loss == Loss::kRandom
                       ? "TCP channels count retransmissions when host 1 loses 1 % of packets"
                   : loss == Loss::kBlackout
                       ? "TCP channels count timeouts when host 1 receives nothing for 2 ms"
                       : "TCP channels count no retransmission on a lossless star"),
          m_loss(loss)
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        ConfigureTcp(9000);
        NodeContainer hosts = StarFabric(n, DataRate("10Gbps"), MicroSeconds(1));
        if (m_loss != Loss::kNone)
        {
            Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
            loss->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
            loss->SetRate(m_loss == Loss::kRandom ? 0.01 : 1.0);
            loss->AssignStreams(7);
            hosts.Get(1)->GetDevice(1)->SetAttribute("ReceiveErrorModel", PointerValue(loss));
            if (m_loss == Loss::kBlackout)
            {
                // The first iteration's all-reduce runs from 0.2 ms to about 5 ms.
                loss->Disable();
                Simulator::Schedule(MilliSeconds(1), &ErrorModel::Enable, loss);
                Simulator::Schedule(MilliSeconds(3), &ErrorModel::Disable, loss);
            }
        }
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({1000000}, 100000, 100000));
        helper.SetJobAttribute("Iterations", UintegerValue(2));
        ApplicationContainer apps = helper.Install(hosts);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        // The channels outlive the run but not Simulator::Destroy(): keep them.
        Ptr<TalbTransport> transport = job->GetTransport();
        Simulator::Stop(Seconds(5));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(job->IsFinished(), true, "job did not finish");
        uint64_t segments = 0;
        uint64_t bytes = 0;
        uint64_t timeouts = 0;
        for (uint32_t i = 0; i < transport->GetNChannels(); ++i)
        {
            auto tcp = DynamicCast<TalbTcpMessageChannel>(transport->GetChannel(i));
            NS_TEST_ASSERT_MSG_NE(tcp, nullptr, "channel " << i << " is not a TCP channel");
            segments += tcp->GetStats().retransmittedSegments;
            bytes += tcp->GetStats().retransmittedBytes;
            timeouts += tcp->GetStats().timeouts;
        }
        if (m_loss == Loss::kNone)
        {
            NS_TEST_EXPECT_MSG_EQ(segments, 0u, "retransmissions without loss");
            NS_TEST_EXPECT_MSG_EQ(bytes, 0u, "retransmitted bytes without loss");
            NS_TEST_EXPECT_MSG_EQ(timeouts, 0u, "timeouts without loss");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(segments, 0u, "lost packets but no retransmission counted");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(bytes, segments, "a retransmission without payload");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(timeouts, segments, "a timeout that resent nothing");
        }
        if (m_loss == Loss::kBlackout)
        {
            NS_TEST_EXPECT_MSG_GT_OR_EQ(timeouts, 2u, "host 1 and its sender did not time out");
        }
        Simulator::Destroy();
    }

    Loss m_loss;
};

/**
 * Ring, two tensors, two iterations, fusion into one op (so one message holds both tensors):
 * every sender marks FIRST once and LAST once per tensor and iteration, and every data
 * segment carries a tensor tag.
 */
class TalbRingMarkersTestCase : public TestCase
{
  public:
    TalbRingMarkersTestCase()
        : TestCase("ring: one FIRST and one LAST per sender, tensor and iteration")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        const uint32_t jobId = 3;
        ConfigureTcp(1500);
        NodeContainer hosts = StarFabric(n, DataRate("10Gbps"), MicroSeconds(1));
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({100000, 30001}, 100000, 100000));
        helper.SetJobAttribute("Iterations", UintegerValue(2));
        helper.SetJobAttribute("JobId", UintegerValue(jobId));
        helper.SetScheduler("fusion");
        ApplicationContainer apps = helper.Install(hosts);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        JobRecorder rec;
        rec.Attach(job);
        MarkerCounter counter;
        // The job's sockets exist once the workers have started.
        Simulator::Schedule(MicroSeconds(1), [&counter]() {
            Config::ConnectWithoutContext("/NodeList/*/$ns3::TcpL4Protocol/SocketList/*/Tx",
                                          MakeCallback(&MarkerCounter::Tx, &counter));
        });
        NS_TEST_ASSERT_MSG_EQ(RunJob(job, Seconds(1)), true, "job did not finish");
        NS_TEST_ASSERT_MSG_EQ(rec.ops.size(), 2, "one fused op per iteration");
        NS_TEST_ASSERT_MSG_EQ(rec.ops[0].segments.size(), 2, "both tensors in the op");
        for (uint32_t t = 0; t < 2; ++t)
        {
            uint32_t id = talb_make_tensor_id(jobId, t);
            NS_TEST_EXPECT_MSG_EQ(counter.first[id], n * 2, "FIRST markers of tensor " << t);
            NS_TEST_EXPECT_MSG_EQ(counter.last[id], n * 2, "LAST markers of tensor " << t);
        }
        NS_TEST_EXPECT_MSG_EQ(counter.first.size(), 2, "markers only for the job's tensors");
        NS_TEST_EXPECT_MSG_EQ(counter.untagged, false, "a data segment without a tensor tag");
    }
};

/// Two jobs (different models and collectives) on one fabric: both finish, records stay apart.
class TalbTwoJobsTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbTwoJobsTestCase()
        : talbtest::SimulationTestCase(
              "two jobs with different models and collectives share a fabric")
    {
    }

  private:
    void DoRun() override
    {
        ConfigureTcp(9000);
        NodeContainer hosts = StarFabric(6, DataRate("10Gbps"), MicroSeconds(1));
        std::vector<NodeContainer> placed =
            TalbTrainingJobHelper::Place(hosts, 3, {3, 3}, "spread");
        JobRecorder rec[2];
        Ptr<TalbTrainingJob> jobs[2];
        for (uint32_t j = 0; j < 2; ++j)
        {
            TalbTrainingJobHelper helper;
            helper.SetModel(j == 0 ? SyntheticModel({300000, 1000}, 100000, 200000)
                                   : SyntheticModel({5000, 200000, 700}, 50000, 100000));
            helper.SetJobAttribute("JobId", UintegerValue(j + 1));
            helper.SetJobAttribute("Iterations", UintegerValue(2));
            helper.SetCollective(j == 0 ? "ring" : "ps");
            jobs[j] = TalbTrainingJobHelper::GetJob(helper.Install(placed[j]));
            rec[j].Attach(jobs[j]);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        bool finished = jobs[0]->IsFinished() && jobs[1]->IsFinished();
        NS_TEST_ASSERT_MSG_EQ(finished, true, "both jobs finish");
        const uint32_t tensors[2] = {2, 3};
        for (uint32_t j = 0; j < 2; ++j)
        {
            NS_TEST_EXPECT_MSG_EQ(rec[j].tensors.size(), 2 * tensors[j], "tensor records");
            NS_TEST_EXPECT_MSG_EQ(rec[j].iterations.size(), 2 * 3, "iteration records");
            for (const auto& f : rec[j].flows)
            {
                NS_TEST_EXPECT_MSG_EQ(f.job, int(j + 1), "job id of a flow");
                NS_TEST_EXPECT_MSG_EQ(f.dstPort, 20000 + j + 1, "job port");
                NS_TEST_EXPECT_MSG_LT(f.tensor, int(tensors[j]), "tensor index");
            }
        }
    }
};

/**
 * ControlDelay: the workers' agreement takes that long. A tensor's messages start no sooner than
 * ControlDelay after its gradient is ready (on every worker at once here: equal compute), and
 * iterations take longer than with an instantaneous agreement.
 */
class TalbControlDelayTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbControlDelayTestCase()
        : talbtest::SimulationTestCase("ControlDelay delays each launch after the last report")
    {
    }

  private:
    /// \return the recorder of a 3-worker ring job run with \p delay
    JobRecorder RunWith(Time delay)
    {
        ConfigureTcp(9000);
        NodeContainer hosts = StarFabric(3, DataRate("10Gbps"), MicroSeconds(1));
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({300000, 1000, 50000}, 100000, 200000));
        helper.SetJobAttribute("Iterations", UintegerValue(3));
        helper.SetJobAttribute("ControlDelay", TimeValue(delay));
        helper.SetScheduler("wfbp");
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(helper.Install(hosts));
        JobRecorder rec;
        rec.Attach(job);
        bool finished = RunJob(job, Seconds(1));
        NS_TEST_EXPECT_MSG_EQ(finished, true, "the job finishes with ControlDelay " << delay);
        return rec;
    }

    void DoRun() override
    {
        const Time delay = MicroSeconds(50);
        JobRecorder instant = RunWith(Time(0));
        JobRecorder delayed = RunWith(delay);
        NS_TEST_ASSERT_MSG_EQ(delayed.tensors.size(), 3 * 3, "one record per tensor and iteration");
        NS_TEST_ASSERT_MSG_EQ(instant.tensors.size(), delayed.tensors.size(), "same records");
        NS_TEST_ASSERT_MSG_EQ(delayed.iterations.size(), 3 * 3, "iteration records");
        for (const auto& t : delayed.tensors)
        {
            Time first = Seconds(10);
            for (const auto& f : delayed.flows)
            {
                if (f.iteration == int64_t(t.iteration) && f.tensor == int(t.tensor))
                {
                    first = std::min(first, f.start);
                }
            }
            NS_TEST_EXPECT_MSG_GT_OR_EQ(first,
                                        t.ready + delay,
                                        "tensor " << t.tensor << " of iteration " << t.iteration
                                                  << " starts after the agreement");
            NS_TEST_EXPECT_MSG_LT(t.ready, t.done, "done after ready");
        }
        NS_TEST_EXPECT_MSG_GT(delayed.MeanIteration(),
                              instant.MeanIteration(),
                              "the agreement's latency costs iteration time");
    }
};

/// Placement: packed fills racks in order, spread takes one host per rack in turn.
class TalbPlacementTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbPlacementTestCase()
        : talbtest::SimulationTestCase("packed and spread placement of jobs on racks")
    {
    }

  private:
    void DoRun() override
    {
        NodeContainer hosts;
        hosts.Create(8); // 4 racks of 2
        uint32_t base = hosts.Get(0)->GetId();
        auto rel = [base](const NodeContainer& c) {
            std::vector<uint32_t> v;
            for (uint32_t i = 0; i < c.GetN(); ++i)
            {
                v.push_back(c.Get(i)->GetId() - base);
            }
            return v;
        };
        auto packed = TalbTrainingJobHelper::Place(hosts, 2, {3, 4}, "packed");
        NS_TEST_EXPECT_MSG_EQ((rel(packed[0]) == std::vector<uint32_t>{0, 1, 2}), true, "packed 0");
        NS_TEST_EXPECT_MSG_EQ((rel(packed[1]) == std::vector<uint32_t>{3, 4, 5, 6}),
                              true,
                              "packed 1");
        auto spread = TalbTrainingJobHelper::Place(hosts, 2, {3, 4}, "spread");
        NS_TEST_EXPECT_MSG_EQ((rel(spread[0]) == std::vector<uint32_t>{0, 2, 4}), true, "spread 0");
        NS_TEST_EXPECT_MSG_EQ((rel(spread[1]) == std::vector<uint32_t>{6, 1, 3, 5}),
                              true,
                              "spread 1");
    }
};

class TalbCollectiveTestSuite : public TestSuite
{
  public:
    TalbCollectiveTestSuite()
        : TestSuite("talb-collective", UNIT)
    {
        AddTestCase(new TalbRingAllReduceAnalyticTestCase, TestCase::QUICK);
        AddTestCase(new TalbParameterServerBytesTestCase(2), TestCase::QUICK);
        AddTestCase(new TalbParameterServerBytesTestCase(0), TestCase::QUICK);
        AddTestCase(new TalbRingMarkersTestCase, TestCase::QUICK);
        using Loss = TalbTcpRetransmissionCountTestCase::Loss;
        AddTestCase(new TalbTcpRetransmissionCountTestCase(Loss::kNone), TestCase::QUICK);
        AddTestCase(new TalbTcpRetransmissionCountTestCase(Loss::kRandom), TestCase::QUICK);
        AddTestCase(new TalbTcpRetransmissionCountTestCase(Loss::kBlackout), TestCase::QUICK);
        AddTestCase(new TalbTwoJobsTestCase, TestCase::QUICK);
        AddTestCase(new TalbPlacementTestCase, TestCase::QUICK);
        AddTestCase(new TalbControlDelayTestCase, TestCase::QUICK);
    }
};

static TalbCollectiveTestSuite g_talbCollectiveTestSuite;

} // namespace
