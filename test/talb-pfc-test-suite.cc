// Priority flow control: the device stops exactly the paused priority and restarts on XON or
// expiry; an IPv4 frame's Ethernet header is counted in time but not carried; the priority queue
// dequeues around paused bands and classifies RoCEv2 control packets; ingress charges follow DWRR's
// out-of-order service of a shared priority, and a packet the switch made charges no port; a
// 16-to-1 incast on a PFC fabric loses nothing and keeps every ingress charge below XOFF +
// headroom; all-to-all traffic completes (no deadlock on up-down routing); without PFC the incast's
// drops are all counted and recovered by go-back-N.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// A packet of \p bytes labelled with priority \p priority (TalbTag).
Ptr<Packet>
Labelled(uint32_t bytes, uint8_t priority)
{
    Ptr<Packet> p = Create<Packet>(bytes);
    p->AddPacketTag(TalbTag(1, priority, 0));
    return p;
}

struct Arrivals
{
    std::vector<std::pair<Time, uint8_t>> at; //!< (time, priority)
};

bool
Arrived(Arrivals* a, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
{
    TalbTag tag;
    p->PeekPacketTag(tag);
    a->at.push_back({Simulator::Now(), tag.GetPriority()});
    return true;
}

/// Two PFC devices on one 10 Gb/s link; returns (a, b).
std::pair<Ptr<TalbPfcNetDevice>, Ptr<TalbPfcNetDevice>>
MakeLink(Arrivals* atB)
{
    NodeContainer nodes(2);
    Ptr<TalbPfcChannel> ch = CreateObject<TalbPfcChannel>();
    Ptr<TalbPfcNetDevice> d[2];
    for (int k = 0; k < 2; ++k)
    {
        d[k] = CreateObject<TalbPfcNetDevice>();
        d[k]->SetAddress(Mac48Address::Allocate());
        d[k]->SetDataRate(DataRate("10Gbps"));
        d[k]->SetQueue(CreateObject<TalbPriorityQueue>());
        nodes.Get(k)->AddDevice(d[k]);
        d[k]->Attach(ch);
    }
    d[1]->SetReceiveCallback(MakeBoundCallback(&Arrived, atB));
    return {d[0], d[1]};
}

/**
 * PFC over three unconnected ports, egress port 2 queueing in \p q: XOFF 8,000 B, XON 1,000 B
 * below it, 100 KB of headroom. With no channels pause frames are requested but never sent.
 */
Ptr<TalbPfc>
ThreePorts(Ptr<TalbPriorityQueue> q)
{
    std::vector<Ptr<TalbPfcNetDevice>> ports;
    for (int k = 0; k < 3; ++k)
    {
        ports.push_back(CreateObject<TalbPfcNetDevice>());
    }
    ports[2]->SetQueue(q);
    Ptr<TalbPfc> pfc = CreateObject<TalbPfc>();
    pfc->SetAttribute("XoffThreshold", QueueSizeValue(QueueSize("8000B")));
    pfc->SetAttribute("XonOffset", QueueSizeValue(QueueSize("1000B")));
    pfc->SetAttribute("Headroom", QueueSizeValue(QueueSize("100000B")));
    pfc->Install(ports);
    return pfc;
}

} // namespace

/// XOFF stops one priority at the upstream port, the others keep flowing; XON restarts it.
class TalbPfcPauseOnePriority : public talbtest::SimulationTestCase
{
  public:
    TalbPfcPauseOnePriority()
        : talbtest::SimulationTestCase(
              "TalbPfcPauseOnePriority: priority 3 paused, priority 5 passes; XON and "
              "expiry restart priority 3")
    {
    }

