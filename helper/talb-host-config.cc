#include "talb-host-config.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-prr-recovery.h"
#include "ns3/type-id.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbHostConfig");
NS_OBJECT_ENSURE_REGISTERED(TalbHostConfig);

TypeId
TalbHostConfig::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbHostConfig")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbHostConfig>()
            // Linux's net.ipv4.tcp_wmem maximum. Larger buffers do not help a flow that already
            // fills its link, but they let a sender queue more than a switch port holds.
            .AddAttribute("SndBufSize",
                          "TCP send buffer in bytes (Linux: the tcp_wmem maximum, 4 MiB)",
                          UintegerValue(4 << 20),
                          MakeUintegerAccessor(&TalbHostConfig::m_sndBufSize),
                          MakeUintegerChecker<uint32_t>(1 << 16))
            .AddAttribute("RcvBufSize",
                          "TCP receive buffer in bytes (Linux: the tcp_rmem maximum, 6 MiB)",
                          UintegerValue(6 << 20),
                          MakeUintegerAccessor(&TalbHostConfig::m_rcvBufSize),
                          MakeUintegerChecker<uint32_t>(1 << 16))
            // Data-center RTTs are microseconds: ns-3's 1 s minimum RTO would turn every tail
            // loss into a one-second stall.
            .AddAttribute("MinRto",
                          "minimum TCP retransmission timeout",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&TalbHostConfig::m_minRto),
                          MakeTimeChecker(MicroSeconds(10), Seconds(1)))
            .AddAttribute("ClockGranularity",
                          "granularity of TCP's RTO computation",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&TalbHostConfig::m_clockGranularity),
                          MakeTimeChecker(NanoSeconds(1), MilliSeconds(10)))
            // Below the minimum RTO, or a lone trailing segment times out and the connection
            // then sends one segment per RTO.
            .AddAttribute("DelAckTimeout",
                          "delayed-ACK timeout; must be below MinRto",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbHostConfig::m_delAckTimeout),
                          MakeTimeChecker(Time(0), Seconds(1)))
            // ns-3's 240 s TIME_WAIT keeps every closed connection in the linear endpoint list
            // that each received packet scans; 20 ms is still hundreds of fabric RTTs and four
            // minimum RTOs, so no segment of a closed connection arrives later.
            .AddAttribute("TimeWait",
                          "how long a closed connection stays in TIME_WAIT (2 x MaxSegLifetime)",
                          TimeValue(MilliSeconds(20)),
                          MakeTimeAccessor(&TalbHostConfig::m_timeWait),
                          MakeTimeChecker(MicroSeconds(1), Seconds(240)))
            .AddAttribute("Sack",
                          "TCP selective acknowledgements (Linux: on)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbHostConfig::m_sack),
                          MakeBooleanChecker())
            // Linux's fq gives each socket its share of the NIC; a FIFO shares it in
            // proportion to what each connection has queued.
            .AddAttribute("Qdisc",
                          "host NIC queueing inside each band: Fifo, or Fq (per-flow deficit "
                          "round robin, Linux's fq; see ConfigureNic)",
                          EnumValue(TalbHostConfig::FIFO),
                          MakeEnumAccessor(&TalbHostConfig::m_qdisc),
                          MakeEnumChecker(TalbHostConfig::FIFO, "fifo", TalbHostConfig::FQ, "fq"));
    return tid;
}

TalbHostConfig::TalbHostConfig()
    : m_sndBufSize(4 << 20),
      m_rcvBufSize(6 << 20),
      m_sack(true),
      m_qdisc(FIFO)
{
    NS_LOG_FUNCTION(this);
}

TalbHostConfig::~TalbHostConfig()
{
    NS_LOG_FUNCTION(this);
}

void
TalbHostConfig::Apply(uint32_t mtu) const
{
    NS_LOG_FUNCTION(this << mtu);
    NS_ABORT_MSG_IF(mtu <= HEADER_BYTES, "TalbHostConfig: MTU " << mtu << " holds no TCP payload");
    NS_ABORT_MSG_IF(m_delAckTimeout >= m_minRto,
                    "TalbHostConfig: DelAckTimeout (" << m_delAckTimeout.As(Time::US)
                                                      << ") must be below MinRto ("
                                                      << m_minRto.As(Time::US) << ")");
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - HEADER_BYTES));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(m_sndBufSize));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(m_rcvBufSize));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(m_minRto));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(m_clockGranularity));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(m_delAckTimeout));
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime",
                       DoubleValue(m_timeWait.GetSeconds() / 2));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(m_sack));
    // ns-3's PRR can leave an ECN window reduction with cwnd below one segment and nothing in
    // flight, and such a connection never sends again (see TalbPrrRecovery).
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TalbPrrRecovery::GetTypeId()));
}

bool
TalbHostConfig::ConfigureNic(Ptr<NetDevice> dev) const
{
    NS_LOG_FUNCTION(this << dev);
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    Ptr<TalbPriorityQueue> q = p2p ? DynamicCast<TalbPriorityQueue>(p2p->GetQueue()) : nullptr;
    if (!q)
    {
        return false;
    }
    NS_ABORT_MSG_IF(q->GetNPackets() > 0, "TalbHostConfig::ConfigureNic: the queue holds packets");
    // Linux's fq marks no packets (its ce_threshold is off by default): congestion signals
    // come from the switches. Marking on the NIC's total backlog would also charge each flow
    // for the others' packets, which fq serves apart.
    q->SetAttribute("FlowQueueing", BooleanValue(m_qdisc == FQ));
    if (m_qdisc == FQ)
    {
        q->SetAttribute("UseEcn", BooleanValue(false));
    }
    return true;
}

void
TalbHostConfig::ApplyDefaults(uint32_t mtu)
{
    CreateObject<TalbHostConfig>()->Apply(mtu);
}

} // namespace ns3
