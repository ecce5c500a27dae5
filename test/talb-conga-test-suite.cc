// CONGA (TalbCongaLb): flowlets placed on the uplink minimising max(local DRE, remote metric),
// the remote metric fed back by the destination leaf in TalbCongaTag.
#include "talb-lb-test-util.h"

#include "ns3/test.h"

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/**
 * A packet from leaf 1 arrives at leaf 0 (its destination leaf) over spine 0 with CE 0 and,
 * when \p feedbackMetric >= 0, feedback that the path via spine 1 towards leaf 1 has that
 * congestion. \return the packet after PacketIn
 */
Ptr<Packet>
ArriveFromLeaf1(Ptr<TalbCongaLb> lb, int feedbackMetric)
{
    Ptr<Packet> p = Create<Packet>(100);
    TalbCongaTag tag;
    tag.SetPath(0);
    tag.SetCe(0);
    if (feedbackMetric >= 0)
    {
        tag.SetFeedback(1, static_cast<uint8_t>(feedbackMetric));
    }
    p->AddPacketTag(tag);
    TalbPacketContext in = Ctx(1, MicroSeconds(1), PeekPointer(p));
    in.srcLeaf = 1;
    in.dstLeaf = 0;
    lb->PacketIn(in);
    return p;
}

} // namespace

/// The destination leaf learns Congestion-To-Leaf from the feedback a packet carries, and
/// removes the tag.
class TalbCongaLearnsFeedbackTestCase : public TestCase
{
  public:
    TalbCongaLearnsFeedbackTestCase()
        : TestCase("TalbCongaLearnsFeedback: the destination leaf stores the feedback, drops "
                   "the tag")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbCongaLb> lb = DynamicCast<TalbCongaLb>(sw.Make("conga"));
        // The path via spine 1 towards leaf 1 is congested (metric 7 of 7).
        Ptr<Packet> p = ArriveFromLeaf1(lb, 7);
        TalbCongaTag tag;
        NS_TEST_EXPECT_MSG_EQ(p->PeekPacketTag(tag), false, "destination leaf removes the tag");
        NS_TEST_EXPECT_MSG_EQ(+lb->GetCongestionToLeaf(1, 1, MicroSeconds(1)), 7, "feedback");
        NS_TEST_EXPECT_MSG_EQ(+lb->GetCongestionToLeaf(1, 1, MilliSeconds(20)),
                              0,
                              "a metric older than MetricAgingTime counts as 0");
    }
};

/// New flowlets avoid the path the feedback says is congested.
class TalbCongaSteersFlowletsTestCase : public TestCase
{
  public:
    TalbCongaSteersFlowletsTestCase()
        : TestCase("TalbCongaSteersFlowlets: feedback that spine 1 is congested moves "
                   "flowlets to spine 0")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbCongaLb> lb = DynamicCast<TalbCongaLb>(sw.Make("conga"));
        ArriveFromLeaf1(lb, 7);
        for (uint32_t flow = 0; flow < 200; ++flow)
        {
            TalbPacketContext c = Ctx(flow, MicroSeconds(2));
            NS_TEST_ASSERT_MSG_EQ(lb->SelectPath(c, sw.Candidates()),
                                  1u,
                                  "flowlet on port 1 (spine 0)");
        }
    }
};

/// The source leaf tags a packet with its path, its local CE and one feedback entry.
class TalbCongaTagsEgressTestCase : public TestCase
{
  public:
    TalbCongaTagsEgressTestCase()
        : TestCase("TalbCongaTagsEgress: the source leaf adds path, CE and piggybacked feedback")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        Ptr<TalbCongaLb> lb = DynamicCast<TalbCongaLb>(sw.Make("conga"));
        // This leaf measured traffic from leaf 1 over spine 0 (CE 0): that is the feedback.
        ArriveFromLeaf1(lb, -1);
        TalbCongaTag tag;
        Ptr<Packet> q = Create<Packet>(100);
        TalbPacketContext out = Ctx(3, MicroSeconds(3), PeekPointer(q));
        lb->PacketOut(out, 2);
        NS_TEST_ASSERT_MSG_EQ(q->PeekPacketTag(tag), true, "source leaf adds a tag");
        NS_TEST_EXPECT_MSG_EQ(+tag.GetPath(), 1, "path = spine of port 2");
        NS_TEST_EXPECT_MSG_EQ(tag.HasFeedback(), true, "feedback piggybacked");
        NS_TEST_EXPECT_MSG_EQ(+tag.GetFeedbackPath(), 0, "feedback path");
    }
};

