// TalbLoadBalancer, the base of every path selector: the public entry's bookkeeping and the
// shared least-loaded choice. Each policy has its own suite (talb-ecmp, talb-rps, ...).
#include "talb-lb-test-util.h"

#include "ns3/test.h"

#include <map>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/// A policy that picks the least-queued candidate with the base's PickLeast, counting calls.
class PickLeastLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TalbTestPickLeastLb")
                                .SetParent<TalbLoadBalancer>()
                                .SetGroupName("Talb")
                                .AddConstructor<PickLeastLb>();
        return tid;
    }

    PickLeastLb()
        : m_rng(CreateObject<UniformRandomVariable>())
    {
    }

    int64_t AssignStreams(int64_t stream) override
    {
        m_rng->SetStream(stream);
        return 1;
    }

    uint32_t calls{0};

  private:
    uint32_t DoSelectPath(TalbPacketContext& /* ctx */, const TalbCandidates& candidates) override
    {
        ++calls;
        return PickLeast(candidates, m_rng, [this](uint32_t p) {
            return GetPort(p).queue->GetNBytes();
        });
    }

    Ptr<UniformRandomVariable> m_rng;
};

Ptr<PickLeastLb>
MakePickLeast(FakeSwitch& sw)
{
    Ptr<PickLeastLb> lb = CreateObject<PickLeastLb>();
    TalbSwitchInfo info;
    info.nLeaves = 2;
    info.nSpines = sw.uplinks.size();
    lb->Attach(info, &sw.ports);
    lb->AssignStreams(3);
    return lb;
}

} // namespace

/// The least-loaded candidate wins; among equals each is chosen about as often.
class TalbLoadBalancerPickLeastTestCase : public TestCase
{
  public:
    TalbLoadBalancerPickLeastTestCase()
        : TestCase("TalbLoadBalancerPickLeast: least key wins, ties broken uniformly")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<PickLeastLb> lb = MakePickLeast(sw);
        sw.Fill(2, 3000);
        TalbPacketContext c = Ctx(1, Seconds(0));
        std::map<uint32_t, uint32_t> perPort;
        for (int k = 0; k < 3000; ++k)
        {
            ++perPort[lb->SelectPath(c, sw.Candidates())];
        }
        NS_TEST_EXPECT_MSG_EQ(perPort.count(2), 0, "the loaded port was chosen");
        for (uint32_t p : {1u, 3u, 4u})
        {
            NS_TEST_EXPECT_MSG_GT(perPort[p], 800u, "tie at port " << p << " not uniform");
            NS_TEST_EXPECT_MSG_LT(perPort[p], 1200u, "tie at port " << p << " not uniform");
        }
        sw.Fill(1, 1000);
        sw.Fill(3, 2000);
        sw.Fill(4, 1500);
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(c, sw.Candidates()),
                              1u,
                              "least of 1000/3000/2000/1500");
    }
};

/// SelectPath counts every selection and fires PathSelected once each; a single candidate is
/// returned without asking the policy.
class TalbLoadBalancerCountersTestCase : public TestCase
{
  public:
    TalbLoadBalancerCountersTestCase()
        : TestCase("TalbLoadBalancerCounters: selections = tagged + untagged = traced")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<PickLeastLb> lb = MakePickLeast(sw);
        uint64_t traced = 0;
        lb->TraceConnectWithoutContext(
            "PathSelected",
            MakeBoundCallback(
                +[](uint64_t* n, const TalbPacketContext&, uint32_t) { ++*n; },
                &traced));
        for (int k = 0; k < 10; ++k)
        {
            TalbPacketContext u = Ctx(k, Seconds(0));
            TalbPacketContext t = TensorCtx(k, Seconds(0), 5, 3, 0);
            lb->SelectPath(u, sw.Candidates());
            lb->SelectPath(t, sw.Candidates());
        }
        uint32_t only = 2;
        TalbPacketContext c = Ctx(99, Seconds(0));
        NS_TEST_EXPECT_MSG_EQ(lb->SelectPath(c, TalbCandidates{&only, 1}), 2u, "the only port");
        const TalbLoadBalancer::Stats& st = lb->GetStats();
        NS_TEST_EXPECT_MSG_EQ(st.nSelections, 21, "selections");
        NS_TEST_EXPECT_MSG_EQ(st.nTaggedSelections, 10, "tagged");
        NS_TEST_EXPECT_MSG_EQ(st.nUntaggedSelections, 11, "untagged");
        NS_TEST_EXPECT_MSG_EQ(traced, st.nSelections, "trace vs stats");
        NS_TEST_EXPECT_MSG_EQ(lb->calls, 20u, "the policy was asked about a single candidate");
    }
};

/// The talb-load-balancer suite: the base class.
class TalbLoadBalancerTestSuite : public TestSuite
{
  public:
    TalbLoadBalancerTestSuite()
        : TestSuite("talb-load-balancer", UNIT)
    {
        AddTestCase(new TalbLoadBalancerPickLeastTestCase, TestCase::QUICK);
        AddTestCase(new TalbLoadBalancerCountersTestCase, TestCase::QUICK);
    }
};

static TalbLoadBalancerTestSuite g_talbLoadBalancerTestSuite; //!< the suite's instance
