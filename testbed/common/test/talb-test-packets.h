// Test helpers: build Ethernet/IPv4/TCP frames and frame streams with reference checksums.
#ifndef TALB_TEST_PACKETS_H
#define TALB_TEST_PACKETS_H

#include "talb-checksum.h"
#include "talb-wire.h"

#include <cstdint>
#include <cstring>
#include <vector>

namespace talb
{
namespace test
{

/// Bytes of headroom every TestFrame keeps in front of the frame.
constexpr uint32_t kHeadroom = 64;

struct TcpSpec
{
    uint32_t src = 0x0A000001; // 10.0.0.1
    uint32_t dst = 0x0A000002;
    uint16_t srcPort = 40000;
    uint16_t dstPort = 5000;
    uint32_t seq = 0;
    uint8_t flags = 0x10; // ACK
    uint8_t tos = 0;
    std::vector<uint8_t> ipOptions; // multiple of 4 bytes
    uint16_t vlan = 0;              // 0: untagged
};

/// A frame in a buffer with kHeadroom bytes in front, as a DPDK mbuf would hold it.
struct TestFrame
{
    std::vector<uint8_t> buf;
    uint32_t start = kHeadroom;
    uint32_t len = 0;

    uint8_t* Data()
    {
        return buf.data() + start;
    }

    std::vector<uint8_t> Bytes() const
    {
        return std::vector<uint8_t>(buf.begin() + start, buf.begin() + start + len);
    }

    /// Applies a Tagger return value (how far the frame start moved).
    void Move(int delta)
    {
        start += delta;
        len -= delta;
    }
};

inline void
Put16(uint8_t* p, uint16_t v)
{
    StoreBe16(p, v);
}

inline void
Put32(uint8_t* p, uint32_t v)
{
    talb_put_be32(p, v);
}

/// Reference TCP checksum over the RFC 793 pseudo-header, the TCP header and payload.
inline uint16_t
TcpChecksum(const uint8_t* ip)
{
    uint32_t ihl = (ip[0] & 0x0F) * 4u;
    uint32_t tcpLen = LoadBe16(ip + 2) - ihl;
    uint8_t pseudo[12];
    std::memcpy(pseudo, ip + 12, 8);
    pseudo[8] = 0;
    pseudo[9] = ip[9];
    Put16(pseudo + 10, static_cast<uint16_t>(tcpLen));
    uint32_t sum = ChecksumAdd(pseudo, sizeof(pseudo));
    const uint8_t* tcp = ip + ihl;
    sum = ChecksumAdd(tcp, 16, sum);
    sum = ChecksumAdd(tcp + 18, tcpLen - 18, sum);
    return static_cast<uint16_t>(~ChecksumFold(sum));
}

inline TestFrame
MakeTcpFrame(const TcpSpec& spec, const uint8_t* payload, uint32_t payloadLen)
{
    uint32_t l3 = spec.vlan ? 18 : 14;
    uint32_t ihl = 20 + static_cast<uint32_t>(spec.ipOptions.size());
    uint32_t total = ihl + 20 + payloadLen;
    TestFrame f;
    f.len = l3 + total;
    f.buf.assign(kHeadroom + f.len, 0);
    uint8_t* p = f.Data();
    const uint8_t dstMac[6] = {0x02, 0, 0, 0, 0, 2};
    const uint8_t srcMac[6] = {0x02, 0, 0, 0, 0, 1};
    std::memcpy(p, dstMac, 6);
    std::memcpy(p + 6, srcMac, 6);
    if (spec.vlan)
    {
        Put16(p + 12, 0x8100);
        Put16(p + 14, spec.vlan);
        Put16(p + 16, 0x0800);
    }
    else
    {
        Put16(p + 12, 0x0800);
    }
    uint8_t* ip = p + l3;
    ip[0] = static_cast<uint8_t>(0x40 | (ihl / 4));
    ip[1] = spec.tos;
    Put16(ip + 2, static_cast<uint16_t>(total));
    Put16(ip + 4, 0x1234);
    Put16(ip + 6, 0x4000); // DF
    ip[8] = 64;
    ip[9] = 6;
    Put32(ip + 12, spec.src);
    Put32(ip + 16, spec.dst);
    if (!spec.ipOptions.empty())
    {
        std::memcpy(ip + 20, spec.ipOptions.data(), spec.ipOptions.size());
    }
    Put16(ip + 10, Ipv4HeaderChecksum(ip, ihl));
    uint8_t* tcp = ip + ihl;
    Put16(tcp, spec.srcPort);
    Put16(tcp + 2, spec.dstPort);
    Put32(tcp + 4, spec.seq);
    Put32(tcp + 8, 1);
    tcp[12] = 5 << 4;
    tcp[13] = spec.flags;
    Put16(tcp + 14, 65535);
    if (payloadLen > 0)
    {
        std::memcpy(tcp + 20, payload, payloadLen);
    }
    Put16(tcp + 16, TcpChecksum(ip));
    return f;
}

/// A frame stream: the plugin's TCP byte stream, frames back to back.
struct Stream
{
    std::vector<uint8_t> bytes;
    std::vector<uint64_t> starts; // offset of each frame's header
    std::vector<talb_frame> frames;

    void Add(uint32_t tensorId, uint8_t priority, uint8_t flags, uint32_t payloadLen)
    {
        talb_frame f{{tensorId, priority, flags}, payloadLen};
        starts.push_back(bytes.size());
        frames.push_back(f);
        size_t at = bytes.size();
        bytes.resize(at + TALB_FRAME_LEN + payloadLen);
        talb_frame_encode(&f, bytes.data() + at, TALB_FRAME_LEN);
        for (uint32_t i = 0; i < payloadLen; ++i)
        {
            bytes[at + TALB_FRAME_LEN + i] = static_cast<uint8_t>(i * 7 + tensorId);
        }
    }

    /// \return the index of the frame holding byte offset
    size_t FrameAt(uint64_t offset) const
    {
        size_t i = 0;
        while (i + 1 < starts.size() && starts[i + 1] <= offset)
        {
            ++i;
        }
        return i;
    }
};

} // namespace test
} // namespace talb

#endif /* TALB_TEST_PACKETS_H */
