#include "talb-ipv4-edit.h"

#include "talb-checksum.h"
#include "talb-wire.h"

#include <cstring>

namespace talb
{

namespace
{
constexpr uint32_t kIpv4FixedLen = 20;
constexpr uint32_t kChecksumOffset = 10;

/**
 * memmove for the 34..82 header bytes that insertion and removal move: up to 64 bytes it is
 * two fixed-size 32-byte copies, both loaded before either is stored (so overlap is fine),
 * which the compiler turns into a few vector moves instead of a library call.
 */
inline void
MoveHeaders(uint8_t* dst, const uint8_t* src, size_t n)
{
    if (n >= 32 && n <= 64)
    {
        uint8_t head[32];
        uint8_t tail[32];
        std::memcpy(head, src, 32);
        std::memcpy(tail, src + n - 32, 32);
        std::memcpy(dst, head, 32);
        std::memcpy(dst + n - 32, tail, 32);
    }
    else
    {
        std::memmove(dst, src, n);
    }
}

/**
 * The running-sum contribution of 8 option bytes that sit at offset `at` of the options area.
 * At an odd offset each byte is in the other half of its 16-bit word than ChecksumAdd assumes:
 * the one's complement sum of byte-swapped words is the byte-swapped sum.
 */
inline uint32_t
OptionSum(const uint8_t* option, size_t at)
{
    uint32_t sum = ChecksumAdd(option, TALB_OPT_LEN);
    if (at % 2 != 0)
    {
        sum = ChecksumFold(sum);
        sum = static_cast<uint16_t>((sum << 8) | (sum >> 8));
    }
    return sum;
}
} // namespace

namespace
{
/// Rewrites the TOS byte, keeping the header checksum right.
void
SetTos(uint8_t* ip, uint8_t tos)
{
    uint16_t oldWord = LoadBe16(ip);
    ip[1] = tos;
    uint32_t sum = ChecksumUpdateBegin(LoadBe16(ip + kChecksumOffset));
    sum = ChecksumUpdateWord(sum, oldWord, LoadBe16(ip));
    StoreBe16(ip + kChecksumOffset, ChecksumUpdateEnd(sum));
}
} // namespace

void
SetDscp(uint8_t* ip, uint8_t dscp)
{
    SetTos(ip, static_cast<uint8_t>((dscp << 2) | (ip[1] & 0x03)));
}

void
SetEcnCe(uint8_t* ip)
{
    SetTos(ip, static_cast<uint8_t>(ip[1] | kEcnCe));
}

uint8_t*
InsertOption(uint8_t* frame,
             uint32_t l3,
             uint32_t ipHeaderLen,
             size_t at,
             const uint8_t* option,
             uint8_t dscp)
{
    uint8_t* out = frame - TALB_OPT_LEN;
    MoveHeaders(out, frame, l3 + kIpv4FixedLen + at);
    uint8_t* ip = out + l3;
    std::memcpy(ip + kIpv4FixedLen + at, option, TALB_OPT_LEN);

    uint16_t oldWord0 = LoadBe16(ip);
    uint16_t oldTotal = LoadBe16(ip + 2);
    ip[0] = static_cast<uint8_t>(0x40 | ((ipHeaderLen + TALB_OPT_LEN) / 4));
    ip[1] = static_cast<uint8_t>((dscp << 2) | (ip[1] & 0x03));
    StoreBe16(ip + 2, static_cast<uint16_t>(oldTotal + TALB_OPT_LEN));

    uint32_t sum = ChecksumUpdateBegin(LoadBe16(ip + kChecksumOffset));
    sum = ChecksumUpdateWord(sum, oldWord0, LoadBe16(ip));
    sum = ChecksumUpdateWord(sum, oldTotal, LoadBe16(ip + 2));
    // The option's words are added (old value 0); the bytes after it moved by 8, staying in the
    // same word halves, so they leave the sum as it was.
    sum += OptionSum(option, at);
    StoreBe16(ip + kChecksumOffset, ChecksumUpdateEnd(sum));
    return out;
}

uint8_t*
RemoveOption(uint8_t* frame, uint32_t l3, uint32_t ipHeaderLen, size_t optionOffset)
{
    uint8_t* ip = frame + l3;
    uint8_t* option = ip + kIpv4FixedLen + optionOffset;
    uint16_t oldWord0 = LoadBe16(ip);
    uint16_t oldTotal = LoadBe16(ip + 2);
    uint16_t newWord0 = static_cast<uint16_t>(((0x40 | ((ipHeaderLen - TALB_OPT_LEN) / 4)) << 8) |
                                              (oldWord0 & 0xFF));
    uint16_t newTotal = static_cast<uint16_t>(oldTotal - TALB_OPT_LEN);

    uint32_t sum = ChecksumUpdateBegin(LoadBe16(ip + kChecksumOffset));
    sum = ChecksumUpdateWord(sum, oldWord0, newWord0);
    sum = ChecksumUpdateWord(sum, oldTotal, newTotal);
    // The removed bytes leave the sum. The bytes after them move by 8, staying in the same word
    // halves, so they leave the sum as it was.
    sum += static_cast<uint16_t>(~ChecksumFold(OptionSum(option, optionOffset)));
    StoreBe16(ip, newWord0);
    StoreBe16(ip + 2, newTotal);
    StoreBe16(ip + kChecksumOffset, ChecksumUpdateEnd(sum));

    size_t before = l3 + kIpv4FixedLen + optionOffset;
    MoveHeaders(frame + TALB_OPT_LEN, frame, before);
    return frame + TALB_OPT_LEN;
}

} // namespace talb
