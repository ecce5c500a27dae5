// TalbPriorityQueue: strict-priority bands, classification, ECN marking, per-class counters and
// the best-effort cap, push-out of lower bands, and a fabric run where a high-priority tensor
// overtakes queued low-priority traffic.
#include "talb-test-fabric.h"
#include "talb-test-frames.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

using namespace ns3;

namespace
{

/// A PPP frame holding IPv4 + TCP with \p payload bytes, TOS \p tos.
Ptr<Packet>
Frame(uint32_t payload, uint8_t tos)
{
    Ptr<Packet> p = Create<Packet>(payload);
    TcpHeader tcp;
    p->AddHeader(tcp);
    Ipv4Header ip;
    ip.SetProtocol(6);
    ip.SetTos(tos);
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    PppHeader ppp;
    ppp.SetProtocol(0x0021);
    p->AddHeader(ppp);
    return p;
}

uint8_t
EcnOf(Ptr<const Packet> frame)
{
    return talbtest::Ipv4Of(frame).GetEcn();
}

} // namespace

/// Packets leave in band order, FIFO within a band.
class TalbPriorityQueueStrictOrderTestCase : public TestCase
{
  public:
    TalbPriorityQueueStrictOrderTestCase()
        : TestCase("TalbPriorityQueueStrictOrder: band 0 first, FIFO within a band")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("100p"));
        uint8_t prios[] = {7, 3, 7, 0, 3, 0, 5, 7};
        for (uint32_t k = 0; k < 8; ++k)
        {
            Ptr<Packet> p = Frame(100 + k, 0);
            p->AddPacketTag(TalbTag(k, prios[k], 0));
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(p), true, "enqueue");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetBandPackets(7), 3, "band 7 count");
        uint32_t expected[] = {3, 5, 1, 4, 6, 0, 2, 7}; // tensor ids in service order
        for (uint32_t k = 0; k < 8; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(bool(q->Peek()), true, "peek");
            Ptr<Packet> p = q->Dequeue();
            TalbTag tag;
            p->PeekPacketTag(tag);
            NS_TEST_ASSERT_MSG_EQ(tag.GetTensorId(), expected[k], "service order at " << k);
        }
        NS_TEST_ASSERT_MSG_EQ(bool(q->Dequeue()), false, "empty");
        for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
        {
            NS_TEST_ASSERT_MSG_EQ(q->GetBandBytes(b), 0, "band bytes");
        }
    }
};

/// Band of a packet: tag (BandFrom Option), else DSCP, else control (pure ACK), else untagged band.
class TalbPriorityQueueClassifyTestCase : public TestCase
{
  public:
    TalbPriorityQueueClassifyTestCase()
        : TestCase("TalbPriorityQueueClassify: tag (unless BandFrom Dscp), DSCP, ACK -> "
                   "ControlBand, else "
                   "UntaggedBand")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetAttribute("ControlBand", UintegerValue(1));
        q->SetAttribute("UntaggedBand", UintegerValue(6));
        for (uint8_t prio = 0; prio < TALB_NUM_PRIORITIES; ++prio)
        {
            Ptr<Packet> byDscp = Frame(500, talb_dscp_from_priority(prio) << 2);
            NS_TEST_ASSERT_MSG_EQ(+q->Classify(byDscp), +prio, "DSCP of priority " << +prio);
        }
        Ptr<Packet> tagged = Frame(500, talb_dscp_from_priority(4) << 2);
        tagged->AddPacketTag(TalbTag(1, 2, 0));
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(tagged), 2, "the tag wins over DSCP");
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(Frame(0, 0)), 1, "pure ACK");
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(Frame(0, 2)), 1, "pure ACK, ECT");
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(Frame(500, 0)), 6, "untagged data");
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(Create<Packet>(50)), 6, "not IPv4");

        // BandFrom Dscp: the traffic class decides, whatever the option says.
        q->SetAttribute("BandFrom", StringValue("Dscp"));
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(tagged), 4, "BandFrom Dscp: the DSCP wins over the tag");
        Ptr<Packet> taggedNoDscp = Frame(500, 0);
        taggedNoDscp->AddPacketTag(TalbTag(1, 2, 0));
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(taggedNoDscp),
                              6,
                              "BandFrom Dscp: tag alone is untagged");
        NS_TEST_ASSERT_MSG_EQ(+q->Classify(Frame(0, 0)), 1, "BandFrom Dscp: pure ACK");
    }
};

