// Checksums and in-place IPv4 edits: every incremental update against a from-scratch reference.
#include "talb-checksum.h"
#include "talb-ipv4-edit.h"
#include "talb-test-packets.h"

#include <gtest/gtest.h>
#include <random>

namespace
{

using namespace talb;
using namespace talb::test;

TEST(TalbAgentChecksum, MatchesAKnownIpv4Header)
{
    // A textbook header (192.168.0.1 -> 192.168.0.199, UDP): its checksum is 0xB861.
    const uint8_t ip[20] = {0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
                            0xB8, 0x61, 0xC0, 0xA8, 0x00, 0x01, 0xC0, 0xA8, 0x00, 0xC7};
    EXPECT_EQ(Ipv4HeaderChecksum(ip, sizeof(ip)), 0xB861);
    // A header with its checksum in place sums to 0xFFFF.
    EXPECT_EQ(ChecksumFold(ChecksumAdd(ip, sizeof(ip))), 0xFFFF);
}

TEST(TalbAgentChecksum, OddLengthPadsTheLastByte)
{
    const uint8_t bytes[3] = {0x12, 0x34, 0x56};
    EXPECT_EQ(ChecksumAdd(bytes, 3), 0x1234u + 0x5600u);
}

/// Random TCP frames: addresses, ports, TOS, IP id and options vary.
class RandomFrames
{
  public:
    explicit RandomFrames(uint32_t seed)
        : m_rng(seed)
    {
    }

    TestFrame Next(size_t optionWords)
    {
        TcpSpec spec;
        spec.src = m_rng();
        spec.dst = m_rng();
        spec.srcPort = static_cast<uint16_t>(m_rng());
        spec.dstPort = static_cast<uint16_t>(m_rng());
        spec.seq = m_rng();
        spec.tos = static_cast<uint8_t>(m_rng());
        for (size_t i = 0; i < optionWords * 4; ++i)
        {
            spec.ipOptions.push_back(1); // NOP
        }
        std::vector<uint8_t> payload(m_rng() % 64);
        for (auto& b : payload)
        {
            b = static_cast<uint8_t>(m_rng());
        }
        return MakeTcpFrame(spec, payload.data(), static_cast<uint32_t>(payload.size()));
    }

    uint8_t Byte()
    {
        return static_cast<uint8_t>(m_rng());
    }

