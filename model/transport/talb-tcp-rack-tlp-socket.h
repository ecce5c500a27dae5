#ifndef TALB_TCP_RACK_TLP_SOCKET_H
#define TALB_TCP_RACK_TLP_SOCKET_H

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-socket-base.h"

#include <deque>
#include <map>

namespace ns3
{

class Node;
class TalbTcpDeliveryTimes;

/**
 * \ingroup talb-transport
 * \brief An ns-3 TCP sender with Linux's RACK-TLP loss detection (RFC 8985): the tail loss
 * probe, and RACK's time-based verdict on the first unacknowledged segment.
 *
 * ns-3's TCP detects a loss only from duplicate ACKs (three, or three segments SACKed above a
 * hole; more with TalbTcpReordering): when the last segments of a message are lost nothing
 * follows them to be SACKed, a hole waits for as many SACKs as the threshold, and a
 * retransmission that is lost again is never detected. Then the sender waits for its
 * retransmission timeout (at least MinRto, 5 ms here, a thousand round trips of a data-centre
 * fabric) and restarts from one segment. Linux detects all three by time.
 *
 * **Tail loss probe** (RFC 8985 section 7; Linux's tcp_schedule_loss_probe). When no ACK has
 * come for PTO = 2 SRTT + TlpDelay (Linux's TCP_TIMEOUT_MIN_US, 2 ms; with one segment in
 * flight 2 SRTT + the minimum RTO) and the connection is not in loss recovery, the sender sends
 * one probe: a new segment if the application has written one and the receiver's window allows,
 * else its highest segment again. The probe's ACK then reveals the tail: what was sent before
 * the probe and is neither SACKed nor acknowledged is lost (RACK's rule: the probe, sent at
 * least a PTO later, has arrived), so that ACK is processed with the duplicate-ACK threshold met
 * and the scoreboard's threshold one, and ns-3's fast recovery (PRR) repairs the holes. A probe
 * that was a retransmission and that the ACK acknowledges cumulatively repaired the tail, or the
 * original arrived late; ns-3's receiver sends no DSACK to tell, so, as RFC 8985 asks, the window
 * is reduced as for a loss. When the highest segment sent is already SACKed no probe could be
 * SACKed anew: the segments below it, outstanding for a PTO, are lost by RACK's rule and
 * recovery starts at once. After a probe only the retransmission timer runs, restarted; one
 * probe per episode. A PTO that would fire at or after the retransmission timer is not armed
 * (Linux fires the probe then instead of the timeout).
 *
 * **RACK** (RFC 8985 section 6). Each ACK notes the latest transmission time among the
 * segments it newly SACKs (a retransmission SACKed sooner than the minimum RTT after it was sent
 * is ambiguous and skipped). The first unacknowledged segment is lost once a segment sent no
 * earlier than its latest transmission has been SACKed (at a tie in time, a burst, the SACKed
 * one, higher, went after) and that segment's RTT plus a reordering window have passed since;
 * until then a reordering timer waits. Never retransmitted, it is marked lost and fast recovery
 * starts, however high the duplicate-ACK threshold has risen; retransmitted, its retransmission
 * is lost and it is sent again (ns-3 never resends a retransmitted segment before the timeout).
 * The window is min RTT / 4 times a step count, at most SRTT. Linux widens it by a step (once
 * per round trip, up to 256) on each DSACK, which says a retransmission was spurious, and
 * narrows it after 16 recoveries without one; ns-3's receiver sends no DSACK, so a retransmission
 * of the first unacknowledged segment acknowledged sooner than the minimum RTT after it was sent
 * (the original arrived) counts as one. Without the widening, sprayed segments were found lost
 * by the thousand (doc/talb.rst, "Host TCP"). Linux applies the rule to every outstanding
 * segment; here the others follow as each becomes the first unacknowledged one.
 * RackFirstTransmissions false limits it to retransmissions.
 *
 * SRTT and the minimum RTT are the socket's own, from the ACKs of segments sent once, each timed
 * when sent (Linux's microsecond RTT): ns-3's estimate comes from TCP timestamps in milliseconds
 * and stays at one microsecond below that. No probe before the first sample.
 */
class TalbTcpRackTlpSocket : public TcpSocketBase
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    TalbTcpRackTlpSocket();
    TalbTcpRackTlpSocket(const TalbTcpRackTlpSocket& sock);
    ~TalbTcpRackTlpSocket() override;

