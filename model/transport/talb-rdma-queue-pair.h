#ifndef TALB_RDMA_QUEUE_PAIR_H
#define TALB_RDMA_QUEUE_PAIR_H

#include "talb-rdma-rate-control.h"
#include "talb-roce-header.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/talb-wire.h"

#include <deque>
#include <vector>

namespace ns3
{

class TalbRdmaNic;

/**
 * \ingroup talb-transport
 * \brief A run of message bytes with one TaLB label (or none): what the switches see in the
 * label of every packet whose first payload byte lies in it.
 */
struct TalbRdmaLabelRun
{
    uint64_t bytes{0};    //!< length of the run
    bool labelled{false}; //!< false: the run's packets carry no label (background bytes)

    /// tensor, priority; FIRST: the run's first byte is the tensor's first byte on this queue
    /// pair; LAST: its last byte is the tensor's last
    struct talb_label label
    {
        0, TALB_NUM_PRIORITIES - 1, 0
    };
};

/**
 * \ingroup talb-transport
 * \brief One end of a reliable-connected RoCEv2 queue pair: a requester (sends messages) and a
 * responder (receives the peer's), created by and living in a TalbRdmaNic.
 *
 * The requester packetises each posted message into PSN-numbered packets of at most the NIC's
 * Mtu payload bytes (a packet never spans two messages, as RDMA SENDs are packetised), paced at
 * the rate its rate control (TalbRdmaRateControl) allows. Acknowledgements are cumulative; a NAK
 * (PSN sequence error) or a retransmission timeout sends everything again from the oldest
 * unacknowledged packet: go-back-N, as RoCEv2 NICs do, so a lost or reordered packet costs the
 * packets behind it. The responder accepts only the expected PSN, drops the rest, and answers:
 * an ACK every AckInterval packets and at each message's last packet, one NAK per missing PSN, an
 * ACK for a duplicate, and a CNP for an ECN-marked packet at most once per CnpInterval.
 *
 * Messages complete in order: at the requester when its last packet is acknowledged, at the
 * responder when its last packet arrives in order. Both ends number messages 0, 1, ... so a
 * completion names the message without shared state (MPI-friendly).
 *
 * Counter identities (asserted): requester packets sent = new + retransmitted; responder data
 * packets = accepted + out of order + duplicates.
 */
class TalbRdmaQueuePair : public Object
{
  public:
    static TypeId GetTypeId();
    TalbRdmaQueuePair();
    ~TalbRdmaQueuePair() override;

    /// Requester: message \p seq is fully acknowledged.
    typedef Callback<void, Ptr<TalbRdmaQueuePair>, uint64_t> SendCompleteCallback;
    /// Responder: message \p seq of \p bytes has arrived.
    typedef Callback<void, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t> ReceiveCallback;

    /// Counters of both roles.
    struct Stats
    {
        // requester
        uint64_t messagesPosted{0};
        uint64_t messagesCompleted{0};
        uint64_t packetsSent{0};          //!< data packets sent
        uint64_t newPackets{0};           //!< ... for the first time
        uint64_t retransmittedPackets{0}; //!< ... again (go-back-N)
        uint64_t bytesSent{0};            //!< payload bytes of data packets sent
        uint64_t retransmittedBytes{0};   //!< ... of retransmitted packets
        uint64_t acksReceived{0};
        uint64_t naksReceived{0};
        uint64_t timeouts{0};
        uint64_t cnpsReceived{0};
        uint64_t repaths{0}; //!< Repath() calls (PLB moved the queue pair)
        // responder
        uint64_t packetsReceived{0};   //!< data packets that arrived
        uint64_t packetsAccepted{0};   //!< ... in order
        uint64_t packetsOutOfOrder{0}; //!< ... beyond the expected PSN (dropped)
        uint64_t packetsDuplicate{0};  //!< ... already received (dropped)
        uint64_t bytesReceived{0};     //!< payload bytes accepted
        uint64_t messagesReceived{0};
        uint64_t ceReceived{0}; //!< ECN-marked data packets
        uint64_t acksSent{0};
        uint64_t naksSent{0};
        uint64_t cnpsSent{0};
    };

    /**
     * Post a message for sending.
     * \param bytes its length (0: one packet without payload)
     * \param runs its labelled runs, covering exactly \p bytes; empty: no label
     * \return its sequence number on this queue pair
     */
    uint64_t PostSend(uint64_t bytes, std::vector<TalbRdmaLabelRun> runs = {});

    /// SetTrafficClass value: each labelled packet in its label's priority (the default).
    static constexpr uint8_t TRAFFIC_CLASS_OF_LABEL = 0xFF;
    /**
     * Give the queue pair one traffic class, as a RoCE NIC does when the connection is set up
     * (NCCL_IB_TC): every data packet gets the DSCP of \p priority (talb_dscp_from_priority)
     * and leaves in the host's band \p priority, whatever its label; the TalbTag (TaLB option)
     * still carries the label's own priority for the balancers.
     * \param priority 0..7, or TRAFFIC_CLASS_OF_LABEL: each labelled packet's DSCP and band
     *        follow its label (the NIC's AddTag/SetDscp), unlabelled ones take UntaggedBand
     */
    void SetTrafficClass(uint8_t priority);
    /// \return the SetTrafficClass value
    uint8_t GetTrafficClass() const;

    void SetSendCompleteCallback(SendCompleteCallback cb);
    void SetReceiveCallback(ReceiveCallback cb);

