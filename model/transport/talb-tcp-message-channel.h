#ifndef TALB_TCP_MESSAGE_CHANNEL_H
#define TALB_TCP_MESSAGE_CHANNEL_H

#include "talb-message-channel.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/sequence-number.h"
#include "ns3/socket.h"
#include "ns3/talb-plb.h"
#include "ns3/talb-wire.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-state.h"

#include <deque>

namespace ns3
{

class TcpSocketBase;
class TalbTcpIdleRestart;
class TalbTcpRackTlpSocket;
class TalbTcpReordering;

/**
 * \ingroup talb-transport
 * \brief The TCP message channel: one direction of a persistent TCP connection between two
 * hosts (TalbTcpTransport opens it).
 *
 * The sender queues messages and hands them to its socket in pieces as send-buffer space
 * frees: the frame header (talb_frame_encode, the NCCL plugin's 16-byte frame) as real bytes,
 * in the same Send as the first payload bytes (the plugin writes both with one sendmsg), the
 * payload as zero-filled virtual bytes (never held in memory). Every byte carries a
 * TalbTensorByteTag; FIRST / LAST markers go only on the bytes the message's parts flag. The
 * receiver parses the byte stream (no per-byte work, no allocation beyond the packets TCP hands
 * up), decodes each header (talb_frame_decode), checks it against the sender's record (TCP
 * delivers in order) and reports the message with its flow record.
 *
 * With PLB (EnablePlb(); the sender's congestion control must be DCTCP, whose ECN marks it
 * reads) the sender counts DCTCP's observation windows (one per round trip) as PLB's rounds and,
 * after enough congested ones in a row, gives its segments a new TalbFlowLabelTag: a new path.
 * As Linux's TCP PLB it repaths when the connection is idle (no segment then overtakes
 * another), or at once after PlbForceRounds congested rounds.
 *
 * With EnableSlowStartAfterIdle() the sender's congestion control is wrapped in
 * TalbTcpIdleRestart (Linux's net.ipv4.tcp_slow_start_after_idle). With
 * EnableAdaptiveReordering() the sender's duplicate-ACK threshold follows the reordering it sees
 * (TalbTcpReordering, Linux's tp->reordering). With EnableRackTlp() the sender is a
 * TalbTcpRackTlpSocket (Linux's RACK-TLP loss detection).
 */
class TalbTcpMessageChannel : public TalbMessageChannel
{
  public:
    static TypeId GetTypeId();
    TalbTcpMessageChannel();
    ~TalbTcpMessageChannel() override;

    /// The sender socket's retransmissions (segments below its highest sequence sent so far).
    struct Stats
    {
        uint64_t retransmittedSegments{0}; //!< data segments sent again
        uint64_t retransmittedBytes{0};    //!< their payload bytes
        uint64_t timeouts{0};   //!< RTO episodes (entries into CA_LOSS; backed-off RTOs count once)
        uint64_t plbRepaths{0}; //!< PLB's repaths (new flow labels)
        uint64_t idleRestarts{0};     //!< windows restarted after idle (EnableSlowStartAfterIdle)
        uint64_t reorderingRaises{0}; //!< duplicate-ACK threshold raises (adaptive reordering)
        uint64_t lossProbes{0};       //!< tail loss probes sent (EnableRackTlp)
        uint64_t probeLosses{0};      //!< losses their ACKs revealed
        uint64_t rackLosses{0};       //!< first unacknowledged segments RACK found lost
    };

    /// \return the sender's counters so far
    Stats GetStats() const;

    /// Turn PLB on with \p config (before Open(); the node's TCP must be ns3::TcpDctcp).
    void EnablePlb(const TalbPlb::Config& config);
    /// Restart the sender's window after idle as Linux does (before Open(); TalbTcpIdleRestart).
    void EnableSlowStartAfterIdle();
    /**
     * Let the sender's duplicate-ACK threshold rise with the reordering it sees, up to
     * \p maxReordering segments (before Open(); TalbTcpReordering).
     */
    void EnableAdaptiveReordering(uint32_t maxReordering);
    /**
     * Make the sender detect losses as Linux's RACK-TLP, probing for a lost tail after 2 SRTT +
     * \p tlpDelay without an ACK (before Open(); TalbTcpRackTlpSocket).
     */
    void EnableRackTlp(Time tlpDelay);

    /**
     * Create the sender's TCP socket on \p src bound to \p srcAddr and connect it to
     * \p dstAddr : \p dstPort. Messages sent before the connection is up wait in the queue.
     */
    void Open(Ptr<Node> src, Ipv4Address srcAddr, Ipv4Address dstAddr, uint16_t dstPort);
    /// \return the sender socket's local port (known after Open)
    uint16_t GetSrcPort() const;
    /// Give the channel the destination's accepted socket (the listener matched it).
    void AttachReceiver(Ptr<Socket> socket);
    /**
     * Instead of Open() where another simulation rank simulates the sender (which opens the
     * connection there): this channel only receives, learning each message from its header's
     * TalbMessageTag and the sender's port from the accepted connection.
     */
    void OpenElsewhere(Ipv4Address srcAddr, Ipv4Address dstAddr, uint16_t dstPort);