  private:
    void DoRun() override
    {
        Arrivals atB;
        auto [a, b] = MakeLink(&atB);
        // b pauses priority 3 at a; a then gets 3 packets of priority 3 and 3 of priority 5.
        b->SendPause(3, 0xFFFF);
        Simulator::Schedule(MicroSeconds(2), [a = a]() {
            for (int k = 0; k < 3; ++k)
            {
                a->Send(Labelled(1000, 3), a->GetBroadcast(), 0x0800);
                a->Send(Labelled(1000, 5), a->GetBroadcast(), 0x0800);
            }
        });
        // XON at 20 us.
        Simulator::Schedule(MicroSeconds(20), [b = b]() { b->SendPause(3, 0); });
        // A short pause at 30 us expires by itself: 100 quanta = 51200 bits = 5.12 us.
        Simulator::Schedule(MicroSeconds(30), [b = b]() { b->SendPause(3, 100); });
        Simulator::Schedule(MicroSeconds(32),
                            [a = a]() { a->Send(Labelled(1000, 3), a->GetBroadcast(), 0x0800); });
        Simulator::Run();
        uint8_t pausedAtEnd = a->GetPausedMask();
        uint64_t pausesRx = a->GetStats().pauseFramesRx;
        Simulator::Destroy();

        NS_TEST_ASSERT_MSG_EQ(atB.at.size(), 7u, "every packet arrives");
        for (int k = 0; k < 3; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(+atB.at[k].second, 5, "priority 5 first, while 3 is paused");
            NS_TEST_EXPECT_MSG_LT(atB.at[k].first, MicroSeconds(20), "before the XON");
        }
        for (int k = 3; k < 6; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(+atB.at[k].second, 3, "priority 3 after the XON");
            NS_TEST_EXPECT_MSG_GT(atB.at[k].first, MicroSeconds(20), "after the XON");
        }
        // The last one waits for the 5.12 us pause (sent at 30 us, on the wire ~0.07 us and
        // 1 us of propagation) to run out.
        NS_TEST_EXPECT_MSG_GT(atB.at[6].first, MicroSeconds(36), "held until the pause expired");
        NS_TEST_EXPECT_MSG_LT(atB.at[6].first, MicroSeconds(40), "and sent right after");
        NS_TEST_EXPECT_MSG_EQ(+pausedAtEnd, 0, "nothing paused at the end");
        NS_TEST_EXPECT_MSG_EQ(pausesRx, 3u, "three PFC frames received");
    }
};

namespace
{
struct Sizes
{
    std::vector<std::pair<Time, uint32_t>> at; //!< (time, bytes)
};

bool
ArrivedSize(Sizes* s, Ptr<NetDevice>, Ptr<const Packet> p, uint16_t, const Address&)
{
    s->at.push_back({Simulator::Now(), p->GetSize()});
    return true;
}

void
TxBegin(Sizes* s, Ptr<const Packet> p)
{
    s->at.push_back({Simulator::Now(), p->GetSize()});
}
} // namespace

/// An IPv4 frame's Ethernet header is implied: its 14 bytes count in the transmission time but
/// the packet travels and arrives whole; only MAC control frames carry a header.
class TalbPfcImpliedHeader : public talbtest::SimulationTestCase
{
  public:
    TalbPfcImpliedHeader()
        : talbtest::SimulationTestCase(
              "TalbPfcImpliedHeader: frames take (size + 14 + 24) bytes of time and arrive "
              "whole, one starting with 0x01 too")
    {
    }

  private:
    void DoRun() override
    {
        Arrivals unused;
        auto [a, b] = MakeLink(&unused);
        Sizes rx;
        Sizes tx;
        b->SetReceiveCallback(MakeBoundCallback(&ArrivedSize, &rx));
        a->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&TxBegin, &tx));
        // The second payload starts like the MAC control address but is no PFC frame.
        uint8_t controlLike[100] = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
        a->Send(Labelled(1000, 3), a->GetBroadcast(), 0x0800);
        a->Send(Create<Packet>(controlLike, sizeof(controlLike)), a->GetBroadcast(), 0x0800);
        Simulator::Run();
        uint64_t rxFrames = b->GetStats().rxFrames;
        uint64_t pausesRx = b->GetStats().pauseFramesRx;
        Simulator::Destroy();

        DataRate rate("10Gbps");
        Time first = rate.CalculateBytesTxTime(1000 + 14 + 24);
        Time second = rate.CalculateBytesTxTime(100 + 14 + 24);
        NS_TEST_ASSERT_MSG_EQ(rx.at.size(), 2u, "both packets arrive");
        NS_TEST_EXPECT_MSG_EQ(rx.at[0].second, 1000u, "the first whole, no header to remove");
        NS_TEST_EXPECT_MSG_EQ(rx.at[1].second, 100u, "the second whole too");
        NS_TEST_EXPECT_MSG_EQ(rx.at[0].first, first + MicroSeconds(1), "header counted in time");
        NS_TEST_EXPECT_MSG_EQ(rx.at[1].first,
                              first + second + MicroSeconds(1),
                              "back to back, header counted");
        NS_TEST_EXPECT_MSG_EQ(rxFrames, 2u, "two IPv4 frames counted");
        NS_TEST_EXPECT_MSG_EQ(pausesRx, 0u, "no PFC frame");
        NS_TEST_ASSERT_MSG_EQ(tx.at.size(), 2u, "two frames started");
        NS_TEST_EXPECT_MSG_EQ(tx.at[0].second, 1000u, "PhyTxBegin sees the IPv4 packet");
    }
};