/// ECN-capable packets are marked CE at and above MarkThreshold; others never.
class TalbPriorityQueueEcnTestCase : public TestCase
{
  public:
    TalbPriorityQueueEcnTestCase(bool perBand)
        : TestCase(std::string("TalbPriorityQueueEcn: mark ECT at >= 3 packets of the ") +
                   (perBand ? "band" : "port")),
          m_perBand(perBand)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("100p"));
        q->SetAttribute("Scheduling", EnumValue(TalbPriorityQueue::STRICT));
        q->SetAttribute("MarkThreshold", QueueSizeValue(QueueSize("3p")));
        q->SetAttribute("EcnPerBand", BooleanValue(m_perBand));
        // Three band-7 packets fill the port to the threshold.
        for (int k = 0; k < 3; ++k)
        {
            q->Enqueue(Frame(1000, Ipv4Header::ECN_ECT0));
        }
        // A band-0 ECT packet: marked when the port counts, not when its own band does.
        q->Enqueue(Frame(1000, (talb_dscp_from_priority(0) << 2) | Ipv4Header::ECN_ECT0));
        // Band 7 now holds 3: a 4th ECT packet is marked either way; a Not-ECT one never.
        q->Enqueue(Frame(1000, Ipv4Header::ECN_ECT1));
        q->Enqueue(Frame(1000, Ipv4Header::ECN_NotECT));
        const int band0Ecn = m_perBand ? Ipv4Header::ECN_ECT0 : Ipv4Header::ECN_CE;
        NS_TEST_ASSERT_MSG_EQ(+EcnOf(q->Dequeue()), band0Ecn, "band-0 packet");
        for (int k = 0; k < 3; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(+EcnOf(q->Dequeue()), +Ipv4Header::ECN_ECT0, "below K");
        }
        NS_TEST_ASSERT_MSG_EQ(+EcnOf(q->Dequeue()), +Ipv4Header::ECN_CE, "ECT1 above K");
        NS_TEST_ASSERT_MSG_EQ(+EcnOf(q->Dequeue()), +Ipv4Header::ECN_NotECT, "Not-ECT");
        NS_TEST_ASSERT_MSG_EQ(q->GetMarkedCount(), m_perBand ? 1u : 2u, "marked count");
    }

    bool m_perBand;
};

/// A tensor packet of \p payload bytes at priority \p prio, tensor id \p id.
Ptr<Packet>
TensorFrame(uint32_t payload, uint8_t prio, uint32_t id)
{
    Ptr<Packet> p = Frame(payload, 0);
    p->AddPacketTag(TalbTag(id, prio, 0));
    return p;
}

/// Priority of a dequeued packet, or -1 when untagged.
int
PrioOf(Ptr<const Packet> p)
{
    TalbTag tag;
    return p->PeekPacketTag(tag) ? tag.GetPriority() : -1;
}

/// Training band of a dequeued frame (tag, DSCP, or 0 for a pure ACK); -1 for untagged data.
int
TrainingBandOf(Ptr<const Packet> frame)
{
    int prio = PrioOf(frame);
    if (prio >= 0)
    {
        return prio;
    }
    const Ipv4Header ip = talbtest::Ipv4Of(frame);
    prio = talb_priority_from_dscp(ip.GetDscp());
    if (prio >= 0)
    {
        return prio;
    }
    return ip.GetPayloadSize() <= 20 ? 0 : -1;
}

/// Dwrr: while both classes are backlogged, their byte shares follow the weights (mixed packet
/// sizes), and Peek() shows what Dequeue() returns.
class TalbPriorityQueueDwrrSharesTestCase : public TestCase
{
  public:
    TalbPriorityQueueDwrrSharesTestCase(uint32_t trainingWeight, uint32_t bestEffortWeight)
        : TestCase("TalbPriorityQueueDwrrShares: byte shares " + std::to_string(trainingWeight) +
                   ":" + std::to_string(bestEffortWeight) + " under saturation"),
          m_tw(trainingWeight),
          m_bw(bestEffortWeight)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("100000p"));
        q->SetAttribute("TrainingWeight", UintegerValue(m_tw));
        q->SetAttribute("BestEffortWeight", UintegerValue(m_bw));
        // Far more of each class than is dequeued, sizes differing between and within classes.
        const uint32_t trainingSizes[] = {8948, 1448, 8948, 300};
        const uint32_t bestEffortSizes[] = {1448, 8948, 64, 4000, 1448};
        for (uint32_t k = 0; k < 4000; ++k)
        {
            q->Enqueue(TensorFrame(trainingSizes[k % 4], k % 8, k));
            q->Enqueue(Frame(bestEffortSizes[k % 5], 0));
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetBestEffortPackets(), 4000u, "untagged in best effort");
        uint64_t bytes[2] = {0, 0};
        for (uint32_t k = 0; k < 3000; ++k)
        {
            Ptr<const Packet> peeked = q->Peek();
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(peeked, Ptr<const Packet>(p), "Peek shows the next packet");
            bytes[PrioOf(p) < 0] += p->GetSize();
        }
        double share = double(bytes[0]) / (bytes[0] + bytes[1]);
        double want = double(m_tw) / (m_tw + m_bw);
        NS_TEST_ASSERT_MSG_EQ_TOL(share, want, 0.02, "training byte share");
    }

    uint32_t m_tw;
    uint32_t m_bw;
};

