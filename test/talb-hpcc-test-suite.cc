// HPCC and its in-band telemetry: the tag keeps five hop records and counts the rest; the
// window law against hand-computed values (multiplicative step towards eta, the reference window
// stepping once per round trip and fast reaction in between, the min of two queue lengths, the
// line-rate clamp, additive steps under MaxStage); records matched by port, so a hop on a port
// seen before is measured when a packet takes another path; and on a fabric the switches stamp
// every data packet (three hops across leaves, in path order) and not its echo on the way back,
// the INT padding is not counted
// as payload, and HPCC keeps an incast's pause frames under a fifth of PFC alone's.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

TalbIntTag::Hop
MakeHop(uint32_t node, uint32_t port, uint64_t timeNs, uint64_t txBytes, uint32_t queueBytes)
{
    return TalbIntTag::Hop{node, port, timeNs, txBytes, 100000000000ULL, queueBytes};
}

TalbIntTag
OneHop(const TalbIntTag::Hop& hop)
{
    TalbIntTag t;
    t.PushHop(hop);
    return t;
}

} // namespace

/// The tag: records in order, at most five, replaced in place on a packet.
class TalbIntTagHops : public TestCase
{
  public:
    TalbIntTagHops()
        : TestCase("TalbIntTagHops: five records kept in order and the sixth counted; a tag "
                   "replaced on a packet hop by hop reads back whole")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<Packet> p = Create<Packet>(100);
        p->AddPacketTag(TalbIntTag());
        for (uint32_t h = 0; h < 6; ++h)
        {
            TalbIntTag t;
            NS_TEST_ASSERT_MSG_EQ(p->PeekPacketTag(t), true, "the tag travels");
            t.PushHop(MakeHop(10 + h, h, 1000 * h, 5000 * h, 100 * h));
            p->ReplacePacketTag(t);
        }
        TalbIntTag t;
        p->PeekPacketTag(t);
        NS_TEST_ASSERT_MSG_EQ(t.GetNHops(), TalbIntTag::MAX_HOPS, "five records");
        NS_TEST_EXPECT_MSG_EQ(t.GetDroppedHops(), 1u, "the sixth counted");
        for (uint32_t h = 0; h < TalbIntTag::MAX_HOPS; ++h)
        {
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).node, 10 + h, "in path order");
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).port, h, "port");
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).timeNs, 1000 * h, "time");
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).txBytes, 5000 * h, "tx bytes");
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).queueBytes, 100 * h, "queue");
            NS_TEST_EXPECT_MSG_EQ(t.GetHop(h).rateBps, 100000000000ULL, "rate");
        }
        NS_TEST_EXPECT_MSG_EQ(TalbIntTag::WIRE_BYTES, 42u, "HPCC's header on the wire");
    }
};

/// The window law at 100 Gb/s with T = 10 us: BDP 125 kB, W_AI 50 B (40 Mb/s x T).
class TalbHpccWindowLaw : public TestCase
{
  public:
    TalbHpccWindowLaw()
        : TestCase("TalbHpccWindowLaw: a first record measures nothing; U = 1 steps to eta; "
                   "fast reaction between updates leaves Wc; the queue term takes the smaller "
                   "of two lengths; the window is clamped to the line rate; MaxStage gives "
                   "additive steps")
    {
    }

  private:
    Ptr<TalbHpcc> Start(uint32_t maxStage)
    {
        Ptr<TalbHpcc> cc = CreateObject<TalbHpcc>();
        cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
        cc->SetAttribute("MaxStage", UintegerValue(maxStage));
        cc->Start(DataRate("100Gbps"), TalbRdmaRateControl::RateChangedCallback());
        return cc;
    }

