// Packet spraying: the entropy policies (oblivious spreads; REPS recycles what came back
// unmarked, explores when it has nothing, abandons entropies whose packets were lost and stops
// exploring for a while), and the spray transport and selective repeat through the scenario
// runner (TalbScenario, as talb-scenario --transport=spray / --rdmaRecovery=sr builds it): the
// ring all-reduce and the parameter server of one 100 MB tensor on an idle fabric within 2 % of
// their analytic times, as the rdma transport's (talb-rdma-collective), and a job's packets
// sprayed over every spine of a leaf-spine.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

using namespace ns3;

namespace
{

/// talb-scenario parameters, name and value.
using Params = std::vector<std::pair<std::string, std::string>>;

/// A started policy of registry name \p name.
Ptr<TalbEntropyPolicy>
MakePolicy(const std::string& name)
{
    ObjectFactory f;
    f.SetTypeId(TalbEntropyPolicy::GetRegistry().Get(name));
    Ptr<TalbEntropyPolicy> p = f.Create<TalbEntropyPolicy>()->Fork();
    p->AssignStreams(7);
    p->Start(0xC123);
    return p;
}

/// The comm_ns column of the one-row tensors.csv in \p out.
double
CommSeconds(const std::string& out)
{
    std::ifstream in(out + "/tensors.csv");
    std::string header;
    std::string row;
    std::getline(in, header);
    std::getline(in, row);
    auto field = [](const std::string& line, std::size_t i) {
        std::stringstream ss(line);
        std::string f;
        for (std::size_t k = 0; k <= i; ++k)
        {
            std::getline(ss, f, ',');
        }
        return f;
    };
    std::stringstream hs(header);
    std::string name;
    std::size_t i = 0;
    while (std::getline(hs, name, ',') && name != "comm_ns")
    {
        ++i;
    }
    return std::stod(field(row, i)) * 1e-9;
}

} // namespace

/// Oblivious spraying: a fresh entropy per packet, spread over the range; RoundRobin cycles.
class TalbObliviousSpreads : public TestCase
{
  public:
    TalbObliviousSpreads()
        : TestCase("TalbObliviousSpreads: 4096 packets take over 3000 distinct entropies in the "
                   "range, none recycled; RoundRobin over 4 takes each 1024 times")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbEntropyPolicy> p = MakePolicy("oblivious");
        std::set<uint16_t> seen;
        for (int k = 0; k < 4096; ++k)
        {
            p->Acked(0xC000, false); // ignored
            uint16_t e = p->NextEntropy();
            NS_TEST_EXPECT_MSG_GT_OR_EQ(e, TalbEntropyPolicy::ENTROPY_BASE, "in the range");
            seen.insert(e);
        }
        NS_TEST_EXPECT_MSG_GT(seen.size(), 3000u, "spread");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().recycled, 0u, "nothing recycled");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 4096u, "all fresh");

        Config::SetDefault("ns3::TalbObliviousEntropy::Mode", StringValue("RoundRobin"));
        Config::SetDefault("ns3::TalbObliviousEntropy::Entropies", UintegerValue(4));
        Ptr<TalbEntropyPolicy> rr = MakePolicy("oblivious");
        Config::Reset();
        std::map<uint16_t, int> counts;
        for (int k = 0; k < 4096; ++k)
        {
            ++counts[rr->NextEntropy()];
        }
        NS_TEST_ASSERT_MSG_EQ(counts.size(), 4u, "four entropies");
        for (const auto& [e, n] : counts)
        {
            NS_TEST_EXPECT_MSG_EQ(n, 1024, "entropy " << e << " a quarter of the packets");
        }
    }
};

/// REPS recycles entropies that came back unmarked, each once, oldest first.
class TalbRepsRecycles : public TestCase
{
  public:
    TalbRepsRecycles()
        : TestCase("TalbRepsRecycles: explores while empty; reuses each unmarked echo once, "
                   "oldest first; never a marked one; a full buffer drops its oldest")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbRepsEntropy> p = DynamicCast<TalbRepsEntropy>(MakePolicy("reps"));
        p->NextEntropy();
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 1u, "empty buffer: explore");
        p->Acked(0xC001, false);
        p->Acked(0xC002, true); // marked: not kept
        p->Acked(0xC003, false);
        NS_TEST_EXPECT_MSG_EQ(p->GetValidEntries(), 2u, "two unmarked echoes kept");
        NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xC001, "the oldest first");
        NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xC003, "then the next");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().recycled, 2u, "two recycled");
        uint16_t fresh = p->NextEntropy();
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 2u, "used up: explore again");
        NS_TEST_EXPECT_MSG_NE(fresh, 0xC002, "not the marked one (1 in 16384 by chance)");
        // 8 entries (the default): a ninth echo overwrites the oldest.
        for (uint16_t k = 0; k < 9; ++k)
        {
            p->Acked(0xD000 + k, false);
        }
        NS_TEST_EXPECT_MSG_EQ(p->GetValidEntries(), 8u, "eight kept");
        NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xD001, "the first echo was overwritten");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().given,
                              p->GetStats().recycled + p->GetStats().explored,
                              "given = recycled + explored");
    }
};