/// Dwrr: the training class is strict priority among its bands while best-effort packets are
/// interleaved by DWRR; ACKs (ControlBand) and DSCP-tagged packets are training traffic.
class TalbPriorityQueueDwrrStrictBandsTestCase : public TestCase
{
  public:
    TalbPriorityQueueDwrrStrictBandsTestCase()
        : TestCase("TalbPriorityQueueDwrrStrictBands: tensor bands strict inside the training "
                   "class, background served in between")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("10000p"));
        NS_TEST_ASSERT_MSG_EQ(q->GetBestEffortPackets(), 0u, "empty");
        const uint8_t prios[] = {7, 3, 5, 0, 3, 1, 7, 6};
        for (uint32_t k = 0; k < 400; ++k)
        {
            q->Enqueue(TensorFrame(1448, prios[k % 8], k));
            q->Enqueue(Frame(1448, 0));
        }
        q->Enqueue(Frame(0, 0)); // a pure ACK: training class, ControlBand 0
        q->Enqueue(Frame(1448, talb_dscp_from_priority(2) << 2)); // DSCP-tagged: training band 2
        NS_TEST_ASSERT_MSG_EQ(q->GetBestEffortPackets(), 400u, "only untagged data is best effort");
        int last = -1;
        uint32_t training = 0;
        uint32_t bestEffort = 0;
        while (Ptr<Packet> p = q->Dequeue())
        {
            int band = TrainingBandOf(p);
            if (band < 0)
            {
                ++bestEffort;
                // While tensors wait, the classes take turns of one quantum (about 6 packets).
                if (training < 400)
                {
                    NS_TEST_EXPECT_MSG_LT(bestEffort, training + 8, "best effort ahead");
                    NS_TEST_EXPECT_MSG_LT(training, bestEffort + 8, "training ahead");
                }
                continue;
            }
            NS_TEST_EXPECT_MSG_GT_OR_EQ(band, last, "tensor bands leave in strict order");
            last = band;
            ++training;
        }
        NS_TEST_ASSERT_MSG_EQ(training, 402u, "every training packet");
        NS_TEST_ASSERT_MSG_EQ(bestEffort, 400u, "every best-effort packet");
    }
};

/// Dwrr: a class alone gets the whole port (work-conserving); a class that was idle earned no
/// credit, so when both are busy again the shares follow the weights from the start.
class TalbPriorityQueueDwrrIdleTestCase : public TestCase
{
  public:
    TalbPriorityQueueDwrrIdleTestCase()
        : TestCase("TalbPriorityQueueDwrrIdle: an idle class gets no share and banks no credit")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("10000p"));
        q->SetAttribute("TrainingWeight", UintegerValue(3));
        // Training alone: every dequeue serves it, none returns nothing while packets wait.
        for (uint32_t k = 0; k < 1000; ++k)
        {
            q->Enqueue(TensorFrame(8948, k % 8, k));
        }
        for (uint32_t k = 0; k < 1000; ++k)
        {
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_NE(p, Ptr<Packet>(), "work-conserving (training alone)");
        }
        // Best effort alone, likewise.
        for (uint32_t k = 0; k < 1000; ++k)
        {
            q->Enqueue(Frame(8948, 0));
        }
        for (uint32_t k = 0; k < 1000; ++k)
        {
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_NE(p, Ptr<Packet>(), "work-conserving (best effort alone)");
            NS_TEST_ASSERT_MSG_EQ(PrioOf(p), -1, "best effort");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 0u, "empty");
        // Both again: 3:1 over the first 40 packets (10 rounds), neither class owed anything.
        for (uint32_t k = 0; k < 200; ++k)
        {
            q->Enqueue(TensorFrame(8948, 4, k));
            q->Enqueue(Frame(8948, 0));
        }
        uint32_t n[2] = {0, 0};
        for (uint32_t k = 0; k < 40; ++k)
        {
            ++n[PrioOf(q->Dequeue()) < 0];
        }
        NS_TEST_ASSERT_MSG_EQ(n[0], 30u, "training packets in 10 rounds");
        NS_TEST_ASSERT_MSG_EQ(n[1], 10u, "best-effort packets in 10 rounds");
    }
};

