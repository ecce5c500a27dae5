// DCQCN: the reaction point's arithmetic (decrease with alpha, alpha decay, fast recovery,
// additive and hyper increase, byte counter, minimum rate) against hand-computed values, and two
// flows on one 100 Gb/s bottleneck of a PFC fabric converging to their fair share.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cmath>
#include <vector>

using namespace ns3;

namespace
{

double
Gbps(const DataRate& r)
{
    return r.GetBitRate() / 1e9;
}

} // namespace

/// Rate decrease on CNPs, fast recovery on the timer, then additive increase.
class TalbDcqcnDecreaseAndRecover : public talbtest::SimulationTestCase
{
  public:
    TalbDcqcnDecreaseAndRecover()
        : talbtest::SimulationTestCase(
              "TalbDcqcnDecreaseAndRecover: CNPs halve the rate at alpha 1; five timer "
              "events of fast recovery, then additive increase of the target, scaled from "
              "40 Gbps to the line rate")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbDcqcn> cc = CreateObject<TalbDcqcn>();
        std::vector<double> rates; // at each reported change
        cc->Start(DataRate("100Gbps"),
                  MakeBoundCallback(
                      +[](std::vector<double>* v, DataRate r) { v->push_back(Gbps(r)); },
                      &rates));
        double r0 = 0;
        double t0 = 0;
        double alpha0 = 0;
        double r1 = 0;
        double t1 = 0;
        std::vector<double> recovery;
        double target = 0;
        // Two CNPs 1 us apart: 100 -> 50 (target 100) -> 25 (target 50); alpha stays 1.
        Simulator::Schedule(MicroSeconds(0), [&]() {
            cc->CnpReceived();
            r0 = Gbps(cc->GetRate());
            t0 = Gbps(cc->GetTargetRate());
            alpha0 = cc->GetAlpha();
        });
        Simulator::Schedule(MicroSeconds(1), [&]() {
            cc->CnpReceived();
            r1 = Gbps(cc->GetRate());
            t1 = Gbps(cc->GetTargetRate());
        });
        // Timer events every 55 us from the last CNP: at 56, 111, ..., 331 us.
        for (int k = 1; k <= 6; ++k)
        {
            Simulator::Schedule(MicroSeconds(1 + 55 * k) + NanoSeconds(1), [&]() {
                recovery.push_back(Gbps(cc->GetRate()));
                target = Gbps(cc->GetTargetRate());
            });
        }
        Simulator::Stop(MicroSeconds(340));
        Simulator::Run();
        cc->Stop();
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ_TOL(r0, 50.0, 1e-6, "R_C (1 - alpha / 2) with alpha 1");
        NS_TEST_EXPECT_MSG_EQ_TOL(t0, 100.0, 1e-6, "R_T = R_C before the cut");
        NS_TEST_EXPECT_MSG_EQ_TOL(alpha0, 1.0, 1e-12, "alpha = (1 - g) 1 + g");
        NS_TEST_EXPECT_MSG_EQ_TOL(r1, 25.0, 1e-6, "second cut");
        NS_TEST_EXPECT_MSG_EQ_TOL(t1, 50.0, 1e-6, "target follows");
        NS_TEST_ASSERT_MSG_EQ(recovery.size(), 6u, "six timer events");
        // Fast recovery: R_C = (R_T + R_C) / 2, five times.
        double expect = 25.0;
        for (int k = 0; k < 5; ++k)
        {
            expect = (50.0 + expect) / 2;
            NS_TEST_EXPECT_MSG_EQ_TOL(recovery[k], expect, 1e-6, "fast recovery step " << k + 1);
        }
        // Sixth: additive increase, R_T += 40 Mb/s x 100 / 40 (ReferenceRate 40 Gb/s).
        NS_TEST_EXPECT_MSG_EQ_TOL(target, 50.1, 1e-6, "additive increase scaled to the line rate");
        NS_TEST_EXPECT_MSG_EQ_TOL(recovery[5], (50.1 + expect) / 2, 1e-6, "R_C halfway to it");
        NS_TEST_EXPECT_MSG_GT(rates.size(), 7u, "every change reported");
    }
};