  private:
    std::mt19937 m_rng;
};

uint16_t
StoredChecksum(const uint8_t* ip)
{
    return LoadBe16(ip + 10);
}

TEST(TalbAgentChecksum, SetDscpMatchesTheReferenceAndKeepsEcn)
{
    RandomFrames frames(1);
    for (int i = 0; i < 2000; ++i)
    {
        TestFrame f = frames.Next(0);
        uint8_t* ip = f.Data() + 14;
        uint8_t ecn = ip[1] & 0x03;
        uint8_t dscp = frames.Byte() & 0x3F;
        SetDscp(ip, dscp);
        EXPECT_EQ(ip[1] >> 2, dscp);
        EXPECT_EQ(ip[1] & 0x03, ecn);
        ASSERT_EQ(StoredChecksum(ip), Ipv4HeaderChecksum(ip, 20)) << "frame " << i;
    }
}

TEST(TalbAgentChecksum, InsertOptionMatchesTheReferenceAndKeepsTcpValid)
{
    RandomFrames frames(2);
    for (int i = 0; i < 2000; ++i)
    {
        size_t words = i % 6; // existing options: 0..5 words (20..40 byte headers)
        TestFrame f = frames.Next(words);
        std::vector<uint8_t> before = f.Bytes();
        uint32_t ihl = 20 + static_cast<uint32_t>(words) * 4;
        uint8_t option[TALB_OPT_LEN];
        talb_label label{static_cast<uint32_t>(i * 2654435761u), static_cast<uint8_t>(i % 8), 0};
        ASSERT_EQ(talb_option_encode(&label, option, sizeof(option)), TALB_OPT_LEN);
        uint8_t dscp = frames.Byte() & 0x3F;

        uint8_t* out = InsertOption(f.Data(), 14, ihl, ihl - 20, option, dscp);
        ASSERT_EQ(out, f.Data() - TALB_OPT_LEN);
        f.Move(-TALB_OPT_LEN);
        uint8_t* ip = f.Data() + 14;
        EXPECT_EQ(std::memcmp(f.Data(), before.data(), 14), 0) << "Ethernet header moved intact";
        EXPECT_EQ(ip[0], 0x40 | ((ihl + 8) / 4));
        EXPECT_EQ(ip[1] >> 2, dscp);
        EXPECT_EQ(LoadBe16(ip + 2), LoadBe16(before.data() + 16) + 8);
        EXPECT_EQ(std::memcmp(ip + 4, before.data() + 18, 6), 0);
        EXPECT_EQ(std::memcmp(ip + 12, before.data() + 26, ihl - 12), 0) << "addresses, options";
        EXPECT_EQ(std::memcmp(ip + ihl, option, TALB_OPT_LEN), 0);
        EXPECT_EQ(std::memcmp(ip + ihl + 8, before.data() + 14 + ihl, before.size() - 14 - ihl), 0)
            << "TCP header and payload untouched";
        ASSERT_EQ(StoredChecksum(ip), Ipv4HeaderChecksum(ip, ihl + 8)) << "frame " << i;
        // The TCP checksum, untouched, is still right: the pseudo-header did not change.
        ASSERT_EQ(LoadBe16(ip + ihl + 8 + 16), TcpChecksum(ip)) << "frame " << i;
    }
}

TEST(TalbAgentChecksum, RemoveOptionAtEvenAndOddOffsetsMatchesTheReference)
{
    RandomFrames frames(3);
    for (int i = 0; i < 2000; ++i)
    {
        // Options area of 12 bytes: `at` NOPs, the TaLB option, then NOPs. at = 0..4.
        size_t at = i % 5;
        TcpSpec spec;
        spec.src = 0x0A000001 + i;
        spec.tos = frames.Byte();
        spec.ipOptions.assign(12, 1);
        talb_label label{static_cast<uint32_t>(i) * 977u, static_cast<uint8_t>(i % 8), 3};
        talb_option_encode(&label, spec.ipOptions.data() + at, TALB_OPT_LEN);
        uint8_t payload[5] = {1, 2, 3, 4, static_cast<uint8_t>(i)};
        TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
        std::vector<uint8_t> before = f.Bytes();

        uint8_t* out = RemoveOption(f.Data(), 14, 32, at);
        ASSERT_EQ(out, f.Data() + TALB_OPT_LEN);
        f.Move(TALB_OPT_LEN);
        uint8_t* ip = f.Data() + 14;
        EXPECT_EQ(ip[0], 0x46);
        EXPECT_EQ(LoadBe16(ip + 2), LoadBe16(before.data() + 16) - 8);
        for (size_t k = 0; k < 4; ++k)
        {
            EXPECT_EQ(ip[20 + k], 1) << "the NOPs that remain";
        }
        EXPECT_EQ(std::memcmp(f.Data(), before.data(), 14), 0);
        ASSERT_EQ(StoredChecksum(ip), Ipv4HeaderChecksum(ip, 24)) << "offset " << at;
        ASSERT_EQ(LoadBe16(ip + 24 + 16), TcpChecksum(ip));
    }
}

// Found by the agent-path fuzz target: an option appended after an EOL byte is invisible to
// every receiver (and the receiving agent never strips it). It goes where the list ends.
TEST(TalbAgentChecksum, InsertOptionBeforeAnEolAtEvenAndOddOffsets)
{
    RandomFrames frames(5);
    for (size_t eol = 0; eol < 8; ++eol)
    {
        // 8 bytes of options: `eol` NOPs, then EOL and zero padding.
        TcpSpec spec;
        spec.tos = frames.Byte();
        spec.ipOptions.assign(8, 0);
        std::fill(spec.ipOptions.begin(), spec.ipOptions.begin() + eol, 1);
        uint8_t payload[3] = {7, 8, 9};
        TestFrame f = MakeTcpFrame(spec, payload, sizeof(payload));
        std::vector<uint8_t> before = f.Bytes();
        size_t end = 99;
        ASSERT_EQ(talb_ipv4_options_find(f.Data() + 34, 8, &end), TALB_WIRE_NOT_FOUND);
        ASSERT_EQ(end, eol);
        uint8_t option[TALB_OPT_LEN];
        talb_label label{0x01020304, 5, 1};
        talb_option_encode(&label, option, sizeof(option));

        InsertOption(f.Data(), 14, 28, end, option, 9);
        f.Move(-TALB_OPT_LEN);
        uint8_t* ip = f.Data() + 14;
        EXPECT_EQ(std::memcmp(ip + 20, before.data() + 34, eol), 0) << "options before the EOL";
        EXPECT_EQ(std::memcmp(ip + 20 + eol, option, TALB_OPT_LEN), 0);
        EXPECT_EQ(std::memcmp(ip + 28 + eol, before.data() + 34 + eol, 8 - eol), 0)
            << "EOL and padding after the option";
        size_t at = 99;
        EXPECT_EQ(talb_ipv4_options_find(ip + 20, 16, &at), TALB_WIRE_OK);
        EXPECT_EQ(at, eol) << "receivers find it";
        ASSERT_EQ(StoredChecksum(ip), Ipv4HeaderChecksum(ip, 36)) << "EOL at " << eol;
        ASSERT_EQ(LoadBe16(ip + 36 + 16), TcpChecksum(ip));
    }
}

TEST(TalbAgentChecksum, InsertThenRemoveRestoresTheFrame)
{
    RandomFrames frames(4);
    for (int i = 0; i < 500; ++i)
    {
        TestFrame f = frames.Next(i % 3);
        std::vector<uint8_t> before = f.Bytes();
        uint32_t ihl = 20 + (i % 3) * 4;
        uint8_t* ip = f.Data() + 14;
        uint8_t dscp = ip[1] >> 2; // same DSCP: the round trip must be exact
        uint8_t option[TALB_OPT_LEN];
        talb_label label{static_cast<uint32_t>(i), static_cast<uint8_t>(i % 8), 1};
        talb_option_encode(&label, option, sizeof(option));
        InsertOption(f.Data(), 14, ihl, ihl - 20, option, dscp);
        f.Move(-TALB_OPT_LEN);
        RemoveOption(f.Data(), 14, ihl + 8, ihl - 20);
        f.Move(TALB_OPT_LEN);
        ASSERT_EQ(f.Bytes(), before) << "frame " << i;
    }
}

} // namespace