/// Strict (kept for comparison): untagged packets in UntaggedBand 0 pre-empt every tensor.
class TalbPriorityQueueStrictUntaggedTestCase : public TestCase
{
  public:
    TalbPriorityQueueStrictUntaggedTestCase()
        : TestCase("TalbPriorityQueueStrictUntagged: Strict, UntaggedBand 0 pre-empts tensors")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("1000p"));
        q->SetAttribute("Scheduling", EnumValue(TalbPriorityQueue::STRICT));
        q->SetAttribute("UntaggedBand", UintegerValue(0));
        for (uint32_t k = 0; k < 50; ++k)
        {
            q->Enqueue(TensorFrame(1448, 1, k));
            q->Enqueue(Frame(1448, 0));
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetBestEffortPackets(), 0u, "no best-effort class");
        NS_TEST_ASSERT_MSG_EQ(q->GetBandPackets(0), 50u, "untagged in band 0");
        for (uint32_t k = 0; k < 100; ++k)
        {
            int want = k < 50 ? -1 : 1;
            NS_TEST_ASSERT_MSG_EQ(PrioOf(q->Dequeue()), want, "service order at " << k);
        }
    }
};

/// ClassDrop sink: adds 1000 per best-effort drop and 1 per training drop.
static void
CountClassDrop(uint32_t* n, Ptr<const Packet>, uint8_t cls, uint32_t, uint32_t)
{
    *n += cls == TalbPriorityQueue::BEST_EFFORT_CLASS ? 1000 : 1;
}

/// Per-class counters under either scheduler; BestEffortMaxBytes drops untagged packets beyond
/// the cap and leaves the rest of the buffer to the training class.
class TalbPriorityQueueClassCountersTestCase : public TestCase
{
  public:
    TalbPriorityQueueClassCountersTestCase(bool dwrr)
        : TestCase(std::string("TalbPriorityQueueClassCounters: ") + (dwrr ? "Dwrr" : "Strict") +
                   ", per-class enqueued, dequeued, dropped and peak bytes; best-effort cap"),
          m_dwrr(dwrr)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("20p"));
        q->SetAttribute("Scheduling",
                        EnumValue(m_dwrr ? TalbPriorityQueue::DWRR : TalbPriorityQueue::STRICT));
        q->SetAttribute("UntaggedBand", UintegerValue(0));
        const uint32_t size = Frame(1000, 0)->GetSize();
        q->SetAttribute("BestEffortMaxBytes", UintegerValue(8 * size));
        uint32_t traced = 0;
        q->TraceConnectWithoutContext("ClassDrop", MakeBoundCallback(&CountClassDrop, &traced));
        // Ten untagged (two over the cap), then fifteen tensor packets at band 0 (three over the
        // 20-packet buffer, which best effort holds eight of).
        for (uint32_t k = 0; k < 10; ++k)
        {
            q->Enqueue(Frame(1000, 0));
        }
        for (uint32_t k = 0; k < 15; ++k)
        {
            q->Enqueue(TensorFrame(1000, 0, k));
        }
        const auto& tr = q->GetClassStats(TalbPriorityQueue::TRAINING_CLASS);
        const auto& be = q->GetClassStats(TalbPriorityQueue::BEST_EFFORT_CLASS);
        NS_TEST_EXPECT_MSG_EQ(be.enqueuedPackets, 8u, "best effort up to the cap");
        NS_TEST_EXPECT_MSG_EQ(be.droppedPackets, 2u, "two over the cap");
        NS_TEST_EXPECT_MSG_EQ(be.capDrops, 2u, "both by the cap");
        NS_TEST_EXPECT_MSG_EQ(be.peakBytes, 8 * size, "best-effort peak");
        NS_TEST_EXPECT_MSG_EQ(tr.enqueuedPackets, 12u, "training takes the rest of the buffer");
        NS_TEST_EXPECT_MSG_EQ(tr.droppedPackets, 3u, "three over the shared buffer");
        NS_TEST_EXPECT_MSG_EQ(tr.capDrops, 0u, "not by the cap");
        NS_TEST_EXPECT_MSG_EQ(tr.otherBytesAtDrops, 3u * 8 * size, "best effort held 8 each time");
        NS_TEST_EXPECT_MSG_EQ(traced, 2003u, "ClassDrop fired for each drop (2 x 1000 + 3)");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassBytes(TalbPriorityQueue::BEST_EFFORT_CLASS),
                              8 * size,
                              "queued best effort");
        while (q->Dequeue())
        {
        }
        NS_TEST_EXPECT_MSG_EQ(tr.dequeuedPackets, 12u, "training dequeued");
        NS_TEST_EXPECT_MSG_EQ(tr.dequeuedBytes, 12u * size, "training bytes dequeued");
        NS_TEST_EXPECT_MSG_EQ(be.dequeuedPackets, 8u, "best effort dequeued");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassBytes(TalbPriorityQueue::TRAINING_CLASS), 0u, "empty");
        NS_TEST_EXPECT_MSG_EQ(q->GetClassBytes(TalbPriorityQueue::BEST_EFFORT_CLASS), 0u, "empty");
    }

    bool m_dwrr;
};

