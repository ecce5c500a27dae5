// Communication schedulers: each one's defining behaviour, and WFBP's overlap of computation
// and communication.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/// Ops launched for one iteration.
std::vector<TalbCommOp>
OpsOf(const std::vector<TalbCommOp>& ops, uint32_t iteration)
{
    std::vector<TalbCommOp> out;
    for (const auto& op : ops)
    {
        if (op.iteration == iteration)
        {
            out.push_back(op);
        }
    }
    return out;
}

/// Build a job of \p model on an n-host star, run it, return its recorder.
struct Scenario
{
    uint32_t workers{4};
    std::string rate{"10Gbps"};
    Time delay{MicroSeconds(1)};
    uint32_t iterations{2};
    uint32_t mtu{9000};
};

bool
RunScenario(const Scenario& sc,
            TalbTrainingJobHelper& helper,
            JobRecorder* rec,
            Ptr<TalbTrainingJob>* out)
{
    ConfigureTcp(sc.mtu);
    NodeContainer hosts = StarFabric(sc.workers, DataRate(sc.rate), sc.delay);
    helper.SetJobAttribute("Iterations", UintegerValue(sc.iterations));
    ApplicationContainer apps = helper.Install(hosts);
    Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
    rec->Attach(job);
    if (out)
    {
        *out = job;
    }
    return RunJob(job, Seconds(10));
}

/// wfbp: one op per tensor, in ready (backward) order, never two in flight.
class TalbWfbpOrderTestCase : public TestCase
{
  public:
    TalbWfbpOrderTestCase()
        : TestCase("wfbp launches one whole-tensor op per tensor in ready order, one at a time")
    {
    }

  private:
    void DoRun() override
    {
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({50000, 1000, 200000, 7000, 30000}, 20000, 40000));
        JobRecorder rec;
        NS_TEST_ASSERT_MSG_EQ(RunScenario(Scenario(), helper, &rec, nullptr), true, "not finished");
        for (uint32_t it = 0; it < 2; ++it)
        {
            auto ops = OpsOf(rec.ops, it);
            NS_TEST_ASSERT_MSG_EQ(ops.size(), 5, "ops in iteration " << it);
            for (uint32_t k = 0; k < 5; ++k)
            {
                NS_TEST_EXPECT_MSG_EQ(ops[k].segments.size(), 1, "one tensor per op");
                NS_TEST_EXPECT_MSG_EQ(ops[k].segments[0].tensor, 4 - k, "backward order");
                NS_TEST_EXPECT_MSG_EQ(ops[k].segments[0].offset, 0, "whole tensor");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(rec.maxInFlightOps, 1, "wfbp serialises its collectives");
    }
};

/**
 * WFBP overlaps communication with backward computation: the steady-state iteration is
 * shorter than compute + the serial communication time; with a (nearly) infinitely fast
 * network it tends to the compute time.
 */
class TalbWfbpOverlapTestCase : public TestCase
{
  public:
    TalbWfbpOverlapTestCase()
        : TestCase("wfbp: iteration < compute + serial communication, -> compute as bandwidth "
                   "grows")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t n = 4;
        const uint64_t params = 250000; // 1 MB per tensor
        const uint32_t tensors = 8;
        for (std::string rate : {"10Gbps", "2000Gbps"})
        {
            TalbTrainingJobHelper helper;
            helper.SetModel(SyntheticModel(std::vector<uint64_t>(tensors, params), 200000, 400000));
            JobRecorder rec;
            Ptr<TalbTrainingJob> job;
            Scenario sc;
            sc.workers = n;
            sc.rate = rate;
            sc.delay = NanoSeconds(100);
            sc.iterations = 3;
            NS_TEST_ASSERT_MSG_EQ(RunScenario(sc, helper, &rec, &job), true, "not finished");
            double compute = job->GetIterationComputeTime().GetSeconds();
            double iteration = 0; // steady state: the last two iterations
            for (const auto& r : rec.iterations)
            {
                iteration += r.iteration > 0 ? (r.end - r.start).GetSeconds() / (2 * n) : 0;
            }
            // Ring bandwidth time of every tensor, one after the other.
            double serial =
                tensors * 2.0 * (n - 1) / n * params * 4 * 8 / DataRate(rate).GetBitRate();
            if (rate == "10Gbps")
            {
                NS_TEST_EXPECT_MSG_LT(iteration,
                                      compute + serial,
                                      "no overlap: iteration " << iteration << " s");
                NS_TEST_EXPECT_MSG_GT(iteration, std::max(compute, serial), "faster than possible");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ_TOL(iteration,
                                          compute,
                                          0.02 * compute,
                                          "fast network: iteration should be compute-bound");
            }
        }
    }
};