/// REPS after a loss (FreezeOn Loss): the entropy is abandoned, and for FreezeTime the buffer is
/// reused instead of exploring.
class TalbRepsAbandonsFailed : public TestCase
{
  public:
    TalbRepsAbandonsFailed()
        : TestCase("TalbRepsAbandonsFailed: a lost packet's entropy leaves the buffer and is not "
                   "taken back; frozen, REPS reuses known entropies instead of exploring, until "
                   "FreezeTime has passed")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbRepsEntropy> p = DynamicCast<TalbRepsEntropy>(MakePolicy("reps"));
        p->SetAttribute("FreezeOn", StringValue("Loss"));
        p->Acked(0xC001, false);
        p->Acked(0xC002, false);
        p->Lost(0xC001, TalbEntropyPolicy::LossCause::kSackHole);
        NS_TEST_EXPECT_MSG_EQ(p->IsFailed(0xC001), true, "failed");
        NS_TEST_EXPECT_MSG_EQ(p->IsFrozen(), true, "frozen");
        NS_TEST_EXPECT_MSG_EQ(p->GetValidEntries(), 1u, "removed from the buffer");
        p->Acked(0xC001, false);
        NS_TEST_EXPECT_MSG_EQ(p->GetValidEntries(), 1u, "a failed echo is not taken back");
        NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xC002, "the good one");
        // Frozen with nothing valid: reuse 0xC002 rather than explore.
        for (int k = 0; k < 3; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xC002, "frozen: reuse, do not explore");
        }
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 0u, "no exploration while frozen");
        TimeValue freeze;
        p->GetAttribute("FreezeTime", freeze);
        Simulator::Schedule(freeze.Get(), [p, this]() {
            NS_TEST_EXPECT_MSG_EQ(p->IsFrozen(), false, "thawed after FreezeTime");
            NS_TEST_EXPECT_MSG_EQ(p->IsFailed(0xC001), true, "still failed (FailedHold)");
            p->NextEntropy();
            NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 1u, "thawed: explores again");
        });
        Simulator::Run();
        Simulator::Destroy();
    }
};

/// REPS with FreezeOn Timeout (the default): a SACK hole fails the entropy but does not freeze;
/// a timeout does.
class TalbRepsFreezesOnTimeout : public TestCase
{
  public:
    TalbRepsFreezesOnTimeout()
        : TestCase("TalbRepsFreezesOnTimeout: FreezeOn=Timeout abandons a SACK-hole loss's "
                   "entropy but keeps exploring; a retransmission timeout freezes")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbRepsEntropy> p = DynamicCast<TalbRepsEntropy>(MakePolicy("reps"));
        p->SetAttribute("FreezeOn", StringValue("Timeout"));
        p->Acked(0xC001, false);
        p->Acked(0xC002, false);
        p->Lost(0xC001, TalbEntropyPolicy::LossCause::kSackHole);
        NS_TEST_EXPECT_MSG_EQ(p->IsFailed(0xC001), true, "a SACK hole still fails the entropy");
        NS_TEST_EXPECT_MSG_EQ(p->IsFrozen(), false, "but does not freeze");
        NS_TEST_EXPECT_MSG_EQ(p->NextEntropy(), 0xC002, "the good one");
        p->NextEntropy();
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().explored, 1u, "not frozen: explores");
        p->Lost(0xC003, TalbEntropyPolicy::LossCause::kTimeout);
        NS_TEST_EXPECT_MSG_EQ(p->IsFrozen(), true, "a timeout freezes");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().lost, 2u, "two losses");
        NS_TEST_EXPECT_MSG_EQ(p->GetStats().timedOut, 1u, "one by timeout");
        Simulator::Destroy();
    }
};

