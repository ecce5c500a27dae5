#ifndef TALB_PRIORITY_QUEUE_H
#define TALB_PRIORITY_QUEUE_H

#include "talb-wire.h"

#include "ns3/queue-size.h"
#include "ns3/queue.h"

#include <array>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief Strict-priority device transmit queue with ECN marking, for switch and host ports.
 *
 * Set as a PointToPointNetDevice's TxQueue, so it holds packets with the PPP header in front
 * (plain IPv4 packets are recognised too). Eight bands, band 0 served first. A packet's band is
 * - the priority of its TalbTag, else
 * - the TaLB priority of its DSCP (talb_priority_from_dscp), else
 * - ControlBand for a TCP segment without payload (ACK, SYN, FIN), else
 * - UntaggedBand.
 * All bands share one buffer of MaxSize (drop-tail). On arrival, an ECN-capable packet (ECT(0)
 * or ECT(1)) is marked CE when the port's occupancy (or, with EcnPerBand, its band's occupancy)
 * is at least MarkThreshold; the IPv4 header is rewritten, with its checksum when checksums are
 * enabled.
 *
 * O(bands) per operation: the base class's single list is kept sorted by band, and the first
 * packet of each band is remembered, so a packet is inserted right behind its band.
 */
class TalbPriorityQueue : public Queue<Packet>
{
  public:
    static TypeId GetTypeId();
    TalbPriorityQueue();
    ~TalbPriorityQueue() override;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

    /// \return the band \p item would be queued in
    uint8_t Classify(Ptr<const Packet> item) const;

    /// \return bytes queued in band \p band
    uint32_t GetBandBytes(uint8_t band) const;
    /// \return packets queued in band \p band
    uint32_t GetBandPackets(uint8_t band) const;
    /// \return packets marked CE so far
    uint64_t GetMarkedCount() const;

  private:
    NS_LOG_TEMPLATE_DECLARE; //!< redefinition of the log component

    /// Header facts read from the first bytes of a packet.
    struct Parsed
    {
        bool ipv4{false};           //!< an IPv4 packet
        uint32_t ipOffset{0};       //!< offset of the IPv4 header (2 behind a PPP header)
        uint8_t tos{0};             //!< IPv4 TOS byte
        bool pureTcpControl{false}; //!< TCP segment without payload
    };

    Parsed Parse(Ptr<const Packet> item) const;
    uint8_t BandOf(Ptr<const Packet> item, const Parsed& parsed) const;
    bool OverThreshold(uint8_t band) const;
    void MarkCe(Ptr<Packet> item, const Parsed& parsed);
    /// Update band bookkeeping after the head packet (of the lowest non-empty band) left.
    void HeadLeft(uint32_t size);
    /// \return the lowest non-empty band, or TALB_NUM_PRIORITIES when empty
    uint8_t FirstBand() const;

    uint8_t m_controlBand;     //!< ControlBand attribute
    uint8_t m_untaggedBand;    //!< UntaggedBand attribute
    bool m_useEcn;             //!< UseEcn attribute
    bool m_ecnPerBand;         //!< EcnPerBand attribute
    QueueSize m_markThreshold; //!< MarkThreshold attribute

    std::array<Iterator, TALB_NUM_PRIORITIES> m_head; //!< first packet of each non-empty band
    std::array<uint32_t, TALB_NUM_PRIORITIES> m_bandPackets;
    std::array<uint32_t, TALB_NUM_PRIORITIES> m_bandBytes;
    uint64_t m_nMarked;
};

} // namespace ns3

#endif /* TALB_PRIORITY_QUEUE_H */
