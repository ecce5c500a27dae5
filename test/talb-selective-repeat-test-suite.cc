// Selective repeat on the RoCEv2 NIC (TalbRdmaNic Recovery SelectiveRepeat): the SACK header
// round-trips; a lost packet is the only one sent again; under deterministic reordering and
// drops every message reaches the application once, whole and in order, and only the missing
// PSNs go again (go-back-N, on the same pattern, drops what arrives early); a lost tail is
// recovered by the retransmission timer. Fabrics come from TalbLeafSpineHelper with Transport
// rdma; a test error model on the receiving host's port drops or holds back chosen PSNs.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <set>
#include <vector>

using namespace ns3;

namespace
{

/// Drops the first arrival of chosen PSNs, holds back the first arrival of others (hands it to
/// the device again after a delay: reordering), and counts every PSN's arrivals.
class PsnErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TalbTestPsnErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Talb")
                                .AddConstructor<PsnErrorModel>();
        return tid;
    }

    Ptr<TalbPfcNetDevice> device;
    std::set<uint32_t> drop;               //!< PSNs whose first arrival is lost
    std::map<uint32_t, Time> hold;         //!< PSNs whose first arrival comes this much later
    std::map<uint32_t, uint32_t> arrivals; //!< PSN -> arrivals (held ones counted once)
    std::set<uint32_t> released;           //!< held PSNs handed back

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        TalbRoceHeader h;
        p->PeekHeader(h);
        if (!TalbRoceHeader::IsData(h.GetOpcode()))
        {
            return false;
        }
        uint32_t psn = h.GetPsn();
        auto held = hold.find(psn);
        if (held != hold.end() && released.insert(psn).second)
        {
            Simulator::Schedule(held->second, &TalbPfcNetDevice::Receive, device, p->Copy());
            return true;
        }
        ++arrivals[psn];
        return arrivals[psn] == 1 && drop.count(psn) > 0;
    }

    void DoReset() override
    {
    }
};

/// Drops the acknowledgements (ACK and SACK) that reach the requester before \p until, or the
/// ones whose arrival count is in \p nth (1 = the first).
class AckErrorModel : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TalbTestAckErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("Talb")
                                .AddConstructor<AckErrorModel>();
        return tid;
    }

    Time until;
    std::set<uint32_t> nth;
    uint32_t acks{0};    //!< acknowledgements that arrived
    uint32_t dropped{0}; //!< ... of which dropped

  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        TalbRoceHeader h;
        p->PeekHeader(h);
        if (!TalbRoceHeader::HasAeth(h.GetOpcode()))
        {
            return false;
        }
        ++acks;
        bool drop = Simulator::Now() < until || nth.count(acks) > 0;
        dropped += drop ? 1 : 0;
        return drop;
    }

    void DoReset() override
    {
    }
};

/// What the responder's application saw.
struct Delivered
{
    std::vector<uint64_t> seqs;
    std::vector<uint64_t> bytes;
};

void
OnReceive(Delivered* d, Ptr<TalbRdmaQueuePair>, uint64_t seq, uint64_t bytes)
{
    d->seqs.push_back(seq);
    d->bytes.push_back(bytes);
}

/// A 2 leaves x 2 hosts RDMA fabric at 10 Gb/s whose NICs recover by \p recovery (and have
/// the NIC attributes \p nic).
Ptr<TalbLeafSpineHelper>
MakeFabric(const std::string& recovery,
           const std::vector<std::pair<std::string, std::string>>& nic = {})
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("HostRate", StringValue("10Gbps"));
    f->SetAttribute("FabricRate", StringValue("10Gbps"));
    f->GetRdmaHelper()->SetNicAttribute("Recovery", StringValue(recovery));
    for (const auto& [name, value] : nic)
    {
        f->GetRdmaHelper()->SetNicAttribute(name, StringValue(value));
    }
    f->SetLoadBalancer("ecmp");
    f->Install();
    return f;
}