    uint32_t GetQpn() const;
    uint32_t GetPeerQpn() const;
    Ipv4Address GetLocalAddress() const;
    Ipv4Address GetPeerAddress() const;
    /// \return the UDP source port of its packets (flow entropy for ECMP)
    uint16_t GetSourcePort() const;
    /**
     * Give the queue pair's packets UDP source port \p port from the next packet on (at set-up:
     * queue pairs of one connection that share their entropy).
     */
    void SetSourcePort(uint16_t port);
    /// SetSourcePort(\p port) to move the queue pair to another path (PLB), counted in
    /// Stats::repaths.
    void Repath(uint16_t port);
    Ptr<TalbRdmaNic> GetNic() const;
    Ptr<TalbRdmaRateControl> GetRateControl() const;
    DataRate GetRate() const;
    /// \return messages posted and not yet acknowledged
    std::size_t GetPendingMessages() const;
    const Stats& GetStats() const;

  protected:
    void DoDispose() override;

  private:
    friend class TalbRdmaNic;

    /// A posted message, until acknowledged.
    struct Message
    {
        uint64_t seq{0};
        uint64_t bytes{0};
        uint64_t firstPsn{0};
        uint64_t packets{0};
        std::vector<TalbRdmaLabelRun> runs;
        std::vector<uint64_t> runStart; //!< offset of each run, plus the total at the end
    };

    // Called by the NIC.
    void Setup(TalbRdmaNic* nic, uint32_t qpn, Ipv4Address local, Ptr<TalbRdmaRateControl> cc);
    /// Connect to the peer; both directions start at PSN \p initialPsn (24 bits).
    void SetPeer(Ipv4Address peer, uint32_t peerQpn, uint32_t initialPsn);
    /// \return true when a packet is waiting to be sent (regardless of pacing and pause)
    bool HasData() const;
    /// \return true when the window (if any) lets the next packet go
    bool WindowOpen() const;
    /// \return the queue band (PFC priority) of the next packet
    uint8_t NextBand() const;
    /// \return the time the pacing allows the next packet
    Time NextSendTime() const;
    /// Build the next packet and advance.
    Ptr<Packet> SendNext();
    void ReceiveData(const TalbRoceHeader& h, uint32_t payload, bool ce);
    void ReceiveAck(const TalbRoceHeader& h);
    void ReceiveCnp();

    /// Index in m_messages of the message holding \p psn.
    std::size_t MessageOf(uint64_t psn) const;

  public:
    /// \return the 64-bit PSN whose low 24 bits are \p psn24 nearest to \p reference
    static uint64_t ExpandPsn(uint32_t psn24, uint64_t reference);

  private:
    /// Point the send cursors at \p psn.
    void SetCursor(uint64_t psn);
    void GoBack(uint64_t psn, bool timeout);
    /// Pacing: the next packet may leave one packet time at the current rate after the last.
    void UpdateNextSend();
    void RestartTimer();
    /// Arm the retransmission timer to expire m_nic->m_rto from now.
    void ArmTimer();
    /// The timer's event: expire at the deadline, or wait on for a later one.
    void TimerEvent();
    void Timeout();
    void RateChanged(DataRate rate);

    TalbRdmaNic* m_nic{nullptr}; //!< owner (the NIC outlives its queue pairs)
    uint32_t m_qpn{0};
    uint32_t m_peerQpn{0};
    Ipv4Address m_local;
    Ipv4Address m_peer;
    uint16_t m_sourcePort{0};
    uint8_t m_trafficClass{TRAFFIC_CLASS_OF_LABEL};
    Ptr<TalbRdmaRateControl> m_cc;
    SendCompleteCallback m_sendComplete;
    ReceiveCallback m_receive;
    Stats m_stats;

    // Requester
    std::deque<Message> m_messages; //!< posted, not fully acknowledged
    uint64_t m_nextSeq{0};          //!< sequence number of the next posted message
    uint64_t m_postPsn{0};          //!< first PSN of the next posted message
    uint64_t m_sndNxt{0};           //!< next PSN to send
    uint64_t m_sndUna{0};           //!< oldest unacknowledged PSN
    uint64_t m_maxSent{0};          //!< one past the highest PSN ever sent
    std::size_t m_cursor{0};        //!< index in m_messages of the message holding m_sndNxt
    std::size_t m_runCursor{0};     //!< run of that message holding m_sndNxt's first byte
    Time m_nextSend;                //!< pacing: earliest time of the next packet
    Time m_lastSend;                //!< when the last packet left
    uint32_t m_lastWireBytes{0};    //!< its wire bytes
    uint16_t m_ipId{0};
    // Each acknowledgement pushes the deadline back; the one pending event follows it when it
    // comes due instead of being cancelled and scheduled again (the cancelled events of a run
    // stayed in the event queue until their time, 4 ms later: thousands per queue pair).
    EventId m_timer;      //!< the timer's pending event (at or before m_timerDeadline)
    Time m_timerDeadline; //!< when the armed timer expires
    bool m_timerArmed{false};
    bool m_active{false}; //!< in the NIC's list of queue pairs with data

    // Responder
    uint64_t m_ePsn{0};     //!< expected PSN
    uint64_t m_rxSeq{0};    //!< sequence number of the message being received
    uint64_t m_rxBytes{0};  //!< its bytes so far
    uint32_t m_unacked{0};  //!< packets accepted since the last ACK
    bool m_nakSent{false};  //!< a NAK for m_ePsn is out
    bool m_dupAcked{false}; //!< a duplicate was answered since the last new packet
    Time m_lastCnp;
    bool m_cnpSent{false}; //!< m_lastCnp is valid
};

} // namespace ns3

#endif /* TALB_RDMA_QUEUE_PAIR_H */