/// DropAfterDequeue sink: the tensor ids of the packets pushed out.
static void
RecordPushedOut(std::vector<uint32_t>* ids, Ptr<const Packet> p)
{
    TalbTag tag;
    ids->push_back(p->PeekPacketTag(tag) ? tag.GetTensorId() : UINT32_MAX);
}

/// PushOut: an arrival that finds the port full drops the oldest packets of the lowest band below
/// its own where they make room; never its own band or above, never when they cannot make room,
/// never the best-effort class under Dwrr; off, the port is drop-tail.
class TalbPriorityQueuePushOutTestCase : public TestCase
{
  public:
    TalbPriorityQueuePushOutTestCase()
        : TestCase("TalbPriorityQueuePushOut: lowest band's oldest first, only where it makes "
                   "room, counted and traced")
    {
    }

  private:
    Ptr<TalbPriorityQueue> Make(const std::string& max, bool pushOut, std::vector<uint32_t>* ids)
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize(max));
        q->SetAttribute("PushOut", BooleanValue(pushOut));
        q->TraceConnectWithoutContext("DropAfterDequeue", MakeBoundCallback(&RecordPushedOut, ids));
        return q;
    }

    void DoRun() override
    {
        std::vector<uint32_t> ids;
        Ptr<TalbPriorityQueue> q = Make("4p", true, &ids);
        const uint8_t fill[] = {5, 5, 3, 1}; // ids 0-3: the port is full
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(q->Enqueue(TensorFrame(1000, fill[k], k)), true, "fill " << k);
        }
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 4)), true, "pushes out id 0");
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 5)), true, "pushes out id 1");
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 3, 6)), false, "nothing below band 3");
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 6, 7)), false, "nothing below band 6");
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 8)), true, "pushes out id 2");
        NS_TEST_EXPECT_MSG_EQ(ids.size(), 3u, "three pushed out");
        for (uint32_t k = 0; k < ids.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(ids[k], k, "the lowest band's oldest first");
        }
        const auto& tr = q->GetClassStats(TalbPriorityQueue::TRAINING_CLASS);
        NS_TEST_EXPECT_MSG_EQ(tr.pushedOut, 3u, "pushed out");
        NS_TEST_EXPECT_MSG_EQ(tr.droppedPackets, 5u, "three pushed out, two refused");
        NS_TEST_EXPECT_MSG_EQ(q->GetBandPackets(5) + q->GetBandPackets(3), 0u, "lower bands gone");
        const uint32_t order[] = {4, 5, 8, 3};
        for (uint32_t want : order)
        {
            TalbTag tag;
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(bool(p) && p->PeekPacketTag(tag), true, "dequeue");
            NS_TEST_EXPECT_MSG_EQ(tag.GetTensorId(), want, "band order after push-outs");
        }
        NS_TEST_EXPECT_MSG_EQ(q->GetNBytes(), 0u, "bytes accounted");

        // Bytes: an arrival the lower bands cannot make room for is refused, and they stay.
        ids.clear();
        const uint32_t frame = TensorFrame(1000, 0, 0)->GetSize();
        q = Make(std::to_string(3 * frame) + "B", true, &ids);
        q->Enqueue(TensorFrame(1000, 1, 0));
        q->Enqueue(TensorFrame(1000, 1, 1));
        q->Enqueue(TensorFrame(1000, 5, 2));
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(2000, 1, 3)), false, "no room below band 1");
        NS_TEST_EXPECT_MSG_EQ(q->GetBandPackets(5), 1u, "band 5 kept its packet");
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 4)), true, "room below band 0");
        NS_TEST_EXPECT_MSG_EQ((ids == std::vector<uint32_t>{2}), true, "band 5's packet went");

        // Off: drop-tail.
        ids.clear();
        q = Make("2p", false, &ids);
        q->Enqueue(TensorFrame(1000, 5, 0));
        q->Enqueue(TensorFrame(1000, 5, 1));
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 2)), false, "off: refused");
        NS_TEST_EXPECT_MSG_EQ(ids.empty(), true, "off: nothing pushed out");

        // Dwrr: the best-effort class shares the port by weight and is never pushed out.
        q = Make("2p", true, &ids);
        q->Enqueue(Frame(1000, 0));
        q->Enqueue(Frame(1000, 0));
        NS_TEST_EXPECT_MSG_EQ(q->Enqueue(TensorFrame(1000, 0, 3)), false, "best effort stays");
        NS_TEST_EXPECT_MSG_EQ(ids.empty(), true, "Dwrr: nothing pushed out");
    }
};