/**
 * The leaf-to-leaf feedback tells a source leaf when a destination leaf receives tensor traffic
 * of two jobs (TalbTensorAwareLb's Spray=SharedDestination): the destination leaf notes the jobs
 * of arriving tensor packets and says so on the tags it sends; the source leaf keeps what it
 * hears for the aging time.
 */
class TalbPathFeedbackSharedDestinationTestCase : public TestCase
{
  public:
    TalbPathFeedbackSharedDestinationTestCase()
        : TestCase("TalbPathFeedbackSharedDestination: a leaf that receives two jobs says so, "
                   "and its sources know it for the aging time")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(2);
        TalbSwitchInfo info;
        info.isLeaf = true;
        info.index = 0;
        info.nLeaves = 2;
        info.nSpines = 2;
        TalbPathFeedback fb;
        fb.Configure(info, sw.ports, 3, MilliSeconds(10));
        // A tensor packet of job \p job from leaf 1 arrives at leaf 0; leaf 1 says whether it
        // receives two jobs itself.
        auto arrive = [&fb](uint32_t job, Time now, bool senderShared) {
            Ptr<Packet> p = Create<Packet>(100);
            TalbCongaTag tag;
            tag.SetSenderShared(senderShared);
            p->AddPacketTag(tag);
            TalbPacketContext in = TensorCtx(1, now, talb_make_tensor_id(job, 1), 5, 0);
            in.packet = PeekPointer(p);
            in.srcLeaf = 1;
            in.dstLeaf = 0;
            fb.PacketIn(in);
        };
        // What leaf 0 says on a packet it sends to leaf 1 at \p now.
        auto says = [&fb](Time now) {
            Ptr<Packet> q = Create<Packet>(100);
            TalbPacketContext out = Ctx(3, now, PeekPointer(q));
            fb.PacketOut(out, 1);
            TalbCongaTag tag;
            return q->PeekPacketTag(tag) && tag.GetSenderShared();
        };
        arrive(1, MicroSeconds(1), false);
        arrive(1, MicroSeconds(2), false);
        NS_TEST_EXPECT_MSG_EQ(says(MicroSeconds(3)), false, "one job: not shared");
        arrive(2, MicroSeconds(4), false);
        NS_TEST_EXPECT_MSG_EQ(says(MicroSeconds(5)), true, "two jobs: shared");
        NS_TEST_EXPECT_MSG_EQ(says(MilliSeconds(11)), false, "shared for the aging time");
        NS_TEST_EXPECT_MSG_EQ(fb.DestinationShared(1, MicroSeconds(5)), false, "leaf 1 unknown");
        arrive(1, MicroSeconds(6), true);
        NS_TEST_EXPECT_MSG_EQ(fb.DestinationShared(1, MicroSeconds(7)), true, "leaf 1 shared");
        NS_TEST_EXPECT_MSG_EQ(fb.DestinationShared(1, MilliSeconds(11)), false, "report aged");
        arrive(1, MicroSeconds(8), false);
        NS_TEST_EXPECT_MSG_EQ(fb.DestinationShared(1, MicroSeconds(9)), false, "leaf 1 no more");
    }
};

/// The tag adds up the queueing delay of each hop; the destination leaf feeds it back with CE.
class TalbCongaCarriesPathDelayTestCase : public TestCase
{
  public:
    TalbCongaCarriesPathDelayTestCase()
        : TestCase("TalbCongaCarriesPathDelay: uplink and spine queues add up in the tag and come "
                   "back as the path's delay")
    {
    }

