#ifndef TALB_ROCE_HEADER_H
#define TALB_ROCE_HEADER_H

#include "ns3/header.h"
#include "ns3/ipv4-address.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief RoCEv2 packet headers, serialised as one: IPv4 (20 bytes, no options) + UDP (8 bytes,
 * destination port 4791) + InfiniBand Base Transport Header (12 bytes) + for acknowledgements
 * the ACK Extended Transport Header (AETH, 4 bytes).
 *
 * One header object instead of ns-3's Ipv4Header + UdpHeader + a BTH keeps packet building to
 * one AddHeader per packet. The first 20 bytes are a valid IPv4 header (ns-3's Ipv4Header can
 * read and rewrite them, as a switch queue does to mark ECN), the next 8 a valid UDP header with
 * checksum 0 (as RoCEv2 sends it). The 4-byte invariant CRC (ICRC) that ends every RoCEv2 packet
 * is payload to ns-3: the NIC adds it as 4 zero bytes after the payload (TRAILER_BYTES).
 *
 * Field sizes follow the InfiniBand specification: the destination QP number and the PSN are
 * 24 bits on the wire; the NIC keeps 64-bit PSNs and puts their low 24 bits here.
 *
 * Selective repeat (TalbRdmaNic Recovery SelectiveRepeat) acknowledges with OP_SACK, an opcode
 * of the manufacturer-specific range: the AETH (cumulative PSN as an ACK's) followed by a
 * 12-byte SACK extension (SACK_BYTES): a 64-bit bitmap of the PSNs received beyond the
 * cumulative one (bit i: PSN + 1 + i), the entropy (UDP source port) of the data packet that
 * triggered the acknowledgement and whether it arrived ECN-marked, as IRN's and Ultra Ethernet's
 * selective acknowledgements carry them. Go-back-N never sends it, so its packets keep their
 * sizes.
 */
class TalbRoceHeader : public Header
{
  public:
    /// RoCEv2's UDP destination port.
    static const uint16_t UDP_PORT = 4791;
    /// IPv4 + UDP + BTH bytes.
    static const uint32_t BASE_BYTES = 20 + 8 + 12;
    /// AETH bytes (ACK and NAK packets).
    static const uint32_t AETH_BYTES = 4;
    /// ICRC bytes after the payload.
    static const uint32_t TRAILER_BYTES = 4;
    /// Bytes of a CNP after the BTH (16 reserved bytes, InfiniBand annex A17).
    static const uint32_t CNP_PAYLOAD_BYTES = 16;
    /// Bytes of the SACK extension after the AETH (OP_SACK only).
    static const uint32_t SACK_BYTES = 12;
    /// PSNs beyond the cumulative one that the SACK bitmap covers.
    static const uint32_t SACK_BITMAP_PSNS = 64;

    /// BTH opcodes used (reliable connected transport, and the RoCEv2 CNP).
    enum Opcode : uint8_t
    {
        OP_SEND_FIRST = 0x00,
        OP_SEND_MIDDLE = 0x01,
        OP_SEND_LAST = 0x02,
        OP_SEND_ONLY = 0x04,
        OP_ACK = 0x11, //!< RC Acknowledge (carries an AETH: ACK or NAK)
        OP_CNP = 0x81, //!< congestion notification packet
        OP_SACK = 0xC0 //!< selective acknowledgement: AETH + SACK extension (talb's)
    };

    /// AETH syndromes used: ACK, and NAK "PSN sequence error" (triggers go-back-N).
    enum Syndrome : uint8_t
    {
        SYNDROME_ACK = 0x00,
        SYNDROME_NAK_SEQ = 0x60
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    TalbRoceHeader();

    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;
    void Print(std::ostream& os) const override;

    /// \return true for opcodes that carry an AETH
    static bool HasAeth(uint8_t opcode);
    /// \return true for opcodes that carry the SACK extension
    static bool HasSack(uint8_t opcode);
    /// \return true for SEND opcodes (data packets)
    static bool IsData(uint8_t opcode);

    // IPv4
    void SetSource(Ipv4Address source);
    Ipv4Address GetSource() const;
    void SetDestination(Ipv4Address destination);
    Ipv4Address GetDestination() const;
    /// \param tos DSCP << 2 | ECN
    void SetTos(uint8_t tos);
    uint8_t GetTos() const;
    void SetIdentification(uint16_t identification);
    uint16_t GetIdentification() const;
    /// \param bytes the IPv4 total length minus the 20-byte IPv4 header
    void SetIpPayloadBytes(uint16_t bytes);
    uint16_t GetIpPayloadBytes() const;
    /// \return the IPv4 protocol read by Deserialize (Serialize always writes UDP)
    uint8_t GetProtocol() const;
    // UDP
    /// \param port the source port (flow entropy)
    void SetSourcePort(uint16_t port);
    uint16_t GetSourcePort() const;
    /// \return the destination port read by Deserialize (Serialize always writes UDP_PORT)
    uint16_t GetDestinationPort() const;
    // BTH
    void SetOpcode(uint8_t opcode);
    uint8_t GetOpcode() const;
    /// \param request the BTH A bit
    void SetAckRequest(bool request);
    bool GetAckRequest() const;
    /// \param qp destination queue pair number (24 bits)
    void SetDestQp(uint32_t qp);
    uint32_t GetDestQp() const;
    /// \param psn packet sequence number (24 bits)
    void SetPsn(uint32_t psn);
    uint32_t GetPsn() const;
    // AETH
    void SetSyndrome(uint8_t syndrome);
    uint8_t GetSyndrome() const;
    /// \param msn messages completed at the responder (24 bits)
    void SetMsn(uint32_t msn);
    uint32_t GetMsn() const;
    // SACK extension
    /// \param bitmap bit i set: PSN GetPsn() + 1 + i has arrived
    void SetSackBitmap(uint64_t bitmap);
    uint64_t GetSackBitmap() const;
    /// \param entropy the UDP source port of the data packet acknowledged
    void SetEchoEntropy(uint16_t entropy);
    uint16_t GetEchoEntropy() const;
    /// \param ce that data packet arrived ECN-marked (CE)
    void SetEchoCe(bool ce);
    bool GetEchoCe() const;

  private:
    Ipv4Address m_source;
    Ipv4Address m_destination;
    uint8_t m_tos{0};
    uint16_t m_identification{0};
    uint16_t m_ipPayloadBytes{0};
    uint8_t m_protocol{17};
    uint16_t m_sourcePort{0};
    uint16_t m_destinationPort{UDP_PORT};
    uint8_t m_opcode{OP_SEND_ONLY};
    bool m_ackRequest{false};
    uint32_t m_destQp{0};
    uint32_t m_psn{0};
    uint8_t m_syndrome{SYNDROME_ACK};
    uint32_t m_msn{0};
    uint64_t m_sackBitmap{0};
    uint16_t m_echoEntropy{0};
    bool m_echoCe{false};
};

} // namespace ns3

#endif /* TALB_ROCE_HEADER_H */