/// alpha decays by (1 - g) per AlphaTimer without a CNP; the byte counter drives increases, and
/// both stages past F give hyper increase.
class TalbDcqcnAlphaAndHyper : public TestCase
{
  public:
    TalbDcqcnAlphaAndHyper()
        : TestCase("TalbDcqcnAlphaAndHyper: alpha decay between CNPs; byte-counter events; "
                   "hyper increase once both stages exceed F (R_HAI as given with ReferenceRate "
                   "0); rate floor at MinRate")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbDcqcn> cc = CreateObject<TalbDcqcn>();
        cc->SetAttribute("Gain", DoubleValue(0.25));
        cc->SetAttribute("FastRecoverySteps", UintegerValue(1));
        cc->SetAttribute("ByteCounter", UintegerValue(1000));
        cc->SetAttribute("ReferenceRate", DataRateValue(DataRate(0))); // steps as given
        cc->Start(DataRate("100Gbps"), TalbRdmaRateControl::RateChangedCallback());
        double alphaAfter2 = 0;
        double rateAfter2 = 0;
        double targetHyper = 0;
        double targetBefore = 0;
        double minRate = 0;
        // CNP at 0: alpha 1, cut to 50. Timer at 55 us: fast recovery to 75; at 110 us: additive
        // (target stays at line rate), 87.5. CNP at 110 us + 1 ns: alpha first decays twice,
        // 1 x 0.75^2 = 0.5625; cut 87.5 x (1 - 0.28125); alpha = 0.75 x 0.5625 + 0.25.
        Simulator::Schedule(MicroSeconds(0), [&]() { cc->CnpReceived(); });
        Simulator::Schedule(MicroSeconds(110) + NanoSeconds(1), [&]() {
            cc->CnpReceived();
            alphaAfter2 = cc->GetAlpha();
            rateAfter2 = Gbps(cc->GetRate());
            // Byte stage 1 (fast recovery, F = 1), byte stage 2 (additive: timer stage 0); the
            // timer at +55 us and +110 us brings the timer stage to 2.
            cc->PacketSent(1000);
            cc->PacketSent(1000);
        });
        Simulator::Schedule(MicroSeconds(220) + NanoSeconds(2), [&]() {
            targetBefore = Gbps(cc->GetTargetRate());
            cc->PacketSent(1000); // byte stage 3, timer stage 2: i = min(3, 2) - 1 = 1
            targetHyper = Gbps(cc->GetTargetRate());
            for (int k = 0; k < 200; ++k)
            {
                cc->CnpReceived();
            }
            minRate = Gbps(cc->GetRate());
        });
        Simulator::Stop(MicroSeconds(230));
        Simulator::Run();
        cc->Stop();
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ_TOL(alphaAfter2, 0.75 * 0.5625 + 0.25, 1e-9, "decayed, then +g");
        NS_TEST_EXPECT_MSG_EQ_TOL(rateAfter2,
                                  87.5 * (1 - 0.5625 / 2),
                                  1e-6,
                                  "cut with the decayed alpha");
        NS_TEST_EXPECT_MSG_EQ_TOL(targetHyper - targetBefore, 0.2, 1e-6, "R_T += 1 x R_HAI");
        NS_TEST_EXPECT_MSG_EQ_TOL(minRate, 0.1, 1e-9, "floor at MinRate (100 Mb/s)");
    }
};

