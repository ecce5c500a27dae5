// The agent's per-packet logic on whole frames: tagging, stripping, fail-open, counters.
#include "talb-packet-view.h"
#include "talb-tagger.h"
#include "talb-test-packets.h"

#include <gtest/gtest.h>

namespace
{

using namespace talb;
using namespace talb::test;

/// A sender's side of one connection: makes the frames a host would send.
class Sender
{
  public:
    Sender(const Stream& stream, uint32_t isn)
        : m_stream(stream)
    {
        m_spec.seq = isn;
    }

    TestFrame Syn()
    {
        TcpSpec spec = m_spec;
        spec.flags = kTcpSyn;
        return MakeTcpFrame(spec, nullptr, 0);
    }

    TestFrame Data(uint64_t off, uint32_t len, uint8_t flags = kTcpAck)
    {
        TcpSpec spec = m_spec;
        spec.seq = static_cast<uint32_t>(m_spec.seq + 1 + off);
        spec.flags = flags;
        return MakeTcpFrame(spec, m_stream.bytes.data() + off, len);
    }

    TcpSpec& Spec()
    {
        return m_spec;
    }

  private:
    const Stream& m_stream;
    TcpSpec m_spec;
};

Stream
TwoTensors()
{
    Stream s;
    s.Add(talb_make_tensor_id(1, 0), 0, TALB_FLAG_FIRST | TALB_FLAG_LAST, 3000);
    s.Add(talb_make_tensor_id(1, 1), 5, TALB_FLAG_FIRST | TALB_FLAG_LAST, 2000);
    return s;
}

void
ExpectIdentities(const Tagger& t)
{
    const OutboundCounters& o = t.Counters().out;
    EXPECT_EQ(o.packets, o.tagged + o.untracked + o.malformed + o.oversize + o.passthrough);
    const InboundCounters& i = t.Counters().in;
    EXPECT_EQ(i.packets, i.stripped + i.malformed + i.passthrough);
}

/// Decodes the TaLB option of a tagged frame (no VLAN), checking both IPv4 and TCP checksums.
talb_label
TagOf(TestFrame& f)
{
    uint8_t* ip = f.Data() + 14;
    EXPECT_EQ(ip[0] & 0x0F, 7);
    EXPECT_EQ(LoadBe16(ip + 10), Ipv4HeaderChecksum(ip, 28));
    EXPECT_EQ(LoadBe16(ip + 28 + 16), TcpChecksum(ip));
    size_t at = 99;
    EXPECT_EQ(talb_ipv4_options_find(ip + 20, 8, &at), TALB_WIRE_OK);
    EXPECT_EQ(at, 0u);
    talb_label label{};
    EXPECT_EQ(talb_option_decode(ip + 20, 8, &label), TALB_OPT_LEN);
    return label;
}

TEST(TalbAgentTagger, TagsEveryDataSegmentWithItsTensorAndStripRestoresIt)
{
    Stream s = TwoTensors();
    Sender snd(s, 0xFFFFF000);
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    EXPECT_EQ(tagger.Outbound(syn.Data(), syn.len, kHeadroom), 0);
    EXPECT_EQ(tagger.Counters().out.passthrough, 1u);

    uint32_t n = 0;
    for (uint64_t off = 0; off < s.bytes.size(); off += 1448, ++n)
    {
        uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(1448, s.bytes.size() - off));
        TestFrame f = snd.Data(off, len);
        std::vector<uint8_t> original = f.Bytes();
        ASSERT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), -TALB_OPT_LEN);
        f.Move(-TALB_OPT_LEN);
        const talb_frame& want = s.frames[s.FrameAt(off)];
        talb_label got = TagOf(f);
        EXPECT_EQ(got.tensor_id, want.label.tensor_id) << "segment " << n;
        EXPECT_EQ(got.priority, want.label.priority);
        EXPECT_EQ(f.Data()[15] >> 2, talb_dscp_from_priority(want.label.priority));
        EXPECT_EQ(std::memcmp(f.Data() + 14 + 28 + 20, s.bytes.data() + off, len), 0)
            << "payload intact";

        // The receiving agent strips it: back to the original except the DSCP.
        ASSERT_EQ(tagger.Inbound(f.Data(), f.len), TALB_OPT_LEN);
        f.Move(TALB_OPT_LEN);
        std::vector<uint8_t> stripped = f.Bytes();
        ASSERT_EQ(stripped.size(), original.size());
        EXPECT_EQ(stripped[15] >> 2, talb_dscp_from_priority(want.label.priority));
        stripped[15] = original[15];
        uint8_t* ip = stripped.data() + 14;
        StoreBe16(ip + 10, Ipv4HeaderChecksum(ip, 20));
        EXPECT_EQ(stripped, original) << "segment " << n;
        EXPECT_EQ(LoadBe16(f.Data() + 14 + 10), Ipv4HeaderChecksum(f.Data() + 14, 20));
    }
    EXPECT_EQ(tagger.Counters().out.tagged, n);
    EXPECT_EQ(tagger.Counters().in.stripped, n);
    ExpectIdentities(tagger);
}

