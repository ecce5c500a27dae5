// RoCEv2 NIC: framing, one message at line rate, TaLB labels on RDMA packets, every balancer on
// an RDMA fabric, go-back-N after a NAK and after a timeout with the expected retransmitted
// bytes, and PSN wrap-around. Fabrics come from TalbLeafSpineHelper with Transport rdma.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <vector>

using namespace ns3;

namespace
{

/// Wire bytes of an RDMA data frame with \p payload bytes: IPv4, UDP, BTH, ICRC, Ethernet, PHY.
uint32_t
DataFrameBytes(uint32_t payload)
{
    return payload + TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES +
           TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
}

/// Wire bytes of an ACK frame.
const uint32_t ACK_FRAME_BYTES = TalbRoceHeader::BASE_BYTES + TalbRoceHeader::AETH_BYTES +
                                 TalbRoceHeader::TRAILER_BYTES +
                                 TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;

/// A 2 leaves x 2 hosts RDMA fabric at \p rate, through the product's helper.
Ptr<TalbLeafSpineHelper>
MakeFabric(const std::string& rate, const std::string& lb = "ecmp")
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("HostRate", StringValue(rate));
    f->SetAttribute("FabricRate", StringValue(rate));
    f->SetLoadBalancer(lb);
    return f;
}

struct Completion
{
    uint32_t messages{0};
    uint64_t bytes{0};
    Time last;
};

void
OnReceive(Completion* c, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t bytes)
{
    ++c->messages;
    c->bytes += bytes;
    c->last = Simulator::Now();
}

} // namespace

/// The combined header round-trips and its first 20 bytes are a valid IPv4 header.
class TalbRoceHeaderRoundTrip : public TestCase
{
  public:
    TalbRoceHeaderRoundTrip()
        : TestCase("TalbRoceHeader: data and ACK headers round-trip; IPv4 and UDP fields valid")
    {
    }

  private:
    void DoRun() override
    {
        TalbRoceHeader h;
        h.SetSource(Ipv4Address("10.0.0.1"));
        h.SetDestination(Ipv4Address("10.0.0.7"));
        h.SetTos(0xBA);
        h.SetIdentification(77);
        h.SetIpPayloadBytes(8 + 12 + 1000 + 4);
        h.SetSourcePort(0xC123);
        h.SetOpcode(TalbRoceHeader::OP_SEND_MIDDLE);
        h.SetAckRequest(true);
        h.SetDestQp(0xABCDEF);
        h.SetPsn(0xFFFFFE);
        Ptr<Packet> p = Create<Packet>(1004);
        p->AddHeader(h);
        NS_TEST_ASSERT_MSG_EQ(p->GetSize(), 1044u, "40 header bytes in front of the payload");
        TalbRoceHeader r;
        p->PeekHeader(r);
        NS_TEST_EXPECT_MSG_EQ(r.GetSource(), h.GetSource(), "source");
        NS_TEST_EXPECT_MSG_EQ(r.GetDestination(), h.GetDestination(), "destination");
        NS_TEST_EXPECT_MSG_EQ(+r.GetTos(), +h.GetTos(), "tos");
        NS_TEST_EXPECT_MSG_EQ(r.GetIpPayloadBytes(), h.GetIpPayloadBytes(), "length");
        NS_TEST_EXPECT_MSG_EQ(r.GetSourcePort(), h.GetSourcePort(), "udp source port");
        NS_TEST_EXPECT_MSG_EQ(r.GetDestinationPort(), TalbRoceHeader::UDP_PORT, "udp port 4791");
        NS_TEST_EXPECT_MSG_EQ(+r.GetProtocol(), 17, "udp");
        NS_TEST_EXPECT_MSG_EQ(+r.GetOpcode(), +h.GetOpcode(), "opcode");
        NS_TEST_EXPECT_MSG_EQ(r.GetAckRequest(), true, "A bit");
        NS_TEST_EXPECT_MSG_EQ(r.GetDestQp(), h.GetDestQp(), "dest qp");
        NS_TEST_EXPECT_MSG_EQ(r.GetPsn(), h.GetPsn(), "psn");
        Ipv4Header ip;
        p->PeekHeader(ip);
        NS_TEST_EXPECT_MSG_EQ(ip.GetPayloadSize(), h.GetIpPayloadBytes(), "IPv4 view: length");
        NS_TEST_EXPECT_MSG_EQ(+ip.GetProtocol(), 17, "IPv4 view: protocol");
        NS_TEST_EXPECT_MSG_EQ(ip.GetSource(), h.GetSource(), "IPv4 view: source");

        TalbRoceHeader ack;
        ack.SetOpcode(TalbRoceHeader::OP_ACK);
        ack.SetSyndrome(TalbRoceHeader::SYNDROME_NAK_SEQ);
        ack.SetMsn(0x123456);
        ack.SetPsn(42);
        Ptr<Packet> a = Create<Packet>(4);
        a->AddHeader(ack);
        NS_TEST_ASSERT_MSG_EQ(a->GetSize(), 48u, "ACK: 44 header bytes and the ICRC");
        TalbRoceHeader ra;
        a->PeekHeader(ra);
        NS_TEST_EXPECT_MSG_EQ(+ra.GetSyndrome(), +TalbRoceHeader::SYNDROME_NAK_SEQ, "syndrome");
        NS_TEST_EXPECT_MSG_EQ(ra.GetMsn(), 0x123456u, "msn");
        NS_TEST_EXPECT_MSG_EQ(ra.GetPsn(), 42u, "ack psn");

        // 24-bit PSNs: the nearest 64-bit value to a reference, across the wrap.
        NS_TEST_EXPECT_MSG_EQ(TalbRdmaQueuePair::ExpandPsn(3, 0xFFFFFE), 0x1000003ULL, "wraps up");
        NS_TEST_EXPECT_MSG_EQ(TalbRdmaQueuePair::ExpandPsn(0xFFFFFD, 0x1000002ULL),
                              0xFFFFFDULL,
                              "wraps down");
        NS_TEST_EXPECT_MSG_EQ(TalbRdmaQueuePair::ExpandPsn(10, 12), 10ULL, "behind");
    }
};

