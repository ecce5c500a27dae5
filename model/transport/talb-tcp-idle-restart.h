#ifndef TALB_TCP_IDLE_RESTART_H
#define TALB_TCP_IDLE_RESTART_H

#include "ns3/nstime.h"
#include "ns3/tcp-congestion-ops.h"

namespace ns3
{

class Packet;
class TcpHeader;
class TcpSocketBase;

/**
 * \ingroup talb-transport
 * \brief Linux's slow start after idle (net.ipv4.tcp_slow_start_after_idle, on by default)
 * around another congestion control: a connection that sends again after more than one
 * retransmission timeout without sending restarts from a smaller window.
 *
 * ns-3's TCP keeps the congestion window of an idle connection as it was, so a training
 * connection that waited through a compute phase sends its next message at the window it
 * learned on the last one, a line-rate burst into ports that other connections now share (or,
 * under a balancer that re-places flows between messages, on another path altogether). Linux
 * (tcp_cwnd_restart) halves the window once per RTO of idle time, no lower than the initial
 * window (or the window, if smaller), and first raises ssthresh to 3/4 of the window, so slow
 * start climbs back to where it was. The idle time runs from the last segment sent (the
 * socket's Tx trace: Linux's lsndtime) and is compared with the socket's current RTO (its RTO
 * trace: Linux's icsk_rto); ns-3 calls CwndEvent(CA_EVENT_TX_START) before it sends with
 * nothing in flight, where Linux checks too.
 *
 * Everything else is the wrapped algorithm's (NewReno, DCTCP with its ECN handling): every
 * call is forwarded, and GetName() is the wrapped one's.
 */
class TalbTcpIdleRestart : public TcpCongestionOps
{
  public:
    static TypeId GetTypeId();
    TalbTcpIdleRestart();
    ~TalbTcpIdleRestart() override;

    /**
     * Make the wrapped algorithm \p inner the congestion control of \p socket (before it
     * connects), with the idle restart around it.
     * \return the installed wrapper, whose GetRestarts() counts the socket's restarts
     */
    static Ptr<TalbTcpIdleRestart> Install(Ptr<TcpSocketBase> socket, Ptr<TcpCongestionOps> inner);

    /// \return how many times the window restarted after idle
    uint64_t GetRestarts() const;

    /**
     * Linux's tcp_cwnd_restart on \p tcb after \p idle without sending, \p rto the current
     * retransmission timeout: outside recovery ssthresh rises to at least 3/4 of the window;
     * the window halves once per whole \p rto in \p idle, down to the initial window (or the
     * window, if smaller).
     */
    static void RestartWindow(Ptr<TcpSocketState> tcb, Time idle, Time rto);

    std::string GetName() const override;
    void Init(Ptr<TcpSocketState> tcb) override;
    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override;
    void IncreaseWindow(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked) override;
    void PktsAcked(Ptr<TcpSocketState> tcb, uint32_t segmentsAcked, const Time& rtt) override;
    void CongestionStateSet(Ptr<TcpSocketState> tcb,
                            const TcpSocketState::TcpCongState_t newState) override;
    void CwndEvent(Ptr<TcpSocketState> tcb, const TcpSocketState::TcpCAEvent_t event) override;
    bool HasCongControl() const override;
    void CongControl(Ptr<TcpSocketState> tcb,
                     const TcpRateOps::TcpRateConnection& rc,
                     const TcpRateOps::TcpRateSample& rs) override;
    /// Accepted sockets would need their own traces: the wrapper goes on senders only.
    Ptr<TcpCongestionOps> Fork() override;

  private:
    void SegmentSent(Ptr<const Packet> segment,
                     const TcpHeader& header,
                     Ptr<const TcpSocketBase> socket);
    void RtoChanged(Time from, Time to);

    Ptr<TcpCongestionOps> m_inner;
    bool m_sent{false}; //!< m_lastSent is valid
    Time m_lastSent;
    Time m_rto{Time::Max()}; //!< until the socket's first RTO estimate: no restart
    uint64_t m_restarts{0};
};

} // namespace ns3

#endif // TALB_TCP_IDLE_RESTART_H