  private:
    void DoRun() override
    {
        TestPorts leaf0Ports(2);
        TestPorts spinePorts(2);
        TestPorts leaf1Ports(2);
        TalbSwitchInfo leaf0 = leaf0Ports.Info(true);
        TalbSwitchInfo spine = spinePorts.Info(false);
        TalbSwitchInfo leaf1 = leaf1Ports.Info(true);
        leaf1.index = 1;
        TalbPathFeedback fb0;
        TalbPathFeedback fbSpine;
        TalbPathFeedback fb1;
        fb0.Configure(leaf0, leaf0Ports.ports, 3, MilliSeconds(10));
        fbSpine.Configure(spine, spinePorts.ports, 3, MilliSeconds(10));
        fb1.Configure(leaf1, leaf1Ports.ports, 3, MilliSeconds(10));
        leaf0Ports.Fill(1, 12500); // 10 us at 10 Gb/s on leaf 0's uplink to spine 0
        spinePorts.Fill(2, 25000); // 20 us on the spine's port towards leaf 1

        // Leaf 0 -> spine 0 -> leaf 1.
        Ptr<Packet> p = Create<Packet>(100);
        TalbPacketContext ctx = Ctx(1, MicroSeconds(1), PeekPointer(p));
        fb0.PacketOut(ctx, 1);
        TalbCongaTag tag;
        NS_TEST_ASSERT_MSG_EQ(p->PeekPacketTag(tag), true, "the source leaf adds a tag");
        NS_TEST_EXPECT_MSG_EQ(tag.GetDelayNs(), 10000u, "the uplink's queue");
        fbSpine.PacketOut(ctx, 2);
        p->PeekPacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(tag.GetDelayNs(), 30000u, "uplink and spine queues add up");
        fb1.PacketIn(ctx);

        // Leaf 1 -> leaf 0 carries the feedback; leaf 0 learns the path's delay.
        Ptr<Packet> back = Create<Packet>(100);
        TalbPacketContext rev = Ctx(2, MicroSeconds(2), PeekPointer(back));
        rev.srcLeaf = 1;
        rev.dstLeaf = 0;
        fb1.PacketOut(rev, 1);
        back->PeekPacketTag(tag);
        NS_TEST_EXPECT_MSG_EQ(tag.HasFeedback(), true, "feedback piggybacked");
        NS_TEST_EXPECT_MSG_EQ(tag.GetFeedbackDelayNs(), 30000u, "the path's delay fed back");
        fb0.PacketIn(rev);
        NS_TEST_EXPECT_MSG_EQ(fb0.RemoteDelayNs(1, 1, MicroSeconds(3)), 30000u, "learnt");
        NS_TEST_EXPECT_MSG_EQ(fb0.RemoteDelayNs(2, 1, MicroSeconds(3)), 0u, "other path unknown");
        NS_TEST_EXPECT_MSG_EQ(fb0.RemoteDelayNs(1, 1, MilliSeconds(20)), 0u, "aged");
    }
};

/// CONGA has per-packet hooks: it cannot choose for another balancer.
class TalbCongaNotAFallbackTestCase : public TestCase
{
  public:
    TalbCongaNotAFallbackTestCase()
        : TestCase("TalbCongaNotAFallback: the capability query says no")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(CreateObject<TalbCongaLb>()->CanBeFallback(), false, "conga");
        NS_TEST_EXPECT_MSG_EQ(CreateObject<TalbLetFlowLb>()->CanBeFallback(), true, "letflow");
    }
};

/// On a fabric, a slow remote link (spine 1 to leaf 1) is seen through feedback and avoided.
class TalbCongaFabricAvoidsSlowRemoteLinkTestCase : public SimulationTestCase
{
  public:
    TalbCongaFabricAvoidsSlowRemoteLinkTestCase()
        : SimulationTestCase("TalbCongaFabricAvoidsSlowRemoteLink: most packets avoid a "
                             "1 Gbps spine 1 -> leaf 1 link")
    {
    }

  private:
    void DoRun() override
    {
        std::vector<uint64_t> up;
        RunAroundSlowLink("conga", true, &up);
        uint64_t total = up[0] + up[1];
        NS_TEST_ASSERT_MSG_GT(total, 1000u, "flows did not run");
        NS_TEST_EXPECT_MSG_GT(up[0],
                              total * 7 / 10,
                              "fast uplink got " << up[0] << " of " << total);
    }
};

/// The talb-conga suite.
class TalbCongaTestSuite : public TestSuite
{
  public:
    TalbCongaTestSuite()
        : TestSuite("talb-conga", UNIT)
    {
        AddTestCase(new TalbCongaLearnsFeedbackTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaSteersFlowletsTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaTagsEgressTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaCarriesPathDelayTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaNotAFallbackTestCase, TestCase::QUICK);
        AddTestCase(new TalbPathFeedbackSharedDestinationTestCase, TestCase::QUICK);
        AddTestCase(new TalbCongaFabricAvoidsSlowRemoteLinkTestCase, TestCase::QUICK);
    }
};

static TalbCongaTestSuite g_talbCongaTestSuite; //!< the suite's instance