// Found by the agent-path fuzz target: a packet whose options end with an EOL (a 3-byte option
// padded to 4) got the option after the EOL, where nothing reads it; the receiving agent then
// left 8 stray bytes in the header.
TEST(TalbAgentTagger, OptionGoesBeforeAnEolAndTheReceiverStripsIt)
{
    Stream s = TwoTensors();
    Sender snd(s, 77);
    snd.Spec().ipOptions = {0x94, 3, 0, 0}; // a 3-byte option (type 148), EOL
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame f = snd.Data(0, 1000);
    std::vector<uint8_t> original = f.Bytes();
    ASSERT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), -TALB_OPT_LEN);
    f.Move(-TALB_OPT_LEN);
    uint8_t* ip = f.Data() + 14;
    ASSERT_EQ(ip[0] & 0x0F, 8);
    EXPECT_EQ(LoadBe16(ip + 10), Ipv4HeaderChecksum(ip, 32));
    size_t at = 99;
    ASSERT_EQ(talb_ipv4_options_find(ip + 20, 12, &at), TALB_WIRE_OK);
    EXPECT_EQ(at, 3u) << "right after the 3-byte option, at an odd offset";
    EXPECT_EQ(ip[31], 0) << "the EOL follows the option";

    ASSERT_EQ(tagger.Inbound(f.Data(), f.len), TALB_OPT_LEN);
    f.Move(TALB_OPT_LEN);
    std::vector<uint8_t> stripped = f.Bytes();
    stripped[15] = original[15]; // the DSCP is the only change
    StoreBe16(stripped.data() + 24, LoadBe16(original.data() + 24));
    EXPECT_EQ(stripped, original);
    EXPECT_EQ(LoadBe16(f.Data() + 24), Ipv4HeaderChecksum(f.Data() + 14, 24));
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, FirstAndLastFlagsReachTheOption)
{
    Stream s = TwoTensors();
    Sender snd(s, 1);
    TaggerConfig config;
    config.mtu = 9000;
    Tagger tagger(config);
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame a = snd.Data(0, 1000);
    ASSERT_EQ(tagger.Outbound(a.Data(), a.len, kHeadroom), -TALB_OPT_LEN);
    a.Move(-TALB_OPT_LEN);
    EXPECT_EQ(TagOf(a).flags, TALB_FLAG_FIRST);
    TestFrame b = snd.Data(1000, 2016); // up to the first frame's last byte
    ASSERT_EQ(tagger.Outbound(b.Data(), b.len, kHeadroom), -TALB_OPT_LEN);
    b.Move(-TALB_OPT_LEN);
    EXPECT_EQ(TagOf(b).flags, TALB_FLAG_LAST);
}

TEST(TalbAgentTagger, ConnectionSeenMidStreamPassesUntagged)
{
    Stream s = TwoTensors();
    Sender snd(s, 1);
    Tagger tagger{TaggerConfig()};
    TestFrame f = snd.Data(0, 1000); // no SYN seen: the agent started late
    std::vector<uint8_t> original = f.Bytes();
    EXPECT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), 0);
    EXPECT_EQ(f.Bytes(), original);
    EXPECT_EQ(tagger.Counters().out.untracked, 1u);
    EXPECT_EQ(tagger.Counters().out.tagged, 0u);
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, RetransmissionGetsTheSameTag)
{
    Stream s = TwoTensors();
    Sender snd(s, 7);
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    for (uint64_t off = 0; off < s.bytes.size(); off += 1000)
    {
        TestFrame f =
            snd.Data(off, static_cast<uint32_t>(std::min<uint64_t>(1000, s.bytes.size() - off)));
        ASSERT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), -TALB_OPT_LEN);
    }
    TestFrame again = snd.Data(2500, 1000); // straddles both tensors: first byte in tensor 0
    ASSERT_EQ(tagger.Outbound(again.Data(), again.len, kHeadroom), -TALB_OPT_LEN);
    again.Move(-TALB_OPT_LEN);
    EXPECT_EQ(TagOf(again).tensor_id, talb_make_tensor_id(1, 0));
    TestFrame later = snd.Data(3100, 100);
    ASSERT_EQ(tagger.Outbound(later.Data(), later.len, kHeadroom), -TALB_OPT_LEN);
    later.Move(-TALB_OPT_LEN);
    EXPECT_EQ(TagOf(later).tensor_id, talb_make_tensor_id(1, 1));
}