/// One message host 0 -> host 2 across the spines: delivered whole, in the analytic time.
class TalbRdmaOneMessage : public TestCase
{
  public:
    TalbRdmaOneMessage(std::string rate, uint32_t initialPsn)
        : TestCase("TalbRdmaOneMessage: 1 MB at " + rate + ", initial PSN " +
                   std::to_string(initialPsn) + ": bytes, ACK coalescing, time within 1 %"),
          m_rate(rate),
          m_initialPsn(initialPsn)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(m_rate);
        f->Install();
        auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2), m_initialPsn);
        Completion rx;
        qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, &rx));
        uint32_t sendDone = 0;
        qps.first->SetSendCompleteCallback(MakeBoundCallback(
            +[](uint32_t* n, Ptr<TalbRdmaQueuePair>, uint64_t) { ++*n; },
            &sendDone));
        const uint64_t bytes = 1000000;
        const Time start = MicroSeconds(5);
        Simulator::Schedule(start, [&qps, bytes]() { qps.first->PostSend(bytes); });
        Simulator::Run();
        TalbRdmaQueuePair::Stats tx = qps.first->GetStats();
        TalbRdmaQueuePair::Stats rs = qps.second->GetStats();
        uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        uint64_t packets = (bytes + mtu - 1) / mtu;
        DataRate rate(m_rate);
        // Store and forward over four links of one rate: every frame serialised once, plus a
        // full frame on each of the three later links, plus four propagation delays.
        uint32_t lastPayload = static_cast<uint32_t>(bytes - (packets - 1) * mtu);
        Time ideal = rate.CalculateBytesTxTime((packets - 1) * DataFrameBytes(mtu) +
                                               DataFrameBytes(lastPayload)) +
                     3 * rate.CalculateBytesTxTime(DataFrameBytes(mtu)) + 4 * MicroSeconds(1);
        Simulator::Destroy();

        NS_TEST_EXPECT_MSG_EQ(rx.messages, 1u, "one message received");
        NS_TEST_EXPECT_MSG_EQ(rx.bytes, bytes, "every byte received");
        NS_TEST_EXPECT_MSG_EQ(sendDone, 1u, "the sender saw it acknowledged");
        NS_TEST_EXPECT_MSG_EQ(tx.packetsSent, packets, "one packet per MTU of payload");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, 0u, "nothing retransmitted");
        NS_TEST_EXPECT_MSG_EQ(rs.packetsAccepted, packets, "all accepted in order");
        // ACK every AckInterval (16) packets, and at the message's end.
        NS_TEST_EXPECT_MSG_EQ(rs.acksSent, packets / 16 + (packets % 16 ? 1 : 0), "coalesced");
        NS_TEST_EXPECT_MSG_EQ(tx.acksReceived, rs.acksSent, "every ACK arrived");
        double fct = (rx.last - start).GetSeconds();
        NS_TEST_EXPECT_MSG_EQ_TOL(fct, ideal.GetSeconds(), 0.01 * ideal.GetSeconds(), "fct");
    }

    std::string m_rate;
    uint32_t m_initialPsn;
};