    void DoRun() override
    {
        Ptr<TalbHpcc> cc = Start(0);
        NS_TEST_EXPECT_MSG_EQ(cc->GetWindow(), 125000u, "W starts at the line rate's BDP");
        // (The test macros evaluate their arguments more than once: feed once, then check.)
        auto feed = [this, &cc](const TalbIntTag& t,
                                uint64_t acked,
                                double gbps,
                                double window,
                                const std::string& what) {
            cc->TelemetryReceived(t, acked, 100);
            NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetRate().GetBitRate() / 1e9, gbps, 1e-6, what);
            NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetWindowBytes(), window, 1e-6, what);
        };
        feed(OneHop(MakeHop(7, 2, 1000, 0, 0)), 1, 100, 125000, "a first record: no change");
        // 125 kB in 10 us: txRate = B, no queue: u = 1 = U (the first measurement, whole).
        feed(OneHop(MakeHop(7, 2, 11000, 125000, 0)), 1, 95.04, 118800, "U = 1: W = Wc eta + W_AI");
        NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetReferenceWindow(), 118800, 1e-6, "Wc updated");
        // Half the rate for 5 us: u = 0.5, U = 0.5 x 1 + 0.5 x 0.5; acked 50 <= 100: no update.
        feed(OneHop(MakeHop(7, 2, 16000, 156250, 0)),
             50,
             100,
             125000,
             "U = 0.75: W = Wc eta / U + W_AI, clamped to the BDP");
        NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetReferenceWindow(), 118800, 1e-6, "fast reaction");
        // Line rate, queue 62.5 kB now but 0 before: min(q, previous q) = 0; u = 1.
        feed(OneHop(MakeHop(7, 2, 26000, 281250, 62500)),
             101,
             90.328,
             112910,
             "acked past the last update: Wc steps");
        // Line rate with 62.5 kB queued both times: u = 0.5 + 1.
        feed(OneHop(MakeHop(7, 2, 36000, 406250, 62500)),
             102,
             57.247733333,
             71559.666666667,
             "the queue term: W = Wc eta / 1.5 + W_AI");
        // An older record than the one kept (an overtaken acknowledgement) measures nothing.
        feed(OneHop(MakeHop(7, 2, 30000, 350000, 0)), 103, 57.247733333, 71559.666666667, "stale");
        NS_TEST_EXPECT_MSG_EQ(cc->GetWindow(), 71560u, "the window bounds the bytes in flight");
        cc->Stop();

        // MaxStage 2: a queue cuts W, then below eta two additive steps and a multiplicative one.
        Ptr<TalbHpcc> ai = Start(2);
        ai->TelemetryReceived(OneHop(MakeHop(1, 1, 1000, 0, 62500)), 1, 10);
        ai->TelemetryReceived(OneHop(MakeHop(1, 1, 11000, 125000, 62500)), 11, 20);
        std::vector<double> windows{ai->GetWindowBytes()};
        uint64_t tx = 125000;
        for (uint64_t k = 1; k <= 3; ++k)
        {
            tx += 62500; // half the line rate, no queue: U = 0.5
            ai->TelemetryReceived(OneHop(MakeHop(1, 1, 11000 + 10000 * k, tx, 0)),
                                  11 + 10 * k,
                                  20 + 10 * k);
            windows.push_back(ai->GetWindowBytes());
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(windows[0], 79216.666666667, 1e-6, "U = 1.5: Wc eta / U + W_AI");
        NS_TEST_EXPECT_MSG_EQ_TOL(windows[1], 79266.666666667, 1e-6, "stage 1: + W_AI");
        NS_TEST_EXPECT_MSG_EQ_TOL(windows[2], 79316.666666667, 1e-6, "stage 2: + W_AI");
        NS_TEST_EXPECT_MSG_EQ_TOL(windows[3], 125000, 1e-6, "MaxStage reached: towards eta");
        NS_TEST_EXPECT_MSG_EQ(ai->GetIncreaseStage(), 0u, "the multiplicative step resets");
        ai->Stop();
        Ptr<TalbHpcc> low = Start(2);
        low->SetAttribute("LimitWindow", BooleanValue(false));
        NS_TEST_EXPECT_MSG_EQ(low->GetWindow(), 0u, "LimitWindow false: pacing only");
        low->Stop();
    }
};