/// Two flows share a 100 Gb/s bottleneck (the receiver's port): each gets its fair share.
class TalbDcqcnFairShare : public TestCase
{
  public:
    TalbDcqcnFairShare()
        : TestCase("TalbDcqcnFairShare: two DCQCN flows into one 100 Gbps host, the second 5 ms "
                   "later: goodput of each within 10 % of half the bottleneck over 50-200 ms")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("HostRate", StringValue("100Gbps"));
        f->SetAttribute("FabricRate", StringValue("100Gbps"));
        f->Install();
        f->AssignStreams(1);
        auto a = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
        auto b = TalbRdmaNic::Connect(f->GetRdmaNic(1), f->GetRdmaNic(2));
        a.first->PostSend(10000000000ULL);
        Simulator::Schedule(MilliSeconds(5), [b]() { b.first->PostSend(10000000000ULL); });
        uint64_t a0 = 0;
        uint64_t b0 = 0;
        const Time t0 = MilliSeconds(50);
        const Time t1 = MilliSeconds(200);
        Simulator::Schedule(t0, [&]() {
            a0 = a.second->GetStats().bytesReceived;
            b0 = b.second->GetStats().bytesReceived;
        });
        Simulator::Stop(t1);
        Simulator::Run();
        double window = (t1 - t0).GetSeconds();
        double ga = (a.second->GetStats().bytesReceived - a0) * 8 / window / 1e9;
        double gb = (b.second->GetStats().bytesReceived - b0) * 8 / window / 1e9;
        uint64_t cnpA = a.first->GetStats().cnpsReceived;
        uint64_t cnpB = b.first->GetStats().cnpsReceived;
        uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        Simulator::Destroy();

        // Goodput capacity of the bottleneck: payload over frame bytes (headers, Ethernet, PHY).
        double frame = mtu + TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES +
                       TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
        double fair = 100.0 * mtu / frame / 2;
        NS_TEST_EXPECT_MSG_EQ_TOL(ga, fair, 0.1 * fair, "first flow near its fair share");
        NS_TEST_EXPECT_MSG_EQ_TOL(gb, fair, 0.1 * fair, "second flow near its fair share");
        NS_TEST_EXPECT_MSG_GT(cnpA, 10u, "DCQCN acted on the first flow");
        NS_TEST_EXPECT_MSG_GT(cnpB, 10u, "and on the second");
    }
};

/**
 * A 16-to-1 incast of 1 MB each at 100 Gb/s (4 leaves x 5 hosts, PFC): with the defaults (ECN
 * thresholds and increase steps scaled from 40 Gb/s to the link rate) it completes within 1.6x
 * the line-rate bound and DCQCN's deepest cuts stay near the fair share (6.25 Gb/s); with the
 * paper's absolute values (EcnReferenceRate and ReferenceRate 0) the same incast takes over 2.5x
 * the bound, the queue pairs cut to a fifth of their fair share on average
 * (doc/talb-transport.rst).
 */
class TalbDcqcnIncastAt100G : public talbtest::SimulationTestCase
{
  public:
    TalbDcqcnIncastAt100G(bool paper)
        : talbtest::SimulationTestCase(
              std::string("TalbDcqcnIncastAt100G: 16-to-1 incast, ") +
              (paper ? "the paper's absolute values overreact (over 2.5x the bound)"
                     : "rate-scaled defaults within 1.6x the bound")),
          m_paper(paper)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = talbtest::RdmaIncastFabric("100Gbps");
        if (m_paper)
        {
            f->GetRdmaHelper()->SetAttribute("EcnReferenceRate", DataRateValue(DataRate(0)));
            f->GetRdmaHelper()->SetRateControlAttribute("ReferenceRate",
                                                        DataRateValue(DataRate(0)));
        }
        f->Install();
        f->AssignStreams(1);
        Time last;
        std::vector<double> lowest(16, 100.0);
        for (uint32_t s = 0; s < 16; ++s)
        {
            auto qp = TalbRdmaNic::Connect(f->GetRdmaNic(s + 1), f->GetRdmaNic(0));
            qp.second->SetReceiveCallback(MakeBoundCallback(
                +[](Time* t, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t) { *t = Now(); },
                &last));
            qp.first->GetRateControl()->TraceConnectWithoutContext(
                "Rate",
                MakeBoundCallback(
                    +[](double* low, DataRate, DataRate r) { *low = std::min(*low, Gbps(r)); },
                    &lowest[s]));
            qp.first->PostSend(1000000);
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();

        // 245 packets of 4096 B (the last 576 B) per sender, 82 bytes of overhead each.
        double bound = 16 * (1000000 + 245 * 82) * 8 / 100e9;
        double meanLowest = 0;
        for (double l : lowest)
        {
            meanLowest += l / 16;
        }
        if (m_paper)
        {
            NS_TEST_EXPECT_MSG_GT(last.GetSeconds(), 2.5 * bound, "the paper's values overreact");
            NS_TEST_EXPECT_MSG_LT(meanLowest, 6.25 / 4, "cut far below the fair share");
        }
        else
        {
            NS_TEST_EXPECT_MSG_LT(last.GetSeconds(), 1.6 * bound, "completion near the bound");
            NS_TEST_EXPECT_MSG_GT(meanLowest, 6.25 * 0.75, "cuts stop near the fair share");
        }
    }

