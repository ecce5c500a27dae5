// TalbIdealIteration through TalbTrainingJobHelper::ComputeIdealIteration: the analytic ideal
// iteration against hand-computed timelines (one tensor; two tensors whose communication
// overlaps the backward pass; fusion; parameter server colocated and dedicated).
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

/// 1 Gb/s: a tensor of P fp32 params takes 32 P ns per byte-copy through one NIC.
const DataRate RATE("1Gbps");

/// A tensor of \p params fp32 elements with explicit compute times (ms).
TalbTensorSpec
Tensor(const std::string& name, uint64_t params, int64_t fwdMs, int64_t bwdMs)
{
    TalbTensorSpec t;
    t.name = name;
    t.kind = "fc";
    t.params = params;
    t.layer = name;
    t.fwdTimeNs = fwdMs * 1000000;
    t.bwdTimeNs = bwdMs * 1000000;
    return t;
}

/// A helper for \p model with \p scheduler, \p collective and 3 iterations.
TalbTrainingJobHelper
Job(const TalbDnnModel& model, const std::string& scheduler, const std::string& collective)
{
    TalbTrainingJobHelper h;
    h.SetModel(model);
    h.SetJobAttribute("Iterations", UintegerValue(3));
    h.SetScheduler(scheduler);
    h.SetCollective(collective);
    return h;
}

// 937,500 fp32 params = 3.75 MB: 30 ms at 1 Gb/s; 468,750 params: 15 ms.
const uint64_t P30 = 937500;
const uint64_t P15 = 468750;

} // namespace

/// One tensor: nothing overlaps, every iteration is forward + backward + ring time, and the
/// ring time is 2(N-1)/N x S / B.
class TalbIdealOneTensorTestCase : public TestCase
{
  public:
    TalbIdealOneTensorTestCase(uint32_t workers, int64_t ringMs)
        : TestCase("TalbIdealOneTensor: " + std::to_string(workers) + " workers, ring " +
                   std::to_string(ringMs) + " ms + 30 ms compute per iteration"),
          m_workers(workers),
          m_ringMs(ringMs)
    {
    }

  private:
    void DoRun() override
    {
        TalbDnnModel model("one");
        model.AddTensor(Tensor("a", P30, 10, 20));
        TalbIdealIteration::Result r =
            Job(model, "wfbp", "ring").ComputeIdealIteration(m_workers, RATE);
        NS_TEST_ASSERT_MSG_EQ(r.known, true, "ring has a bound");
        NS_TEST_ASSERT_MSG_EQ(r.iterations.size(), 3u, "three iterations");
        for (uint32_t i = 0; i < 3; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(r.iterations[i].GetMicroSeconds(),
                                      (30 + m_ringMs) * 1000,
                                      1,
                                      "iteration " << i);
        }
        NS_TEST_EXPECT_MSG_EQ(r.compute, MilliSeconds(30), "compute");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.communication.GetMicroSeconds(),
                                  m_ringMs * 1000,
                                  1,
                                  "communication");
    }

    uint32_t m_workers;
    int64_t m_ringMs;
};

/// Two tensors, WFBP: the last layer's all-reduce (30 ms) runs during the first layer's backward
/// step (20 ms), so an iteration is fwd 20 + bwd 20 + max(bwd 20, 30) + 15 = 85 ms, not the 105 ms
/// of compute + communication. Fusion with its 5 ms timeout launches the last layer alone 5 ms
/// after it is ready: 20 + 20 + 5 + 30 + 15 = 90 ms; with a timeout longer than the backward pass
/// both go in one bucket at the end: 105 ms.
class TalbIdealOverlapTestCase : public TestCase
{
  public:
    TalbIdealOverlapTestCase(const std::string& scheduler, int64_t timeoutMs, int64_t iterationMs)
        : TestCase("TalbIdealOverlap: two tensors, " + scheduler +
                   (timeoutMs ? " (Timeout " + std::to_string(timeoutMs) + " ms)" : "") + ": " +
                   std::to_string(iterationMs) + " ms per iteration"),
          m_scheduler(scheduler),
          m_timeoutMs(timeoutMs),
          m_iterationMs(iterationMs)
    {
    }

  private:
    void DoRun() override
    {
        TalbDnnModel model("two");
        model.AddTensor(Tensor("input", P15, 10, 20));
        model.AddTensor(Tensor("output", P30, 10, 20));
        TalbTrainingJobHelper h = Job(model, m_scheduler, "ring");
        if (m_timeoutMs > 0)
        {
            h.SetSchedulerAttribute("Timeout", TimeValue(MilliSeconds(m_timeoutMs)));
        }
        TalbIdealIteration::Result r = h.ComputeIdealIteration(2, RATE);
        NS_TEST_ASSERT_MSG_EQ(r.known, true, "known");
        NS_TEST_ASSERT_MSG_EQ(r.iterations.size(), 3u, "three iterations");
        for (uint32_t i = 0; i < 3; ++i)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(r.iterations[i].GetMicroSeconds(),
                                      m_iterationMs * 1000,
                                      1,
                                      "iteration " << i);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(r.GetMean(1).GetMicroSeconds(), m_iterationMs * 1000, 1, "mean");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.communication.GetMicroSeconds(), 45000, 1, "communication");
    }

    std::string m_scheduler;
    int64_t m_timeoutMs;
    int64_t m_iterationMs;
};