TEST(TalbAgentTagger, DscpOnlyModeNeverInsertsTheOption)
{
    Stream s = TwoTensors();
    Sender snd(s, 7);
    TaggerConfig config;
    config.dscpOnly = true;
    config.dscp[5] = 33;
    Tagger tagger(config);
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame a = snd.Data(0, 1000);
    TestFrame b = snd.Data(1000, 2500);
    ASSERT_EQ(tagger.Outbound(a.Data(), a.len, kHeadroom), 0);
    ASSERT_EQ(tagger.Outbound(b.Data(), b.len, kHeadroom), 0);
    TestFrame c = snd.Data(3500, 500);
    ASSERT_EQ(tagger.Outbound(c.Data(), c.len, kHeadroom), 0);
    for (TestFrame* f : {&a, &b, &c})
    {
        uint8_t* ip = f->Data() + 14;
        EXPECT_EQ(ip[0], 0x45);
        EXPECT_EQ(LoadBe16(ip + 10), Ipv4HeaderChecksum(ip, 20));
    }
    EXPECT_EQ(a.Data()[15] >> 2, talb_dscp_from_priority(0));
    EXPECT_EQ(c.Data()[15] >> 2, 33) << "--dscp-map override";
    EXPECT_EQ(tagger.Counters().out.tagged, 3u);
}

TEST(TalbAgentTagger, PacketPastTheMtuGetsDscpOnlyAndIsCounted)
{
    Stream s;
    s.Add(5, 2, 0, 5000);
    Sender snd(s, 7);
    TaggerConfig config;
    config.mtu = 1500;
    Tagger tagger(config);
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame fits = snd.Data(0, 1452); // IPv4 length 1492: 1500 with the option
    EXPECT_EQ(tagger.Outbound(fits.Data(), fits.len, kHeadroom), -TALB_OPT_LEN);
    TestFrame full = snd.Data(1452, 1453); // 1493: one byte too many
    EXPECT_EQ(tagger.Outbound(full.Data(), full.len, kHeadroom), 0);
    EXPECT_EQ(full.Data()[14], 0x45);
    EXPECT_EQ(full.Data()[15] >> 2, talb_dscp_from_priority(2));
    EXPECT_EQ(LoadBe16(full.Data() + 24), Ipv4HeaderChecksum(full.Data() + 14, 20));
    TestFrame noRoom = snd.Data(2905, 100);
    EXPECT_EQ(tagger.Outbound(noRoom.Data(), noRoom.len, 7), 0) << "7 bytes of headroom";
    EXPECT_EQ(tagger.Counters().out.oversize, 2u);
    EXPECT_EQ(tagger.Counters().out.tagged, 1u);
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, ExistingIpOptionsAreKeptAndFollowedByTheOption)
{
    Stream s;
    s.Add(5, 2, 0, 5000);
    Sender snd(s, 7);
    snd.Spec().ipOptions = {1, 1, 1, 0}; // NOP NOP NOP EOL
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame f = snd.Data(0, 100);
    ASSERT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), -TALB_OPT_LEN);
    f.Move(-TALB_OPT_LEN);
    uint8_t* ip = f.Data() + 14;
    EXPECT_EQ(ip[0], 0x48);
    EXPECT_EQ(LoadBe16(ip + 10), Ipv4HeaderChecksum(ip, 32));
    // After the NOPs, before the EOL (an option after an EOL is read by nobody).
    EXPECT_EQ(ip[23], TALB_OPT_TYPE);
    EXPECT_EQ(ip[31], 0);
    // 40 bytes of options already: no room for 8 more.
    Sender full(s, 9);
    full.Spec().srcPort = 1;
    full.Spec().ipOptions.assign(36, 1);
    TestFrame syn2 = full.Syn();
    tagger.Outbound(syn2.Data(), syn2.len, kHeadroom);
    TestFrame g = full.Data(0, 100);
    EXPECT_EQ(tagger.Outbound(g.Data(), g.len, kHeadroom), 0);
    EXPECT_EQ(tagger.Counters().out.oversize, 1u);
}