/// GetRoomBytes (what TaLB's SprayQueue=AtOrAboveWithRoom reads) says whether Enqueue takes a
/// tagged packet: drop-tail in bytes, with PushOut, in packets, and on a shared buffer (lossy
/// and lossless bands), through a mix of arrivals of every band and departures.
class TalbPriorityQueueRoomTestCase : public TestCase
{
  public:
    TalbPriorityQueueRoomTestCase()
        : TestCase("TalbPriorityQueueRoom: room for a band's packet exactly when Enqueue takes it "
                   "(MaxSize in bytes or packets, PushOut, shared buffer, lossless bands)")
    {
    }

  private:
    void DoRun() override
    {
        enum Mode
        {
            DROP_TAIL,
            PUSH_OUT,
            PACKETS,
            SHARED,
        };

        for (Mode mode : {DROP_TAIL, PUSH_OUT, PACKETS, SHARED})
        {
            Ptr<TalbSharedBuffer> buffer;
            std::vector<Ptr<TalbPriorityQueue>> queues;
            for (int k = 0; k < 2; ++k)
            {
                Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
                q->SetMaxSize(QueueSize(mode == PACKETS ? "12p" : "20000B"));
                q->SetAttribute("PushOut", BooleanValue(mode == PUSH_OUT));
                if (mode == SHARED)
                {
                    if (!buffer)
                    {
                        buffer = CreateObject<TalbSharedBuffer>();
                        buffer->SetAttribute("Size", QueueSizeValue(QueueSize("30000B")));
                    }
                    q->SetSharedBuffer(buffer, 1 << 3); // band 3 lossless
                }
                queues.push_back(q);
            }
            Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
            u->SetStream(11);
            auto next = [&u](uint32_t n) { return u->GetInteger(0, n - 1); };
            uint32_t admitted = 0;
            uint32_t refused = 0;
            for (int step = 0; step < 3000; ++step)
            {
                Ptr<TalbPriorityQueue> q = queues[next(2)];
                if (next(3) == 0)
                {
                    q->Dequeue();
                    continue;
                }
                const uint8_t band = next(8);
                Ptr<Packet> p = TensorFrame(300 + next(1200), band, step);
                const bool fits = q->GetRoomBytes(band) >= p->GetSize();
                const bool taken = q->Enqueue(p);
                NS_TEST_ASSERT_MSG_EQ(taken, fits, "mode " << mode << ", step " << step);
                taken ? ++admitted : ++refused;
            }
            NS_TEST_EXPECT_MSG_GT(admitted, 100u, "mode " << mode << ": packets taken");
            NS_TEST_EXPECT_MSG_GT(refused, 100u, "mode " << mode << ": packets refused");
        }
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("10000B"));
        const uint32_t frame = TensorFrame(1000, 6, 0)->GetSize();
        q->Enqueue(TensorFrame(1000, 6, 0));
        NS_TEST_EXPECT_MSG_EQ(q->GetRoomBytes(2), 10000u - frame, "MaxSize less the bytes queued");
        q->SetAttribute("PushOut", BooleanValue(true));
        NS_TEST_EXPECT_MSG_EQ(q->GetRoomBytes(2), 10000u, "PushOut frees the lower bands");
        NS_TEST_EXPECT_MSG_EQ(q->GetRoomBytes(6), 10000u - frame, "not its own band");
    }
};