/// The queue skips paused bands and keeps each band FIFO; RoCEv2 ACK/CNP go to ControlBand.
class TalbPfcQueueBands : public TestCase
{
  public:
    TalbPfcQueueBands()
        : TestCase("TalbPfcQueueBands: DequeueUnpaused skips paused bands, FIFO per band; "
                   "RoCEv2 ACK and CNP classified as control, data by label")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetAttribute("ControlBand", UintegerValue(1));
        std::vector<Ptr<Packet>> in;
        for (uint8_t prio : {2, 4, 2, 4, 6})
        {
            in.push_back(Labelled(100 + in.size(), prio));
            q->Enqueue(in.back());
        }
        uint8_t band = 0;
        // Band 2 paused: 4, 4, 6 in order, then nothing; unpaused: 2, 2.
        uint8_t paused = 1u << 2;
        Ptr<Packet> p = q->DequeueUnpaused(paused, &band);
        NS_TEST_EXPECT_MSG_EQ(p, in[1], "first band-4 packet");
        NS_TEST_EXPECT_MSG_EQ(+band, 4, "its band");
        NS_TEST_EXPECT_MSG_EQ(q->DequeueUnpaused(paused, &band), in[3], "second band-4 packet");
        NS_TEST_EXPECT_MSG_EQ(q->DequeueUnpaused(paused, &band), in[4], "band 6");
        NS_TEST_EXPECT_MSG_EQ(q->DequeueUnpaused(paused, &band), Ptr<Packet>(), "only paused left");
        NS_TEST_EXPECT_MSG_EQ(q->GetBandPackets(2), 2u, "band 2 kept");
        NS_TEST_EXPECT_MSG_EQ(q->Dequeue(), in[0], "band 2, first");
        NS_TEST_EXPECT_MSG_EQ(q->Dequeue(), in[2], "band 2, second");
        NS_TEST_EXPECT_MSG_EQ(q->GetNPackets(), 0u, "empty");

        auto roce = [](uint8_t opcode) {
            TalbRoceHeader h;
            h.SetOpcode(opcode);
            h.SetIpPayloadBytes(8 + 12 + 4 + 4);
            Ptr<Packet> p = Create<Packet>(4);
            p->AddHeader(h);
            return p;
        };
        NS_TEST_EXPECT_MSG_EQ(+q->Classify(roce(TalbRoceHeader::OP_ACK)), 1, "ACK: control");
        NS_TEST_EXPECT_MSG_EQ(+q->Classify(roce(TalbRoceHeader::OP_CNP)), 1, "CNP: control");
        NS_TEST_EXPECT_MSG_EQ(+q->Classify(roce(TalbRoceHeader::OP_SEND_ONLY)),
                              +q->GetUntaggedBand(),
                              "unlabelled data: untagged band");
    }
};

/// The ingress bookkeeping follows DWRR's service order: best-effort packets share band 0's PFC
/// priority (UntaggedBand 0) but are served out of their joint arrival order.
class TalbPfcDwrrRelease : public TestCase
{
  public:
    TalbPfcDwrrRelease()
        : TestCase("TalbPfcDwrrRelease: best-effort and band-0 packets from two ingress ports, "
                   "interleaved, served by DWRR out of arrival order: each port's charge equals "
                   "its queued bytes after every dequeue; pauses resume")
    {
    }