/**
 * One 100 MB tensor among 8 workers under one leaf of the runner's fabric, as
 * talb-rdma-collective's TalbRdmaRingAllReduceAnalytic (same formula, same 2 %), with the spray
 * transport (each policy) or rdma with selective repeat. Ring: T = 2(N-1) [ (m + 82 p) 8/B +
 * (MTU + 82) 8/B + 2 d ] with m = S/N + 16 bytes, p = ceil(m / MTU). Parameter server: every
 * host link carries (N-1)/N S of pushes and as much of pulls, plus 82 bytes per packet:
 * T = 2 (N-1)/N S (1 + 82/MTU) 8/B.
 */
class TalbSprayAnalytic : public talbtest::SimulationTestCase
{
  public:
    TalbSprayAnalytic(std::string collective, std::string rate, Params extra)
        : SimulationTestCase("TalbSprayAnalytic: " + collective + " of 100 MB, 8 workers, " + rate +
                             ", " + Describe(extra) + " within 2 % of the analytic time"),
          m_collective(collective),
          m_rate(rate),
          m_extra(extra)
    {
    }

  private:
    static std::string Describe(const Params& extra)
    {
        std::string text;
        for (const auto& [k, v] : extra)
        {
            text += "--" + k + "=" + v + " ";
        }
        return text;
    }

    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const uint32_t n = 8;
        const double s = 100e6;
        const std::string out = CreateTempDirFilename("spray-" + m_collective);
        ScenarioParams params = {
            {"leaves", "1"},
            {"hostsPerLeaf", std::to_string(n)},
            {"hostRate", m_rate},
            {"linkDelay", "1us"},
            {"model", CreateDataDirFilename("data/talb-one-tensor-model.csv")},
            {"jobs", "workers=" + std::to_string(n) + ",scheduler=wfbp,collective=" + m_collective},
            {"iterations", "1"},
            {"warmup", "0"},
            {"bgLoad", "0"},
            {"progress", "false"}};
        params.insert(params.end(), m_extra.begin(), m_extra.end());
        TalbScenario::Result r = RunScenario(params, "ecmp", out);
        NS_TEST_ASSERT_MSG_EQ(r.iterationsDone, n, "every worker finished its iteration");
        const double mtu = 4096;
        const double overhead = TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES +
                                TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
        const double bits = 8.0 / DataRate(m_rate).GetBitRate();
        double expected;
        if (m_collective == "ring")
        {
            double m = s / n + TALB_FRAME_LEN;
            double wire = m + std::ceil(m / mtu) * overhead;
            expected = 2 * (n - 1) * (wire * bits + (mtu + overhead) * bits + 2e-6);
        }
        else
        {
            expected = 2.0 * (n - 1) / n * s * (1 + overhead / mtu) * bits;
        }
        double measured = CommSeconds(out);
        NS_TEST_EXPECT_MSG_EQ_TOL(measured,
                                  expected,
                                  0.02 * expected,
                                  m_collective << " time off the analytic bound");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.outOfOrder, 0u, "nothing dropped as out of order");
    }

    std::string m_collective;
    std::string m_rate;
    Params m_extra;
};

/**
 * \return the runner's parameters of an 8-worker ring of one tensor spread over 2 leaves x
 * \p spines spines at 100 Gb/s, hosts spraying under \p policy
 */
std::vector<std::pair<std::string, std::string>>
OneTensorRing(const std::string& policy, const std::string& model, uint32_t spines)
{
    return {{"transport", "spray"},
            {"sprayPolicy", policy},
            {"leaves", "2"},
            {"spines", std::to_string(spines)},
            {"hostsPerLeaf", "4"},
            {"placement", "spread"},
            {"hostRate", "100Gbps"},
            {"fabricRate", "100Gbps"},
            {"model", model},
            {"jobs", "workers=8,scheduler=wfbp"},
            {"iterations", "1"},
            {"warmup", "0"},
            {"bgLoad", "0"},
            {"progress", "false"}};
}

/// OneTensorRing over REPS, 2 spines, leaf 1's link to spine 0 failing at 10 us and never
/// withdrawn from the routes (a blackhole), stopped at \p stopTime.
std::vector<std::pair<std::string, std::string>>
BlackholedRing(const std::string& model, const std::string& stopTime)
{
    auto params = OneTensorRing("reps", model, 2);
    params.insert(params.end(),
                  {{"failLink", "1:0@10us"}, {"failDetect", "100s"}, {"stopTime", stopTime}});
    return params;
}

