// talb-switch's per-packet pipeline on frames: routing, labels, bands, ECN, fail-open, the
// decision core at a leaf, and the counter identities.
#include "talb-agent-test-packets.h"
#include "talb-ipv4-edit.h"
#include "talb-switch-pipeline.h"

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
    {
        std::string error;
        EXPECT_TRUE(ParseSwitchConfig("port 0 h1\nport 1 h2\nport 2 s0\nport 3 s1\n"
                                      "route 10.250.0.1/32 0\nroute 10.250.0.2/32 1\n"
                                      "route 10.250.0.0/24 2,3\n",
                                      "leaf.conf",
                                      &config,
                                      &error))
            << error;
        PipelineConfig pc;
        pc.labels = labels;
        pc.egress = egress;
        PolicyOptions po;
        po.name = lb;
        EXPECT_TRUE(pipeline.Init(config, pc, po, ports, &error)) << error;
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
    uint8_t tos = 0)
{
    TcpSpec s;
    s.src = kH1;
    s.dst = dst;
    s.srcPort = srcPort;
    s.ipOptions = option;
    s.tos = tos;
    std::vector<uint8_t> bytes(payload, 0xAB);
    return MakeTcpFrame(s, bytes.data(), payload);
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
