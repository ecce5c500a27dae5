// talb-switch's per-packet pipeline on frames: routing, labels, bands, ECN, fail-open, the
// decision core at a leaf, and the counter identities.
#include "talb-ipv4-edit.h"
#include "talb-switch-pipeline.h"
#include "talb-test-packets.h"

#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <memory>
#include <set>

using namespace talb;
using namespace talb::test;

namespace
{

constexpr uint32_t kH1 = 0x0AFA0001; // under this leaf, port 0
constexpr uint32_t kH2 = 0x0AFA0002; // under this leaf, port 1
constexpr uint32_t kH3 = 0x0AFA0003; // remote: uplinks 2, 3
constexpr int64_t kUs = 1000;

/// A leaf with two hosts (ports 0, 1) and two uplinks (ports 2, 3).
struct Leaf
{
    SwitchConfig config;
    SwitchPort ports[4];
    SwitchPipeline pipeline;
    std::vector<std::unique_ptr<TestFrame>> held; // frames queued (the items)

    explicit Leaf(const std::string& lb = "ecmp",
                  LabelSource labels = LabelSource::kOption,
                  EgressConfig egress = EgressConfig())
        : Leaf(Named(lb), labels, egress)
    {
    }

    /// \param uplinks what follows the uplink route's ports (e.g. " leaf=1")
    /// \param routes the remote routes, in place of 10.250.0.0/24 (e.g. hosts' /32 routes)
    Leaf(const PolicyOptions& po,
         LabelSource labels = LabelSource::kOption,
         EgressConfig egress = EgressConfig(),
         const std::string& uplinks = "",
         const std::string& routes = "")
    {
        std::string error;
        const std::string remote =
            routes.empty() ? "route 10.250.0.0/24 2,3" + uplinks + "\n" : routes;
        EXPECT_TRUE(ParseSwitchConfig("port 0 h1\nport 1 h2\nport 2 s0\nport 3 s1\n"
                                      "route 10.250.0.1/32 0\nroute 10.250.0.2/32 1\n" +
                                          remote,
                                      "leaf.conf",
                                      &config,
                                      &error))
            << error;
        PipelineConfig pc;
        pc.labels = labels;
        pc.egress = egress;
        EXPECT_TRUE(pipeline.Init(config, pc, po, ports, &error)) << error;
    }

    static PolicyOptions Named(const std::string& lb)
    {
        PolicyOptions po;
        po.name = lb;
        return po;
    }

    /// Forwards a copy of \p f; \return the port (-1: dropped)
    int Send(const TestFrame& f, int64_t now = kUs)
    {
        auto copy = std::make_unique<TestFrame>(f);
        int port = pipeline.Forward(copy->Data(), copy->len, copy.get(), now);
        if (port >= 0)
        {
            held.push_back(std::move(copy));
        }
        return port;
    }

    /// Dequeues everything of \p port. \return the frames in departure order
    std::vector<TestFrame*> Drain(uint32_t port)
    {
        std::vector<TestFrame*> out;
        uint32_t bytes;
        while (void* it = ports[port].queue.Dequeue(&bytes))
        {
            out.push_back(static_cast<TestFrame*>(it));
        }
        return out;
    }

