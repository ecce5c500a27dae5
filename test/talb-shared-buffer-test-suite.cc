// The switches' shared buffer: the dynamic-threshold arithmetic against hand-computed shares,
// a congested port taking more than a static per-port share of the same memory while the other
// ports are idle, and, with PFC on it, the dynamic XOFF pausing an incast without a loss (the
// headroom counted from where each pause started absorbs what is in flight).
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <algorithm>

using namespace ns3;

/// Fills \p queues queues of \p buffer in turn with 1000-byte packets until none is admitted.
/// \return the bytes each queue holds
std::vector<uint64_t>
Fill(Ptr<TalbSharedBuffer> buffer, uint32_t queues)
{
    std::vector<uint64_t> held(queues, 0);
    bool admitted = true;
    while (admitted)
    {
        admitted = false;
        for (uint32_t q = 0; q < queues; ++q)
        {
            if (buffer->AdmitLossy(held[q], 1000))
            {
                buffer->Charge(1000);
                held[q] += 1000;
                admitted = true;
            }
        }
    }
    return held;
}

/// Alpha / (1 + n Alpha) of the pool for each of n congested queues.
class TalbSharedBufferShares : public TestCase
{
  public:
    TalbSharedBufferShares()
        : TestCase("TalbSharedBufferShares: one queue alone takes Alpha over 1 + Alpha of the "
                   "pool, n queues Alpha over 1 + n Alpha each; release frees; PFC's threshold "
                   "is PfcAlpha x the free pool")
    {
    }

  private:
    void DoRun() override
    {
        for (double alpha : {1.0, 2.0, 0.5})
        {
            for (uint32_t n : {1u, 2u, 4u})
            {
                Ptr<TalbSharedBuffer> b = CreateObject<TalbSharedBuffer>();
                b->SetAttribute("Size", QueueSizeValue(QueueSize("1200000B")));
                b->SetAttribute("Alpha", DoubleValue(alpha));
                std::vector<uint64_t> held = Fill(b, n);
                double share = 1200000.0 * alpha / (1 + n * alpha);
                for (uint64_t h : held)
                {
                    NS_TEST_EXPECT_MSG_EQ_TOL(double(h),
                                              share,
                                              1000.0 * n,
                                              "alpha " << alpha << ", " << n);
                }
                NS_TEST_EXPECT_MSG_GT(b->GetStats().thresholdDrops, 0u, "refusals counted");
                NS_TEST_EXPECT_MSG_EQ(b->GetStats().fullDrops, 0u, "never full");
            }
        }
        Ptr<TalbSharedBuffer> b = CreateObject<TalbSharedBuffer>();
        b->SetAttribute("Size", QueueSizeValue(QueueSize("800000B")));
        b->Charge(400000);
        NS_TEST_EXPECT_MSG_EQ(b->GetPfcThreshold(), 50000u, "1/8 of 400 KB free");
        NS_TEST_EXPECT_MSG_EQ(b->GetQueueThreshold(), 400000u, "alpha 1");
        b->Charge(500000); // past the size: lossless headroom
        NS_TEST_EXPECT_MSG_EQ(b->GetFreeBytes(), 0u, "over-committed");
        NS_TEST_EXPECT_MSG_EQ(b->AdmitLossy(0, 100), false, "a full pool refuses lossy");
        NS_TEST_EXPECT_MSG_EQ(b->GetStats().fullDrops, 1u, "counted as full");
        b->Release(900000);
        NS_TEST_EXPECT_MSG_EQ(b->GetStats().usedBytes, 0u, "all released");
        NS_TEST_EXPECT_MSG_EQ(b->GetStats().peakBytes, 900000u, "peak kept");
    }
};

/**
 * Three hosts send to a fourth at line rate (no congestion control) on one 10 Gb/s leaf of five
 * ports: the port to the receiver congests, the others stay nearly idle (acknowledgements).
 */
class TalbSharedBufferCongestedPort : public talbtest::SimulationTestCase
{
  public:
    TalbSharedBufferCongestedPort(bool pfc)
        : talbtest::SimulationTestCase(
              pfc ? "TalbSharedBufferCongestedPort: with PFC on the shared buffer, a 3-to-1 "
                    "incast is paused by the dynamic XOFF with no packet lost"
                  : "TalbSharedBufferCongestedPort: lossy, the congested port holds more than "
                    "a static fifth of the same memory (a half of it, alpha 1)"),
          m_pfc(pfc)
    {
    }

