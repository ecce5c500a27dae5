#ifndef TALB_PRR_RECOVERY_H
#define TALB_PRR_RECOVERY_H

#include "ns3/tcp-prr-recovery.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief ns-3's proportional rate reduction with Linux's floor: during an ECN congestion-window
 * reduction (CA_CWR) and when a reduction ends, the window never drops below one segment.
 *
 * ns-3's PRR sets cwnd to the bytes in flight plus a send count that is 0 when an ACK delivers
 * no new data (segments SACKed earlier, spurious retransmissions counted as sent), so a CWR
 * episode can end with cwnd below one segment and nothing in flight. ns-3 leaves CWR only on an
 * ACK beyond the highest sequence sent at its start (as Linux does), no timer runs while the
 * send buffer is empty, and when the application writes again silly-window avoidance holds the
 * data: the connection never sends again. The same happens when a reduction ends with cwnd set
 * to TcpDctcp's ssthresh, (1 - alpha / 2) cwnd, which ns-3 does not keep above one segment after
 * repeated marks. Linux keeps DCTCP's ssthresh at two packets or more, keeps cwnd at least one
 * packet above the packets in flight on every ACK that advances SND.UNA and arms a probe timer, so
 * it never stalls here.
 */
class TalbPrrRecovery : public TcpPrrRecovery
{
  public:
    static TypeId GetTypeId();
    TalbPrrRecovery();
    TalbPrrRecovery(const TalbPrrRecovery& recovery);
    ~TalbPrrRecovery() override;

    std::string GetName() const override;
    void DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes) override;
    void ExitRecovery(Ptr<TcpSocketState> tcb) override;
    Ptr<TcpRecoveryOps> Fork() override;
};

} // namespace ns3

#endif // TALB_PRR_RECOVERY_H