    void CheckIdentities() const
    {
        const PipelineCounters& c = pipeline.Counters();
        EXPECT_EQ(c.rx, c.queued + c.notIpv4 + c.noRoute + c.queueDrops);
        EXPECT_EQ(c.queued, c.labelled + c.unlabelled);
    }
};

std::vector<uint8_t>
Option(uint32_t tensor, uint8_t priority, uint8_t flags)
{
    std::vector<uint8_t> o(TALB_OPT_LEN);
    talb_label l{tensor, priority, flags};
    talb_option_encode(&l, o.data(), o.size());
    return o;
}

TestFrame
Tcp(uint32_t dst,
    uint16_t srcPort,
    uint32_t payload,
    std::vector<uint8_t> option = {},
    uint8_t tos = 0,
    uint32_t seq = 0)
{
    TcpSpec s;
    s.src = kH1;
    s.dst = dst;
    s.srcPort = srcPort;
    s.seq = seq;
    s.ipOptions = option;
    s.tos = tos;
    std::vector<uint8_t> bytes(payload, 0xAB);
    return MakeTcpFrame(s, bytes.data(), payload);
}

/// A RoCEv2 packet (UDP to port 4791) from kH1 with \p option, built on Tcp()'s frame; its
/// BTH names destination queue pair \p qp.
TestFrame
Roce(uint32_t dst,
     uint16_t srcPort,
     uint32_t payload,
     std::vector<uint8_t> option = {},
     uint32_t qp = 0)
{
    TestFrame f = Tcp(dst, srcPort, payload, option);
    uint8_t* ip = f.Data() + 14;
    uint32_t ihl = (ip[0] & 0x0F) * 4u;
    ip[9] = 17;
    Put16(ip + 10, 0);
    Put16(ip + 10, Ipv4HeaderChecksum(ip, ihl));
    uint8_t* udp = ip + ihl;
    Put16(udp + 2, 4791);
    Put16(udp + 4, static_cast<uint16_t>(LoadBe16(ip + 2) - ihl));
    Put16(udp + 6, 0);
    udp[8 + 5] = static_cast<uint8_t>(qp >> 16);
    udp[8 + 6] = static_cast<uint8_t>(qp >> 8);
    udp[8 + 7] = static_cast<uint8_t>(qp);
    return f;
}

/// Fills \p port's queue with \p bytes in band \p band (items nobody forwards).
void
Fill(Leaf& leaf, uint32_t port, uint32_t bytes, uint8_t band)
{
    for (uint32_t b = 0; b < bytes; b += 1500)
    {
        leaf.ports[port].queue.Enqueue(nullptr, 1500, band, false);
    }
}

/// The band a frame was queued in: the one whose byte count grew.
uint8_t
BandOf(Leaf& leaf, const TestFrame& f)
{
    uint64_t before[TALB_NUM_PRIORITIES];
    for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
    {
        before[b] = leaf.ports[1].queue.BandBytes(b);
    }
    EXPECT_EQ(leaf.Send(f), 1);
    for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
    {
        if (leaf.ports[1].queue.BandBytes(b) != before[b])
        {
            return b;
        }
    }
    return 0xFF;
}

} // namespace

TEST(TalbSwitchPipeline, RoutesByLongestPrefix)
{
    Leaf leaf;
    EXPECT_EQ(leaf.Send(Tcp(kH2, 1, 100)), 1);
    EXPECT_EQ(leaf.Send(Tcp(kH1, 1, 100)), 0);
    int up = leaf.Send(Tcp(kH3, 1, 100));
    EXPECT_TRUE(up == 2 || up == 3);
    EXPECT_EQ(leaf.Send(Tcp(0x0AFB0001, 1, 100)), -1); // 10.251.0.1: no route
    EXPECT_EQ(leaf.pipeline.Counters().noRoute, 1u);
    EXPECT_EQ(leaf.pipeline.Counters().selections, 1u); // only the uplink route chooses
    leaf.CheckIdentities();
}

TEST(TalbSwitchPipeline, EcmpKeepsAFlowAndSpreadsFlows)
{
    Leaf leaf("ecmp");
    std::map<int, int> perPort;
    for (uint16_t flow = 0; flow < 200; ++flow)
    {
        int first = leaf.Send(Tcp(kH3, 30000 + flow, 100));
        for (int k = 0; k < 5; ++k)
        {
            ASSERT_EQ(leaf.Send(Tcp(kH3, 30000 + flow, 100)), first);
        }
        ++perPort[first];
    }
    ASSERT_EQ(perPort.size(), 2u);
    EXPECT_GT(perPort[2], 60);
    EXPECT_GT(perPort[3], 60);
}

