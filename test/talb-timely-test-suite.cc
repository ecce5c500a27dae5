// TIMELY: the rate law against hand-computed values (additive increase below TLow, the THigh
// cut, gradient decrease with its floor at half, hyper-active increase after five calm
// samples, the step scaled to the line rate), and the queue pair's RTT samples on an idle path:
// one per round trip, all the same, none with TIMELY's rate cut, none taken for DCQCN unless
// asked for (so DCQCN runs are unchanged).
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <vector>

using namespace ns3;

/// The rate law, one RTT sample at a time, at 10 Gb/s (the paper's defaults).
class TalbTimelyRateLaw : public TestCase
{
  public:
    TalbTimelyRateLaw()
        : TestCase("TalbTimelyRateLaw: THigh cut, additive increase below TLow and on a "
                   "falling gradient, hyper-active increase after 5 calm samples, gradient "
                   "decrease floored at half; the step scales with the line rate")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbTimely> cc = CreateObject<TalbTimely>();
        cc->Start(DataRate("10Gbps"), TalbRdmaRateControl::RateChangedCallback());
        // (The test macros evaluate their arguments more than once: feed once, then check.)
        auto feed = [this, &cc](double us, double gbps, double tol, const std::string& what) {
            cc->AckReceived(4096, NanoSeconds(static_cast<int64_t>(us * 1000)));
            double rate = cc->GetRate().GetBitRate() / 1e9;
            NS_TEST_EXPECT_MSG_EQ_TOL(rate, gbps, tol, what);
        };
        // Worked by hand: d = 0.125 d + 0.875 (rtt - prev), g = d / 20 us.
        feed(20, 10.0, 1e-9, "the first sample only sets prev");
        feed(1000, 6.0, 1e-9, "1000 us > THigh: 10 (1 - 0.8 x 0.5)");
        feed(30, 6.01, 1e-9, "30 us < TLow: + 10 Mb/s");
        feed(100, 6.02, 1e-9, "g = -1.57: + delta (calm 2)");
        feed(100, 6.03, 1e-9, "calm 3");
        feed(100, 6.04, 1e-9, "calm 4");
        feed(100, 6.09, 1e-9, "calm 5: hyper-active, + 5 delta");
        feed(200, 3.045, 1e-9, "g = 4.37: 1 - 0.8 g < 0, halved");
        feed(200, 1.712929, 1e-6, "g = 0.547: x (1 - 0.437)");
        NS_TEST_EXPECT_MSG_LT(cc->GetRttDiff(), 11e-6, "d = 10.9 us");
        cc->Stop();

        // At 100 Gb/s the step is 100 Mb/s (ReferenceRate 10 Gb/s); 0 keeps 10 Mb/s.
        for (bool scaled : {true, false})
        {
            Ptr<TalbTimely> fast = CreateObject<TalbTimely>();
            if (!scaled)
            {
                fast->SetAttribute("ReferenceRate", DataRateValue(DataRate(0)));
            }
            fast->Start(DataRate("100Gbps"), TalbRdmaRateControl::RateChangedCallback());
            fast->AckReceived(0, MicroSeconds(20));
            fast->AckReceived(0, MicroSeconds(1000)); // 60 Gb/s
            fast->AckReceived(0, MicroSeconds(30));
            NS_TEST_EXPECT_MSG_EQ_TOL(fast->GetRate().GetBitRate() / 1e9,
                                      (scaled ? 60.1 : 60.01),
                                      1e-9,
                                      "additive step at 100 Gb/s");
            fast->Stop();
        }
        // An acknowledgement without a sample changes nothing.
        Ptr<TalbTimely> idle = CreateObject<TalbTimely>();
        idle->Start(DataRate("10Gbps"), TalbRdmaRateControl::RateChangedCallback());
        idle->AckReceived(4096, MicroSeconds(20));
        idle->AckReceived(4096, Time());
        NS_TEST_EXPECT_MSG_EQ(idle->GetLastRtt(), MicroSeconds(20), "no sample, no update");
        idle->Stop();
    }
};