  private:
    void DoRun() override
    {
        // Ports 0 (best effort) and 1 (band 0) feed egress port 2.
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetAttribute("UntaggedBand", UintegerValue(0));
        q->SetMaxSize(QueueSize("1000p"));
        Ptr<TalbPfc> pfc = ThreePorts(q);

        const uint32_t size = 1000;
        const int perPort = 20;
        for (int k = 0; k < perPort; ++k)
        {
            for (uint32_t in : {0u, 1u})
            {
                Ptr<Packet> p = in == 0 ? Create<Packet>(size) : Labelled(size, 0);
                uint8_t slot = q->ClassifySlot(p);
                uint8_t prio = q->BandOfSlot(slot);
                NS_TEST_ASSERT_MSG_EQ(+prio, 0, "both share PFC priority 0");
                NS_TEST_ASSERT_MSG_EQ(pfc->Admit(in, prio, size), true, "admitted");
                pfc->Queued(in, 2, prio, slot);
                NS_TEST_ASSERT_MSG_EQ(q->Enqueue(p), true, "queued");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(pfc->IsPausing(0, 0), true, "port 0 above XOFF");
        NS_TEST_EXPECT_MSG_EQ(pfc->IsPausing(1, 0), true, "port 1 above XOFF");

        // DWRR (1:1, Quantum 9218) serves nine packets of one class, then nine of the other.
        bool outOfOrder = false;
        uint8_t last = TalbPriorityQueue::NUM_SLOTS;
        uint32_t runs = 0;
        while (q->GetNPackets() > 0)
        {
            uint8_t band = 0;
            uint8_t slot = 0;
            Ptr<Packet> p = q->DequeueUnpaused(0, &band, &slot);
            NS_TEST_ASSERT_MSG_NE(p, Ptr<Packet>(), "a packet");
            runs += slot != last;
            last = slot;
            pfc->Released(2, band, slot, p->GetSize());
            uint32_t queuedBe = q->GetBestEffortBytes();
            uint32_t queuedBand0 = q->GetBandBytes(0);
            outOfOrder = outOfOrder || queuedBe != queuedBand0;
            NS_TEST_ASSERT_MSG_EQ(pfc->GetIngressBytes(0, 0),
                                  queuedBe,
                                  "port 0 is charged its best-effort bytes still queued");
            NS_TEST_ASSERT_MSG_EQ(pfc->GetIngressBytes(1, 0),
                                  queuedBand0,
                                  "port 1 is charged its band-0 bytes still queued");
        }
        NS_TEST_EXPECT_MSG_EQ(outOfOrder, true, "DWRR served out of arrival order");
        NS_TEST_EXPECT_MSG_GT(runs, 2u, "in alternating runs of one class");
        const TalbPfc::Stats& st = pfc->GetStats();
        NS_TEST_EXPECT_MSG_EQ(pfc->IsPausing(0, 0), false, "port 0 resumed");
        NS_TEST_EXPECT_MSG_EQ(pfc->IsPausing(1, 0), false, "port 1 resumed");
        NS_TEST_EXPECT_MSG_EQ(st.pauseStarts, 2u, "two pauses");
        NS_TEST_EXPECT_MSG_EQ(st.resumesSent, st.pauseStarts, "each resumed once");
        NS_TEST_EXPECT_MSG_EQ(st.admittedBytes, st.releasedBytes, "everything released");
        Simulator::Destroy();
    }
};

/// A packet the switch made (NO_INGRESS) is charged to no port: admitted and queued beside a
/// forwarded packet, its dequeue releases nothing, and the forwarded packet's dequeue releases its
/// own port's charge; Uncharge() undoes an Admit() whose packet is never queued.
class TalbPfcNoIngress : public TestCase
{
  public:
    TalbPfcNoIngress()
        : TestCase("TalbPfcNoIngress: a switch-made packet charges no port; Uncharge undoes "
                   "an admission")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        Ptr<TalbPfc> pfc = ThreePorts(q);

        const uint32_t size = 1000;
        Ptr<Packet> made = Labelled(64, 0);
        Ptr<Packet> forwarded = Labelled(size, 0);
        uint8_t slot = q->ClassifySlot(forwarded);
        uint8_t prio = q->BandOfSlot(slot);
        NS_TEST_ASSERT_MSG_EQ(pfc->IsLossless(prio), true, "band 0 is lossless");
        // The made packet first: the forwarded one queues behind it in the same slot.
        NS_TEST_ASSERT_MSG_EQ(pfc->Admit(TalbPfc::NO_INGRESS, prio, 64), true, "admitted");
        pfc->Queued(TalbPfc::NO_INGRESS, 2, prio, slot);
        NS_TEST_ASSERT_MSG_EQ(pfc->Admit(0, prio, size), true, "admitted");
        pfc->Queued(0, 2, prio, slot);
        NS_TEST_EXPECT_MSG_EQ(pfc->GetStats().admittedBytes, size, "only the forwarded packet");
        NS_TEST_EXPECT_MSG_EQ(pfc->GetIngressBytes(0, prio), size, "port 0 charged");

        pfc->Released(2, prio, slot, 64); // the made packet leaves
        NS_TEST_EXPECT_MSG_EQ(pfc->GetIngressBytes(0, prio), size, "still charged to port 0");
        pfc->Released(2, prio, slot, size);
        NS_TEST_EXPECT_MSG_EQ(pfc->GetIngressBytes(0, prio), 0u, "port 0 released");

        NS_TEST_ASSERT_MSG_EQ(pfc->Admit(1, prio, size), true, "admitted");
        NS_TEST_EXPECT_MSG_EQ(pfc->GetIngressBytes(1, prio), size, "port 1 charged");
        pfc->Uncharge(1, prio, size); // consumed by the switch, never queued
        NS_TEST_EXPECT_MSG_EQ(pfc->GetIngressBytes(1, prio), 0u, "port 1 uncharged");
        const TalbPfc::Stats& st = pfc->GetStats();
        NS_TEST_EXPECT_MSG_EQ(st.admittedBytes, st.releasedBytes, "everything released");
        Simulator::Destroy();
    }
};

/// The RED-like profile marks nothing at or below Kmin, everything above Kmax, and about
/// Pmax x (q - Kmin) / (Kmax - Kmin) in between.
class TalbPfcEcnProfile : public TestCase
{
  public:
    TalbPfcEcnProfile()
        : TestCase("TalbPfcEcnProfile: RED-like marking (Kmin 10 KB, Kmax 30 KB, Pmax 0.5)")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetAttribute("EcnKmin", StringValue("10KB"));
        q->SetAttribute("EcnKmax", StringValue("30KB"));
        q->SetAttribute("EcnPmax", DoubleValue(0.5));
        q->SetMaxSize(QueueSize("10MB"));
        q->AssignStreams(7);
        auto ect = []() {
            TalbRoceHeader h;
            h.SetTos(0x02);
            h.SetIpPayloadBytes(8 + 12 + 960 + 4);
            Ptr<Packet> p = Create<Packet>(964);
            p->AddHeader(h);
            return p;
        };
        // Fill to 10 KB: no marks. Then hold 20 KB (midway): ~25 % marked. Then above 30 KB:
        // all marked.
        for (int k = 0; k < 10; ++k)
        {
            q->Enqueue(ect());
        }
        uint64_t marks0 = q->GetMarkedCount();
        for (int k = 0; k < 10; ++k)
        {
            q->Enqueue(ect());
        }
        uint64_t mid = 0;
        const int n = 4000;
        for (int k = 0; k < n; ++k)
        {
            uint64_t before = q->GetMarkedCount();
            q->Enqueue(ect());
            mid += q->GetMarkedCount() - before;
            q->Remove();
        }
        while (q->GetNBytes() <= 30000)
        {
            q->Enqueue(ect());
        }
        uint64_t before = q->GetMarkedCount();
        for (int k = 0; k < 100; ++k)
        {
            q->Enqueue(ect());
        }
        NS_TEST_EXPECT_MSG_EQ(marks0, 0u, "nothing marked up to Kmin");
        // Occupancy 20 KB at arrival: p = 0.5 x (20000 - 10000) / 20000 = 0.25.
        NS_TEST_EXPECT_MSG_EQ_TOL(double(mid) / n, 0.25, 0.03, "Pmax x (q - Kmin) / (Kmax - Kmin)");
        NS_TEST_EXPECT_MSG_EQ(q->GetMarkedCount() - before, 100u, "everything above Kmax");
    }
};