TEST(TalbAgentTagger, AlreadyTaggedPacketIsLeftAlone)
{
    Stream s;
    s.Add(5, 2, 0, 5000);
    Sender snd(s, 7);
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame f = snd.Data(0, 100);
    ASSERT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), -TALB_OPT_LEN);
    f.Move(-TALB_OPT_LEN);
    std::vector<uint8_t> once = f.Bytes();
    EXPECT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), 0);
    EXPECT_EQ(f.Bytes(), once);
    EXPECT_EQ(tagger.Counters().out.passthrough, 2u); // the SYN and this one
}

TEST(TalbAgentTagger, MalformedInputFailsOpen)
{
    Stream s;
    s.Add(5, 2, 0, 100);
    s.Add(6, 2, 0, 100);
    s.bytes[s.starts[1]] = 'x';
    Sender snd(s, 7);
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    TestFrame bad = snd.Data(0, 150); // holds the bad second header
    std::vector<uint8_t> original = bad.Bytes();
    EXPECT_EQ(tagger.Outbound(bad.Data(), bad.len, kHeadroom), 0);
    EXPECT_EQ(bad.Bytes(), original);
    TestFrame after = snd.Data(150, 82);
    EXPECT_EQ(tagger.Outbound(after.Data(), after.len, kHeadroom), 0);

    TestFrame broken = snd.Data(0, 10);
    broken.Data()[14] = 0x43; // IHL 3
    original = broken.Bytes();
    EXPECT_EQ(tagger.Outbound(broken.Data(), broken.len, kHeadroom), 0);
    EXPECT_EQ(tagger.Inbound(broken.Data(), broken.len), 0);
    EXPECT_EQ(broken.Bytes(), original);

    TcpSpec badOptions;
    badOptions.ipOptions = {TALB_OPT_TYPE, 9, 0, 0}; // length runs past the options
    TestFrame bo = MakeTcpFrame(badOptions, nullptr, 0);
    EXPECT_EQ(tagger.Inbound(bo.Data(), bo.len), 0);
    TcpSpec shortOption;
    shortOption.ipOptions = {TALB_OPT_TYPE, 4, 0, 0}; // a TaLB type with the wrong length
    TestFrame so = MakeTcpFrame(shortOption, nullptr, 0);
    EXPECT_EQ(tagger.Inbound(so.Data(), so.len), 0);

    const OutboundCounters& o = tagger.Counters().out;
    EXPECT_EQ(o.malformed, 2u);
    EXPECT_EQ(o.untracked, 1u);
    EXPECT_EQ(tagger.Counters().in.malformed, 3u);
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, ConnectionOfAnotherProtocolIsUntrackedNotMalformed)
{
    Stream s;
    s.bytes.assign(3000, 'x'); // e.g. an ssh session through the same interface
    Sender snd(s, 7);
    Tagger tagger{TaggerConfig()};
    TestFrame syn = snd.Syn();
    tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    for (uint64_t off = 0; off < 3000; off += 1000)
    {
        TestFrame f = snd.Data(off, 1000);
        std::vector<uint8_t> original = f.Bytes();
        EXPECT_EQ(tagger.Outbound(f.Data(), f.len, kHeadroom), 0);
        EXPECT_EQ(f.Bytes(), original);
    }
    EXPECT_EQ(tagger.Counters().out.untracked, 3u);
    EXPECT_EQ(tagger.Counters().out.malformed, 0u);
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, NonTcpAndControlSegmentsPassThrough)
{
    Tagger tagger{TaggerConfig()};
    TcpSpec spec;
    uint8_t payload[20] = {};
    TestFrame udp = MakeTcpFrame(spec, payload, sizeof(payload));
    udp.Data()[14 + 9] = 17;
    TestFrame arp = MakeTcpFrame(spec, payload, sizeof(payload));
    Put16(arp.Data() + 12, 0x0806);
    TestFrame ack = MakeTcpFrame(spec, nullptr, 0);
    for (TestFrame* f : {&udp, &arp, &ack})
    {
        std::vector<uint8_t> original = f->Bytes();
        EXPECT_EQ(tagger.Outbound(f->Data(), f->len, kHeadroom), 0);
        EXPECT_EQ(tagger.Inbound(f->Data(), f->len), 0);
        EXPECT_EQ(f->Bytes(), original);
    }
    EXPECT_EQ(tagger.Counters().out.passthrough, 3u);
    EXPECT_EQ(tagger.Counters().in.passthrough, 3u);
    ExpectIdentities(tagger);
}