TEST(TalbSwitchPipeline, EecmpSpreadsTheQueuePairsOfOneConnectionWhereEcmpCannot)
{
    // One 5-tuple (a NIC whose queue pairs share a source port), 64 destination QPs.
    for (const char* name : {"ecmp", "eecmp"})
    {
        Leaf leaf(name);
        std::map<int, int> perPort;
        for (uint32_t qp = 1; qp <= 64; ++qp)
        {
            int first = leaf.Send(Roce(kH3, 50000, 1000, {}, qp));
            ASSERT_EQ(leaf.Send(Roce(kH3, 50000, 1000, {}, qp)), first) << name;
            ++perPort[first];
        }
        if (std::string(name) == "ecmp")
        {
            EXPECT_EQ(perPort.size(), 1u) << "ecmp: one path for the connection";
        }
        else
        {
            ASSERT_EQ(perPort.size(), 2u) << "eecmp: the queue pairs spread";
            EXPECT_GT(perPort[2], 16);
            EXPECT_GT(perPort[3], 16);
        }
        leaf.CheckIdentities();
    }
}

TEST(TalbSwitchPipeline, TalbV1PlacesAndMovesHighPriorityTensorsByQueue)
{
    for (uint32_t loaded : {2u, 3u})
    {
        Leaf leaf("talb-v1");
        uint32_t other = loaded == 2 ? 3 : 2;
        for (int i = 0; i < 20; ++i) // 30 kB waiting on one uplink
        {
            leaf.ports[loaded].queue.Enqueue(nullptr, 1500, 7, false);
        }
        EXPECT_EQ(leaf.Send(Tcp(kH3, 1, 1000, Option(77, 0, TALB_FLAG_FIRST))), int(other));
        // Its uplink becomes the fuller by more than the move margin: the tensor moves.
        for (int i = 0; i < 40; ++i)
        {
            leaf.ports[other].queue.Enqueue(nullptr, 1500, 7, false);
        }
        EXPECT_EQ(leaf.Send(Tcp(kH3, 1, 1000, Option(77, 0, 0))), int(loaded));
        auto* t = dynamic_cast<const lb::TensorAwareV1*>(&leaf.pipeline.Policy());
        ASSERT_NE(t, nullptr);
        EXPECT_EQ(t->GetTableStats().nMidTensorMoves, 1u);
        EXPECT_EQ(leaf.pipeline.Counters().reroutes, 1u);
        // A low-priority tensor stays on its uplink however full it gets.
        int low = leaf.Send(Tcp(kH3, 2, 1000, Option(88, 7, TALB_FLAG_FIRST)));
        for (int i = 0; i < 100; ++i)
        {
            leaf.ports[low].queue.Enqueue(nullptr, 1500, 7, false);
        }
        EXPECT_EQ(leaf.Send(Tcp(kH3, 2, 1000, Option(88, 7, 0))), low);
        EXPECT_EQ(t->GetTableStats().nInserted, 2u);
    }
}

TEST(TalbSwitchPipeline, BandsFollowTheOptionThenTheDscpThenControl)
{
    Leaf leaf;
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100, Option(5, 2, 0), talb_dscp_from_priority(6) << 2)), 2);
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100, {}, talb_dscp_from_priority(3) << 2)), 3);
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 0)), 0);   // pure ACK: control band
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100)), 7); // untagged data
    EXPECT_EQ(leaf.pipeline.Counters().labelled, 1u);
    EXPECT_EQ(leaf.pipeline.Counters().unlabelled, 3u);
    // Strict priority on departure.
    std::vector<TestFrame*> out = leaf.Drain(1);
    ASSERT_EQ(out.size(), 4u);
    EXPECT_EQ(out[0]->len, Tcp(kH2, 1, 0).len);
    leaf.CheckIdentities();
}

TEST(TalbSwitchPipeline, DscpOnlyModeLabelsByPriority)
{
    Leaf leaf("talb", LabelSource::kDscp);
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100, {}, talb_dscp_from_priority(1) << 2)), 1);
    // The option is not read in this mode (its priority 0 is ignored; the DSCP's 4 counts).
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100, Option(5, 0, 0), talb_dscp_from_priority(4) << 2)), 4);
    EXPECT_EQ(BandOf(leaf, Tcp(kH2, 1, 100)), 7);
    EXPECT_EQ(leaf.pipeline.Counters().labelled, 2u);
    EXPECT_EQ(leaf.pipeline.Counters().unlabelled, 1u);
    leaf.Send(Tcp(kH3, 9, 100, {}, talb_dscp_from_priority(0) << 2));
    auto* t = dynamic_cast<const lb::TensorAwareV2*>(&leaf.pipeline.Policy());
    ASSERT_NE(t, nullptr);
    EXPECT_EQ(t->GetTableStats().nInserted, 1u);
}