namespace
{

/// Fabric of 4 leaves x 5 hosts at 100 Gb/s through the product's helper.
Ptr<TalbLeafSpineHelper>
MakeIncastFabric(bool pfc)
{
    Ptr<TalbLeafSpineHelper> f = talbtest::RdmaIncastFabric("100Gbps");
    f->GetRdmaHelper()->SetAttribute("Pfc", BooleanValue(pfc));
    f->Install();
    f->AssignStreams(1);
    return f;
}

/// What a run lost or kept, summed over the fabric.
struct Ledger
{
    uint32_t messages{0};
    uint64_t bytes{0};
    uint64_t sent{0};    //!< data packets the requesters sent
    uint64_t arrived{0}; //!< data packets that reached a responder
    uint64_t retransmitted{0};
    uint64_t switchDrops{0}; //!< counted by the switches (egress refused + headroom)
    uint64_t headroomDrops{0};
    uint64_t pauses{0};
    uint64_t deviceLosses{0}; //!< frames lost on links
    bool withinHeadroom{true};
    uint32_t maxCharge{0};
    uint32_t limit{0};
};

void
OnMessage(Ledger* l, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t bytes)
{
    ++l->messages;
    l->bytes += bytes;
}

void
Account(Ptr<TalbLeafSpineHelper> f,
        const std::vector<std::pair<Ptr<TalbRdmaQueuePair>, Ptr<TalbRdmaQueuePair>>>& qps,
        Ledger* l)
{
    for (const auto& q : qps)
    {
        l->sent += q.first->GetStats().packetsSent;
        l->retransmitted += q.first->GetStats().retransmittedPackets;
        l->arrived += q.second->GetStats().packetsReceived;
    }
    std::vector<Ptr<TalbSwitch>> switches;
    for (uint32_t i = 0; i < 4; ++i)
    {
        switches.push_back(f->GetLeafSwitch(i));
    }
    for (uint32_t i = 0; i < 2; ++i)
    {
        switches.push_back(f->GetSpineSwitch(i));
    }
    for (const auto& sw : switches)
    {
        l->switchDrops += sw->GetStats().nDropDevice + sw->GetStats().nDropPfcHeadroom;
        l->headroomDrops += sw->GetStats().nDropPfcHeadroom;
        for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
        {
            l->deviceLosses +=
                DynamicCast<TalbPfcNetDevice>(sw->GetPort(p).device)->GetStats().rxDropped;
            Ptr<TalbPfc> pfc = sw->GetPfc();
            if (!pfc)
            {
                continue;
            }
            for (uint8_t prio = 0; prio < TALB_NUM_PRIORITIES; ++prio)
            {
                uint32_t limit = pfc->GetXoff() + pfc->GetHeadroom(p);
                uint32_t charge = pfc->GetMaxIngressBytes(p, prio);
                l->withinHeadroom = l->withinHeadroom && charge <= limit;
                if (charge > l->maxCharge)
                {
                    l->maxCharge = charge;
                    l->limit = limit;
                }
            }
        }
        if (sw->GetPfc())
        {
            l->pauses += sw->GetPfc()->GetStats().pausesSent;
        }
    }
}

/// Hosts 1..16 each send 1 MB to host 0; run to the end and fill \p l.
void
RunIncast(Ptr<TalbLeafSpineHelper> f, Ledger* l)
{
    std::vector<std::pair<Ptr<TalbRdmaQueuePair>, Ptr<TalbRdmaQueuePair>>> qps;
    for (uint32_t s = 1; s <= 16; ++s)
    {
        qps.push_back(TalbRdmaNic::Connect(f->GetRdmaNic(s), f->GetRdmaNic(0)));
        qps.back().second->SetReceiveCallback(MakeBoundCallback(&OnMessage, l));
        qps.back().first->PostSend(1000000);
    }
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    Account(f, qps, l);
}

} // namespace