/// Runs \p sizes as messages from host 0 to host 2 through \p em; returns both ends' counters.
std::pair<TalbRdmaQueuePair::Stats, TalbRdmaQueuePair::Stats>
RunMessages(Ptr<TalbLeafSpineHelper> f,
            Ptr<PsnErrorModel> em,
            const std::vector<uint64_t>& sizes,
            Delivered* delivered)
{
    em->device = DynamicCast<TalbPfcNetDevice>(f->GetHostDevice(2));
    em->device->SetReceiveErrorModel(em);
    auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
    qps.second->SetReceiveCallback(MakeBoundCallback(&OnReceive, delivered));
    for (uint64_t bytes : sizes)
    {
        qps.first->PostSend(bytes);
    }
    Simulator::Run();
    auto stats = std::make_pair(qps.first->GetStats(), qps.second->GetStats());
    Simulator::Destroy();
    return stats;
}

} // namespace

/// The SACK opcode's header: AETH and the SACK extension round-trip; ACKs keep their size.
class TalbSrSackHeader : public TestCase
{
  public:
    TalbSrSackHeader()
        : TestCase("TalbSrSackHeader: OP_SACK carries the cumulative PSN, a 64-PSN bitmap, the "
                   "echoed entropy and ECN mark; OP_ACK keeps its size")
    {
    }

  private:
    void DoRun() override
    {
        TalbRoceHeader h;
        h.SetOpcode(TalbRoceHeader::OP_SACK);
        h.SetPsn(0xABCDEF);
        h.SetMsn(7);
        h.SetSackBitmap(0x8000000000000005ULL);
        h.SetEchoEntropy(0xC0DE);
        h.SetEchoCe(true);
        NS_TEST_EXPECT_MSG_EQ(h.GetSerializedSize(),
                              TalbRoceHeader::BASE_BYTES + TalbRoceHeader::AETH_BYTES +
                                  TalbRoceHeader::SACK_BYTES,
                              "SACK size");
        Ptr<Packet> p = Create<Packet>(4);
        p->AddHeader(h);
        TalbRoceHeader r;
        p->RemoveHeader(r);
        NS_TEST_EXPECT_MSG_EQ(+r.GetOpcode(), +TalbRoceHeader::OP_SACK, "opcode");
        NS_TEST_EXPECT_MSG_EQ(r.GetPsn(), 0xABCDEFu, "cumulative PSN");
        NS_TEST_EXPECT_MSG_EQ(r.GetMsn(), 7u, "MSN");
        NS_TEST_EXPECT_MSG_EQ(r.GetSackBitmap(), 0x8000000000000005ULL, "bitmap");
        NS_TEST_EXPECT_MSG_EQ(r.GetEchoEntropy(), 0xC0DE, "echoed entropy");
        NS_TEST_EXPECT_MSG_EQ(r.GetEchoCe(), true, "echoed ECN mark");
        NS_TEST_EXPECT_MSG_EQ(p->GetSize(), 4u, "the extension is all read");
        TalbRoceHeader ack;
        ack.SetOpcode(TalbRoceHeader::OP_ACK);
        NS_TEST_EXPECT_MSG_EQ(ack.GetSerializedSize(),
                              TalbRoceHeader::BASE_BYTES + TalbRoceHeader::AETH_BYTES,
                              "go-back-N's ACK keeps its size");
    }
};

/// One packet lost mid-message: it alone is sent again, early packets are kept.
class TalbSrOneLoss : public TestCase
{
  public:
    TalbSrOneLoss()
        : TestCase("TalbSrOneLoss: PSN 50 of 1 MB lost; only it is sent again, without NAK or "
                   "timeout, and the packets behind it are placed, not dropped")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("SelectiveRepeat");
        Ptr<PsnErrorModel> em = CreateObject<PsnErrorModel>();
        em->drop = {50};
        Delivered d;
        auto [tx, rx] = RunMessages(f, em, {1000000}, &d);
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, 1u, "one packet sent again");
        NS_TEST_EXPECT_MSG_EQ(tx.packetsDeclaredLost, 1u, "one packet declared lost");
        NS_TEST_EXPECT_MSG_EQ(em->arrivals[50], 2u, "PSN 50 twice: lost, then again");
        NS_TEST_EXPECT_MSG_EQ(tx.naksReceived, 0u, "no NAK");
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 0u, "no timeout");
        NS_TEST_EXPECT_MSG_GT(rx.packetsPlaced, 0u, "packets behind the hole placed");
        NS_TEST_EXPECT_MSG_EQ(rx.packetsOutOfOrder, 0u, "none dropped");
        NS_TEST_EXPECT_MSG_EQ(rx.packetsDuplicate, 0u, "none twice");
        NS_TEST_ASSERT_MSG_EQ(d.seqs.size(), 1u, "the message arrives once");
        NS_TEST_EXPECT_MSG_EQ(d.bytes[0], 1000000u, "whole");
    }
};