/**
 * Spraying on a leaf-spine: 8 workers spread over 2 leaves x 4 spines at 100 Gb/s, ring
 * all-reduce of 100 MB. The spray transport spreads each queue pair's packets over the spines
 * (rdma's ECMP keeps a queue pair on one), so they arrive out of order: selective repeat places
 * them (none dropped, no NAK) and every worker finishes.
 */
class TalbSprayLeafSpine : public talbtest::SimulationTestCase
{
  public:
    explicit TalbSprayLeafSpine(std::string policy)
        : SimulationTestCase(
              "TalbSprayLeafSpine: --transport=spray --sprayPolicy=" + policy +
              ": on a leaf-spine packets arrive out of order, are placed, none dropped"),
          m_policy(policy)
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const std::string out = CreateTempDirFilename("spray-ls-" + m_policy);
        TalbScenario::Result r = RunScenario(
            OneTensorRing(m_policy, CreateDataDirFilename("data/talb-one-tensor-model.csv"), 4),
            "ecmp",
            out);
        NS_TEST_ASSERT_MSG_EQ(r.iterationsDone, 8u, "every worker finished its iteration");
        NS_TEST_EXPECT_MSG_GT(r.rdma.placed, 1000u, "sprayed packets arrive out of order");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.outOfOrder, 0u, "... and are placed, not dropped");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.naks, 0u, "no NAK");
    }

    std::string m_policy;
};

/**
 * A leaf-spine link that fails unseen by the routes (failDetect beyond the run): what the
 * switches hash onto it is lost. With SprayAcks the acknowledgements take their data packet's
 * entropy, so REPS recycles only entropies whose data and acknowledgement both came through,
 * and every worker finishes; with the connection's one port for acknowledgements, a queue pair
 * whose reverse path crosses the dead link hears nothing, whatever entropies it sprays.
 */
class TalbSprayAcksAroundABlackhole : public talbtest::SimulationTestCase
{
  public:
    explicit TalbSprayAcksAroundABlackhole(bool sprayAcks)
        : SimulationTestCase(std::string("TalbSprayAcksAroundABlackhole: REPS, SprayAcks=") +
                             (sprayAcks ? "true: every worker finishes"
                                        : "false: acknowledgements lost, workers stall")),
          m_sprayAcks(sprayAcks)
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const std::string out =
            CreateTempDirFilename(std::string("spray-bh-") + (m_sprayAcks ? "on" : "off"));
        Config::SetDefault("ns3::TalbRdmaNic::SprayAcks", BooleanValue(m_sprayAcks));
        TalbScenario::Result r = RunScenario(
            BlackholedRing(CreateDataDirFilename("data/talb-one-tensor-model.csv"), "200ms"),
            "ecmp",
            out);
        NS_TEST_EXPECT_MSG_GT(r.switches.failedLinkDrops, 0u, "nothing met the blackhole");
        if (m_sprayAcks)
        {
            NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, 8u, "every worker finished its iteration");
        }
        else
        {
            NS_TEST_EXPECT_MSG_LT(r.iterationsDone, 8u, "acknowledgements crossed a dead link");
        }
    }

    bool m_sprayAcks;
};

/**
 * What a selective-repeat requester tells its entropy policy of 1 MB sent over one spine (no
 * reordering, no loss): with acknowledgements coalesced (AckInterval 16) the one entropy each
 * echoes; with RecycleCovered every packet an acknowledgement newly covers, under the entropy
 * the requester sent it with.
 */
class TalbRecycleCovered : public TestCase
{
  public:
    explicit TalbRecycleCovered(bool covered)
        : TestCase(std::string("TalbRecycleCovered: RecycleCovered=") +
                   (covered ? "true: the policy hears of every packet"
                            : "false: of one echo per acknowledgement")),
          m_covered(covered)
    {
    }