/// Records are matched by port: a packet on another path is still measured on the ports it shares.
class TalbHpccRecordsByPort : public TestCase
{
  public:
    TalbHpccRecordsByPort()
        : TestCase("TalbHpccRecordsByPort: alternating paths measure each port against its "
                   "own last record; a path of unseen ports measures nothing")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbHpcc> cc = CreateObject<TalbHpcc>();
        cc->SetAttribute("BaseRtt", TimeValue(MicroSeconds(10)));
        cc->Start(DataRate("100Gbps"), TalbRdmaRateControl::RateChangedCallback());
        // Two paths share leaf port (1, 1); spines 2 and 3 alternate.
        auto path = [](uint32_t spine, uint64_t t, uint64_t leafTx, uint64_t spineTx) {
            TalbIntTag tag;
            tag.PushHop(MakeHop(1, 1, t, leafTx, 0));
            tag.PushHop(MakeHop(spine, 0, t + 500, spineTx, 0));
            return tag;
        };
        cc->TelemetryReceived(path(2, 1000, 0, 0), 1, 10);
        NS_TEST_EXPECT_MSG_EQ(cc->GetUtilization(), 0, "first records: nothing measured");
        // Leaf port at line rate for 10 us (u = 1); spine 3 is new, so it is not measured.
        cc->TelemetryReceived(path(3, 11000, 125000, 0), 11, 20);
        NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetUtilization(), 1.0, 1e-9, "the shared port measured");
        // Spine 2 again, 20 us after its first record, a quarter of the line rate: the leaf
        // port (u = 1) is still the busiest.
        cc->TelemetryReceived(path(2, 21000, 250000, 62500), 21, 30);
        NS_TEST_EXPECT_MSG_EQ_TOL(cc->GetUtilization(), 1.0, 1e-9, "max over the hops");
        double before = cc->GetUtilization();
        TalbIntTag elsewhere;
        elsewhere.PushHop(MakeHop(9, 4, 40000, 1, 0));
        cc->TelemetryReceived(elsewhere, 31, 40);
        NS_TEST_EXPECT_MSG_EQ(cc->GetUtilization(), before, "unseen ports: no measurement");
        cc->Stop();
    }
};

/// Eight senders on other leaves into host 0 at 100 Gb/s, 1 MB each.
class TalbHpccIncast : public talbtest::SimulationTestCase
{
  public:
    TalbHpccIncast()
        : talbtest::SimulationTestCase(
              "TalbHpccIncast: every data packet reaching host 0 carries three hop records in "
              "path order (source leaf, spine, host 0's leaf) at the ports' rates and comes "
              "back in its acknowledgement unchanged; every payload byte and no padding "
              "delivered; HPCC sends under a fifth of the "
              "pause frames of PFC alone")
    {
    }

  private:
    struct Outcome
    {
        uint64_t dataPackets{0};
        uint64_t withThreeHops{0};
        uint64_t inPathOrder{0};
        uint64_t bytes{0};
        uint32_t messages{0};
        uint64_t pauses{0};
        double utilization{0};
        bool stamping{false};        //!< the leaf switches' InBandTelemetry
        uint64_t echoes{0};          //!< acknowledgements at host 5 that echo telemetry
        uint64_t echoesUnchanged{0}; //!< ... with the data's three records, none added
    };

    /// Host 0's device received \p p: count its telemetry.
    void Arrived(Outcome* o, Ptr<const Packet> p)
    {
        TalbRoceHeader h;
        p->PeekHeader(h);
        if (!TalbRoceHeader::IsData(h.GetOpcode()))
        {
            return;
        }
        ++o->dataPackets;
        TalbIntTag t;
        if (p->PeekPacketTag(t) && t.GetNHops() == 3)
        {
            ++o->withThreeHops;
            bool ordered = t.GetHop(2).node == m_leaf0 && t.GetHop(0).node != m_leaf0 &&
                           t.GetHop(0).timeNs < t.GetHop(1).timeNs &&
                           t.GetHop(1).timeNs < t.GetHop(2).timeNs &&
                           t.GetHop(1).rateBps == 100000000000ULL;
            o->inPathOrder += ordered ? 1 : 0;
        }
    }

    /// Sender host 5's device received \p p: an echo must come back as the data left host 0.
    void Echoed(Outcome* o, Ptr<const Packet> p)
    {
        TalbIntTag t;
        if (p->PeekPacketTag(t))
        {
            ++o->echoes;
            bool unchanged = t.IsEcho() && t.GetNHops() == 3 && t.GetDroppedHops() == 0 &&
                             t.GetHop(2).node == m_leaf0;
            o->echoesUnchanged += unchanged ? 1 : 0;
        }
    }

    uint32_t m_leaf0{0};