/// A 1 MB message from host 1 to host 0 (one leaf, 10 Gb/s, idle) under a rate control.
class TalbTimelyRttSamples : public talbtest::SimulationTestCase
{
  public:
    TalbTimelyRttSamples()
        : talbtest::SimulationTestCase(
              "TalbTimelyRttSamples: on an idle path TIMELY's queue pair takes about one RTT "
              "sample per round trip, within a packet time of each other, and keeps line rate; "
              "DCQCN takes none unless "
              "MeasureRtt asks, and then the same")
    {
    }

  private:
    struct Outcome
    {
        std::vector<double> rttUs;
        uint32_t rateChanges{0};
        Time done;
        uint64_t acks{0};
    };

    Outcome Run(const std::string& cc, bool measure)
    {
        Ptr<TalbLeafSpineHelper> f = talbtest::RdmaIncastFabric("10Gbps");
        f->GetRdmaHelper()->SetRateControl(cc);
        f->GetRdmaHelper()->SetNicAttribute("MeasureRtt", BooleanValue(measure));
        f->Install();
        f->AssignStreams(1);
        Outcome o;
        auto qp = TalbRdmaNic::Connect(f->GetRdmaNic(1), f->GetRdmaNic(0));
        qp.first->GetRateControl()->TraceConnectWithoutContext(
            "Rtt",
            MakeBoundCallback(
                +[](Outcome* out, Time rtt) { out->rttUs.push_back(rtt.GetSeconds() * 1e6); },
                &o));
        qp.first->GetRateControl()->TraceConnectWithoutContext(
            "Rate",
            MakeBoundCallback(
                +[](Outcome* out, DataRate, DataRate) { ++out->rateChanges; },
                &o));
        qp.second->SetReceiveCallback(MakeBoundCallback(
            +[](Outcome* out, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t) { out->done = Now(); },
            &o));
        qp.first->PostSend(1000000);
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        o.acks = qp.second->GetStats().acksSent;
        Simulator::Destroy();
        return o;
    }

    void DoRun() override
    {
        Outcome timely = Run("ns3::TalbTimely", false);
        // 245 packets of 4178 wire bytes at 10 Gb/s: 819 us; a round trip is about 11 us.
        NS_TEST_ASSERT_MSG_GT(timely.rttUs.size(), 40u, "about one sample per round trip");
        auto [lo, hi] = std::minmax_element(timely.rttUs.begin(), timely.rttUs.end());
        NS_TEST_EXPECT_MSG_GT(*lo, 6.6, "at least the data packet's two serialisations");
        // They differ by at most one packet time (3.34 us): the message's short last packet
        // crosses faster than a full one.
        NS_TEST_EXPECT_MSG_LT(*hi, *lo + 3.35, "an idle path: the samples agree");
        NS_TEST_EXPECT_MSG_LT(*hi, 12.0, "two serialisations, four link delays, the ACK");
        NS_TEST_EXPECT_MSG_EQ(timely.rateChanges, 0u, "below TLow at line rate: no change");
        double bound = 245 * 4178 * 8 / 10e9;
        NS_TEST_EXPECT_MSG_LT(timely.done.GetSeconds(), 1.02 * bound, "line rate");

        Outcome dcqcn = Run("ns3::TalbDcqcn", false);
        NS_TEST_EXPECT_MSG_EQ(dcqcn.rttUs.size(), 0u, "DCQCN takes no samples by default");
        NS_TEST_EXPECT_MSG_EQ(dcqcn.acks, 16u, "every 16th packet and the last: 15 + 1");
        Outcome measured = Run("ns3::TalbDcqcn", true);
        NS_TEST_EXPECT_MSG_EQ(measured.rttUs.size(), timely.rttUs.size(), "MeasureRtt");
        NS_TEST_EXPECT_MSG_GT(measured.acks, dcqcn.acks, "each sample's packet acknowledged");
        NS_TEST_EXPECT_MSG_EQ(measured.done,
                              dcqcn.done,
                              "the probes cost nothing on the wire "
                              "the data takes");
    }
};

class TalbTimelyTestSuite : public TestSuite
{
  public:
    TalbTimelyTestSuite()
        : TestSuite("talb-timely", UNIT)
    {
        AddTestCase(new TalbTimelyRateLaw(), TestCase::QUICK);
        AddTestCase(new TalbTimelyRttSamples(), TestCase::QUICK);
    }
};

static TalbTimelyTestSuite g_talbTimelyTestSuite;