/// Every data packet carries the label of the tensor owning its first payload byte.
class TalbRdmaLabels : public TestCase
{
  public:
    TalbRdmaLabels()
        : TestCase("TalbRdmaLabels: TalbTag, FIRST and LAST flags and DSCP of every data packet "
                   "on the wire; unlabelled runs go untagged")
    {
    }

  private:
    struct Seen
    {
        uint32_t data{0};
        uint32_t wrong{0};
        uint32_t tagged{0};
    };

    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("10Gbps", "talb");
        f->GetRdmaHelper()->SetNicAttribute("Mtu", UintegerValue(1024));
        f->Install();
        auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
        // Tensor A whole (10000 B, priority 2), tensor B's head (20000 B, priority 5), then
        // 5000 unlabelled bytes.
        const uint32_t tensorA = talb_make_tensor_id(1, 7);
        const uint32_t tensorB = talb_make_tensor_id(1, 8);
        std::vector<TalbRdmaLabelRun> runs(3);
        runs[0].bytes = 10000;
        runs[0].labelled = true;
        runs[0].label = {tensorA, 2, TALB_FLAG_FIRST | TALB_FLAG_LAST};
        runs[1].bytes = 20000;
        runs[1].labelled = true;
        runs[1].label = {tensorB, 5, TALB_FLAG_FIRST};
        runs[2].bytes = 5000;
        qps.first->PostSend(35000, runs);

        Seen seen;
        // What reaches the receiving host is what every switch on the path saw (no switch
        // changes labels); the leaf's selector counts the tagged packets it routed.
        f->GetHostDevice(2)->TraceConnectWithoutContext(
            "MacRx",
            MakeBoundCallback(
                +[](Seen* s, Ptr<const Packet> p) {
                    TalbRoceHeader h;
                    p->PeekHeader(h);
                    if (!TalbRoceHeader::IsData(h.GetOpcode()))
                    {
                        return;
                    }
                    ++s->data;
                    uint64_t off = uint64_t(h.GetPsn()) * 1024;
                    uint64_t end = std::min<uint64_t>(off + 1024, 35000);
                    TalbTag tag;
                    bool has = p->PeekPacketTag(tag);
                    s->tagged += has;
                    uint8_t dscp = h.GetTos() >> 2;
                    bool ect = (h.GetTos() & 3) == 2;
                    bool ok = ect;
                    if (off < 10000)
                    {
                        uint8_t flags =
                            (off == 0 ? TALB_FLAG_FIRST : 0) | (end >= 10000 ? TALB_FLAG_LAST : 0);
                        ok = ok && has && tag.GetTensorId() == talb_make_tensor_id(1, 7) &&
                             tag.GetPriority() == 2 && tag.GetFlags() == flags &&
                             dscp == talb_dscp_from_priority(2);
                    }
                    else if (off < 30000)
                    {
                        // B's run starts mid-packet 9 (offset 9216): FIRST belongs to A there.
                        ok = ok && has && tag.GetTensorId() == talb_make_tensor_id(1, 8) &&
                             tag.GetPriority() == 5 && tag.GetFlags() == 0 &&
                             dscp == talb_dscp_from_priority(5);
                    }
                    else
                    {
                        ok = ok && !has && dscp == 0;
                    }
                    s->wrong += ok ? 0 : 1;
                },
                &seen));
        Simulator::Run();
        uint64_t tagged = f->GetLeafSwitch(0)->GetLoadBalancer()->GetStats().nTaggedSelections;
        Simulator::Destroy();
        NS_TEST_EXPECT_MSG_EQ(seen.data, 35u, "35 packets of 1024 payload bytes");
        NS_TEST_EXPECT_MSG_EQ(seen.wrong, 0u, "every label as the bytes say");
        NS_TEST_EXPECT_MSG_EQ(seen.tagged, 30u, "packets starting in labelled runs are tagged");
        NS_TEST_EXPECT_MSG_EQ(tagged, 30u, "TaLB's selector saw every tagged packet");
    }
};

