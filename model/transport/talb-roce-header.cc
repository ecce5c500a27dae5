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
    return op == OP_ACK || op == OP_SACK;
}

bool
TalbRoceHeader::HasSack(uint8_t op)
{
    return op == OP_SACK;
}

bool
TalbRoceHeader::IsData(uint8_t op)
{
    return op == OP_SEND_FIRST || op == OP_SEND_MIDDLE || op == OP_SEND_LAST || op == OP_SEND_ONLY;
}

uint32_t
TalbRoceHeader::GetSerializedSize() const
{
    return BASE_BYTES + (HasAeth(m_opcode) ? AETH_BYTES : 0) + (HasSack(m_opcode) ? SACK_BYTES : 0);
}

void
TalbRoceHeader::Serialize(Buffer::Iterator start) const
{
    Buffer::Iterator i = start;
    // IPv4, RFC 791: version 4, IHL 5, DF set, TTL 64, protocol UDP.
    i.WriteU8(0x45);
    i.WriteU8(m_tos);
    i.WriteHtonU16(20 + m_ipPayloadBytes);
    i.WriteHtonU16(m_identification);
    i.WriteHtonU16(0x4000);
    i.WriteU8(64);
    i.WriteU8(IP_PROTO_UDP);
    i.WriteHtonU16(0); // checksum, filled below when enabled
    i.WriteHtonU32(m_source.Get());
    i.WriteHtonU32(m_destination.Get());
    if (Node::ChecksumEnabled())
    {
        Buffer::Iterator ip = start;
        uint16_t sum = ip.CalculateIpChecksum(20);
        Buffer::Iterator at = start;
        at.Next(10);
        at.WriteU16(sum);
    }
    // UDP: RoCEv2 leaves the checksum 0 (the ICRC protects the payload).
    i.WriteHtonU16(m_sourcePort);
    i.WriteHtonU16(UDP_PORT);
    i.WriteHtonU16(m_ipPayloadBytes);
    i.WriteHtonU16(0);
    // BTH: opcode, SE/M/pad/TVer, P_Key, reserved, dest QP, A + reserved, PSN.
    i.WriteU8(m_opcode);
    i.WriteU8(0);
    i.WriteHtonU16(PKEY_DEFAULT);
    i.WriteU8(0);
    i.WriteU8((m_destQp >> 16) & 0xFF);
    i.WriteHtonU16(m_destQp & 0xFFFF);
    i.WriteU8(m_ackRequest ? 0x80 : 0);
    i.WriteU8((m_psn >> 16) & 0xFF);
    i.WriteHtonU16(m_psn & 0xFFFF);
    if (HasAeth(m_opcode))
    {
        i.WriteU8(m_syndrome);
        i.WriteU8((m_msn >> 16) & 0xFF);
        i.WriteHtonU16(m_msn & 0xFFFF);
    }
    if (HasSack(m_opcode))
    {
        i.WriteHtonU64(m_sackBitmap);
        i.WriteHtonU16(m_echoEntropy);
        i.WriteU8(m_echoCe ? 1 : 0);
        i.WriteU8(0);
    }
}

uint32_t
TalbRoceHeader::Deserialize(Buffer::Iterator start)
{
    Buffer::Iterator i = start;
    i.ReadU8(); // version / IHL: the NIC only builds option-free headers
    m_tos = i.ReadU8();
    m_ipPayloadBytes = i.ReadNtohU16() - 20;
    m_identification = i.ReadNtohU16();
    i.Next(3); // flags, fragment offset, TTL
    m_protocol = i.ReadU8();
    i.Next(2); // checksum
    m_source = Ipv4Address(i.ReadNtohU32());
    m_destination = Ipv4Address(i.ReadNtohU32());
    m_sourcePort = i.ReadNtohU16();
    m_destinationPort = i.ReadNtohU16();
    i.Next(4); // length, checksum
    m_opcode = i.ReadU8();
    i.Next(4); // flags, P_Key, reserved
    m_destQp = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    m_ackRequest = (i.ReadU8() & 0x80) != 0;
    m_psn = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    if (HasAeth(m_opcode))
    {
        m_syndrome = i.ReadU8();
        m_msn = (uint32_t(i.ReadU8()) << 16) | i.ReadNtohU16();
    }
    if (HasSack(m_opcode))
    {
        m_sackBitmap = i.ReadNtohU64();
        m_echoEntropy = i.ReadNtohU16();
        m_echoCe = (i.ReadU8() & 1) != 0;
        i.Next(1);
    }
    return GetSerializedSize();
}