TEST(TalbSwitchPipeline, MarksCeAboveTheThresholdWithAValidChecksum)
{
    EgressConfig e;
    e.ecnThresholdBytes = 2900;
    Leaf leaf("ecmp", LabelSource::kOption, e);
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(leaf.Send(Tcp(kH2, 1, 1400, {}, 0x02 /* ECT(0) */)), 1);
    }
    // 1454-byte frames: the 3rd and 4th find at least 2900 bytes queued.
    EXPECT_EQ(leaf.pipeline.Counters().marked, 2u);
    std::vector<TestFrame*> out = leaf.Drain(1);
    for (size_t i = 0; i < out.size(); ++i)
    {
        const uint8_t* ip = out[i]->Data() + 14;
        EXPECT_EQ(ip[1] & 3, i < 2 ? 2 : 3) << "packet " << i;
        EXPECT_EQ(Ipv4HeaderChecksum(ip, 20), LoadBe16(ip + 10)) << "packet " << i;
    }
}

TEST(TalbSwitchPipeline, FailsOpenOnMalformedIpv4AndDropsWhatItCannotRoute)
{
    Leaf leaf;
    // A TaLB option whose length runs past the header: routed, unlabelled, counted.
    EXPECT_EQ(leaf.Send(Tcp(kH2, 1, 100, {TALB_OPT_TYPE, 12, 0, 0, 0, 0, 0, 0})), 1);
    EXPECT_EQ(leaf.pipeline.Counters().malformed, 1u);
    // A TCP header cut short (total length beyond the frame): routed by its destination.
    TestFrame cut = Tcp(kH2, 1, 100);
    cut.len = 14 + 30;
    EXPECT_EQ(leaf.Send(cut), 1);
    EXPECT_EQ(leaf.pipeline.Counters().malformed, 2u);
    // Not IPv4 (ARP), and an IPv4 frame too short to hold a destination: dropped.
    TestFrame arp = Tcp(kH2, 1, 100);
    arp.Data()[12] = 0x08;
    arp.Data()[13] = 0x06;
    EXPECT_EQ(leaf.Send(arp), -1);
    TestFrame stub = Tcp(kH2, 1, 100);
    stub.len = 14 + 12;
    EXPECT_EQ(leaf.Send(stub), -1);
    EXPECT_EQ(leaf.pipeline.Counters().notIpv4, 2u);
    EXPECT_EQ(leaf.pipeline.Counters().unlabelled, 2u);
    leaf.CheckIdentities();
}

TEST(TalbSwitchPipeline, DownPortsAreNeverChosen)
{
    Leaf leaf("drill");
    leaf.ports[2].up = false;
    for (uint16_t flow = 0; flow < 50; ++flow)
    {
        ASSERT_EQ(leaf.Send(Tcp(kH3, flow, 100)), 3);
    }
    EXPECT_EQ(leaf.pipeline.Counters().selections, 0u); // one live port: no decision
    leaf.ports[3].up = false;
    EXPECT_EQ(leaf.Send(Tcp(kH3, 1, 100)), -1);
    EXPECT_EQ(leaf.pipeline.Counters().noRoute, 1u);
}

TEST(TalbSwitchPipeline, AFullQueueDropsAndTheCountersAddUp)
{
    EgressConfig e;
    e.bufferBytes = 4096;
    Leaf leaf("ecmp", LabelSource::kOption, e);
    int queued = 0;
    for (int i = 0; i < 10; ++i)
    {
        queued += leaf.Send(Tcp(kH2, 1, 1000)) == 1;
    }
    EXPECT_EQ(queued, 3); // 3 x 1054-byte frames fit in 4096
    EXPECT_EQ(leaf.pipeline.Counters().queueDrops, 7u);
    leaf.CheckIdentities();
}