/// Every load balancer forwards RDMA traffic (reordering ones pay with go-back-N).
class TalbRdmaEveryBalancer : public TestCase
{
  public:
    TalbRdmaEveryBalancer()
        : TestCase("TalbRdmaEveryBalancer: 4 hosts each send 2 MB to a remote host under every "
                   "load balancer; all delivered")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& lb : TalbLoadBalancer::GetRegistry().GetShortNames())
        {
            Ptr<TalbLeafSpineHelper> f = MakeFabric("10Gbps", lb);
            f->Install();
            f->AssignStreams(1);
            Completion rx;
            for (uint32_t s = 0; s < 2; ++s)
            {
                for (uint32_t d = 2; d < 4; ++d)
                {
                    auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(s), f->GetRdmaNic(d));
                    qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, &rx));
                    qps.first->PostSend(2000000);
                }
            }
            Simulator::Stop(Seconds(1));
            Simulator::Run();
            Simulator::Destroy();
            NS_TEST_EXPECT_MSG_EQ(rx.messages, 4u, lb << ": every message delivered");
            NS_TEST_EXPECT_MSG_EQ(rx.bytes, 8000000u, lb << ": every byte delivered");
        }
    }
};

/// The NIC serves queue pairs round-robin within a priority and strictly by priority across.
class TalbRdmaNicScheduling : public TestCase
{
  public:
    TalbRdmaNicScheduling(bool labelled)
        : TestCase(std::string("TalbRdmaNicScheduling: two queue pairs of one host, ") +
                   (labelled ? "priorities 0 and 5: the urgent one first"
                             : "unlabelled: round-robin, both finish together")),
          m_labelled(labelled)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("10Gbps");
        f->Install();
        Completion done[2];
        for (uint32_t k = 0; k < 2; ++k)
        {
            // Different receivers: host 0's port is the only shared link.
            auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2 + k));
            qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, &done[k]));
            std::vector<TalbRdmaLabelRun> runs;
            if (m_labelled)
            {
                runs.resize(1);
                runs[0].bytes = 1000000;
                runs[0].labelled = true;
                runs[0].label = {talb_make_tensor_id(0, k), uint8_t(k == 0 ? 5 : 0), 0};
            }
            qps.first->PostSend(1000000, runs);
        }
        Simulator::Run();
        Simulator::Destroy();
        // 1 MB alone at 10 Gb/s: ~0.83 ms; both: ~1.66 ms.
        double first = done[0].last.GetSeconds();
        double second = done[1].last.GetSeconds();
        if (m_labelled)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(second, 0.00083, 0.00003, "priority 0 alone on the link");
            NS_TEST_EXPECT_MSG_EQ_TOL(first, 0.00166, 0.00003, "priority 5 after it");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(first, second, 0.00001, "round-robin: together");
            NS_TEST_EXPECT_MSG_EQ_TOL(first, 0.00166, 0.00003, "at half the rate each");
        }
    }

    bool m_labelled;
};

/// A packet lost mid-message: the responder NAKs, the requester goes back to it.
class TalbRdmaGoBackNak : public talbtest::SimulationTestCase
{
  public:
    TalbRdmaGoBackNak()
        : talbtest::SimulationTestCase(
              "TalbRdmaGoBackNak: packet 50 of 1 MB lost; NAK; go-back-N resends the "
              "packets sent in the NAK's round trip, and the bytes arrive once")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t lost = 50;
        Ptr<TalbLeafSpineHelper> f = MakeFabric("10Gbps");
        f->Install();
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({lost});
        DynamicCast<TalbPfcNetDevice>(f->GetHostDevice(2))->SetReceiveErrorModel(em);
        auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
        Completion rx;
        qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, &rx));
        std::vector<std::pair<uint64_t, uint64_t>> goBacks;
        f->GetRdmaNic(0)->TraceConnectWithoutContext(
            "GoBack",
            MakeBoundCallback(
                +[](std::vector<std::pair<uint64_t, uint64_t>>* v,
                    Ptr<const TalbRdmaQueuePair>,
                    uint64_t from,
                    uint64_t to,
                    bool) {
                    v->push_back({from, to});
                },
                &goBacks));
        const Time start = MicroSeconds(5);
        Simulator::Schedule(start, [&qps]() { qps.first->PostSend(1000000); });
        Simulator::Run();
        TalbRdmaQueuePair::Stats tx = qps.first->GetStats();
        TalbRdmaQueuePair::Stats rs = qps.second->GetStats();
        uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        // Packet i starts at start + i T. The NAK leaves when packet lost + 1 arrives and
        // reaches the sender one base RTT after that packet started.
        DataRate rate("10Gbps");
        Time t = rate.CalculateBytesTxTime(DataFrameBytes(mtu));
        Time nak = (lost + 1) * t + f->GetBaseRtt(0, 2, DataFrameBytes(mtu), ACK_FRAME_BYTES);
        uint64_t expected = nak.GetTimeStep() / t.GetTimeStep() + 1 - lost;
        Simulator::Destroy();

        NS_TEST_ASSERT_MSG_EQ(goBacks.size(), 1u, "one go-back-N");
        NS_TEST_EXPECT_MSG_EQ(goBacks[0].second, uint64_t(lost), "back to the lost packet");
        NS_TEST_EXPECT_MSG_EQ(tx.naksReceived, 1u, "one NAK");
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 0u, "no timeout");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, expected, "packets sent in the NAK's RTT");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets,
                              goBacks[0].first - goBacks[0].second,
                              "everything from the lost packet on");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedBytes, expected * mtu, "retransmitted bytes");
        NS_TEST_EXPECT_MSG_EQ(rs.packetsOutOfOrder, expected - 1, "dropped behind the gap");
        NS_TEST_EXPECT_MSG_EQ(rx.messages, 1u, "the message arrives once");
        NS_TEST_EXPECT_MSG_EQ(rx.bytes, 1000000u, "every byte once");
    }
};

