// Frame parsing: Ethernet (+VLAN) -> IPv4 -> TCP, and every malformed header it must reject.
#include "talb-packet-view.h"
#include "talb-test-packets.h"

#include <gtest/gtest.h>

namespace
{

using namespace talb;
using namespace talb::test;

TEST(TalbAgentPacket, ParsesTcpOffsetsAndKey)
{
    TcpSpec spec;
    spec.seq = 0xDEADBEEF;
    spec.flags = kTcpAck | kTcpFin;
    uint8_t payload[100] = {};
    TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
    PacketView v;
    ASSERT_EQ(ParseFrame(f.Data(), f.len, &v), ParseResult::kTcp);
    EXPECT_EQ(v.l3, 14u);
    EXPECT_EQ(v.ipHeaderLen, 20u);
    EXPECT_EQ(v.ipTotalLen, 140u);
    EXPECT_EQ(v.l4, 34u);
    EXPECT_EQ(v.payload, 54u);
    EXPECT_EQ(v.payloadLen, 100u);
    EXPECT_EQ(v.seq, 0xDEADBEEFu);
    EXPECT_EQ(v.tcpFlags, kTcpAck | kTcpFin);
    TcpSpec other = spec;
    other.srcPort++;
    TestFrame g = MakeTcpFrame(other, payload, sizeof(payload));
    PacketView w;
    ASSERT_EQ(ParseFrame(g.Data(), g.len, &w), ParseResult::kTcp);
    EXPECT_FALSE(v.key == w.key);
}

TEST(TalbAgentPacket, ParsesVlanTaggedFramesAndIpOptions)
{
    TcpSpec spec;
    spec.vlan = 42;
    spec.ipOptions = {1, 1, 1, 0};
    uint8_t payload[3] = {1, 2, 3};
    TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
    PacketView v;
    ASSERT_EQ(ParseFrame(f.Data(), f.len, &v), ParseResult::kTcp);
    EXPECT_EQ(v.l3, 18u);
    EXPECT_EQ(v.ipHeaderLen, 24u);
    EXPECT_EQ(v.payload, 18u + 24 + 20);
    EXPECT_EQ(v.payloadLen, 3u);
}

TEST(TalbAgentPacket, IgnoresLinkLayerPadding)
{
    TcpSpec spec;
    TestFrame f = MakeTcpFrame(spec, nullptr, 0); // 54 bytes: padded to 60 on Ethernet
    f.buf.resize(f.buf.size() + 6, 0);
    f.len += 6;
    PacketView v;
    ASSERT_EQ(ParseFrame(f.Data(), f.len, &v), ParseResult::kTcp);
    EXPECT_EQ(v.payloadLen, 0u);
}

TEST(TalbAgentPacket, ClassifiesNonTcpAndFragments)
{
    TcpSpec spec;
    uint8_t payload[8] = {};
    TestFrame udp = MakeTcpFrame(spec, payload, sizeof(payload));
    udp.Data()[14 + 9] = 17;
    PacketView v;
    EXPECT_EQ(ParseFrame(udp.Data(), udp.len, &v), ParseResult::kOtherIpv4);
    EXPECT_EQ(v.ipHeaderLen, 20u);

    TestFrame frag = MakeTcpFrame(spec, payload, sizeof(payload));
    frag.Data()[14 + 6] = 0x20; // MF
    EXPECT_EQ(ParseFrame(frag.Data(), frag.len, &v), ParseResult::kOtherIpv4);

    TestFrame arp = MakeTcpFrame(spec, payload, sizeof(payload));
    Put16(arp.Data() + 12, 0x0806);
    EXPECT_EQ(ParseFrame(arp.Data(), arp.len, &v), ParseResult::kNotIpv4);

    EXPECT_EQ(ParseFrame(arp.Data(), 10, &v), ParseResult::kNotIpv4);
}

TEST(TalbAgentPacket, RejectsInconsistentHeaders)
{
    TcpSpec spec;
    uint8_t payload[8] = {};
    PacketView v;
    auto parse = [&](auto edit) {
        TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
        uint32_t len = f.len;
        edit(f.Data(), &len);
        return ParseFrame(f.Data(), len, &v);
    };
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { p[14] = 0x65; }), ParseResult::kMalformed)
        << "version 6 in an IPv4 frame";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { p[14] = 0x44; }), ParseResult::kMalformed)
        << "IHL below 5";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { p[14] = 0x4F; }), ParseResult::kMalformed)
        << "IHL beyond the total length";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { Put16(p + 16, 200); }), ParseResult::kMalformed)
        << "total length beyond the frame";
    EXPECT_EQ(parse([](uint8_t*, uint32_t* len) { *len -= 1; }), ParseResult::kMalformed)
        << "truncated frame";
    EXPECT_EQ(parse([](uint8_t*, uint32_t* len) { *len = 30; }), ParseResult::kMalformed)
        << "truncated IPv4 header";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { p[34 + 12] = 0x40; }), ParseResult::kMalformed)
        << "TCP data offset below 5";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { p[34 + 12] = 0x80; }), ParseResult::kMalformed)
        << "TCP header beyond the packet";
    EXPECT_EQ(parse([](uint8_t* p, uint32_t*) { Put16(p + 16, 30); }), ParseResult::kMalformed)
        << "no room for a TCP header";
}

} // namespace