namespace
{
uint32_t g_pushedOut = 0; ///< frames push-out released (the Leaf's `held` owns them)
} // namespace

TEST(TalbSwitchPipeline, PushOutQueuesAnUrgentFrameWhereUntaggedOnesFilledThePort)
{
    EgressConfig e;
    e.bufferBytes = 4096;
    e.pushOut = true;
    e.release = [](void*) { ++g_pushedOut; };
    g_pushedOut = 0;
    Leaf leaf("ecmp", LabelSource::kOption, e);
    for (int i = 0; i < 3; ++i)
    {
        ASSERT_EQ(leaf.Send(Tcp(kH2, 1, 1000)), 1); // untagged: band 7
    }
    EXPECT_EQ(leaf.Send(Tcp(kH2, 1, 1000)), -1); // its own band: refused
    TestFrame urgent = Tcp(kH2, 2, 1000, Option(9, 0, 0));
    EXPECT_EQ(leaf.Send(urgent), 1); // the oldest untagged frame makes room
    EXPECT_EQ(g_pushedOut, 1u);
    EXPECT_EQ(leaf.ports[1].queue.Counters().pushedOut, 1u);
    EXPECT_EQ(leaf.pipeline.Counters().queueDrops, 1u);
    std::vector<TestFrame*> out = leaf.Drain(1);
    ASSERT_EQ(out.size(), 3u);
    EXPECT_EQ(out[0]->len, urgent.len);
    leaf.CheckIdentities();

    // Under DWRR the untagged band is the simulator's best-effort class: never pushed out.
    e.dwrrBands = true;
    g_pushedOut = 0;
    Leaf dwrr("ecmp", LabelSource::kOption, e);
    for (int i = 0; i < 3; ++i)
    {
        ASSERT_EQ(dwrr.Send(Tcp(kH2, 1, 1000)), 1);
    }
    EXPECT_EQ(dwrr.Send(urgent), -1);
    EXPECT_EQ(g_pushedOut, 0u);
    dwrr.CheckIdentities();
}

TEST(TalbSwitchPipeline, PinFollowsTheDestinationHostsPortWhateverTheFlow)
{
    // Remote hosts .3-.6 hang from ports 0-3 of their leaf: hosts on ports 0 and 2 are reached
    // through uplink 2 (index 0 of 2), those on 1 and 3 through uplink 3, every flow alike.
    std::string hosts;
    for (uint32_t h = 0; h < 4; ++h)
    {
        hosts += "route 10.250.0." + std::to_string(3 + h) +
                 "/32 2,3 leaf=1 hostport=" + std::to_string(h) + "\n";
    }
    Leaf leaf(Leaf::Named("pin"), LabelSource::kOption, EgressConfig(), "", hosts);
    for (uint32_t h = 0; h < 4; ++h)
    {
        for (uint16_t flow = 0; flow < 16; ++flow)
        {
            EXPECT_EQ(leaf.Send(Tcp(kH3 + h, 40000 + flow, 100)), int(2 + h % 2)) << "host " << h;
        }
    }
    leaf.CheckIdentities();
    // A route with several ports that names no host port cannot be pinned: refused at start.
    SwitchConfig config;
    std::string error;
    ASSERT_TRUE(ParseSwitchConfig("port 0 h1\nport 1 s0\nport 2 s1\nroute 10.250.0.1/32 0\n"
                                  "route 10.250.0.0/24 1,2\n",
                                  "leaf.conf",
                                  &config,
                                  &error))
        << error;
    SwitchPort ports[3];
    SwitchPipeline pipeline;
    EXPECT_FALSE(pipeline.Init(config, PipelineConfig(), Leaf::Named("pin"), ports, &error));
    EXPECT_EQ(error,
              "route 10.250.0.0/24 (line 5): --lb=pin pins by the destination host's port: give "
              "the host a /32 route with hostport=N");
}