TEST(TalbAgentTagger, InboundStripsTheOptionAmongOthersAndOnVlanFrames)
{
    Tagger tagger{TaggerConfig()};
    TcpSpec spec;
    spec.vlan = 7;
    spec.ipOptions = {1, 1, 1, 0, 0, 0, 0, 0}; // NOPs, then the option, then EOL padding
    spec.ipOptions.resize(16, 0);
    talb_label label{42, 3, 0};
    talb_option_encode(&label, spec.ipOptions.data() + 3, TALB_OPT_LEN);
    spec.ipOptions[11] = 0;
    uint8_t payload[9] = {9, 8, 7, 6, 5, 4, 3, 2, 1};
    TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
    ASSERT_EQ(tagger.Inbound(f.Data(), f.len), TALB_OPT_LEN);
    f.Move(TALB_OPT_LEN);
    uint8_t* ip = f.Data() + 18;
    EXPECT_EQ(ip[0], 0x47);
    EXPECT_EQ(LoadBe16(ip + 10), Ipv4HeaderChecksum(ip, 28));
    EXPECT_EQ(LoadBe16(f.Data() + 12), 0x8100);
    EXPECT_EQ(LoadBe16(ip + 28 + 16), TcpChecksum(ip));
    EXPECT_EQ(std::memcmp(ip + 48, payload, sizeof(payload)), 0);
    size_t at;
    EXPECT_EQ(talb_ipv4_options_find(ip + 20, 8, &at), TALB_WIRE_NOT_FOUND);
}

TEST(TalbAgentTagger, RstForgetsTheConnectionAndAFullTableEvicts)
{
    Stream s;
    s.Add(5, 2, 0, 5000);
    TaggerConfig config;
    config.maxFlows = 4; // one bucket of 4 ways
    Tagger tagger(config);
    std::vector<Sender> senders;
    for (uint16_t i = 0; i < 5; ++i)
    {
        senders.emplace_back(s, 100);
        senders.back().Spec().srcPort = static_cast<uint16_t>(1000 + i);
    }
    for (size_t i = 0; i < 4; ++i)
    {
        TestFrame syn = senders[i].Syn();
        tagger.Outbound(syn.Data(), syn.len, kHeadroom);
    }
    EXPECT_EQ(tagger.Flows().Size(), 4u);
    // Connection 0 is used again, so connection 1 is the least recently used.
    TestFrame d0 = senders[0].Data(0, 100);
    EXPECT_EQ(tagger.Outbound(d0.Data(), d0.len, kHeadroom), -TALB_OPT_LEN);
    TestFrame syn4 = senders[4].Syn();
    tagger.Outbound(syn4.Data(), syn4.len, kHeadroom);
    EXPECT_EQ(tagger.Counters().evicted, 1u);
    TestFrame d1 = senders[1].Data(0, 100);
    EXPECT_EQ(tagger.Outbound(d1.Data(), d1.len, kHeadroom), 0) << "evicted";
    TestFrame d0b = senders[0].Data(100, 100);
    EXPECT_EQ(tagger.Outbound(d0b.Data(), d0b.len, kHeadroom), -TALB_OPT_LEN);

    TcpSpec rst = senders[0].Spec();
    rst.flags = kTcpRst;
    TestFrame r = MakeTcpFrame(rst, nullptr, 0);
    tagger.Outbound(r.Data(), r.len, kHeadroom);
    EXPECT_EQ(tagger.Flows().Size(), 3u);
    TestFrame d0c = senders[0].Data(200, 100);
    EXPECT_EQ(tagger.Outbound(d0c.Data(), d0c.len, kHeadroom), 0) << "reset";
    ExpectIdentities(tagger);
}

} // namespace
