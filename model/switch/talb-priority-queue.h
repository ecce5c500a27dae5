#ifndef TALB_PRIORITY_QUEUE_H
#define TALB_PRIORITY_QUEUE_H

#include "talb-wire.h"

#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"

#include <array>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief Strict-priority device transmit queue with ECN marking, for switch and host ports.
 *
 * Set as a PointToPointNetDevice's TxQueue, it holds packets with the PPP header in front; as a
 * TalbPfcNetDevice's, plain IPv4 packets. Eight bands, band 0 served first. A packet's band is
 * - the priority of its TalbTag, else
 * - the TaLB priority of its DSCP (talb_priority_from_dscp), else
 * - ControlBand for a TCP segment without payload (ACK, SYN, FIN) or a RoCEv2 ACK, NAK or CNP,
 *   else
 * - UntaggedBand.
 * All bands share one buffer of MaxSize (drop-tail). On arrival, an ECN-capable packet (ECT(0)
 * or ECT(1)) is marked CE by one of two profiles, on the port's occupancy (or, with EcnPerBand,
 * its band's occupancy):
 * - step (DCTCP): marked when the occupancy is at least MarkThreshold;
 * - RED-like (DCQCN), when EcnKmax is above zero: never at or below EcnKmin, always above
 *   EcnKmax, and in between with a probability rising linearly from 0 to EcnPmax.
 * The IPv4 header is rewritten, with its checksum when checksums are enabled.
 *
 * A TalbPfcNetDevice dequeues with DequeueUnpaused(), which skips the bands its peer has paused
 * (priority flow control); each band stays first-in first-out.
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

    /**
     * Dequeue the head of the highest-priority non-empty band whose bit in \p pausedMask is
     * clear. Dequeue() is DequeueUnpaused(0, ...).
     * \param pausedMask bit b set: band b is paused
     * \param band receives the band of the returned packet
     * \return the packet, or null when every non-empty band is paused
     */
    Ptr<Packet> DequeueUnpaused(uint8_t pausedMask, uint8_t* band);

    /// \return the band \p item would be queued in
    uint8_t Classify(Ptr<const Packet> item) const;
    /// \return the UntaggedBand attribute
    uint8_t GetUntaggedBand() const;

    /**
     * Fix the random stream of the RED-like ECN profile.
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

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
        bool ipv4{false};     //!< an IPv4 packet
        uint32_t ipOffset{0}; //!< offset of the IPv4 header (2 behind a PPP header)
        uint8_t tos{0};       //!< IPv4 TOS byte
        bool control{false};  //!< TCP segment without payload, or RoCEv2 ACK/NAK/CNP
    };

    Parsed Parse(Ptr<const Packet> item) const;
    uint8_t BandOf(Ptr<const Packet> item, const Parsed& parsed) const;
    bool ShouldMark(uint8_t band);
    void MarkCe(Ptr<Packet> item, const Parsed& parsed);
    /// \return the lowest non-empty band not in \p pausedMask, or TALB_NUM_PRIORITIES
    uint8_t FirstBand(uint8_t pausedMask) const;
    /// Remove the head of band \p band (dequeued, or removed when \p remove).
    Ptr<Packet> TakeHead(uint8_t band, bool remove);

    uint8_t m_controlBand;                //!< ControlBand attribute
    uint8_t m_untaggedBand;               //!< UntaggedBand attribute
    bool m_useEcn;                        //!< UseEcn attribute
    bool m_ecnPerBand;                    //!< EcnPerBand attribute
    QueueSize m_markThreshold;            //!< MarkThreshold attribute
    QueueSize m_kmin;                     //!< EcnKmin attribute
    QueueSize m_kmax;                     //!< EcnKmax attribute
    double m_pmax;                        //!< EcnPmax attribute
    Ptr<UniformRandomVariable> m_uniform; //!< RED-like profile's draws (created when used)

    std::array<Iterator, TALB_NUM_PRIORITIES> m_head; //!< first packet of each non-empty band
    std::array<uint32_t, TALB_NUM_PRIORITIES> m_bandPackets;
    std::array<uint32_t, TALB_NUM_PRIORITIES> m_bandBytes;
    uint64_t m_nMarked;
};

} // namespace ns3

#endif /* TALB_PRIORITY_QUEUE_H */