    Outcome Run(const std::string& cc)
    {
        Ptr<TalbLeafSpineHelper> f = talbtest::RdmaIncastFabric("100Gbps");
        f->GetRdmaHelper()->SetRateControl(cc);
        f->Install();
        f->AssignStreams(1);
        Outcome o;
        BooleanValue stamping;
        f->GetLeafSwitch(0)->GetAttribute("InBandTelemetry", stamping);
        o.stamping = stamping.Get();
        m_leaf0 = f->GetLeafNode(0)->GetId();
        f->GetHostDevice(0)->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&TalbHpccIncast::Arrived, this).Bind(&o));
        f->GetHostDevice(5)->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&TalbHpccIncast::Echoed, this).Bind(&o));
        std::vector<Ptr<TalbRdmaQueuePair>> senders;
        for (uint32_t s = 5; s < 13; ++s)
        {
            auto qp = TalbRdmaNic::Connect(f->GetRdmaNic(s), f->GetRdmaNic(0));
            qp.second->SetReceiveCallback(MakeBoundCallback(
                +[](Outcome* out, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t bytes) {
                    ++out->messages;
                    out->bytes += bytes;
                },
                &o));
            qp.first->PostSend(1000000);
            senders.push_back(qp.first);
        }
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();
        for (uint32_t l = 0; l < 4; ++l)
        {
            Ptr<TalbSwitch> sw = f->GetLeafSwitch(l);
            for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
            {
                o.pauses +=
                    DynamicCast<TalbPfcNetDevice>(sw->GetPort(p).device)->GetStats().pauseFramesTx;
            }
        }
        if (Ptr<TalbHpcc> hpcc = DynamicCast<TalbHpcc>(senders[0]->GetRateControl()))
        {
            o.utilization = hpcc->GetUtilization();
        }
        Simulator::Destroy();
        return o;
    }

    void DoRun() override
    {
        Outcome hpcc = Run("ns3::TalbHpcc");
        NS_TEST_EXPECT_MSG_EQ(hpcc.messages, 8u, "every message");
        NS_TEST_EXPECT_MSG_EQ(hpcc.bytes, 8000000u, "payload only: INT's padding not counted");
        NS_TEST_ASSERT_MSG_GT(hpcc.dataPackets, 8 * 245u - 1, "at least every packet once");
        NS_TEST_EXPECT_MSG_EQ(hpcc.withThreeHops, hpcc.dataPackets, "three records each");
        NS_TEST_EXPECT_MSG_EQ(hpcc.inPathOrder, hpcc.dataPackets, "in path order");
        NS_TEST_EXPECT_MSG_GT(hpcc.utilization, 0, "the sender measured its path");
        NS_TEST_EXPECT_MSG_GT(hpcc.echoes, 200u, "every packet acknowledged with its records");
        NS_TEST_EXPECT_MSG_EQ(hpcc.echoesUnchanged,
                              hpcc.echoes,
                              "switches on the way back add no records to an echo");
        Outcome pfc = Run("ns3::TalbFixedRate");
        NS_TEST_EXPECT_MSG_EQ(pfc.bytes, 8000000u, "PFC alone delivers too");
        NS_TEST_EXPECT_MSG_EQ(pfc.withThreeHops, 0u, "no telemetry without HPCC");
        NS_TEST_EXPECT_MSG_EQ(hpcc.stamping, true, "the helper has the switches stamp for HPCC");
        NS_TEST_EXPECT_MSG_EQ(pfc.stamping, false, "and not otherwise (a tag lookup per packet)");
        NS_TEST_EXPECT_MSG_GT(
            pfc.pauses,
            5 * hpcc.pauses,
            "HPCC keeps the queue short (after its first round trip, sent at line rate)");
    }
};

class TalbHpccTestSuite : public TestSuite
{
  public:
    TalbHpccTestSuite()
        : TestSuite("talb-hpcc", UNIT)
    {
        AddTestCase(new TalbIntTagHops(), TestCase::QUICK);
        AddTestCase(new TalbHpccWindowLaw(), TestCase::QUICK);
        AddTestCase(new TalbHpccRecordsByPort(), TestCase::QUICK);
        AddTestCase(new TalbHpccIncast(), TestCase::QUICK);
    }
};

static TalbHpccTestSuite g_talbHpccTestSuite;