    bool m_paper;
};

/// The RDMA helper scales the ECN thresholds with each port's rate, from EcnReferenceRate.
class TalbDcqcnEcnThresholdsScale : public talbtest::SimulationTestCase
{
  public:
    TalbDcqcnEcnThresholdsScale()
        : talbtest::SimulationTestCase("TalbDcqcnEcnThresholdsScale: 5 KB and 200 KB at 40 Gbps "
                                       "are 12.5 KB and 500 KB on a 100 Gbps port, as given with "
                                       "EcnReferenceRate 0")
    {
    }

  private:
    void DoRun() override
    {
        for (bool scaled : {true, false})
        {
            Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
            f->SetAttribute("Transport", StringValue("rdma"));
            f->SetAttribute("Leaves", UintegerValue(1));
            f->SetAttribute("HostsPerLeaf", UintegerValue(2));
            f->SetAttribute("HostRate", StringValue("100Gbps"));
            if (!scaled)
            {
                f->GetRdmaHelper()->SetAttribute("EcnReferenceRate", DataRateValue(DataRate(0)));
            }
            f->Install();
            Ptr<TalbSwitch> leaf = f->GetLeafSwitch(0);
            QueueSizeValue kmin;
            QueueSizeValue kmax;
            auto dev = DynamicCast<TalbPfcNetDevice>(leaf->GetPort(0).device);
            dev->GetQueue()->GetAttribute("EcnKmin", kmin);
            dev->GetQueue()->GetAttribute("EcnKmax", kmax);
            NS_TEST_EXPECT_MSG_EQ(kmin.Get(), QueueSize(scaled ? "12500B" : "5000B"), "Kmin");
            NS_TEST_EXPECT_MSG_EQ(kmax.Get(), QueueSize(scaled ? "500000B" : "200000B"), "Kmax");
            Simulator::Destroy();
        }
    }
};

class TalbDcqcnTestSuite : public TestSuite
{
  public:
    TalbDcqcnTestSuite()
        : TestSuite("talb-dcqcn", UNIT)
    {
        AddTestCase(new TalbDcqcnDecreaseAndRecover(), TestCase::QUICK);
        AddTestCase(new TalbDcqcnAlphaAndHyper(), TestCase::QUICK);
        AddTestCase(new TalbDcqcnFairShare(), TestCase::QUICK);
        AddTestCase(new TalbDcqcnIncastAt100G(false), TestCase::QUICK);
        AddTestCase(new TalbDcqcnIncastAt100G(true), TestCase::QUICK);
        AddTestCase(new TalbDcqcnEcnThresholdsScale(), TestCase::QUICK);
    }
};

static TalbDcqcnTestSuite g_talbDcqcnTestSuite;