/// The message's last packet lost: nothing follows it, so the retransmission timer recovers.
class TalbRdmaGoBackTimeout : public TestCase
{
  public:
    TalbRdmaGoBackTimeout()
        : TestCase("TalbRdmaGoBackTimeout: last packet of 1 MB lost; after RetransmitTimeout the "
                   "unacknowledged tail (coalesced ACKs) is resent")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("10Gbps");
        f->Install();
        auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
        uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        const uint64_t bytes = 1000000;
        const uint64_t packets = (bytes + mtu - 1) / mtu;
        Ptr<ReceiveListErrorModel> em = CreateObject<ReceiveListErrorModel>();
        em->SetList({static_cast<uint32_t>(packets - 1)});
        DynamicCast<TalbPfcNetDevice>(f->GetHostDevice(2))->SetReceiveErrorModel(em);
        Completion rx;
        qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, &rx));
        TimeValue rto;
        f->GetRdmaNic(0)->GetAttribute("RetransmitTimeout", rto);
        qps.first->PostSend(bytes);
        Simulator::Run();
        TalbRdmaQueuePair::Stats tx = qps.first->GetStats();
        TalbRdmaQueuePair::Stats rs = qps.second->GetStats();
        Simulator::Destroy();

        // ACKs cover every 16 packets: the tail after the last full group is unacknowledged.
        uint64_t acked = (packets - 1) / 16 * 16;
        uint64_t expected = packets - acked;
        uint64_t expectedBytes = bytes - acked * mtu;
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 1u, "one timeout");
        NS_TEST_EXPECT_MSG_EQ(tx.naksReceived, 0u, "no NAK: nothing came after the loss");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, expected, "the unacknowledged tail");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedBytes, expectedBytes, "its bytes");
        NS_TEST_EXPECT_MSG_EQ(rs.packetsDuplicate, expected - 1, "received twice: the rest");
        NS_TEST_EXPECT_MSG_EQ(rx.bytes, bytes, "every byte once");
        NS_TEST_EXPECT_MSG_GT(rx.last, rto.Get(), "recovered after the timeout");
        NS_TEST_EXPECT_MSG_LT(rx.last, rto.Get() + MilliSeconds(2), "and not much later");
    }
};

class TalbRdmaTestSuite : public TestSuite
{
  public:
    TalbRdmaTestSuite()
        : TestSuite("talb-rdma", UNIT)
    {
        AddTestCase(new TalbRoceHeaderRoundTrip(), TestCase::QUICK);
        AddTestCase(new TalbRdmaOneMessage("10Gbps", 0), TestCase::QUICK);
        AddTestCase(new TalbRdmaOneMessage("100Gbps", 0xFFFFA0), TestCase::QUICK);
        AddTestCase(new TalbRdmaLabels(), TestCase::QUICK);
        AddTestCase(new TalbRdmaEveryBalancer(), TestCase::QUICK);
        AddTestCase(new TalbRdmaNicScheduling(false), TestCase::QUICK);
        AddTestCase(new TalbRdmaNicScheduling(true), TestCase::QUICK);
        AddTestCase(new TalbRdmaGoBackNak(), TestCase::QUICK);
        AddTestCase(new TalbRdmaGoBackTimeout(), TestCase::QUICK);
    }
};

static TalbRdmaTestSuite g_talbRdmaTestSuite;