/// 16 senders, one receiver, PFC on: lossless, bounded ingress, everything completes.
class TalbPfcIncastLossless : public TestCase
{
  public:
    TalbPfcIncastLossless()
        : TestCase("TalbPfcIncastLossless: 16-to-1 incast of 1 MB each at 100 Gbps with PFC: no "
                   "packet lost, every ingress charge within XOFF + headroom")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeIncastFabric(true);
        Ledger l;
        RunIncast(f, &l);
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(l.messages, 16u, "every message delivered");
        NS_TEST_EXPECT_MSG_EQ(l.bytes, 16000000u, "every byte delivered");
        NS_TEST_EXPECT_MSG_EQ(l.switchDrops, 0u, "no switch dropped a packet");
        NS_TEST_EXPECT_MSG_EQ(l.deviceLosses, 0u, "no link lost a frame");
        NS_TEST_EXPECT_MSG_EQ(l.retransmitted, 0u, "nothing retransmitted");
        NS_TEST_EXPECT_MSG_EQ(l.sent, l.arrived, "every data packet sent arrived");
        NS_TEST_EXPECT_MSG_GT(l.pauses, 0u, "PFC paused the senders");
        NS_TEST_EXPECT_MSG_EQ(l.withinHeadroom,
                              true,
                              "largest charge " << l.maxCharge << " vs XOFF + headroom "
                                                << l.limit);
    }
};

