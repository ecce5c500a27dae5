#include "talb-prr-recovery.h"

#include "ns3/log.h"
#include "ns3/tcp-socket-state.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPrrRecovery");
NS_OBJECT_ENSURE_REGISTERED(TalbPrrRecovery);

TypeId
TalbPrrRecovery::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbPrrRecovery")
                            .SetParent<TcpPrrRecovery>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbPrrRecovery>();
    return tid;
}

TalbPrrRecovery::TalbPrrRecovery()
{
    NS_LOG_FUNCTION(this);
}

TalbPrrRecovery::TalbPrrRecovery(const TalbPrrRecovery& recovery)
    : TcpPrrRecovery(recovery)
{
    NS_LOG_FUNCTION(this);
}

TalbPrrRecovery::~TalbPrrRecovery()
{
    NS_LOG_FUNCTION(this);
}

std::string
TalbPrrRecovery::GetName() const
{
    return "TalbPrrRecovery";
}

void
TalbPrrRecovery::DoRecovery(Ptr<TcpSocketState> tcb, uint32_t deliveredBytes)
{
    NS_LOG_FUNCTION(this << tcb << deliveredBytes);
    TcpPrrRecovery::DoRecovery(tcb, deliveredBytes);
    // Only CWR needs the floor: loss recovery ends on the ACK that reaches its recovery point,
    // and while data is outstanding the retransmission timer runs.
    if (tcb->m_congState == TcpSocketState::CA_CWR && tcb->m_cWnd < tcb->m_segmentSize)
    {
        NS_LOG_DEBUG("cwnd " << tcb->m_cWnd << " below one segment in CWR: raised to "
                             << tcb->m_segmentSize);
        tcb->m_cWnd = tcb->m_segmentSize;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
}

void
TalbPrrRecovery::ExitRecovery(Ptr<TcpSocketState> tcb)
{
    NS_LOG_FUNCTION(this << tcb);
    TcpPrrRecovery::ExitRecovery(tcb);
    // ns-3 leaves a reduction with cwnd = ssthresh, and TcpDctcp's ssthresh, (1 - alpha / 2)
    // cwnd, has no floor (Linux's DCTCP keeps it at two packets or more).
    if (tcb->m_cWnd < tcb->m_segmentSize)
    {
        NS_LOG_DEBUG("cwnd " << tcb->m_cWnd << " below one segment after a reduction: raised to "
                             << tcb->m_segmentSize);
        tcb->m_cWnd = tcb->m_segmentSize;
        tcb->m_cWndInfl = tcb->m_cWnd;
    }
}

Ptr<TcpRecoveryOps>
TalbPrrRecovery::Fork()
{
    return CopyObject<TalbPrrRecovery>(this);
}

} // namespace ns3