/// Independent replay of the bucket rule on the ready order (no timeout).
std::vector<std::vector<uint32_t>>
ReplayBuckets(const std::vector<uint64_t>& bytes, uint64_t bucket)
{
    std::vector<std::vector<uint32_t>> out;
    std::vector<uint32_t> cur;
    uint64_t size = 0;
    for (uint32_t t = bytes.size(); t-- > 0;)
    {
        if (!cur.empty() && size + bytes[t] > bucket)
        {
            out.push_back(cur);
            cur.clear();
            size = 0;
        }
        cur.push_back(t);
        size += bytes[t];
        if (size >= bucket)
        {
            out.push_back(cur);
            cur.clear();
            size = 0;
        }
    }
    if (!cur.empty())
    {
        out.push_back(cur);
    }
    return out;
}

/// fusion merges ready tensors up to the bucket size; the timeout flushes a partial bucket.
class TalbFusionTestCase : public TestCase
{
  public:
    TalbFusionTestCase(bool timeout)
        : TestCase(timeout ? "fusion: a short timeout launches each tensor alone"
                           : "fusion merges tensors up to the bucket size"),
          m_timeout(timeout)
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> params = {1000, 300000, 500000, 200000, 100000, 50000, 400000};
        const uint64_t bucket = 2000000;
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel(params, 20000, 40000));
        helper.SetScheduler("fusion");
        helper.SetSchedulerAttribute("BucketSize", UintegerValue(bucket));
        // Tensors are ready 40 us apart: 10 us of timeout expires between any two.
        helper.SetSchedulerAttribute("Timeout",
                                     TimeValue(m_timeout ? MicroSeconds(10) : Seconds(1)));
        JobRecorder rec;
        NS_TEST_ASSERT_MSG_EQ(RunScenario(Scenario(), helper, &rec, nullptr), true, "not finished");
        std::vector<uint64_t> bytes;
        for (uint64_t p : params)
        {
            bytes.push_back(p * 4);
        }
        std::vector<std::vector<uint32_t>> expected;
        if (m_timeout)
        {
            for (uint32_t t = params.size(); t-- > 0;)
            {
                expected.push_back({t});
            }
        }
        else
        {
            expected = ReplayBuckets(bytes, bucket);
        }
        bool merged = false;
        for (uint32_t it = 0; it < 2; ++it)
        {
            auto ops = OpsOf(rec.ops, it);
            NS_TEST_ASSERT_MSG_EQ(ops.size(), expected.size(), "buckets in iteration " << it);
            for (std::size_t k = 0; k < ops.size(); ++k)
            {
                NS_TEST_ASSERT_MSG_EQ(ops[k].segments.size(), expected[k].size(), "bucket " << k);
                for (std::size_t j = 0; j < expected[k].size(); ++j)
                {
                    NS_TEST_EXPECT_MSG_EQ(ops[k].segments[j].tensor, expected[k][j], "tensor");
                }
                if (ops[k].segments.size() > 1)
                {
                    merged = true;
                    NS_TEST_EXPECT_MSG_LT_OR_EQ(ops[k].GetBytes(), bucket, "bucket overflow");
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(merged, !m_timeout, "tensors merged");
    }

    bool m_timeout;
};

/// bytescheduler: partitions, priority order, and never more than its credit in flight.
class TalbByteSchedulerTestCase : public TestCase
{
  public:
    TalbByteSchedulerTestCase()
        : TestCase("bytescheduler partitions, launches by priority, never exceeds its credit")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> params = {300000, 200000, 500000, 150000};
        const uint64_t partition = 256 * 1024;
        const uint64_t credit = 3 * partition;
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel(params, 20000, 40000));
        helper.SetScheduler("bytescheduler");
        helper.SetSchedulerAttribute("PartitionSize", UintegerValue(partition));
        helper.SetSchedulerAttribute("Credit", UintegerValue(credit));
        JobRecorder rec;
        Scenario sc;
        sc.rate = "1Gbps";
        NS_TEST_ASSERT_MSG_EQ(RunScenario(sc, helper, &rec, nullptr), true, "not finished");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(rec.maxInFlightBytes, credit, "credit exceeded");
        NS_TEST_EXPECT_MSG_GT(rec.maxInFlightBytes, partition, "never more than one partition");
        for (uint32_t it = 0; it < 2; ++it)
        {
            auto ops = OpsOf(rec.ops, it);
            std::map<uint32_t, uint64_t> covered;
            std::map<uint32_t, uint32_t> launched;
            std::map<uint32_t, uint32_t> partitions;
            for (const auto& op : ops)
            {
                NS_TEST_ASSERT_MSG_EQ(op.segments.size(), 1, "one partition per op");
                const auto& s = op.segments[0];
                NS_TEST_EXPECT_MSG_LT_OR_EQ(s.bytes, partition, "partition too big");
                NS_TEST_EXPECT_MSG_EQ(s.offset, covered[s.tensor], "partitions in order");
                covered[s.tensor] += s.bytes;
                ++partitions[s.tensor];
            }
            for (uint32_t t = 0; t < params.size(); ++t)
            {
                NS_TEST_EXPECT_MSG_EQ(covered[t], params[t] * 4, "tensor " << t << " covered");
            }
            // Once a tensor has been launched, a less urgent (higher-index) tensor is launched
            // again only after every partition of the more urgent one.
            for (const auto& op : ops)
            {
                uint32_t u = op.segments[0].tensor;
                for (const auto& l : launched)
                {
                    if (l.first < u)
                    {
                        NS_TEST_EXPECT_MSG_EQ(l.second,
                                              partitions[l.first],
                                              "tensor " << u << " overtook tensor " << l.first);
                    }
                }
                ++launched[u];
            }
        }
    }
};

