#ifndef TALB_TCP_REORDERING_H
#define TALB_TCP_REORDERING_H

#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/sequence-number.h"
#include "ns3/tcp-option-sack.h"
#include "ns3/tcp-socket-state.h"

#include <vector>

namespace ns3
{

class Packet;
class TcpHeader;
class TcpSocketBase;

/**
 * \ingroup talb-transport
 * \brief Linux's adaptive reordering degree (tp->reordering) for an ns-3 TCP sender: the
 * duplicate-ACK threshold rises to the reordering the connection has seen.
 *
 * ns-3's TCP enters fast recovery after a fixed three duplicate ACKs (ReTxThreshold; with SACK,
 * when three segments above a hole are SACKed). Under packet spraying over unequal queues a
 * segment is often overtaken by more than three, and every such overtaking is a spurious
 * retransmission and a halved window. Linux measures how far segments were overtaken and
 * raises its threshold to that (tcp_check_sack_reordering, up to net.ipv4.tcp_max_reordering,
 * 300): when an ACK newly SACKs or cumulatively acknowledges a segment that was never
 * retransmitted and lies below the highest byte SACKed before that ACK, the segment arrived late,
 * not lost, and the distance from it to that highest byte, in segments, is the new threshold if
 * larger. A retransmitted hole counts too when the ACK that covers it arrives sooner after the
 * retransmission than the connection's minimum RTT: that ACK cannot be the retransmission's, so
 * the original arrived late (Linux tells this from timestamps, tcp_try_undo_partial; ns-3's
 * are in milliseconds, too coarse here). A retransmission timeout while SACKed segments waited
 * (not in recovery) says the degree was overestimated: it falls back to the initial threshold
 * (tcp_enter_loss).
 *
 * Not modelled: Linux's undo of the window reduction of a spurious recovery (DSACK or
 * timestamps; ns-3's receiver sends no DSACK) and RACK's time-based loss detection.
 *
 * The estimator hears the socket's own traces (Tx, Rx before the ACK is processed, CongState) and
 * sets its ReTxThreshold, so the ACK that reveals reordering already counts against the raised
 * threshold, as in Linux; it goes on senders only.
 */
class TalbTcpReordering : public Object
{
  public:
    static TypeId GetTypeId();
    TalbTcpReordering();
    ~TalbTcpReordering() override;

    /**
     * Adapt \p socket's duplicate-ACK threshold (before it connects; its SegmentSize and
     * ReTxThreshold as configured then) up to \p maxReordering segments.
     * \return the installed estimator
     */
    static Ptr<TalbTcpReordering> Install(Ptr<TcpSocketBase> socket, uint32_t maxReordering);

    /**
     * Start estimating for segments of \p segmentSize bytes from threshold \p initial up to
     * \p maxReordering (Install() does this; the methods below are the socket's events).
     */
    void Configure(uint32_t segmentSize, uint32_t initial, uint32_t maxReordering);
    /**
     * A data segment [\p start, \p end) was sent at \p now (again if it starts below the
     * highest sent).
     */
    void Sent(SequenceNumber32 start, SequenceNumber32 end, Time now);
    /// An RTT sample \p rtt (the connection's minimum bounds how soon an ACK can answer).
    void RttSampled(Time rtt);
    /**
     * An ACK of \p ack with SACK \p blocks arrived at \p now (before the socket processes it).
     * \return the threshold from now on
     */
    uint32_t Acked(SequenceNumber32 ack, const TcpOptionSack::SackList& blocks, Time now);
    /// The socket's congestion state changed \p from \p to: a timeout may reset the threshold.
    void StateChanged(TcpSocketState::TcpCongState_t from, TcpSocketState::TcpCongState_t to);

    /// \return the current threshold (segments)
    uint32_t GetThreshold() const;
    /// \return how many times the threshold rose
    uint64_t GetRaises() const;
    /// \return the highest threshold reached
    uint32_t GetMaxThreshold() const;

  private:
    /// A byte range [start, end); for retransmissions, when its bytes were first sent again.
    struct Range
    {
        SequenceNumber32 start;
        SequenceNumber32 end;
        Time sent;
    };

    /// A sorted, disjoint list of ranges (merged ranges keep the earliest time).
    using Ranges = std::vector<Range>;
    static void Insert(Ranges* ranges, SequenceNumber32 start, SequenceNumber32 end, Time sent);
    static void TrimBelow(Ranges* ranges, SequenceNumber32 una);
    /// \return the lowest byte of [start, end) outside \p ranges, or \p end when none
    static SequenceNumber32 LowestOutside(const Ranges& ranges,
                                          SequenceNumber32 start,
                                          SequenceNumber32 end);
    /// \return the lowest byte of [start, end) neither SACKed nor retransmitted, or \p end
    SequenceNumber32 LowestOriginal(SequenceNumber32 start, SequenceNumber32 end) const;
    /// \return the bytes SACKed above \p seq
    uint64_t SackedAbove(SequenceNumber32 seq) const;
    /// The late byte \p late arrived below \p highest: raise the threshold to the distance.
    void Sample(SequenceNumber32 late, SequenceNumber32 highest);
    void Apply();

    void SegmentSent(Ptr<const Packet> segment,
                     const TcpHeader& header,
                     Ptr<const TcpSocketBase> socket);
    void SegmentReceived(Ptr<const Packet> segment,
                         const TcpHeader& header,
                         Ptr<const TcpSocketBase> socket);
    void RttChanged(Time from, Time to);

    Ptr<TcpSocketBase> m_socket; //!< null when driven directly (tests)
    uint32_t m_segmentSize{1};
    uint32_t m_initial{3};
    uint32_t m_max{300};
    uint32_t m_threshold{3};
    bool m_started{false}; //!< a data segment was sent: the fields below are valid
    SequenceNumber32 m_una;
    SequenceNumber32 m_highSent;
    SequenceNumber32 m_highSacked; //!< highest SACKed byte + 1 (m_una when none)
    Ranges m_retransmitted;        //!< bytes sent more than once, above m_una
    Ranges m_sacked;               //!< bytes SACKed, above m_una
    Time m_minRtt{Time::Max()};
    uint64_t m_raises{0};
    uint32_t m_maxThreshold{3};
};

} // namespace ns3

#endif // TALB_TCP_REORDERING_H