TEST(TalbSwitchPipeline, EveryLoadBalancerBuildsAndForwardsOnTheUplinks)
{
    for (const PolicyKind& kind : PolicyKinds())
    {
        // A pinning balancer needs the remote host's port under its leaf.
        Leaf leaf(Leaf::Named(kind.name),
                  LabelSource::kOption,
                  EgressConfig(),
                  "",
                  kind.needsHostPort ? "route 10.250.0.3/32 2,3 hostport=1\n" : "");
        for (uint16_t flow = 0; flow < 20; ++flow)
        {
            int labelled = leaf.Send(Tcp(kH3, flow, 500, Option(flow, flow % 8, TALB_FLAG_FIRST)));
            int untagged = leaf.Send(Tcp(kH3, 1000 + flow, 500));
            ASSERT_TRUE(labelled == 2 || labelled == 3) << kind.name;
            ASSERT_TRUE(untagged == 2 || untagged == 3) << kind.name;
        }
        EXPECT_EQ(leaf.pipeline.Counters().selections, 40u) << kind.name;
        leaf.CheckIdentities();
    }
}

TEST(TalbSwitchPipeline, TalbIsV2AndPlacesTwoTensorFlowsOnDifferentUplinks)
{
    for (uint64_t seed = 1; seed <= 20; ++seed)
    {
        PolicyOptions po = Leaf::Named("talb");
        po.seed = seed;
        Leaf leaf(po);
        ASSERT_NE(dynamic_cast<const lb::TensorAwareV2*>(&leaf.pipeline.Policy()), nullptr);
        // Two tensor flows start within v2's active window: the second avoids the first.
        int a = leaf.Send(Tcp(kH3, 1, 1000, Option(10, 2, TALB_FLAG_FIRST)), 1 * kUs);
        int b = leaf.Send(Tcp(kH3, 2, 1000, Option(20, 2, TALB_FLAG_FIRST)), 2 * kUs);
        ASSERT_TRUE(a == 2 || a == 3);
        EXPECT_EQ(b, a == 2 ? 3 : 2) << "seed " << seed;
        // Each keeps its uplink for the rest of its tensor.
        for (int k = 1; k <= 20; ++k)
        {
            EXPECT_EQ(leaf.Send(Tcp(kH3, 1, 1000, Option(10, 2, 0)), (2 + 5 * k) * kUs), a);
            EXPECT_EQ(leaf.Send(Tcp(kH3, 2, 1000, Option(20, 2, 0)), (3 + 5 * k) * kUs), b);
        }
        EXPECT_EQ(leaf.pipeline.Counters().reroutes, 0u);
    }
}

/// One tensor of priority 0 placed, then 30 kB of its band queued on its uplink; its next 40
/// packets come every \p gapUs, then one more after \p lastGapUs. \return its ports, in order
std::vector<int>
TensorAfterItsUplinkFills(Leaf& leaf,
                          const std::function<TestFrame(uint8_t flags)>& packet,
                          int64_t gapUs = 50,
                          int64_t lastGapUs = 50)
{
    std::vector<int> ports;
    int64_t now = 1 * kUs;
    ports.push_back(leaf.Send(packet(TALB_FLAG_FIRST), now));
    Fill(leaf, static_cast<uint32_t>(ports[0]), 30000, 0);
    for (int k = 1; k <= 41; ++k)
    {
        now += (k <= 40 ? gapUs : lastGapUs) * kUs;
        ports.push_back(leaf.Send(packet(0), now));
    }
    return ports;
}

TEST(TalbSwitchPipeline, TalbV2KeepsATensorWhenAMoveWouldReorderMoreThanItsBound)
{
    auto packet = [](uint8_t flags) { return Tcp(kH3, 1, 1000, Option(10, 0, flags)); };
    // A bound of 18 kB (two jumbo frames): the 30 kB ahead of it on its uplink would be
    // overtaken; it stays.
    PolicyOptions bounded = Leaf::Named("talb");
    bounded.talb.v2.maxReorderBytes = 18000;
    Leaf kept(bounded);
    std::vector<int> ports = TensorAfterItsUplinkFills(kept, packet);
    for (int p : ports)
    {
        EXPECT_EQ(p, ports[0]);
    }
    auto* v2 = dynamic_cast<const lb::TensorAwareV2*>(&kept.pipeline.Policy());
    ASSERT_NE(v2, nullptr);
    EXPECT_GT(v2->GetTableStats().nReorderHeld, 0u);
    EXPECT_EQ(kept.pipeline.Counters().reroutes, 0u);
    // Without the bound (the default) the same tensor moves once, mid-tensor, to the empty
    // uplink.
    Leaf moved("talb");
    ports = TensorAfterItsUplinkFills(moved, packet);
    EXPECT_NE(ports.back(), ports[0]);
    EXPECT_EQ(moved.pipeline.Counters().reroutes, 1u);
}

