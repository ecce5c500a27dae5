/*
 * Internet checksum helpers (RFC 1071 sums, RFC 1624 incremental updates) over big-endian byte
 * buffers. Header-only: the agent's fast path calls them per packet.
 */
#ifndef TALB_CHECKSUM_H
#define TALB_CHECKSUM_H

#include <cstddef>
#include <cstdint>

namespace talb
{

/// \return the 16-bit big-endian word at p
inline uint16_t
LoadBe16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

inline void
StoreBe16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}

/// \return the 32-bit big-endian word at p
inline uint32_t
LoadBe32(const uint8_t* p)
{
    return (static_cast<uint32_t>(p[0]) << 24) | (static_cast<uint32_t>(p[1]) << 16) |
           (static_cast<uint32_t>(p[2]) << 8) | p[3];
}

/**
 * Adds the bytes at p, as big-endian 16-bit words (an odd last byte is padded with zero), to a
 * 32-bit running sum. Not folded, not complemented. Good for up to 64 KiB per call.
 */
inline uint32_t
ChecksumAdd(const uint8_t* p, size_t len, uint32_t sum = 0)
{
    for (; len > 1; p += 2, len -= 2)
    {
        sum += LoadBe16(p);
    }
    if (len == 1)
    {
        sum += static_cast<uint32_t>(p[0]) << 8;
    }
    return sum;
}

/// Folds a 32-bit running sum into 16 bits with end-around carry.
inline uint16_t
ChecksumFold(uint32_t sum)
{
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    return static_cast<uint16_t>(sum);
}

/**
 * The IPv4 header checksum computed from scratch (the reference): the complemented sum of the
 * header with its checksum field (bytes 10-11) taken as zero.
 */
inline uint16_t
Ipv4HeaderChecksum(const uint8_t* ip, size_t headerLen)
{
    uint32_t sum = ChecksumAdd(ip, 10);
    sum = ChecksumAdd(ip + 12, headerLen - 12, sum);
    return static_cast<uint16_t>(~ChecksumFold(sum));
}

/**
 * RFC 1624 eqn. 3 building block: the running sum of a checksum update, HC' = ~(~HC + ~m + m').
 * Start with ChecksumUpdateBegin(HC), add ChecksumUpdateWord(old, new) per changed word (old 0
 * for a word that was added, new 0 for one that was removed), finish with ChecksumUpdateEnd().
 */
inline uint32_t
ChecksumUpdateBegin(uint16_t checksum)
{
    return static_cast<uint16_t>(~checksum);
}

inline uint32_t
ChecksumUpdateWord(uint32_t sum, uint16_t oldWord, uint16_t newWord)
{
    return sum + static_cast<uint16_t>(~oldWord) + newWord;
}

inline uint16_t
ChecksumUpdateEnd(uint32_t sum)
{
    return static_cast<uint16_t>(~ChecksumFold(sum));
}

} // namespace talb

#endif /* TALB_CHECKSUM_H */