/**
 * usbyte's plan, computed by hand for 3 tensors of 400 kB ready 200 us apart, N = 2 at 8 Gb/s
 * (beta = 1 ns per byte), alpha = 10 us, MinBlockSize 100 kB:
 * phase 1: t2 ready at 200 us, t1 at 400 us: t2 sends (400-200-10) us / 1 ns = 190000 bytes,
 * then t1 sends (600-400-10) us / 1 ns = 190000; backward ends at 600 us;
 * phase 2: t0 whole, then t1's and t2's 210000-byte remainders.
 * At run time the launches follow the plan; wfbp would send 3 whole tensors in order 2, 1, 0.
 */
class TalbUsByteTestCase : public TestCase
{
  public:
    TalbUsByteTestCase()
        : TestCase("usbyte plans unequal blocks as its two-phase algorithm predicts and follows "
                   "the plan")
    {
    }

  private:
    void DoRun() override
    {
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({100000, 100000, 100000}, 100000, 200000));
        helper.SetScheduler("usbyte");
        helper.SetSchedulerAttribute("Bandwidth", DataRateValue(DataRate("8Gbps")));
        helper.SetSchedulerAttribute("StartupTime", TimeValue(MicroSeconds(10)));
        helper.SetSchedulerAttribute("MinBlockSize", UintegerValue(100000));
        JobRecorder rec;
        Ptr<TalbTrainingJob> job;
        Scenario sc;
        sc.workers = 2;
        sc.rate = "8Gbps";
        NS_TEST_ASSERT_MSG_EQ(RunScenario(sc, helper, &rec, &job), true, "not finished");
        auto scheduler = DynamicCast<TalbUsByteScheduler>(rec.scheduler);
        const auto& plan = scheduler->GetPlan();
        // (tensor, offset, bytes) per block
        const uint64_t expected[5][3] = {{2, 0, 190000},
                                         {1, 0, 190000},
                                         {0, 0, 400000},
                                         {1, 190000, 210000},
                                         {2, 190000, 210000}};
        NS_TEST_ASSERT_MSG_EQ(plan.size(), 5, "blocks in the plan");
        for (uint32_t b = 0; b < 5; ++b)
        {
            NS_TEST_ASSERT_MSG_EQ(plan[b].size(), 1, "block " << b << " segments");
            NS_TEST_EXPECT_MSG_EQ(plan[b][0].tensor, expected[b][0], "block " << b << " tensor");
            NS_TEST_EXPECT_MSG_EQ_TOL(double(plan[b][0].offset),
                                      double(expected[b][1]),
                                      1.0,
                                      "block " << b << " offset");
            NS_TEST_EXPECT_MSG_EQ_TOL(double(plan[b][0].bytes),
                                      double(expected[b][2]),
                                      1.0,
                                      "block " << b << " bytes");
        }
        for (uint32_t it = 0; it < 2; ++it)
        {
            auto ops = OpsOf(rec.ops, it);
            NS_TEST_ASSERT_MSG_EQ(ops.size(), plan.size(), "launches in iteration " << it);
            for (uint32_t b = 0; b < plan.size(); ++b)
            {
                NS_TEST_EXPECT_MSG_EQ(ops[b].segments[0].tensor, plan[b][0].tensor, "order");
                NS_TEST_EXPECT_MSG_EQ(ops[b].segments[0].offset, plan[b][0].offset, "order");
            }
        }
    }
};

