/*
 * Parsing of an Ethernet frame down to IPv4 and TCP, over a plain byte buffer (no DPDK).
 */
#ifndef TALB_PACKET_VIEW_H
#define TALB_PACKET_VIEW_H

#include <cstdint>
#include <cstring>

namespace talb
{

/// One direction of a TCP connection, addresses and ports as they appear on the wire.
struct FlowKey
{
    uint32_t src;
    uint32_t dst;
    uint16_t srcPort;
    uint16_t dstPort;

    bool operator==(const FlowKey& o) const
    {
        return src == o.src && dst == o.dst && srcPort == o.srcPort && dstPort == o.dstPort;
    }
};

/// TCP flag bits (byte 13 of the TCP header).
enum TcpFlag : uint8_t
{
    kTcpFin = 0x01,
    kTcpSyn = 0x02,
    kTcpRst = 0x04,
    kTcpAck = 0x10,
};

/// Offsets into a frame, filled by ParseFrame. All offsets count from the frame's first byte.
struct PacketView
{
    uint32_t l3;          ///< IPv4 header
    uint32_t ipHeaderLen; ///< IHL * 4: 20..60
    uint32_t ipTotalLen;  ///< IPv4 total length field
    uint32_t l4;          ///< TCP header (kTcp only)
    uint32_t payload;     ///< first TCP payload byte (kTcp only)
    uint32_t payloadLen;  ///< TCP payload bytes (kTcp only)
    uint32_t seq;         ///< TCP sequence number (kTcp only)
    uint8_t tcpFlags;     ///< TcpFlag bits (kTcp only)
    FlowKey key;          ///< (kTcp only)
};

enum class ParseResult
{
    kTcp,       ///< unfragmented IPv4 + TCP, every field of PacketView is valid
    kOtherIpv4, ///< valid IPv4 header, but not TCP or a fragment: l3, ipHeaderLen, ipTotalLen valid
    kNotIpv4,   ///< ARP, IPv6, ...: nothing to do
    kMalformed, ///< claims IPv4 (or TCP) but its headers are inconsistent or truncated
};

/**
 * Parses an Ethernet II frame (up to two 802.1Q/802.1ad tags) of len bytes. The IPv4 total
 * length bounds the packet: link-layer padding after it is ignored. Reads nothing past len.
 */
ParseResult ParseFrame(const uint8_t* frame, uint32_t len, PacketView* view);

} // namespace talb

#endif /* TALB_PACKET_VIEW_H */