/// Up-down routing on a leaf-spine has no cyclic buffer dependency: PFC cannot deadlock.
class TalbPfcNoDeadlock : public TestCase
{
  public:
    TalbPfcNoDeadlock()
        : TestCase("TalbPfcNoDeadlock: all-to-all (20 hosts, 256 KB per pair) plus a 16-to-1 "
                   "incast with PFC completes without loss")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeIncastFabric(true);
        Ledger l;
        std::vector<std::pair<Ptr<TalbRdmaQueuePair>, Ptr<TalbRdmaQueuePair>>> qps;
        uint32_t n = f->GetNHosts();
        for (uint32_t s = 0; s < n; ++s)
        {
            for (uint32_t d = 0; d < n; ++d)
            {
                if (s != d)
                {
                    qps.push_back(TalbRdmaNic::Connect(f->GetRdmaNic(s), f->GetRdmaNic(d)));
                    qps.back().second->SetReceiveCallback(MakeBoundCallback(&OnMessage, &l));
                    qps.back().first->PostSend(d == 0 ? 1000000 : 262144);
                }
            }
        }
        Simulator::Stop(Seconds(1));
        Simulator::Run();
        Account(f, qps, &l);
        Simulator::Destroy();
        uint32_t pairs = n * (n - 1);
        NS_TEST_EXPECT_MSG_EQ(l.messages, pairs, "every message delivered: no deadlock");
        NS_TEST_EXPECT_MSG_EQ(l.switchDrops, 0u, "lossless");
        NS_TEST_EXPECT_MSG_GT(l.pauses, 0u, "under PFC back-pressure");
        NS_TEST_EXPECT_MSG_EQ(l.withinHeadroom, true, "within XOFF + headroom");
    }
};

/// Without PFC the incast overflows the bottleneck queue: every drop is counted by a switch,
/// and go-back-N delivers every byte.
class TalbPfcOffIncastDrops : public TestCase
{
  public:
    TalbPfcOffIncastDrops()
        : TestCase("TalbPfcOffIncastDrops: 16-to-1 incast without PFC: drops counted (packets "
                   "sent = arrived + counted drops), all recovered")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeIncastFabric(false);
        bool noPfc = !f->GetLeafSwitch(0)->GetPfc();
        Ledger l;
        RunIncast(f, &l);
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(noPfc, true, "no PFC on the switches");
        NS_TEST_EXPECT_MSG_GT(l.switchDrops, 0u, "the incast overflowed a queue");
        NS_TEST_EXPECT_MSG_EQ(l.sent,
                              l.arrived + l.switchDrops + l.deviceLosses,
                              "every packet arrived or was counted as dropped");
        NS_TEST_EXPECT_MSG_GT(l.retransmitted, 0u, "go-back-N resent");
        NS_TEST_EXPECT_MSG_EQ(l.messages, 16u, "every message delivered");
        NS_TEST_EXPECT_MSG_EQ(l.bytes, 16000000u, "every byte delivered once");
    }
};