/// Reordering and drops across many messages: delivery stays whole, once and in order, and
/// only the dropped PSNs are sent again; go-back-N on the same pattern drops the early ones.
class TalbSrReorderAndDrops : public TestCase
{
  public:
    explicit TalbSrReorderAndDrops(bool selective)
        : TestCase(std::string("TalbSrReorderAndDrops: 12 messages, 5 PSNs dropped, 6 held back "
                               "5-30 us, ") +
                   (selective ? "SelectiveRepeat: in order, only the dropped PSNs again"
                              : "GoBackN: in order, early packets dropped")),
          m_selective(selective)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(m_selective ? "SelectiveRepeat" : "GoBackN");
        Ptr<PsnErrorModel> em = CreateObject<PsnErrorModel>();
        // Drops in the first message's middle, at a message's first and last packets, and
        // two in a row; holds of one packet past several (25 us is ~7 packets at 10 Gb/s,
        // short of ReorderThreshold, so not declared lost) and of neighbours past each other.
        em->drop = {3, 40, 41, 122, 300};
        em->hold = {{10, MicroSeconds(20)},
                    {60, MicroSeconds(25)},
                    {61, MicroSeconds(5)},
                    {150, MicroSeconds(8)},
                    {151, MicroSeconds(7)},
                    {400, MicroSeconds(30)}};
        std::vector<uint64_t> sizes;
        for (uint64_t k = 0; k < 12; ++k)
        {
            sizes.push_back(50000 + 37000 * k); // 13 to 108 packets each
        }
        Delivered d;
        auto [tx, rx] = RunMessages(f, em, sizes, &d);

        NS_TEST_ASSERT_MSG_EQ(d.seqs.size(), sizes.size(), "every message once");
        for (std::size_t k = 0; k < sizes.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(d.seqs[k], k, "in the order posted");
            NS_TEST_EXPECT_MSG_EQ(d.bytes[k], sizes[k], "whole");
        }
        if (!m_selective)
        {
            NS_TEST_EXPECT_MSG_GT(rx.packetsOutOfOrder, 0u, "go-back-N drops early packets");
            NS_TEST_EXPECT_MSG_GT(tx.retransmittedPackets,
                                  em->drop.size(),
                                  "... and sends them again");
            return;
        }
        NS_TEST_EXPECT_MSG_EQ(rx.packetsOutOfOrder, 0u, "selective repeat drops none");
        NS_TEST_EXPECT_MSG_GT(rx.packetsPlaced, em->hold.size(), "early packets placed");
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 0u, "no timeout: SACKs show every hole");
        NS_TEST_EXPECT_MSG_EQ(tx.retransmittedPackets, em->drop.size(), "the dropped PSNs");
        for (const auto& [psn, n] : em->arrivals)
        {
            NS_TEST_EXPECT_MSG_EQ(n,
                                  em->drop.count(psn) ? 2u : 1u,
                                  "PSN " << psn << ": sent again only if dropped");
        }
    }

    bool m_selective;
};

/// The last packet lost: no later packet shows the hole, so the timer recovers it.
class TalbSrTailLoss : public TestCase
{
  public:
    TalbSrTailLoss()
        : TestCase("TalbSrTailLoss: the last packet of 1 MB lost; after RetransmitTimeout the "
                   "packets not selectively acknowledged are sent again; the message arrives")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric("SelectiveRepeat");
        uint32_t mtu = f->GetRdmaNic(0)->GetMtu();
        const uint64_t bytes = 1000000;
        const uint32_t last = static_cast<uint32_t>((bytes + mtu - 1) / mtu - 1);
        Ptr<PsnErrorModel> em = CreateObject<PsnErrorModel>();
        em->drop = {last};
        TimeValue rto;
        f->GetRdmaNic(0)->GetAttribute("RetransmitTimeout", rto);
        Delivered d;
        auto [tx, rx] = RunMessages(f, em, {bytes}, &d);
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 1u, "one timeout");
        NS_TEST_EXPECT_MSG_EQ(em->arrivals[last], 2u, "the last PSN again");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(tx.retransmittedPackets, 1u, "at least it");
        // ACKs are coalesced (AckInterval 16): at most the packets since the last one.
        NS_TEST_EXPECT_MSG_LT_OR_EQ(tx.retransmittedPackets, 16u, "at most the unreported tail");
        NS_TEST_ASSERT_MSG_EQ(d.seqs.size(), 1u, "the message arrives once");
        NS_TEST_EXPECT_MSG_EQ(d.bytes[0], bytes, "whole");
        NS_TEST_EXPECT_MSG_EQ(rx.packetsOutOfOrder, 0u, "none dropped");
    }
};

