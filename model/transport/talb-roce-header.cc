#include "talb-roce-header.h"

#include "ns3/node.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbRoceHeader);

namespace
{
constexpr uint8_t IP_PROTO_UDP = 17;
constexpr uint32_t MASK24 = 0xFFFFFF;
constexpr uint16_t PKEY_DEFAULT = 0xFFFF;
} // namespace

TypeId
TalbRoceHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbRoceHeader")
                            .SetParent<Header>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbRoceHeader>();
    return tid;
}

TypeId
TalbRoceHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbRoceHeader::TalbRoceHeader()
{
}

bool
TalbRoceHeader::HasAeth(uint8_t op)
{
    return op == OP_ACK;
}

bool
TalbRoceHeader::IsData(uint8_t op)
{
    return op == OP_SEND_FIRST || op == OP_SEND_MIDDLE || op == OP_SEND_LAST || op == OP_SEND_ONLY;
}

uint32_t
TalbRoceHeader::GetSerializedSize() const
{
    return BASE_BYTES + (HasAeth(opcode) ? AETH_BYTES : 0);
}

void
TalbRoceHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    // IPv4, RFC 791: version 4, IHL 5, DF set, TTL 64, protocol UDP.
    i.WriteU8(0x45);
    i.WriteU8(tos);
    i.WriteHtonU16(20 + ipPayloadBytes);
    i.WriteHtonU16(identification);
    i.WriteHtonU16(0x4000);
    i.WriteU8(64);
    i.WriteU8(IP_PROTO_UDP);
    i.WriteHtonU16(0); // checksum, filled below when enabled
    i.WriteHtonU32(source.Get());
    i.WriteHtonU32(destination.Get());
    if (Node::ChecksumEnabled())
    {
        Buffer::Iterator ip = start;
        uint16_t sum = ip.CalculateIpChecksum(20);
        Buffer::Iterator at = start;
        at.Next(10);
        at.WriteU16(sum);
    }
    // UDP: RoCEv2 leaves the checksum 0 (the ICRC protects the payload).
    i.WriteHtonU16(sourcePort);
    i.WriteHtonU16(UDP_PORT);
    i.WriteHtonU16(ipPayloadBytes);
    i.WriteHtonU16(0);
    // BTH: opcode, SE/M/pad/TVer, P_Key, reserved, dest QP, A + reserved, PSN.
    i.WriteU8(opcode);
    i.WriteU8(0);
    i.WriteHtonU16(PKEY_DEFAULT);
    i.WriteU8(0);
    i.WriteU8((destQp >> 16) & 0xFF);
    i.WriteHtonU16(destQp & 0xFFFF);
    i.WriteU8(ackRequest ? 0x80 : 0);
    i.WriteU8((psn >> 16) & 0xFF);
    i.WriteHtonU16(psn & 0xFFFF);
    if (HasAeth(opcode))
    {
        i.WriteU8(syndrome);
        i.WriteU8((msn >> 16) & 0xFF);
        i.WriteHtonU16(msn & 0xFFFF);
    }
}

uint32_t
TalbRoceHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.ReadU8(); // version / IHL: the NIC only builds option-free headers
    tos = i.ReadU8();
    ipPayloadBytes = i.ReadNtohU16() - 20;
    identification = i.ReadNtohU16();
    i.Next(3); // flags, fragment offset, TTL
    protocol = i.ReadU8();
    i.Next(2); // checksum
    source = Ipv4Address(i.ReadNtohU32());
    destination = Ipv4Address(i.ReadNtohU32());
    sourcePort = i.ReadNtohU16();
    destinationPort = i.ReadNtohU16();
    i.Next(4); // length, checksum
    opcode = i.ReadU8();
    i.Next(4); // flags, P_Key, reserved
    destQp = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    ackRequest = (i.ReadU8() & 0x80) != 0;
    psn = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    if (HasAeth(opcode))
    {
        syndrome = i.ReadU8();
        msn = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    }
    return GetSerializedSize();
}

void
TalbRoceHeader::Print(std::ostream& os) const
{
    os << source << " > " << destination << " tos 0x" << std::hex << +tos << std::dec << " udp "
       << sourcePort << " > " << UDP_PORT << " bth op 0x" << std::hex << +opcode << std::dec
       << " qp " << (destQp & MASK24) << " psn " << (psn & MASK24) << (ackRequest ? " A" : "");
    if (HasAeth(opcode))
    {
        os << " aeth " << (syndrome == SYNDROME_ACK ? "ack" : "nak") << " msn " << msn;
    }
}

} // namespace ns3