/// ascwfbp: groups by the merge rule, and simultaneous all-reduces up to Simultaneous.
class TalbAscWfbpTestCase : public TestCase
{
  public:
    TalbAscWfbpTestCase()
        : TestCase("ascwfbp fuses by its merge rule and runs two groups at once")
    {
    }

  private:
    void DoRun() override
    {
        // Backward times (us) 500, 10, 200, 30, 50 for tensors 0..4: ready times from the
        // start of backward 50, 80, 280, 290, 790: with MergeGap 100 us the groups are
        // {4, 3}, {2, 1}, {0}.
        TalbDnnModel model("asc");
        const int64_t bwd[5] = {500000, 10000, 200000, 30000, 50000};
        for (uint32_t i = 0; i < 5; ++i)
        {
            TalbTensorSpec t;
            t.name = "t" + std::to_string(i);
            t.layer = t.name;
            t.params = 250000;
            t.fwdTimeNs = 10000;
            t.bwdTimeNs = bwd[i];
            model.AddTensor(t);
        }
        TalbTrainingJobHelper helper;
        helper.SetModel(model);
        helper.SetScheduler("ascwfbp");
        helper.SetSchedulerAttribute("MergeGap", TimeValue(MicroSeconds(100)));
        helper.SetSchedulerAttribute("Simultaneous", UintegerValue(2));
        JobRecorder rec;
        Ptr<TalbTrainingJob> job;
        Scenario sc;
        sc.workers = 2;
        sc.rate = "1Gbps";
        NS_TEST_ASSERT_MSG_EQ(RunScenario(sc, helper, &rec, &job), true, "not finished");
        const std::vector<std::vector<uint32_t>> expected = {{4, 3}, {2, 1}, {0}};
        auto scheduler = DynamicCast<TalbAscWfbpScheduler>(rec.scheduler);
        NS_TEST_ASSERT_MSG_EQ((scheduler->GetGroups() == expected), true, "groups");
        auto ops = OpsOf(rec.ops, 1);
        NS_TEST_ASSERT_MSG_EQ(ops.size(), 3, "one op per group");
        for (uint32_t g = 0; g < 3; ++g)
        {
            NS_TEST_ASSERT_MSG_EQ(ops[g].segments.size(), expected[g].size(), "group size");
            for (uint32_t k = 0; k < expected[g].size(); ++k)
            {
                NS_TEST_EXPECT_MSG_EQ(ops[g].segments[k].tensor, expected[g][k], "group tensor");
            }
        }
        // 2 MB groups need 16 ms at 1 Gbps, far longer than the backward gaps.
        NS_TEST_EXPECT_MSG_EQ(rec.maxInFlightOps, 2, "simultaneous all-reduces");
    }
};