/// Every answer lost for a while after the whole message arrived: the requester times out
/// and resends what the responder has; its answer to those duplicates is lost too, and the
/// responder answers the next run again, so the requester completes at the third timeout.
/// (Answering one run of duplicates per new packet only, talb before 2026-11-29, left such a
/// requester timing out forever.)
class TalbLostAnswers : public TestCase
{
  public:
    explicit TalbLostAnswers(const std::string& recovery)
        : TestCase("TalbLostAnswers: " + recovery +
                   ", every acknowledgement lost until 2.5 timeouts; the duplicates sent at "
                   "the second timeout are answered again and the message completes at the "
                   "third"),
          m_recovery(recovery)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(m_recovery);
        TimeValue rto;
        f->GetRdmaNic(0)->GetAttribute("RetransmitTimeout", rto);
        Ptr<AckErrorModel> acks = CreateObject<AckErrorModel>();
        acks->until = rto.Get() * 5 / 2;
        DynamicCast<TalbPfcNetDevice>(f->GetHostDevice(0))->SetReceiveErrorModel(acks);
        Ptr<PsnErrorModel> none = CreateObject<PsnErrorModel>();
        Simulator::Stop(rto.Get() * 10);
        Delivered d;
        auto [tx, rx] = RunMessages(f, none, {100000}, &d);
        NS_TEST_ASSERT_MSG_EQ(d.seqs.size(), 1u, "the message arrives once");
        NS_TEST_EXPECT_MSG_GT(acks->dropped, 0u, "answers were lost");
        NS_TEST_EXPECT_MSG_EQ(tx.messagesCompleted, 1u, "the requester hears of it");
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, 3u, "at the third timeout");
        NS_TEST_EXPECT_MSG_GT(rx.packetsDuplicate, 0u, "duplicates came");
    }

    std::string m_recovery;
};

/// A window that binds (a short SelectiveRepeatRtt) and one coalesced acknowledgement lost:
/// the packet that fills the window asks for an answer, so the window reopens without a
/// timeout; without WindowEdgeAck the responder waits for AckInterval packets that the closed
/// window never sends, and the requester times out.
class TalbSrWindowEdgeAck : public TestCase
{
  public:
    explicit TalbSrWindowEdgeAck(bool edge)
        : TestCase(std::string("TalbSrWindowEdgeAck: a 17-packet window, the second "
                               "acknowledgement lost, ") +
                   (edge ? "WindowEdgeAck: no timeout" : "no WindowEdgeAck: a timeout")),
          m_edge(edge)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeFabric(
            "SelectiveRepeat",
            {{"SelectiveRepeatRtt", "1ns"}, {"WindowEdgeAck", m_edge ? "true" : "false"}});
        Ptr<AckErrorModel> acks = CreateObject<AckErrorModel>();
        acks->nth = {2};
        DynamicCast<TalbPfcNetDevice>(f->GetHostDevice(0))->SetReceiveErrorModel(acks);
        Ptr<PsnErrorModel> none = CreateObject<PsnErrorModel>();
        Delivered d;
        auto [tx, rx] = RunMessages(f, none, {1000000}, &d);
        NS_TEST_ASSERT_MSG_EQ(d.seqs.size(), 1u, "the message arrives once");
        NS_TEST_EXPECT_MSG_EQ(acks->dropped, 1u, "one answer lost");
        NS_TEST_EXPECT_MSG_EQ(tx.messagesCompleted, 1u, "the requester hears of it");
        NS_TEST_EXPECT_MSG_EQ(tx.timeouts, m_edge ? 0u : 1u, "timeouts");
    }

    bool m_edge;
};