TEST(TalbSwitchPipeline, TalbV2SendsResentTcpBytesToTheLeastQueuedUplink)
{
    // The pipeline reads the TCP sequence numbers the decision core compares: with
    // --talb-spread-retransmits a segment that resends bytes leaves its tensor's full uplink,
    // the next new segment does not.
    auto segment = [](uint32_t seq) { return Tcp(kH3, 1, 1000, Option(10, 0, 0), 0, seq); };
    PolicyOptions spread = Leaf::Named("talb");
    spread.talb.v2.spreadRetransmits = true;
    spread.talb.v2.marginMoves = false;
    Leaf leaf(spread);
    const int port = leaf.Send(segment(0), kUs);
    EXPECT_EQ(leaf.Send(segment(1000), 2 * kUs), port);
    Fill(leaf, static_cast<uint32_t>(port), 30000, 0);
    EXPECT_NE(leaf.Send(segment(0), 3 * kUs), port);
    EXPECT_EQ(leaf.Send(segment(2000), 4 * kUs), port);
    auto* v2 = dynamic_cast<const lb::TensorAwareV2*>(&leaf.pipeline.Policy());
    ASSERT_NE(v2, nullptr);
    EXPECT_EQ(v2->GetTableStats().nRetransmitsSpread, 1u);
    EXPECT_EQ(leaf.pipeline.Counters().reroutes, 0u);
}

TEST(TalbSwitchPipeline, TalbV2MovesRoceFlowsOnlyOnceTheOldPathDrained)
{
    // No reordering bound and no slack: a TCP tensor sending every 10 us moves as soon as its
    // move interval allows (100 us).
    PolicyOptions po = Leaf::Named("talb");
    po.talb.v2.maxReorderBytes = 1e9;
    po.talb.v2.safeSlackNs = 0;
    auto tcp = [](uint8_t flags) { return Tcp(kH3, 1, 1000, Option(10, 0, flags)); };
    Leaf plain(po);
    std::vector<int> ports = TensorAfterItsUplinkFills(plain, tcp, 10, 10);
    EXPECT_NE(ports[11], ports[0]);
    EXPECT_EQ(plain.pipeline.Counters().reroutes, 1u);
    // RoCEv2 (UDP to 4791: go-back-N) moves only once its last packet has left the old uplink:
    // its packets come every 10 us, and 30 kB and more ahead of each take 24 us and more at
    // 10 Gb/s, so it stays, until a pause of 90 us lets the queue ahead drain.
    auto roce = [](uint8_t flags) { return Roce(kH3, 1, 1000, Option(10, 0, flags)); };
    Leaf leaf(po);
    ports = TensorAfterItsUplinkFills(leaf, roce, 10, 90);
    for (int k = 0; k <= 40; ++k)
    {
        EXPECT_EQ(ports[k], ports[0]) << "packet " << k;
    }
    EXPECT_NE(ports[41], ports[0]);
    auto* v2 = dynamic_cast<const lb::TensorAwareV2*>(&leaf.pipeline.Policy());
    ASSERT_NE(v2, nullptr);
    EXPECT_GT(v2->GetTableStats().nUndrainedHeld, 0u);
    EXPECT_EQ(leaf.pipeline.Counters().reroutes, 1u);
}