/// The runner's rdma fabric with background traffic under the default DWRR port queues (the
/// case that hung when PFC released charges per priority): it completes, every pause resumes,
/// the ingress charges match what the egress queues still hold, and nothing is dropped.
class TalbPfcScenarioDwrrBackground : public talbtest::SimulationTestCase
{
  public:
    TalbPfcScenarioDwrrBackground()
        : SimulationTestCase(
              "TalbPfcScenarioDwrrBackground: talb-scenario --transport=rdma --bgLoad=0.2 "
              "with DWRR port queues completes; pauses balance resumes, charges match the "
              "queued bytes, no packet dropped")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const std::string out = CreateTempDirFilename("rdma-dwrr-bg");
        const ScenarioParams params = {
            {"transport", "rdma"},
            {"portScheduling", "dwrr"},
            {"untaggedBand", "0"},
            {"leaves", "2"},
            {"spines", "2"},
            {"hostsPerLeaf", "2"},
            {"hostRate", "100Gbps"},
            {"fabricRate", "100Gbps"},
            {"jobs", "workers=4,scheduler=fusion"},
            {"iterations", "1"},
            {"bgLoad", "0.2"},
            {"bgCdf", CreateDataDirFilename("../data/websearch-cdf.txt")},
            {"lb", "ecmp"},
            {"progress", "false"}};
        TalbScenario::Result r = RunScenario(params, "ecmp", out);

        const TalbOutputWriter::SwitchCounters& sw = r.switches;
        const TalbOutputWriter::PfcCounters& pfc = sw.pfc;
        NS_TEST_EXPECT_MSG_EQ(r.iterationsDone, r.iterationsExpected, "the job completed");
        NS_TEST_EXPECT_MSG_GT(r.backgroundFlows, 0u, "background flows finished");
        NS_TEST_EXPECT_MSG_GT(sw.bestEffort.dequeuedPackets, 0u, "in the best-effort class");
        NS_TEST_ASSERT_MSG_EQ(pfc.installed, true, "PFC on the switches");
        NS_TEST_EXPECT_MSG_GT(pfc.pauseStarts, 0u, "PFC paused");
        NS_TEST_EXPECT_MSG_EQ(pfc.pauseStarts,
                              pfc.resumes + pfc.pausingAtEnd,
                              "every pause resumed or is still needed");
        NS_TEST_EXPECT_MSG_EQ(pfc.chargedBytesAtEnd,
                              pfc.queuedBytesAtEnd,
                              "ingress charges equal the bytes still queued");
        NS_TEST_EXPECT_MSG_EQ(pfc.withinHeadroom, true, "charges within XOFF + headroom");
        NS_TEST_EXPECT_MSG_EQ(pfc.headroomDrops, 0u, "no headroom drop");
        NS_TEST_EXPECT_MSG_EQ(sw.deviceDrops, 0u, "no egress drop");
        NS_TEST_EXPECT_MSG_EQ(sw.training.droppedPackets + sw.bestEffort.droppedPackets,
                              0u,
                              "no queue drop in either class");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.timeouts, 0u, "no retransmission timeout");
    }
};

class TalbPfcTestSuite : public TestSuite
{
  public:
    TalbPfcTestSuite()
        : TestSuite("talb-pfc", UNIT)
    {
        AddTestCase(new TalbPfcPauseOnePriority(), TestCase::QUICK);
        AddTestCase(new TalbPfcImpliedHeader(), TestCase::QUICK);
        AddTestCase(new TalbPfcQueueBands(), TestCase::QUICK);
        AddTestCase(new TalbPfcDwrrRelease(), TestCase::QUICK);
        AddTestCase(new TalbPfcNoIngress(), TestCase::QUICK);
        AddTestCase(new TalbPfcEcnProfile(), TestCase::QUICK);
        AddTestCase(new TalbPfcIncastLossless(), TestCase::QUICK);
        AddTestCase(new TalbPfcNoDeadlock(), TestCase::QUICK);
        AddTestCase(new TalbPfcOffIncastDrops(), TestCase::QUICK);
        AddTestCase(new TalbPfcScenarioDwrrBackground(), TestCase::QUICK);
    }
};

static TalbPfcTestSuite g_talbPfcTestSuite;