    /**
     * \return a socket on \p node made as ns-3's TCP makes its own (the node's congestion
     * control, recovery and RTT estimator types)
     */
    static Ptr<TalbTcpRackTlpSocket> Create(Ptr<Node> node);

    /// \return probes sent
    uint64_t GetProbes() const;
    /// \return losses the probes revealed (a recovery started or a repaired tail's reduction)
    uint64_t GetProbeLosses() const;
    /// \return retransmissions RACK found lost
    uint64_t GetRackLosses() const;
    /// \return the smoothed RTT of the socket's own samples (zero before the first)
    Time GetSmoothedRtt() const;

  protected:
    Ptr<TcpSocketBase> Fork() override;
    uint32_t SendDataPacket(SequenceNumber32 seq, uint32_t maxSize, bool withAck) override;
    void ReceivedAck(Ptr<Packet> packet, const TcpHeader& tcpHeader) override;
    void ReTxTimeout() override;
    void DoDispose() override;

  private:
    /// Shared set-up of both constructors: the rate ops that hear deliveries.
    void HearDeliveries();
    /// \return whether a probe may be armed now (established, not recovering, data in flight)
    bool MayProbe() const;
    /// Arm (or move) the probe timer to PTO from now, if it comes before the RTO.
    void ArmProbe();
    /// The probe timer expired (or an earlier deadline that has since moved).
    void ProbeTimeout();
    /// Every un-SACKed segment is lost (the highest one sent is SACKed): recover now.
    void RecoverBelowHighestSacked();
    /// The cumulative ACK reached \p ack: a sample from the last segment it covers, if sent once.
    void SampleRtt(SequenceNumber32 ack);
    /// RACK's verdict on the first unacknowledged segment's retransmission: lost once a segment
    /// sent no earlier has been SACKed and its RTT plus the reordering window have passed since
    /// (else the reordering timer is set for then).
    void RackHead();
    /// The ACK of \p ack came too soon for the retransmission of the first unacknowledged
    /// segment: the original arrived late; widen the reordering window (Linux's DSACK rule).
    void WidenOnSpurious(SequenceNumber32 ack);
    /// A recovery began: a window widened 16 recoveries ago without a spurious one narrows.
    void RecoveryStarted();

    /// A data segment's end and when it was first sent; again: sent more than once (Karn).
    struct Sent
    {
        SequenceNumber32 end;
        Time at;
        bool again;
    };

    Time m_tlpDelay;             //!< TlpDelay attribute
    bool m_rackFirst{true};      //!< RackFirstTransmissions attribute
    uint32_t m_maxReoSteps{256}; //!< MaxReorderingSteps attribute
    Ptr<TalbTcpDeliveryTimes> m_delivery;
    EventId m_probeEvent;             //!< the timer, at or before m_probeAt
    Time m_probeAt;                   //!< the current deadline (zero: none)
    bool m_probeOut{false};           //!< a probe awaits its ACK
    bool m_probeRetransmitted{false}; //!< ... and was a retransmission
    SequenceNumber32 m_probeStart;    //!< the probe's bytes [start, end)
    SequenceNumber32 m_probeEnd;
    SequenceNumber32 m_highSacked;                  //!< the highest byte SACKed + 1
    std::deque<Sent> m_sent;                        //!< above the cumulative ACK, in sequence order
    std::map<SequenceNumber32, Time> m_sentAgainAt; //!< latest retransmission, by its start
    Time m_srtt;                                    //!< smoothed (gain 1/8); zero before a sample
    Time m_minRtt{Time::Max()};
    Time m_rackDelivered;     //!< the latest transmission time of a segment delivered so far
    Time m_rackRtt;           //!< ... and that segment's RTT
    EventId m_rackEvent;      //!< the reordering timer
    uint32_t m_reoSteps{1};   //!< the reordering window in min RTT / 4
    uint32_t m_reoPersist{0}; //!< recoveries left before it narrows back to one step
    Time m_lastWidened;       //!< at most one step per round trip
    uint64_t m_probes{0};
    uint64_t m_probeLosses{0};
    uint64_t m_rackLosses{0};
};

} // namespace ns3

#endif // TALB_TCP_RACK_TLP_SOCKET_H
