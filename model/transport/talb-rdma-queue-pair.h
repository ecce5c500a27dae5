#ifndef TALB_RDMA_QUEUE_PAIR_H
#define TALB_RDMA_QUEUE_PAIR_H

#include "talb-entropy-policy.h"
#include "talb-rdma-rate-control.h"
#include "talb-roce-header.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/talb-int-tag.h"
#include "ns3/talb-wire.h"

#include <deque>
#include <set>
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
 * an ACK every AckInterval packets, at each message's last packet and at a packet with the A bit
 * (the requester's RTT probe, with MeasureRtt or TIMELY), one NAK per missing PSN, an
 * ACK for a duplicate, and a CNP for an ECN-marked packet at most once per CnpInterval.
 *
 * Selective repeat (the NIC's Recovery SelectiveRepeat, IRN-style: Mittal et al., "Revisiting
 * Network Support for RDMA", SIGCOMM 2018) replaces go-back-N on both ends. The responder
 * places every packet within the queue pair's window (the NIC's SelectiveRepeatWindow) in a
 * bitmap instead of dropping what arrives early, advances the expected PSN over what has
 * arrived, and delivers a message once all its packets are in, so messages still reach the
 * application in order. It answers with selective acknowledgements (OP_SACK: the cumulative PSN,
 * a bitmap of the 64 PSNs after the first missing one, and the entropy and ECN mark of the
 * packet that triggered it) every AckInterval in-order packets, at once for a placed packet or
 * a filled hole, for a packet with the A bit (a message's last) and once per run of duplicates;
 * never a NAK. The requester keeps at most the window in
 * flight (IRN's BDP-FC), declares a packet lost once a packet ReorderThreshold PSNs beyond it
 * (or beyond where its retransmission left off) has been selectively acknowledged, sends only
 * the lost packets again (before new ones), and on a retransmission timeout sends again every
 * packet not selectively acknowledged. With an entropy policy (the NIC's EntropyPolicy) every
 * data packet, new or retransmitted, takes its UDP source port from the policy, which hears of
 * every acknowledgement's echo and every loss: packet spraying.
 *
 * Messages complete in order: at the requester when its last packet is acknowledged, at the
 * responder when its last packet arrives in order. Both ends number messages 0, 1, ... so a
 * completion names the message without shared state (MPI-friendly).
 *
 * Counter identities (asserted): requester packets sent = new + retransmitted; responder data
 * packets = accepted + placed + out of order + duplicates.
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
        uint64_t retransmittedPackets{0}; //!< ... again (go-back-N or selective repeat)
        uint64_t bytesSent{0};            //!< payload bytes of data packets sent
        uint64_t retransmittedBytes{0};   //!< ... of retransmitted packets
        uint64_t acksReceived{0};
        uint64_t naksReceived{0};
        uint64_t timeouts{0};
        uint64_t cnpsReceived{0};
        uint64_t packetsDeclaredLost{0}; //!< selective repeat: packets marked for sending again
        uint64_t repaths{0};             //!< Repath() calls (PLB moved the queue pair)
        // responder
        uint64_t packetsReceived{0};   //!< data packets that arrived
        uint64_t packetsAccepted{0};   //!< ... in order
        uint64_t packetsPlaced{0};     //!< ... beyond the expected PSN, kept (selective repeat)
        uint64_t packetsOutOfOrder{0}; //!< ... beyond the expected PSN (go-back-N) or the
                                       //!< window (selective repeat), dropped
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
    /// \return true when the queue pair recovers losses by selective repeat
    bool IsSelectiveRepeat() const;
    /// \return its entropy policy (selective repeat with the NIC's EntropyPolicy), or null
    Ptr<TalbEntropyPolicy> GetEntropyPolicy() const;

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
    /// \return true if a duplicate packet is to be acknowledged (and notes that it is)
    bool AnswerDuplicate();
    /// \return the queue band (PFC priority) of the next packet
    uint8_t NextBand() const;
    /// \return the time the pacing allows the next packet
    Time NextSendTime() const;
    /// Build the next packet and advance.
    Ptr<Packet> SendNext();
    void ReceiveData(const TalbRoceHeader& h, uint32_t payload, bool ce);
    /// \param telemetry the telemetry the acknowledgement echoes (null: none)
    void ReceiveAck(const TalbRoceHeader& h, const TalbIntTag* telemetry);
    void ReceiveCnp();
    /// Selective repeat's responder: place, deliver, acknowledge.
    void ReceiveDataSelective(const TalbRoceHeader& h, uint32_t payload, bool ce);
    /// Selective repeat's requester: an OP_SACK (\p telemetry as for ReceiveAck).
    void ReceiveSack(const TalbRoceHeader& h, const TalbIntTag* telemetry);

    /// Index in m_messages of the message holding \p psn.
    std::size_t MessageOf(uint64_t psn) const;

  public:
    /// \return the 64-bit PSN whose low 24 bits are \p psn24 nearest to \p reference
    static uint64_t ExpandPsn(uint32_t psn24, uint64_t reference);

  private:
    /// Point the send cursors at \p psn.
    void SetCursor(uint64_t psn);
    /// Build the packet at m_sndNxt and advance the cursors past it.
    Ptr<Packet> SendPacket();
    /// \return the band of the packet of run \p run of \p m
    uint8_t BandOf(const Message& m, std::size_t run) const;
    /// Complete the messages whose last packet is cumulatively acknowledged.
    void CompleteMessages();
    /// Selective repeat: mark for sending again what the SACKs show lost.
    void DetectLosses();
    /// Selective repeat: mark \p psn for sending again.
    void DeclareLost(uint64_t psn, TalbEntropyPolicy::LossCause cause);
    /// Selective repeat's responder: one packet's bytes in PSN order; delivers a message at its
    /// last. \return true when a message was delivered
    bool Consume(uint32_t payload, bool last);
    /// Selective repeat's responder: send an OP_SACK for the data packet just received.
    void SendSack();
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
    /// \return the round-trip time of the timed packet if \p una acknowledges it (ending the
    /// sample), else zero
    Time TakeRttSample(uint64_t una);

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
    // One RTT sample at a time, on a packet sent once (Karn: a retransmission ends the sample
    // unanswered) with the A bit, so the rate control hears about one RTT per round trip, as a
    // NIC timing its completions does, without per-packet state.
    bool m_rttEnabled{false}; //!< the NIC's MeasureRtt, or the rate control uses RTTs
    bool m_rttTiming{false};  //!< a sample is under way
    uint64_t m_rttPsn{0};     //!< its packet
    Time m_rttSentAt;         //!< when that packet left
    // Each acknowledgement pushes the deadline back; the one pending event follows it when it
    // comes due instead of being cancelled and scheduled again (the cancelled events of a run
    // stayed in the event queue until their time, 4 ms later: thousands per queue pair).
    EventId m_timer;      //!< the timer's pending event (at or before m_timerDeadline)
    Time m_timerDeadline; //!< when the armed timer expires
    bool m_timerArmed{false};
    bool m_active{false}; //!< in the NIC's list of queue pairs with data
    // In-band telemetry (a rate control that UsesTelemetry)
    TalbIntTag m_echoTelemetry; //!< responder: the last data packet's, for its acknowledgement
    bool m_hasEchoTelemetry{false};

    // Selective repeat (both roles)
    bool m_selective{false};
    Ptr<TalbEntropyPolicy> m_entropy; //!< null: every packet with m_sourcePort
    uint64_t m_window{0};             //!< packets in flight at most / the responder accepts

    /// Selective repeat's requester: a sent, not cumulatively acknowledged packet.
    struct SentPacket
    {
        uint64_t mark{0};    //!< m_maxSent when it last left: SACKs beyond show it lost
        uint16_t entropy{0}; //!< its source port when it last left
        bool sacked{false};  //!< selectively acknowledged
    };

    std::deque<SentPacket> m_sent; //!< PSNs [m_sndUna, m_maxSent)
    std::set<uint64_t> m_retx;     //!< PSNs declared lost, not yet sent again
    uint64_t m_highSacked{0};      //!< one past the highest PSN selectively acknowledged

    /// Selective repeat's responder: a PSN at or beyond the expected one.
    struct RxSlot
    {
        bool received{false};
        bool last{false}; //!< a message's last packet
        uint32_t payload{0};
    };

    std::deque<RxSlot> m_rxSlots; //!< PSNs m_ePsn, m_ePsn + 1, ...
    uint16_t m_echoEntropy{0};    //!< source port of the data packet last received
    bool m_echoCe{false};         //!< ... and whether it was CE-marked
    uint16_t m_ackPort{0};        //!< SelectiveRepeat: source port of the data packet last received

    // Responder
    uint64_t m_ePsn{0};     //!< expected PSN
    uint64_t m_rxSeq{0};    //!< sequence number of the message being received
    uint64_t m_rxBytes{0};  //!< its bytes so far
    uint32_t m_unacked{0};  //!< packets accepted since the last ACK
    bool m_nakSent{false};  //!< a NAK for m_ePsn is out
    bool m_dupAcked{false}; //!< a duplicate was answered since the last new packet
    Time m_dupAckedAt;      //!< ... when
    Time m_lastCnp;
    bool m_cnpSent{false}; //!< m_lastCnp is valid
};

} // namespace ns3

#endif /* TALB_RDMA_QUEUE_PAIR_H */