  private:
    struct Outcome
    {
        uint64_t peak{0};
        uint64_t drops{0};
        TalbPfc::Stats pfc;
        TalbSharedBuffer::Stats shared;
    };

    Outcome Run(bool shared)
    {
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("Leaves", UintegerValue(1));
        f->SetAttribute("Spines", UintegerValue(1));
        f->SetAttribute("HostsPerLeaf", UintegerValue(4));
        f->SetAttribute("HostRate", StringValue("10Gbps"));
        f->SetAttribute("FabricRate", StringValue("10Gbps"));
        f->SetAttribute("QueueSize", StringValue("200000B"));
        if (shared)
        {
            f->SetAttribute("SharedBuffer", StringValue("1000000B")); // five ports x 200 KB
        }
        f->GetRdmaHelper()->SetAttribute("Pfc", BooleanValue(m_pfc));
        f->GetRdmaHelper()->SetRateControl("ns3::TalbFixedRate");
        // Go-back-N: no window, so the senders keep the port's queue growing.
        f->Install();
        f->AssignStreams(1);
        for (uint32_t s = 1; s <= 3; ++s)
        {
            auto qp = TalbRdmaNic::Connect(f->GetRdmaNic(s), f->GetRdmaNic(0));
            qp.first->PostSend(2000000);
        }
        Simulator::Stop(MilliSeconds(3));
        Simulator::Run();
        Outcome o;
        Ptr<TalbSwitch> leaf = f->GetLeafSwitch(0);
        auto q = DynamicCast<TalbPriorityQueue>(leaf->GetPort(0).queue); // to host 0
        for (uint8_t c = 0; c < TalbPriorityQueue::NUM_CLASSES; ++c)
        {
            o.peak = std::max<uint64_t>(o.peak, q->GetClassStats(c).peakBytes);
            o.drops += q->GetClassStats(c).droppedPackets;
        }
        if (leaf->GetPfc())
        {
            o.pfc = leaf->GetPfc()->GetStats();
        }
        if (q->GetSharedBuffer())
        {
            o.shared = q->GetSharedBuffer()->GetStats();
        }
        Simulator::Destroy();
        return o;
    }

    void DoRun() override
    {
        if (!m_pfc)
        {
            Outcome fixed = Run(false);
            Outcome shared = Run(true);
            NS_TEST_EXPECT_MSG_LT_OR_EQ(fixed.peak, 200000u, "static: at most its port's 200 KB");
            NS_TEST_EXPECT_MSG_GT(fixed.drops, 0u, "and it overflows");
            NS_TEST_EXPECT_MSG_GT(shared.peak, 400000u, "shared: about half of 1 MB");
            // The threshold is taken before the arriving packet is charged: half a packet more.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(shared.peak, 502100u, "never past alpha / (1 + alpha)");
            NS_TEST_EXPECT_MSG_LT(shared.drops, fixed.drops, "fewer drops with more buffer");
            NS_TEST_EXPECT_MSG_GT(shared.shared.thresholdDrops, 0u, "drops by the threshold");
            NS_TEST_EXPECT_MSG_EQ(shared.shared.thresholdDrops + shared.shared.fullDrops,
                                  shared.drops,
                                  "every drop at the port is the buffer's");
            return;
        }
        Outcome shared = Run(true);
        NS_TEST_EXPECT_MSG_GT(shared.pfc.pauseStarts, 0u, "the dynamic XOFF paused");
        NS_TEST_EXPECT_MSG_EQ(shared.pfc.headroomDrops, 0u, "the headroom absorbed the rest");
        NS_TEST_EXPECT_MSG_EQ(shared.drops, 0u, "lossless: nothing dropped at the egress");
        // Three ingress ports each paused near 1/8 of the free pool, plus headroom.
        NS_TEST_EXPECT_MSG_LT(shared.peak, 500000u, "PFC holds the queue well inside the pool");
        NS_TEST_EXPECT_MSG_GT(shared.peak, 100000u, "after the pool's threshold, not before");
    }

    bool m_pfc;
};

class TalbSharedBufferTestSuite : public TestSuite
{
  public:
    TalbSharedBufferTestSuite()
        : TestSuite("talb-shared-buffer", UNIT)
    {
        AddTestCase(new TalbSharedBufferShares(), TestCase::QUICK);
        AddTestCase(new TalbSharedBufferCongestedPort(false), TestCase::QUICK);
        AddTestCase(new TalbSharedBufferCongestedPort(true), TestCase::QUICK);
    }
};

static TalbSharedBufferTestSuite g_talbSharedBufferTestSuite;