  private:
    void DoRun() override
    {
        Config::SetDefault("ns3::TalbRdmaNic::Recovery", StringValue("SelectiveRepeat"));
        Config::SetDefault("ns3::TalbRdmaNic::EntropyPolicy", StringValue("reps"));
        Config::SetDefault("ns3::TalbRdmaNic::RecycleCovered", BooleanValue(m_covered));
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("Spines", UintegerValue(1));
        f->SetLoadBalancer("ecmp");
        f->Install();
        auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
        Simulator::Schedule(MicroSeconds(5), [&qps]() { qps.first->PostSend(1000000); });
        Simulator::Run();
        TalbRdmaQueuePair::Stats tx = qps.first->GetStats();
        TalbEntropyPolicy::Stats told = qps.first->GetEntropyPolicy()->GetStats();
        Simulator::Destroy();
        Config::Reset();

        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, 0u, "nothing lost");
        NS_TEST_EXPECT_MSG_LT(tx.acksReceived * 8, tx.packetsSent, "acknowledgements coalesced");
        uint64_t expected = m_covered ? tx.packetsSent : tx.acksReceived;
        NS_TEST_EXPECT_MSG_EQ(told.acked, expected, "what the policy heard of");
    }

    bool m_covered;
};

/**
 * REPS recycles the entropies its acknowledgements echo. With one acknowledgement per packet
 * (the paper's one echo per packet) it keeps to the entropies that came through and explores
 * little, so around a blackhole its iteration ends well before the default coalescing's (one
 * echo in 16 packets, the other 15 exploring, half of them into the dead link).
 */
class TalbRepsEchoesAroundABlackhole : public talbtest::SimulationTestCase
{
  public:
    TalbRepsEchoesAroundABlackhole()
        : SimulationTestCase("TalbRepsEchoesAroundABlackhole: one echo per packet gets REPS "
                             "around a dead link sooner than one per 16")
    {
    }

  private:
    double IterationMs(uint32_t ackInterval)
    {
        Config::Reset();
        Config::SetDefault("ns3::TalbRdmaNic::AckInterval", UintegerValue(ackInterval));
        TalbScenario::Result r = RunScenario(
            BlackholedRing(CreateDataDirFilename("data/talb-one-tensor-model.csv"), "1s"),
            "ecmp",
            CreateTempDirFilename("reps-echo-" + std::to_string(ackInterval)));
        NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, 8u, "every worker finished its iteration");
        NS_TEST_EXPECT_MSG_GT(r.switches.failedLinkDrops, 0u, "nothing met the blackhole");
        return r.meanIterationMs;
    }

    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        double perPacket = IterationMs(1);
        double coalesced = IterationMs(16);
        NS_TEST_EXPECT_MSG_LT(perPacket,
                              0.8 * coalesced,
                              "per-packet echoes keep REPS off the dead link");
    }
};

class TalbSprayTestSuite : public TestSuite
{
  public:
    TalbSprayTestSuite()
        : TestSuite("talb-spray", UNIT)
    {
        AddTestCase(new TalbObliviousSpreads(), TestCase::QUICK);
        AddTestCase(new TalbRepsRecycles(), TestCase::QUICK);
        AddTestCase(new TalbRepsAbandonsFailed(), TestCase::QUICK);
        AddTestCase(new TalbRepsFreezesOnTimeout(), TestCase::QUICK);
        for (const char* collective : {"ring", "ps"})
        {
            for (const char* rate : {"10Gbps", "100Gbps"})
            {
                AddTestCase(
                    new TalbSprayAnalytic(collective,
                                          rate,
                                          {{"transport", "spray"}, {"sprayPolicy", "oblivious"}}),
                    TestCase::QUICK);
                AddTestCase(
                    new TalbSprayAnalytic(collective,
                                          rate,
                                          {{"transport", "spray"}, {"sprayPolicy", "reps"}}),
                    TestCase::QUICK);
                AddTestCase(new TalbSprayAnalytic(collective,
                                                  rate,
                                                  {{"transport", "rdma"}, {"rdmaRecovery", "sr"}}),
                            TestCase::QUICK);
            }
        }
        AddTestCase(new TalbSprayLeafSpine("oblivious"), TestCase::QUICK);
        AddTestCase(new TalbSprayLeafSpine("reps"), TestCase::QUICK);
        AddTestCase(new TalbSprayAcksAroundABlackhole(true), TestCase::QUICK);
        AddTestCase(new TalbSprayAcksAroundABlackhole(false), TestCase::QUICK);
        AddTestCase(new TalbRepsEchoesAroundABlackhole(), TestCase::QUICK);
        AddTestCase(new TalbRecycleCovered(false), TestCase::QUICK);
        AddTestCase(new TalbRecycleCovered(true), TestCase::QUICK);
    }
};

static TalbSprayTestSuite g_talbSprayTestSuite; //!< the suite's instance