/// Fabric: two low-priority senders overload a host port; a high-priority tensor started later
/// finishes far sooner than the same tensor sent at low priority.
class TalbPriorityQueueOvertakeTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbPriorityQueueOvertakeTestCase()
        : talbtest::SimulationTestCase(
              "TalbPriorityQueueOvertake: a priority-0 tensor overtakes queued priority-7 "
              "traffic (FCT < half of the same tensor at priority 7)")
    {
    }

  private:
    /// \return completion time of a 150 kB tensor of priority \p prio sent at 3 ms
    Time Run(uint8_t prio)
    {
        TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Leaves", UintegerValue(1));
        f->SetAttribute("HostsPerLeaf", UintegerValue(4));
        f->Install();
        Config::Reset();
        // Hosts 0 and 1: 20 MB each at priority 7 to host 3 (2:1 overload of its port).
        for (uint32_t h = 0; h < 2; ++h)
        {
            TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), 8000 + h));
            sink.Install(f->GetHost(3));
            Ptr<TalbTensorSource> bg = CreateObject<TalbTensorSource>();
            bg->SetAttribute("Remote",
                             AddressValue(InetSocketAddress(f->GetHostAddress(3), 8000 + h)));
            bg->AddTensor(100 + h, 7, 20000000, MicroSeconds(10));
            f->GetHost(h)->AddApplication(bg);
        }
        const uint32_t bytes = 150000;
        const Time start = MilliSeconds(3);
        TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), 8100));
        Ptr<TalbBulkSink> rx = DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(3)).Get(0));
        Ptr<TalbTensorSource> fg = CreateObject<TalbTensorSource>();
        fg->SetAttribute("Remote", AddressValue(InetSocketAddress(f->GetHostAddress(3), 8100)));
        fg->AddTensor(1, prio, bytes, start);
        f->GetHost(2)->AddApplication(fg);
        fg->SetStartTime(start - MicroSeconds(500)); // connected before the tensor starts
        Time done;
        rx->TraceConnectWithoutContext(
            "Rx",
            // A raw pointer: a Ptr bound into the sink's own trace would keep it alive forever.
            MakeBoundCallback(
                +[](TalbBulkSink* s, uint32_t b, Time* t, Ptr<const Packet>, const Address&) {
                    if (s->GetTotalRx() >= b && t->IsZero())
                    {
                        *t = Simulator::Now();
                    }
                },
                PeekPointer(rx),
                bytes,
                &done));
        Simulator::Stop(MilliSeconds(15));
        Simulator::Run();
        return done.IsZero() ? Seconds(1) : done - start;
    }

    void DoRun() override
    {
        Time high = Run(0);
        Time low = Run(7);
        NS_TEST_ASSERT_MSG_LT(high, MilliSeconds(1), "high-priority tensor too slow: " << high);
        NS_TEST_ASSERT_MSG_LT(high * 2, low, "no overtaking: prio 0 " << high << " vs 7 " << low);
    }
};