void
TalbRoceHeader::Print(std::ostream& os) const
{
    os << m_source << " > " << m_destination << " tos 0x" << std::hex << +m_tos << std::dec
       << " udp " << m_sourcePort << " > " << UDP_PORT << " bth op 0x" << std::hex << +m_opcode
       << std::dec << " qp " << (m_destQp & MASK24) << " psn " << (m_psn & MASK24)
       << (m_ackRequest ? " A" : "");
    if (HasAeth(m_opcode))
    {
        os << " aeth " << (m_syndrome == SYNDROME_ACK ? "ack" : "nak") << " msn " << m_msn;
    }
    if (HasSack(m_opcode))
    {
        os << " sack 0x" << std::hex << m_sackBitmap << std::dec << " entropy " << m_echoEntropy
           << (m_echoCe ? " ce" : "");
    }
}

void
TalbRoceHeader::SetSource(Ipv4Address value)
{
    m_source = value;
}

Ipv4Address
TalbRoceHeader::GetSource() const
{
    return m_source;
}

void
TalbRoceHeader::SetDestination(Ipv4Address value)
{
    m_destination = value;
}

Ipv4Address
TalbRoceHeader::GetDestination() const
{
    return m_destination;
}

void
TalbRoceHeader::SetTos(uint8_t value)
{
    m_tos = value;
}

uint8_t
TalbRoceHeader::GetTos() const
{
    return m_tos;
}

void
TalbRoceHeader::SetIdentification(uint16_t value)
{
    m_identification = value;
}

uint16_t
TalbRoceHeader::GetIdentification() const
{
    return m_identification;
}

void
TalbRoceHeader::SetIpPayloadBytes(uint16_t value)
{
    m_ipPayloadBytes = value;
}

uint16_t
TalbRoceHeader::GetIpPayloadBytes() const
{
    return m_ipPayloadBytes;
}

uint8_t
TalbRoceHeader::GetProtocol() const
{
    return m_protocol;
}

void
TalbRoceHeader::SetSourcePort(uint16_t value)
{
    m_sourcePort = value;
}

uint16_t
TalbRoceHeader::GetSourcePort() const
{
    return m_sourcePort;
}

uint16_t
TalbRoceHeader::GetDestinationPort() const
{
    return m_destinationPort;
}

void
TalbRoceHeader::SetOpcode(uint8_t value)
{
    m_opcode = value;
}

uint8_t
TalbRoceHeader::GetOpcode() const
{
    return m_opcode;
}

void
TalbRoceHeader::SetAckRequest(bool value)
{
    m_ackRequest = value;
}

bool
TalbRoceHeader::GetAckRequest() const
{
    return m_ackRequest;
}

void
TalbRoceHeader::SetDestQp(uint32_t value)
{
    m_destQp = value;
}

uint32_t
TalbRoceHeader::GetDestQp() const
{
    return m_destQp;
}

void
TalbRoceHeader::SetPsn(uint32_t value)
{
    m_psn = value;
}

uint32_t
TalbRoceHeader::GetPsn() const
{
    return m_psn;
}

void
TalbRoceHeader::SetSyndrome(uint8_t value)
{
    m_syndrome = value;
}

uint8_t
TalbRoceHeader::GetSyndrome() const
{
    return m_syndrome;
}

void
TalbRoceHeader::SetMsn(uint32_t value)
{
    m_msn = value;
}

uint32_t
TalbRoceHeader::GetMsn() const
{
    return m_msn;
}

void
TalbRoceHeader::SetSackBitmap(uint64_t value)
{
    m_sackBitmap = value;
}

uint64_t
TalbRoceHeader::GetSackBitmap() const
{
    return m_sackBitmap;
}

void
TalbRoceHeader::SetEchoEntropy(uint16_t value)
{
    m_echoEntropy = value;
}

uint16_t
TalbRoceHeader::GetEchoEntropy() const
{
    return m_echoEntropy;
}

void
TalbRoceHeader::SetEchoCe(bool value)
{
    m_echoCe = value;
}

bool
TalbRoceHeader::GetEchoCe() const
{
    return m_echoCe;
}

} // namespace ns3