/// sparse: each layer sends ratio x elements (index, value) pairs: 2 x ratio x fp32 bytes.
class TalbSparseTestCase : public TestCase
{
  public:
    TalbSparseTestCase()
        : TestCase("sparse sends ratio x bytes x 2 per layer, one op per layer")
    {
    }

  private:
    void DoRun() override
    {
        const double ratio = 0.01;
        const uint32_t n = 4;
        TalbDnnModel model("sparse");
        const uint64_t params[3] = {1000000, 2000, 500000};
        const char* layers[3] = {"a", "a", "b"};
        for (uint32_t i = 0; i < 3; ++i)
        {
            TalbTensorSpec t;
            t.name = "t" + std::to_string(i);
            t.layer = layers[i];
            t.params = params[i];
            t.fwdTimeNs = 10000;
            t.bwdTimeNs = 20000;
            model.AddTensor(t);
        }
        TalbTrainingJobHelper helper;
        helper.SetModel(model);
        helper.SetScheduler("sparse");
        helper.SetSchedulerAttribute("Ratio", DoubleValue(ratio));
        JobRecorder rec;
        Ptr<TalbTrainingJob> job;
        Scenario sc;
        sc.workers = n;
        NS_TEST_ASSERT_MSG_EQ(RunScenario(sc, helper, &rec, &job), true, "not finished");
        uint64_t wire = 0;
        for (uint32_t i = 0; i < 3; ++i)
        {
            uint64_t expected = uint64_t(ratio * params[i] * 4 * 2 + 0.5);
            NS_TEST_EXPECT_MSG_EQ(rec.scheduler->GetWireBytes(i), expected, "tensor " << i);
            wire += expected;
        }
        auto ops = OpsOf(rec.ops, 0);
        NS_TEST_ASSERT_MSG_EQ(ops.size(), 2, "one op per layer");
        NS_TEST_EXPECT_MSG_EQ(ops[0].segments.size(), 1, "layer b first (backward order)");
        NS_TEST_EXPECT_MSG_EQ(ops[1].segments.size(), 2, "layer a: both tensors");
        // Ring: every worker sends 2(N-1) of N chunks of each op.
        uint64_t payload = 0;
        for (const auto& f : rec.flows)
        {
            payload += f.sizeBytes - TALB_FRAME_LEN;
        }
        NS_TEST_EXPECT_MSG_EQ(payload, 2 * 2 * (n - 1) * wire, "payload over 2 iterations");
        for (const auto& t : rec.tensors)
        {
            NS_TEST_EXPECT_MSG_EQ(t.wireBytes, rec.scheduler->GetWireBytes(t.tensor), "wire");
            NS_TEST_EXPECT_MSG_EQ(t.bytes, params[t.tensor] * 4, "dense bytes");
        }
    }
};

class TalbSchedulerTestSuite : public TestSuite
{
  public:
    TalbSchedulerTestSuite()
        : TestSuite("talb-scheduler", UNIT)
    {
        AddTestCase(new TalbWfbpOrderTestCase, TestCase::QUICK);
        AddTestCase(new TalbWfbpOverlapTestCase, TestCase::QUICK);
        AddTestCase(new TalbFusionTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbFusionTestCase(true), TestCase::QUICK);
        AddTestCase(new TalbByteSchedulerTestCase, TestCase::QUICK);
        AddTestCase(new TalbUsByteTestCase, TestCase::QUICK);
        AddTestCase(new TalbAscWfbpTestCase, TestCase::QUICK);
        AddTestCase(new TalbSparseTestCase, TestCase::QUICK);
    }
};

static TalbSchedulerTestSuite g_talbSchedulerTestSuite;

} // namespace
