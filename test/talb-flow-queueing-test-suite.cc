// TalbPriorityQueue with FlowQueueing (TalbFlowQueues): the flows of a band share it evenly by
// deficit round robin whatever they have queued, each flow's packets leave in order, bands stay
// strict, and flows beyond MaxFlows share an overflow queue without losing order or packets.
#include "talb-test-frames.h"

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <vector>

using namespace ns3;

namespace
{

/// A PPP frame of IPv4 + TCP from port \p flow to port 80, sequence number \p seq, \p payload
/// bytes, in band \p band (TalbTag priority).
Ptr<Packet>
Segment(uint16_t flow, uint32_t seq, uint32_t payload, uint8_t band)
{
    Ptr<Packet> p = Create<Packet>(payload);
    TcpHeader tcp;
    tcp.SetSourcePort(flow);
    tcp.SetDestinationPort(80);
    tcp.SetSequenceNumber(SequenceNumber32(seq));
    p->AddHeader(tcp);
    Ipv4Header ip;
    ip.SetSource(Ipv4Address("10.0.0.1"));
    ip.SetDestination(Ipv4Address("10.0.0.2"));
    ip.SetProtocol(6);
    ip.SetPayloadSize(p->GetSize());
    p->AddHeader(ip);
    PppHeader ppp;
    ppp.SetProtocol(0x0021);
    p->AddHeader(ppp);
    p->AddPacketTag(TalbTag(flow, band, 0));
    return p;
}

/// The (source port, sequence number) of a frame made by Segment.
std::pair<uint16_t, uint32_t>
FlowAndSeq(Ptr<const Packet> frame)
{
    const TcpHeader tcp = talbtest::StripTcpFrame(frame).tcp;
    return {tcp.GetSourcePort(), tcp.GetSequenceNumber().GetValue()};
}

Ptr<TalbPriorityQueue>
FairQueue(uint32_t maxFlows = 1024)
{
    Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
    q->SetMaxSize(QueueSize("100000p"));
    q->SetAttribute("UseEcn", BooleanValue(false));
    q->SetAttribute("FlowQueueing", BooleanValue(true));
    q->SetAttribute("MaxFlows", UintegerValue(maxFlows));
    return q;
}

} // namespace

/**
 * Four flows in one band, queued one after the other with different backlogs and packet sizes
 * (a FIFO would serve the first flow alone): while all are backlogged, every flow has sent the
 * same bytes within DRR's bound (one quantum plus one packet), and each flow's packets leave in
 * order. Without FlowQueueing the same queue is one FIFO.
 */
class TalbFlowQueueingSharesTestCase : public TestCase
{
  public:
    explicit TalbFlowQueueingSharesTestCase(bool fair)
        : TestCase(std::string("TalbFlowQueueingShares: ") +
                   (fair ? "FlowQueueing, four backlogged flows get even byte shares, in order"
                         : "without FlowQueueing, one FIFO serves the first flow alone")),
          m_fair(fair)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = m_fair ? FairQueue() : CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(QueueSize("100000p"));
        const uint16_t flows[] = {1, 2, 3, 4};
        const uint32_t payload[] = {9000, 9000, 4000, 1000};
        const uint32_t bytesQueued = 3000000; // per flow: far more than is dequeued
        for (uint32_t f = 0; f < 4; ++f)
        {
            for (uint32_t seq = 0; seq * payload[f] < bytesQueued; ++seq)
            {
                NS_TEST_ASSERT_MSG_EQ(q->Enqueue(Segment(flows[f], seq, payload[f], 3)),
                                      true,
                                      "enqueue");
            }
        }
        std::map<uint16_t, uint64_t> sent;
        std::map<uint16_t, uint32_t> nextSeq;
        uint64_t total = 0;
        while (total < 2500000) // less than any flow queued
        {
            Ptr<const Packet> peeked = q->Peek();
            Ptr<Packet> p = q->Dequeue();
            NS_TEST_ASSERT_MSG_EQ(peeked, p, "Peek names the packet Dequeue returns");
            auto [flow, seq] = FlowAndSeq(p);
            uint32_t expected = nextSeq[flow]++;
            NS_TEST_ASSERT_MSG_EQ(seq, expected, "flow " << flow << " in order");
            sent[flow] += p->GetSize();
            total += p->GetSize();
        }
        if (!m_fair)
        {
            NS_TEST_ASSERT_MSG_EQ(sent.size(), 1, "a FIFO serves the first flow alone");
            return;
        }
        const double bound = 9218 + 9042; // Quantum + the largest frame
        for (uint16_t f : flows)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(double(sent[f]),
                                      total / 4.0,
                                      bound,
                                      "flow " << f << "'s share of " << total << " bytes");
        }
    }

    bool m_fair;
};

