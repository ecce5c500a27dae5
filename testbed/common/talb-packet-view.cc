#include "talb-packet-view.h"

#include "talb-checksum.h"

namespace talb
{

namespace
{
constexpr uint32_t kEthHeaderLen = 14;
constexpr uint32_t kVlanTagLen = 4;
constexpr uint16_t kEtherTypeIpv4 = 0x0800;
constexpr uint16_t kEtherTypeVlan = 0x8100;
constexpr uint16_t kEtherTypeQinQ = 0x88A8;
constexpr uint8_t kIpProtoTcp = 6;
constexpr uint32_t kIpv4MinHeaderLen = 20;
constexpr uint32_t kTcpMinHeaderLen = 20;
constexpr uint16_t kIpv4FragMask = 0x3FFF; // MF flag + fragment offset
} // namespace

ParseResult
ParseFrame(const uint8_t* frame, uint32_t len, PacketView* view)
{
    if (len < kEthHeaderLen)
    {
        return ParseResult::kNotIpv4;
    }
    uint32_t l3 = kEthHeaderLen;
    uint16_t etherType = LoadBe16(frame + 12);
    for (int tags = 0; tags < 2 && (etherType == kEtherTypeVlan || etherType == kEtherTypeQinQ);
         ++tags)
    {
        if (len < l3 + kVlanTagLen)
        {
            return ParseResult::kNotIpv4;
        }
        etherType = LoadBe16(frame + l3 + 2);
        l3 += kVlanTagLen;
    }
    if (etherType != kEtherTypeIpv4)
    {
        return ParseResult::kNotIpv4;
    }
    if (len < l3 + kIpv4MinHeaderLen)
    {
        return ParseResult::kMalformed;
    }
    const uint8_t* ip = frame + l3;
    uint32_t ihl = (ip[0] & 0x0F) * 4u;
    uint32_t total = LoadBe16(ip + 2);
    if ((ip[0] >> 4) != 4 || ihl < kIpv4MinHeaderLen || total < ihl || total > len - l3)
    {
        return ParseResult::kMalformed;
    }
    view->l3 = l3;
    view->ipHeaderLen = ihl;
    view->ipTotalLen = total;
    if (ip[9] != kIpProtoTcp || (LoadBe16(ip + 6) & kIpv4FragMask) != 0)
    {
        return ParseResult::kOtherIpv4;
    }
    uint32_t l4 = l3 + ihl;
    if (total - ihl < kTcpMinHeaderLen)
    {
        return ParseResult::kMalformed;
    }
    const uint8_t* tcp = frame + l4;
    uint32_t tcpHeaderLen = (tcp[12] >> 4) * 4u;
    if (tcpHeaderLen < kTcpMinHeaderLen || tcpHeaderLen > total - ihl)
    {
        return ParseResult::kMalformed;
    }
    view->l4 = l4;
    view->payload = l4 + tcpHeaderLen;
    view->payloadLen = total - ihl - tcpHeaderLen;
    view->seq = LoadBe32(tcp + 4);
    view->tcpFlags = tcp[13];
    std::memcpy(&view->key.src, ip + 12, 4);
    std::memcpy(&view->key.dst, ip + 16, 4);
    std::memcpy(&view->key.srcPort, tcp, 2);
    std::memcpy(&view->key.dstPort, tcp + 2, 2);
    return ParseResult::kTcp;
}

} // namespace talb