  protected:
    void DoDispose() override;

  private:
    void DoSend(TalbMessage&& message) override;
    void ConnectionSucceeded(Ptr<Socket> socket);
    void ConnectionFailed(Ptr<Socket> socket);
    void SendSpace(Ptr<Socket> socket, uint32_t available);
    /// Hand as many bytes of the queue to the socket as its buffer takes.
    void TrySend();
    /// Move the queue's head in flight. \return its frame header, tagged
    Ptr<Packet> StartMessage();
    /**
     * Append up to \p budget bytes of m_current's payload to \p *p (or make \p *p of them
     * when null), tagged; clears m_current once every part is appended.
     */
    void AppendPayload(Ptr<Packet>* p, uint32_t budget);
    void HandleRead(Ptr<Socket> socket);
    /// The sender socket's Tx trace: counts data segments that start below m_highestSent.
    void SegmentSent(Ptr<const Packet> segment,
                     const TcpHeader& header,
                     Ptr<const TcpSocketBase> socket);
    /// The sender socket's CongState trace: counts RTOs (TCP enters CA_LOSS only on one).
    void CongStateChanged(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to);
    /// The sender socket's HighestRxAck trace: completes the messages it acknowledges in full.
    void AckAdvanced(SequenceNumber32 from, SequenceNumber32 to);
    /// DCTCP's CongestionEstimate trace, once per observation window: a PLB round.
    void RoundEnded(uint32_t bytesMarked, uint32_t bytesAcked, double alpha);
    /// A new flow label for the segments sent from now on.
    void Repath();
    void HeaderReceived();
    /// The sender is elsewhere: read the TalbMessageTag on \p p's first byte (a header's).
    void ReadMessageTag(Ptr<const Packet> p);
    void MessageReceived();

    Ptr<Socket> m_tx;
    Ptr<Socket> m_rx;
    Ipv4Address m_srcAddr;
    Ipv4Address m_dstAddr;
    uint16_t m_srcPort{0};
    uint16_t m_dstPort{0};
    bool m_connected{false};
    bool m_sentData{false};          //!< m_highestSent is valid
    SequenceNumber32 m_highestSent;  //!< end of the highest data segment sent
    SequenceNumber32 m_highestAcked; //!< the highest acknowledgement (after the SYN's)
    bool m_plbEnabled{false};
    TalbPlb m_plb;
    bool m_slowStartAfterIdle{false};
    Ptr<TalbTcpIdleRestart> m_idleRestart; //!< the sender's, with m_slowStartAfterIdle
    uint32_t m_maxReordering{0};           //!< 0: the socket's fixed threshold
    Ptr<TalbTcpReordering> m_reordering;   //!< the sender's, with m_maxReordering
    bool m_rackTlp{false};
    Time m_tlpDelay;                  //!< with m_rackTlp
    Ptr<TalbTcpRackTlpSocket> m_rack; //!< m_tx, with m_rackTlp
    uint32_t m_flowLabel{0};          //!< 0 until PLB's first repath
    Stats m_stats;
    uint32_t m_rxOpId{0};      //!< sender elsewhere: the incoming message's TalbMessageTag
    uint16_t m_rxStep{0};      //!< ...
    uint32_t m_rxIteration{0}; //!< ...
    Time m_rxStart;            //!< ...

    /// A message handed to the socket, awaiting the acknowledgement of its last byte.
    struct Unacked
    {
        uint64_t end;          //!< stream offset just past its last byte
        TalbFlowRecord record; //!< all but its end
    };

    bool m_synAcked{false};             //!< the first HighestRxAck change (SYN-ACK) was seen
    uint64_t m_streamSent{0};           //!< stream bytes handed to the socket
    uint64_t m_streamAcked{0};          //!< stream bytes acknowledged
    std::deque<Unacked> m_unacked;      //!< in stream order
    std::deque<TalbMessage> m_queue;    //!< not started yet
    std::deque<TalbMessage> m_inFlight; //!< header handed over, awaiting reception
    TalbMessage* m_current{nullptr};    //!< in m_inFlight: payload still being handed over
    std::size_t m_part{0};              //!< m_current's part being sent
    uint64_t m_partSent{0};             //!< bytes of that part handed over

    uint8_t m_rxHeader[TALB_FRAME_LEN];
    uint32_t m_rxHeaderFill{0};
    uint64_t m_rxPayloadLeft{0};
};

} // namespace ns3

#endif /* TALB_TCP_MESSAGE_CHANNEL_H */