TEST(TalbSwitchPipeline, TalbV2TensorsAvoidAnUntaggedDataFlow)
{
    for (uint64_t seed = 1; seed <= 10; ++seed)
    {
        PolicyOptions po = Leaf::Named("talb");
        po.seed = seed;
        Leaf leaf(po);
        int bulk = leaf.Send(Tcp(kH3, 7, 1000), 1 * kUs); // untagged: DRILL's choice
        int tensor = leaf.Send(Tcp(kH3, 1, 1000, Option(10, 7, TALB_FLAG_FIRST)), 2 * kUs);
        EXPECT_EQ(tensor, bulk == 2 ? 3 : 2) << "seed " << seed;
    }
}

TEST(TalbSwitchPipeline, TalbKeepsUntaggedRoceDataInOrderAndSpreadsTheRest)
{
    // 40 packets 1 us apart of one untagged flow: RoCEv2 data goes to --gobackn-fallback
    // (LetFlow: one flowlet, one uplink), TCP and RoCEv2 ACK-sized packets to --fallback (DRILL on
    // idle uplinks: random ties, both uplinks).
    auto uplinks = [](const PolicyOptions& po, auto frame) {
        Leaf leaf(po);
        std::set<int> ports;
        for (int k = 1; k <= 40; ++k)
        {
            ports.insert(leaf.Send(frame(), k * kUs));
        }
        return ports.size();
    };
    PolicyOptions po = Leaf::Named("talb");
    EXPECT_EQ(uplinks(po, [] { return Roce(kH3, 7, 1000); }), 1u);
    EXPECT_EQ(uplinks(po, [] { return Tcp(kH3, 7, 1000); }), 2u);
    EXPECT_EQ(uplinks(po, [] { return Roce(kH3, 7, 0); }), 2u);
    po.goBackNFallback = "none";
    EXPECT_EQ(uplinks(po, [] { return Roce(kH3, 7, 1000); }), 2u);
}

TEST(TalbSwitchPipeline, HermesPlacesOnTheLessDelayedUplinkAndReroutesOffAMarkingOne)
{
    // 30 kB queued on uplink 2 is 24 us at 10 Gb/s, above DelayLow (20 us): new flows go to 3.
    Leaf placed("hermes");
    Fill(placed, 2, 30000, 7);
    for (uint16_t flow = 0; flow < 20; ++flow)
    {
        EXPECT_EQ(placed.Send(Tcp(kH3, flow, 1000)), 3);
    }
    // A slow ECN-capable flow whose own packets pile up on its uplink: once the uplink marks
    // most of them (ECN fraction above 0.4), its delay passes DelayHigh and the flow has sent
    // 64 kB, Hermes moves it, once. That needs the route's leaf (leaf=): without it the
    // switch's sensing is not asked and the flow stays.
    EgressConfig e;
    e.ecnThresholdBytes = 3000;
    for (const std::string& uplinks : {std::string(" leaf=1"), std::string()})
    {
        Leaf leaf(Leaf::Named("hermes"), LabelSource::kOption, e, uplinks);
        int first = leaf.Send(Tcp(kH3, 1, 1000, {}, 0x02), 1 * kUs);
        int last = first;
        for (int k = 1; k < 100; ++k)
        {
            last = leaf.Send(Tcp(kH3, 1, 1000, {}, 0x02), (1 + 10 * k) * kUs);
        }
        bool sensed = !uplinks.empty();
        EXPECT_EQ(last != first, sensed) << "uplinks" << uplinks;
        EXPECT_EQ(leaf.pipeline.Counters().reroutes, sensed ? 1u : 0u) << "uplinks" << uplinks;
    }
}

TEST(TalbSwitchPipeline, PrestoSendsFlowcellsRoundRobin)
{
    PolicyOptions po = Leaf::Named("presto");
    po.presto.flowcellBytes = 4 * 1040; // four 1040-byte IPv4 packets per flowcell
    Leaf leaf(po);
    int previous = -1;
    for (int k = 0; k < 40; ++k)
    {
        int port = leaf.Send(Tcp(kH3, 1, 1000));
        if (k % 4 == 0 && k > 0)
        {
            EXPECT_NE(port, previous) << "packet " << k;
        }
        else if (k > 0)
        {
            EXPECT_EQ(port, previous) << "packet " << k;
        }
        previous = port;
    }
    EXPECT_EQ(leaf.pipeline.Counters().reroutes, 9u); // each new flowcell counts as one
}