/**
 * Bands stay strict under FlowQueueing: a band-0 packet queued behind many band-5 flows leaves
 * first; a flow that emptied and comes back joins the back of the round with a fresh quantum
 * (no credit banked while idle).
 */
class TalbFlowQueueingBandsTestCase : public TestCase
{
  public:
    TalbFlowQueueingBandsTestCase()
        : TestCase("TalbFlowQueueingBands: bands stay strict; a returning flow joins the back")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = FairQueue();
        q->SetAttribute("Quantum", UintegerValue(9042)); // one 9000-byte segment's frame
        for (uint16_t f = 10; f < 14; ++f)
        {
            for (uint32_t seq = 0; seq < (f == 10 ? 2 : 4); ++seq)
            {
                q->Enqueue(Segment(f, seq, 9000, 5));
            }
        }
        q->Enqueue(Segment(99, 0, 9000, 0));
        NS_TEST_ASSERT_MSG_EQ(FlowAndSeq(q->Dequeue()).first, 99, "band 0 first");
        // One frame per visit, flows in arrival order; flow 10 empties on its second visit.
        std::vector<uint16_t> order;
        for (int k = 0; k < 8; ++k)
        {
            order.push_back(FlowAndSeq(q->Dequeue()).first);
        }
        NS_TEST_ASSERT_MSG_EQ((order == std::vector<uint16_t>{10, 11, 12, 13, 10, 11, 12, 13}),
                              true,
                              "round robin over the flows in arrival order");
        // Flow 10 returns: behind 11, 12 and 13.
        q->Enqueue(Segment(10, 2, 9000, 5));
        order.clear();
        while (Ptr<Packet> p = q->Dequeue())
        {
            order.push_back(FlowAndSeq(p).first);
        }
        NS_TEST_ASSERT_MSG_EQ((order == std::vector<uint16_t>{11, 12, 13, 10, 11, 12, 13}),
                              true,
                              "a returning flow joins the back of the round");
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 0, "empty");
    }
};

/**
 * Random arrivals and departures over many flows and three bands, with MaxFlows below the
 * number of flows (the rest share each band's overflow queue), and Remove() drops: every
 * packet leaves exactly once, each flow in order, never while a lower band holds a packet,
 * and the counters agree.
 */
class TalbFlowQueueingRandomTestCase : public TestCase
{
  public:
    TalbFlowQueueingRandomTestCase()
        : TestCase("TalbFlowQueueingRandom: random traffic over 40 flows, MaxFlows 16: order, "
                   "bands, counts")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = FairQueue(16);
        Ptr<UniformRandomVariable> u = CreateObject<UniformRandomVariable>();
        u->SetStream(7);
        const uint8_t bands[] = {1, 4, 6};
        std::map<uint16_t, uint32_t> enqueued;
        std::map<uint16_t, uint32_t> nextSeq; // lowest sequence number not yet out
        uint32_t in = 0;
        uint32_t out = 0;
        for (int step = 0; step < 20000; ++step)
        {
            if (u->GetValue() < 0.52)
            {
                auto flow = static_cast<uint16_t>(u->GetInteger(1, 40));
                uint8_t band = bands[flow % 3];
                NS_TEST_ASSERT_MSG_EQ(
                    q->Enqueue(Segment(flow, enqueued[flow]++, u->GetInteger(100, 9000), band)),
                    true,
                    "enqueue");
                ++in;
                continue;
            }
            bool drop = u->GetValue() < 0.1;
            uint32_t lowest = TALB_NUM_PRIORITIES;
            for (uint8_t b = 0; b < TALB_NUM_PRIORITIES && lowest == TALB_NUM_PRIORITIES; ++b)
            {
                lowest = q->GetBandPackets(b) > 0 ? b : lowest;
            }
            Ptr<Packet> p = drop ? q->Remove() : q->Dequeue();
            if (!p)
            {
                NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), 0, "null only when empty");
                continue;
            }
            ++out;
            auto [flow, seq] = FlowAndSeq(p);
            NS_TEST_ASSERT_MSG_EQ(+bands[flow % 3], lowest, "the lowest non-empty band");
            uint32_t expected = nextSeq[flow]++;
            NS_TEST_ASSERT_MSG_EQ(seq, expected, "flow " << flow << " in order");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetNPackets(), in - out, "queued = enqueued - dequeued");
        while (Ptr<Packet> p = q->Dequeue())
        {
            auto [flow, seq] = FlowAndSeq(p);
            uint32_t expected = nextSeq[flow]++;
            NS_TEST_ASSERT_MSG_EQ(seq, expected, "flow " << flow << " in order");
        }
        for (const auto& [flow, n] : enqueued)
        {
            NS_TEST_ASSERT_MSG_EQ(nextSeq[flow], n, "every packet of flow " << flow << " left");
        }
        NS_TEST_ASSERT_MSG_EQ(q->GetNBytes(), 0, "no bytes left");
    }
};