/// The talb-priority-queue suite.
/// BandScheduling Dwrr: the strict bands go first whenever they hold packets; the other bands
/// share by DWRR with BandWeights (byte shares under saturation, mixed sizes), each backlogged
/// band is served (none starves), and the best-effort class still takes its DWRR turns.
class TalbPriorityQueueDwrrBandsTestCase : public TestCase
{
  public:
    TalbPriorityQueueDwrrBandsTestCase()
        : TestCase("TalbPriorityQueueDwrrBands: strict bands first, the others by their weights")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("100000p"));
        q->SetAttribute("BandScheduling", EnumValue(TalbPriorityQueue::DWRR_BANDS));
        q->SetAttribute("StrictBands", UintegerValue(2));
        q->SetAttribute("BandWeights", StringValue("9,9,1,1,3,1,1,4"));
        StringValue weights;
        q->GetAttribute("BandWeights", weights);
        NS_TEST_ASSERT_MSG_EQ(weights.Get(), "9,9,1,1,3,1,1,4", "weights read back");
        const uint32_t sizes[] = {8948, 1448, 300, 4000};
        for (uint32_t k = 0; k < 3000; ++k)
        {
            q->Enqueue(TensorFrame(sizes[k % 4], 2, k));
            q->Enqueue(TensorFrame(sizes[(k + 1) % 4], 4, k));
            q->Enqueue(TensorFrame(sizes[(k + 2) % 4], 7, k));
        }
        for (uint32_t k = 0; k < 20; ++k)
        {
            q->Enqueue(TensorFrame(1448, k % 2, k)); // strict bands 0 and 1
        }
        for (uint32_t k = 0; k < 20; ++k)
        {
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_LT(PrioOf(p), 2, "a strict band leaves first");
        }
        std::array<uint64_t, TALB_NUM_PRIORITIES> bytes{};
        for (uint32_t k = 0; k < 4000; ++k)
        {
            Ptr<const Packet> peeked = q->Peek();
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(peeked, Ptr<const Packet>(p), "Peek shows the next packet");
            bytes[PrioOf(p)] += p->GetSize();
            if (k == 100)
            {
                q->Enqueue(TensorFrame(1448, 1, 0)); // a strict band jumps the DWRR turns
                Ptr<Packet> urgent = q->Dequeue();
                NS_TEST_ASSERT_MSG_EQ(PrioOf(urgent), 1, "strict band 1 at once");
            }
        }
        double total = double(bytes[2] + bytes[4] + bytes[7]);
        NS_TEST_ASSERT_MSG_EQ_TOL(bytes[2] / total, 1.0 / 8, 0.02, "band 2: weight 1 of 8");
        NS_TEST_ASSERT_MSG_EQ_TOL(bytes[4] / total, 3.0 / 8, 0.02, "band 4: weight 3 of 8");
        NS_TEST_ASSERT_MSG_EQ_TOL(bytes[7] / total, 4.0 / 8, 0.02, "band 7: weight 4 of 8");

        // Under the default (Strict) band 7 gets nothing while band 2 has packets.
        Ptr<TalbPriorityQueue> strict = CreateObject<TalbPriorityQueue>();
        strict->SetMaxSize(QueueSize("1000p"));
        for (uint32_t k = 0; k < 100; ++k)
        {
            strict->Enqueue(TensorFrame(1448, 7, k));
            strict->Enqueue(TensorFrame(1448, 2, k));
        }
        for (uint32_t k = 0; k < 100; ++k)
        {
            NS_TEST_ASSERT_MSG_EQ(PrioOf(strict->Dequeue()), 2, "strict: band 2 until empty");
        }

        // With the best-effort class beside it the training class keeps its DWRR share.
        Ptr<TalbPriorityQueue> both = CreateObject<TalbPriorityQueue>();
        both->SetMaxSize(QueueSize("100000p"));
        both->SetAttribute("BandScheduling", EnumValue(TalbPriorityQueue::DWRR_BANDS));
        for (uint32_t k = 0; k < 2000; ++k)
        {
            both->Enqueue(TensorFrame(1448, 3, k));
            both->Enqueue(TensorFrame(1448, 6, k));
            both->Enqueue(Frame(1448, 0));
        }
        std::array<uint32_t, 3> packets{}; // band 3, band 6, best effort
        for (uint32_t k = 0; k < 3000; ++k)
        {
            int prio = PrioOf(both->Dequeue());
            ++packets[prio == 3 ? 0 : prio == 6 ? 1 : 2];
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(double(packets[2]), 1500.0, 10.0, "best effort: half");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(packets[0]), 750.0, 10.0, "band 3: a quarter");
        NS_TEST_ASSERT_MSG_EQ_TOL(double(packets[1]), 750.0, 10.0, "band 6: a quarter");
    }
};

class TalbPriorityQueueTestSuite : public TestSuite
{
  public:
    TalbPriorityQueueTestSuite()
        : TestSuite("talb-priority-queue", UNIT)
    {
        AddTestCase(new TalbPriorityQueueStrictOrderTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueClassifyTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueEcnTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueEcnTestCase(true), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueOvertakeTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrSharesTestCase(1, 1), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrSharesTestCase(3, 1), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrSharesTestCase(1, 4), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrStrictBandsTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrIdleTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueDwrrBandsTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueStrictUntaggedTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueuePushOutTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueRoomTestCase, TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueClassCountersTestCase(true), TestCase::QUICK);
        AddTestCase(new TalbPriorityQueueClassCountersTestCase(false), TestCase::QUICK);
    }
};

static TalbPriorityQueueTestSuite g_talbPriorityQueueTestSuite;