/// Parameter server: colocated on the 4 workers every host sends 2 x 3/4 S (the ring's bytes),
/// which the replay adds to the 30 ms of compute; with 2 dedicated servers a server receives and
/// sends 4 S / 2 per phase: 2 x 2 S / B (dedicated servers are nodes, which schedule their own
/// initialisation, so that case asks the collective directly).
class TalbIdealPsTestCase : public TestCase
{
  public:
    TalbIdealPsTestCase()
        : TestCase("TalbIdealPs: 4 workers, colocated 45 ms per operation, 2 dedicated servers "
                   "120 ms")
    {
    }

  private:
    void DoRun() override
    {
        TalbDnnModel model("one");
        model.AddTensor(Tensor("a", P30, 10, 20));
        TalbIdealIteration::Result r = Job(model, "wfbp", "ps").ComputeIdealIteration(4, RATE);
        NS_TEST_ASSERT_MSG_EQ(r.known, true, "ps has a bound");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.communication.GetMicroSeconds(), 45000, 1, "colocated");
        NS_TEST_EXPECT_MSG_EQ_TOL(r.GetMean(0).GetMicroSeconds(), 75000, 1, "iteration");

        Ptr<TalbParameterServer> ps = CreateObject<TalbParameterServer>();
        NodeContainer servers;
        servers.Create(2);
        ps->SetServers(servers);
        NS_TEST_EXPECT_MSG_EQ_TOL(ps->GetIdealOpTime(P30 * 4, 4, RATE).GetMicroSeconds(),
                                  120000,
                                  1,
                                  "dedicated");
        Simulator::Destroy();
    }
};

/// A zoo model through the helper: the ideal lies between max(compute, communication) and their
/// sum, and a second call gives the same answer (the replay leaves no simulator state behind).
class TalbIdealZooTestCase : public TestCase
{
  public:
    TalbIdealZooTestCase()
        : TestCase("TalbIdealZoo: resnet50, 8 workers, 10 Gb-s, fusion: between the max and the "
                   "sum of compute and communication")

    {
    }

  private:
    void DoRun() override
    {
        TalbTrainingJobHelper h;
        h.SetModel("resnet50");
        h.SetJobAttribute("Iterations", UintegerValue(3));
        h.SetScheduler("fusion");
        h.SetCollective("ring");
        TalbIdealIteration::Result r = h.ComputeIdealIteration(8, DataRate("10Gbps"));
        NS_TEST_ASSERT_MSG_EQ(r.known, true, "known");
        Time mean = r.GetMean(1);
        // ResNet50's 25,557,032 fp32 params: 2 x 7/8 x 102.2 MB at 10 Gb/s = 143.1 ms.
        NS_TEST_EXPECT_MSG_EQ_TOL(r.communication.GetMilliSeconds(), 143, 1, "ring time");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(mean, std::max(r.compute, r.communication), "lower bound");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(mean, r.compute + r.communication, "upper bound");
        TalbIdealIteration::Result again = h.ComputeIdealIteration(8, DataRate("10Gbps"));
        NS_TEST_EXPECT_MSG_EQ(again.GetMean(1), mean, "repeatable");
        NS_TEST_EXPECT_MSG_EQ(Simulator::Now(), Time(0), "simulator left fresh");
    }
};

/// The analytic operation times of the collectives, directly.
class TalbIdealOpTimeTestCase : public TestCase
{
  public:
    TalbIdealOpTimeTestCase()
        : TestCase("TalbIdealOpTime: ring 2(N-1) over N x S over B; one worker: zero")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbCollective> ring = CreateObject<TalbRingAllReduce>();
        NS_TEST_EXPECT_MSG_EQ(ring->GetIdealOpTime(100000000, 8, DataRate("10Gbps")),
                              MilliSeconds(140),
                              "100 MB, 8 workers, 10 Gb/s");
        NS_TEST_EXPECT_MSG_EQ(ring->GetIdealOpTime(100000000, 16, DataRate("10Gbps")),
                              MilliSeconds(150),
                              "16 workers");
        NS_TEST_EXPECT_MSG_EQ(ring->GetIdealOpTime(100000000, 1, DataRate("10Gbps")),
                              Time(0),
                              "one worker");
    }
};

/// The suite.
class TalbIdealIterationTestSuite : public TestSuite
{
  public:
    TalbIdealIterationTestSuite()
        : TestSuite("talb-ideal-iteration", UNIT)
    {
        AddTestCase(new TalbIdealOneTensorTestCase(2, 30), TestCase::QUICK);
        AddTestCase(new TalbIdealOneTensorTestCase(4, 45), TestCase::QUICK);
        AddTestCase(new TalbIdealOverlapTestCase("wfbp", 0, 85), TestCase::QUICK);
        AddTestCase(new TalbIdealOverlapTestCase("fusion", 5, 90), TestCase::QUICK);
        AddTestCase(new TalbIdealOverlapTestCase("fusion", 1000, 105), TestCase::QUICK);
        AddTestCase(new TalbIdealPsTestCase, TestCase::QUICK);
        AddTestCase(new TalbIdealOpTimeTestCase, TestCase::QUICK);
        AddTestCase(new TalbIdealZooTestCase, TestCase::QUICK);
    }
};

static TalbIdealIterationTestSuite g_talbIdealIterationTestSuite;