/**
 * TalbHostConfig's Qdisc: ConfigureNic gives a host NIC's TalbPriorityQueue FlowQueueing and no
 * ECN marking for fq (Linux's fq marks nothing), and leaves it a marking FIFO for fifo; a
 * device without such a queue is left alone.
 */
class TalbFlowQueueingHostConfigTestCase : public TestCase
{
  public:
    TalbFlowQueueingHostConfigTestCase()
        : TestCase("TalbFlowQueueingHostConfig: Qdisc fq sets FlowQueueing without marking, "
                   "fifo leaves a marking FIFO")
    {
    }

  private:
    void DoRun() override
    {
        for (const std::string qdisc : {"fifo", "fq"})
        {
            Ptr<PointToPointNetDevice> dev = CreateObject<PointToPointNetDevice>();
            Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
            dev->SetQueue(q);
            Ptr<TalbHostConfig> host = CreateObject<TalbHostConfig>();
            host->SetAttribute("Qdisc", StringValue(qdisc));
            NS_TEST_ASSERT_MSG_EQ(host->ConfigureNic(dev), true, qdisc);
            BooleanValue fair;
            BooleanValue ecn;
            q->GetAttribute("FlowQueueing", fair);
            q->GetAttribute("UseEcn", ecn);
            NS_TEST_ASSERT_MSG_EQ(fair.Get(), (qdisc == "fq"), qdisc << ": FlowQueueing");
            NS_TEST_ASSERT_MSG_EQ(ecn.Get(), (qdisc == "fifo"), qdisc << ": UseEcn");
        }
        Ptr<PointToPointNetDevice> plain = CreateObject<PointToPointNetDevice>();
        plain->SetQueue(CreateObject<DropTailQueue<Packet>>());
        NS_TEST_ASSERT_MSG_EQ(CreateObject<TalbHostConfig>()->ConfigureNic(plain),
                              false,
                              "not a TalbPriorityQueue");
        EnumValue def;
        CreateObject<TalbHostConfig>()->GetAttribute("Qdisc", def);
        NS_TEST_ASSERT_MSG_EQ(def.Get(), int(TalbHostConfig::FIFO), "fifo by default");
    }
};

/// The talb-flow-queueing suite.
class TalbFlowQueueingTestSuite : public TestSuite
{
  public:
    TalbFlowQueueingTestSuite()
        : TestSuite("talb-flow-queueing", UNIT)
    {
        AddTestCase(new TalbFlowQueueingSharesTestCase(true), TestCase::QUICK);
        AddTestCase(new TalbFlowQueueingSharesTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbFlowQueueingBandsTestCase, TestCase::QUICK);
        AddTestCase(new TalbFlowQueueingRandomTestCase, TestCase::QUICK);
        AddTestCase(new TalbFlowQueueingHostConfigTestCase, TestCase::QUICK);
    }
};

static TalbFlowQueueingTestSuite g_talbFlowQueueingTestSuite; //!< the suite's instance