/**
 * ReorderThreshold 0 (the default) follows the NIC's line rate: 16 packets per 100 Gb/s, 16 up
 * to 100 Gb/s, 64 (the SACK bitmap's reach) from 400 Gb/s; half the window where the window is
 * shorter than that (per-packet acknowledgements at 10 Gb/s), so that a hole can be found; a
 * value given is kept.
 */
class TalbSrReorderThresholdFollowsTheRate : public TestCase
{
  public:
    TalbSrReorderThresholdFollowsTheRate()
        : TestCase("TalbSrReorderThresholdFollowsTheRate: 16 at 10-100 Gbps, 32 at 200, 64 at "
                   "400 and 800, half a window too short for that; a given value is kept")
    {
    }

  private:
    /// The threshold of a \p rate NIC given \p given, acknowledging every \p ackInterval
    /// packets; \p window: its selective-repeat window
    static uint32_t Threshold(const std::string& rate,
                              const std::string& given,
                              const std::string& ackInterval = "16",
                              uint64_t* window = nullptr)
    {
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("HostRate", StringValue(rate));
        f->SetAttribute("FabricRate", StringValue(rate));
        f->GetRdmaHelper()->SetNicAttribute("Recovery", StringValue("SelectiveRepeat"));
        f->GetRdmaHelper()->SetNicAttribute("ReorderThreshold", StringValue(given));
        f->GetRdmaHelper()->SetNicAttribute("AckInterval", StringValue(ackInterval));
        f->SetLoadBalancer("ecmp");
        f->Install();
        uint32_t threshold = f->GetRdmaNic(0)->GetReorderThreshold();
        if (window)
        {
            *window = f->GetRdmaNic(0)->GetSelectiveRepeatWindow();
        }
        Simulator::Destroy();
        return threshold;
    }

    void DoRun() override
    {
        const std::pair<const char*, uint32_t> expected[] = {{"10Gbps", 16},
                                                             {"100Gbps", 16},
                                                             {"200Gbps", 32},
                                                             {"400Gbps", 64},
                                                             {"800Gbps", 64}};
        for (const auto& [rate, threshold] : expected)
        {
            NS_TEST_EXPECT_MSG_EQ(Threshold(rate, "0"), threshold, rate);
        }
        NS_TEST_EXPECT_MSG_EQ(Threshold("400Gbps", "16"), 16u, "a given value is kept");
        // One acknowledgement per packet at 10 Gb/s: a window of 8, so 3.
        uint64_t window = 0;
        uint32_t threshold = Threshold("10Gbps", "0", "1", &window);
        NS_TEST_EXPECT_MSG_EQ(window, 8u, "the window of per-packet acknowledgements");
        NS_TEST_EXPECT_MSG_EQ(threshold, 3u, "half the window, less the hole");
        NS_TEST_EXPECT_MSG_EQ(Threshold("10Gbps", "16", "1"), 16u, "a given value is kept");
    }
};

class TalbSelectiveRepeatTestSuite : public TestSuite
{
  public:
    TalbSelectiveRepeatTestSuite()
        : TestSuite("talb-selective-repeat", UNIT)
    {
        AddTestCase(new TalbSrSackHeader(), TestCase::QUICK);
        AddTestCase(new TalbSrOneLoss(), TestCase::QUICK);
        AddTestCase(new TalbSrReorderAndDrops(true), TestCase::QUICK);
        AddTestCase(new TalbSrReorderAndDrops(false), TestCase::QUICK);
        AddTestCase(new TalbSrTailLoss(), TestCase::QUICK);
        AddTestCase(new TalbLostAnswers("GoBackN"), TestCase::QUICK);
        AddTestCase(new TalbLostAnswers("SelectiveRepeat"), TestCase::QUICK);
        AddTestCase(new TalbSrWindowEdgeAck(true), TestCase::QUICK);
        AddTestCase(new TalbSrWindowEdgeAck(false), TestCase::QUICK);
        AddTestCase(new TalbSrReorderThresholdFollowsTheRate(), TestCase::QUICK);
    }
};

static TalbSelectiveRepeatTestSuite g_talbSelectiveRepeatTestSuite; //!< the suite's instance
