#include "talb-background-traffic.h"

#include "talb-flow-tag.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-socket-read.h"
#include "ns3/talb-transport.h"
#include "ns3/tcp-socket-factory.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbBackgroundTraffic");
NS_OBJECT_ENSURE_REGISTERED(TalbBackgroundTraffic);

TypeId
TalbBackgroundTraffic::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbBackgroundTraffic")
            .SetParent<Application>()
            .SetGroupName("Talb")
            .AddConstructor<TalbBackgroundTraffic>()
            .AddAttribute("FlowSizeCdf",
                          "Flow-size CDF file (size_bytes cumulative_percent per line)",
                          StringValue(""),
                          MakeStringAccessor(&TalbBackgroundTraffic::m_cdfFile),
                          MakeStringChecker())
            .AddAttribute("Load",
                          "Offered load as a fraction of LinkRate",
                          DoubleValue(0.3),
                          MakeDoubleAccessor(&TalbBackgroundTraffic::m_load),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("LinkRate",
                          "Rate of the host's link, the base of Load",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&TalbBackgroundTraffic::m_linkRate),
                          MakeDataRateChecker())
            .AddAttribute("Port",
                          "TCP port background flows are sent to",
                          UintegerValue(30000),
                          MakeUintegerAccessor(&TalbBackgroundTraffic::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddTraceSource("FlowStarted",
                            "A flow was started by this host (end not yet known)",
                            MakeTraceSourceAccessor(&TalbBackgroundTraffic::m_flowStarted),
                            "ns3::TalbBackgroundTraffic::FlowTracedCallback")
            .AddTraceSource("FlowDone",
                            "A flow from this host had its last byte acknowledged",
                            MakeTraceSourceAccessor(&TalbBackgroundTraffic::m_flowDone),
                            "ns3::TalbBackgroundTraffic::FlowTracedCallback");
    return tid;
}

TalbBackgroundTraffic::TalbBackgroundTraffic()
{
    NS_LOG_FUNCTION(this);
    m_interArrival = CreateObject<ExponentialRandomVariable>();
    m_size = CreateObject<UniformRandomVariable>();
    m_peer = CreateObject<UniformRandomVariable>();
}

TalbBackgroundTraffic::~TalbBackgroundTraffic()
{
    NS_LOG_FUNCTION(this);
}

void
TalbBackgroundTraffic::DoDispose()
{
    m_next.Cancel();
    m_peers.clear();
    m_given.clear();
    m_listener = nullptr;
    m_nic = nullptr;
    m_rdmaSending.clear();
    m_rdmaExpected.clear();
    m_unacked.clear();
    m_sending.clear();
    m_receiving.clear();
    m_interArrival = nullptr;
    m_size = nullptr;
    m_peer = nullptr;
    Application::DoDispose();
}

void
TalbBackgroundTraffic::SetPeers(const std::vector<Ptr<TalbBackgroundTraffic>>& peers)
{
    m_peers = peers;
}

void
TalbBackgroundTraffic::SetFlowSizeCdf(const TalbFlowSizeCdf& cdf)
{
    m_cdf = cdf;
}

void
TalbBackgroundTraffic::AddFlow(Time start, Ptr<TalbBackgroundTraffic> peer, uint64_t sizeBytes)
{
    m_given.push_back({start, peer, sizeBytes});
}

Ipv4Address
TalbBackgroundTraffic::GetAddress() const
{
    // RDMA hosts have no IP stack: their NIC holds the address.
    if (Ptr<TalbRdmaNic> nic = GetNode()->GetObject<TalbRdmaNic>())
    {
        return nic->GetAddress();
    }
    return TalbTransport::GetHostAddress(GetNode());
}

double
TalbBackgroundTraffic::GetArrivalRate() const
{
    return m_load * m_linkRate.GetBitRate() / (8.0 * m_cdf.GetMean());
}

int64_t
TalbBackgroundTraffic::AssignStreams(int64_t stream)
{
    m_interArrival->SetStream(stream);
    m_size->SetStream(stream + 1);
    m_peer->SetStream(stream + 2);
    return 3;
}

void
TalbBackgroundTraffic::StartApplication()
{
    NS_LOG_FUNCTION(this);
    if (GetNode()->GetSystemId() != Simulator::GetSystemId())
    {
        return; // another simulation rank runs this host
    }
    if (m_cdf.IsEmpty() && m_load > 0)
    {
        NS_ABORT_MSG_IF(m_cdfFile.empty(), "TalbBackgroundTraffic: no FlowSizeCdf file");
        m_cdf = TalbFlowSizeCdf::Load(m_cdfFile);
    }
    m_nic = GetNode()->GetObject<TalbRdmaNic>();
    if (!m_nic)
    {
        StartTcpListener();
    }
    if (m_load > 0 && !m_peers.empty())
    {
        m_interArrival->SetAttribute("Mean", DoubleValue(1.0 / GetArrivalRate()));
        ScheduleNextFlow();
    }
    for (const auto& f : m_given)
    {
        Simulator::Schedule(Max(f.start - Simulator::Now(), Time(0)),
                            &TalbBackgroundTraffic::StartFlowTo,
                            this,
                            f.peer,
                            f.sizeBytes);
    }
}

void
TalbBackgroundTraffic::StartTcpListener()
{
    m_listener = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0,
                    "TalbBackgroundTraffic: port " << m_port << " in use");
    m_listener->Listen();
    m_listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                  MakeCallback(&TalbBackgroundTraffic::Accept, this));
}

void
TalbBackgroundTraffic::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_next.Cancel(); // flows under way finish
}

void
TalbBackgroundTraffic::ScheduleNextFlow()
{
    m_next = Simulator::Schedule(Seconds(m_interArrival->GetValue()),
                                 &TalbBackgroundTraffic::StartFlow,
                                 this);
}

void
TalbBackgroundTraffic::StartFlow()
{
    Ptr<TalbBackgroundTraffic> peer = m_peers[m_peer->GetInteger(0, m_peers.size() - 1)];
    StartFlowTo(peer, m_cdf.Sample(m_size->GetValue(0, 1)));
    ScheduleNextFlow();
}

void
TalbBackgroundTraffic::StartFlowTo(Ptr<TalbBackgroundTraffic> peer, uint64_t sizeBytes)
{
    Ipv4Address src = GetAddress();
    if (m_nic)
    {
        TalbFlowRecord r;
        r.src = src;
        r.dst = peer->GetAddress();
        r.sizeBytes = sizeBytes;
        r.start = Simulator::Now();
        r.background = true;
        StartRdmaFlow(peer, r);
        return;
    }
    Ptr<Socket> s = Socket::CreateSocket(GetNode(), TcpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(s->Bind(InetSocketAddress(src, 0)) != 0,
                    "TalbBackgroundTraffic: cannot bind to " << src);
    Address local;
    s->GetSockName(local);
    FlowSocket f;
    f.socket = s;
    f.record.src = src;
    f.record.dst = peer->GetAddress();
    f.record.srcPort = InetSocketAddress::ConvertFrom(local).GetPort();
    f.record.dstPort = peer->m_port;
    f.record.sizeBytes = sizeBytes;
    f.record.start = Simulator::Now();
    f.record.background = true;
    f.bytes = f.record.sizeBytes;
    if (peer->GetNode()->GetSystemId() == Simulator::GetSystemId())
    {
        peer->ExpectFlow(f.record);
    }
    else
    {
        f.tagFirst = true; // the sink's rank learns the flow from its first byte
    }
    m_flowStarted(f.record);
    uint64_t id = m_flows++;
    m_unacked[id].record = f.record;
    s->TraceConnect("HighestRxAck",
                    std::to_string(id),
                    MakeCallback(&TalbBackgroundTraffic::TcpAcked, this));
    s->SetConnectCallback(MakeCallback(&TalbBackgroundTraffic::Connected, this),
                          MakeCallback(&TalbBackgroundTraffic::ConnectFailed, this));
    s->SetSendCallback(MakeCallback(&TalbBackgroundTraffic::SendSpace, this));
    s->Connect(InetSocketAddress(f.record.dst, f.record.dstPort));
    m_sending.emplace(PeekPointer(s), std::move(f));
}

void
TalbBackgroundTraffic::ConnectFailed(Ptr<Socket> /* socket */)
{
    NS_FATAL_ERROR("TalbBackgroundTraffic: a background connection from " << GetAddress()
                                                                          << " failed");
}

void
TalbBackgroundTraffic::Connected(Ptr<Socket> socket)
{
    SendSpace(socket, socket->GetTxAvailable());
}

void
TalbBackgroundTraffic::SendSpace(Ptr<Socket> socket, uint32_t)
{
    auto it = m_sending.find(PeekPointer(socket));
    if (it == m_sending.end())
    {
        return;
    }
    uint64_t& left = it->second.bytes;
    uint32_t available = socket->GetTxAvailable();
    while (left > 0 && available > 0)
    {
        uint32_t n = static_cast<uint32_t>(std::min<uint64_t>(left, available));
        Ptr<Packet> p = Create<Packet>(n);
        if (it->second.tagFirst)
        {
            TalbFlowTag tag;
            tag.sizeBytes = it->second.record.sizeBytes;
            tag.start = it->second.record.start;
            p->AddByteTag(tag, 0, 1);
            it->second.tagFirst = false;
        }
        int sent = socket->Send(p);
        NS_ABORT_MSG_IF(sent != int(n), "TalbBackgroundTraffic: send failed");
        left -= n;
        available = socket->GetTxAvailable();
    }
    if (left == 0)
    {
        socket->SetSendCallback(MakeNullCallback<void, Ptr<Socket>, uint32_t>());
        socket->Close(); // FIN after the data; TCP keeps the socket until it is done
        m_sending.erase(it);
    }
}

void
TalbBackgroundTraffic::ExpectFlow(const TalbFlowRecord& record)
{
    m_expected[TalbEndpointKey(record.src, record.srcPort)] = record;
}

void
TalbBackgroundTraffic::Accept(Ptr<Socket> socket, const Address& from)
{
    InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
    auto it = m_expected.find(TalbEndpointKey(peer.GetIpv4(), peer.GetPort()));
    FlowSocket f;
    f.socket = socket;
    if (it != m_expected.end())
    {
        f.record = it->second;
        m_expected.erase(it);
    }
    else
    {
        // From a host on another rank: size and start come with the first byte (Read()).
        f.tagged = true;
        f.record.src = peer.GetIpv4();
        f.record.srcPort = peer.GetPort();
        f.record.dst = GetAddress();
        f.record.dstPort = m_port;
        f.record.background = true;
    }
    socket->SetRecvCallback(MakeCallback(&TalbBackgroundTraffic::Read, this));
    m_receiving.emplace(PeekPointer(socket), std::move(f));
}

void
TalbBackgroundTraffic::Read(Ptr<Socket> socket)
{
    auto it = m_receiving.find(PeekPointer(socket));
    NS_ASSERT(it != m_receiving.end());
    Ptr<Packet> p;
    while ((p = TalbSocketRead(socket)))
    {
        if (it->second.tagged && it->second.bytes == 0)
        {
            ReadFlowTag(p, &it->second.record);
        }
        it->second.bytes += p->GetSize();
    }
    if (it->second.tagged && it->second.bytes == 0)
    {
        return;
    }
    if (it->second.bytes >= it->second.record.sizeBytes)
    {
        // The sender reports the flow when it sees this acknowledged (TcpAcked).
        socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        socket->Close();
        m_receiving.erase(it);
    }
}

void
TalbBackgroundTraffic::TcpAcked(std::string flow, SequenceNumber32 from, SequenceNumber32 to)
{
    auto it = m_unacked.find(std::stoull(flow));
    if (it == m_unacked.end())
    {
        return; // done: the acknowledgement of its FIN
    }
    Unacked& u = it->second;
    if (!u.synAcked)
    {
        u.synAcked = true; // the SYN-ACK's: the data's bytes start after it
        return;
    }
    if (to > from)
    {
        u.acked += uint32_t(to - from);
    }
    if (u.acked >= u.record.sizeBytes)
    {
        TalbFlowRecord r = u.record;
        r.end = Simulator::Now();
        m_unacked.erase(it);
        m_flowDone(r);
    }
}

void
TalbBackgroundTraffic::ReadFlowTag(Ptr<const Packet> p, TalbFlowRecord* record) const
{
    ByteTagIterator it = p->GetByteTagIterator();
    TypeId tid = TalbFlowTag::GetTypeId();
    while (it.HasNext())
    {
        ByteTagIterator::Item item = it.Next();
        if (item.GetTypeId() == tid && item.GetStart() == 0)
        {
            TalbFlowTag tag;
            item.GetTag(tag);
            record->sizeBytes = tag.sizeBytes;
            record->start = tag.start;
            return;
        }
    }
    NS_FATAL_ERROR("TalbBackgroundTraffic: unexpected connection from " << record->src
                                                                        << " (no flow tag)");
}

void
TalbBackgroundTraffic::StartRdmaFlow(Ptr<TalbBackgroundTraffic> peer, TalbFlowRecord record)
{
    Ptr<TalbRdmaNic> remote = peer->GetNode()->GetObject<TalbRdmaNic>();
    NS_ABORT_MSG_UNLESS(remote,
                        "TalbBackgroundTraffic: host "
                            << record.dst << " has no TalbRdmaNic, unlike " << record.src);
    auto qps = TalbRdmaNic::Connect(m_nic, remote);
    record.srcPort = qps.first->GetSourcePort();
    record.dstPort = TalbRoceHeader::UDP_PORT;
    peer->m_rdmaExpected[qps.second->GetQpn()] = record;
    m_rdmaSending[qps.first->GetQpn()] = RdmaSending{qps.second, record};
    qps.second->SetReceiveCallback(MakeCallback(&TalbBackgroundTraffic::RdmaReceived, peer));
    qps.first->SetSendCompleteCallback(MakeCallback(&TalbBackgroundTraffic::RdmaSent, this));
    m_flowStarted(record);
    qps.first->PostSend(record.sizeBytes); // no runs: unlabelled, the untagged band
}

void
TalbBackgroundTraffic::RdmaSent(Ptr<TalbRdmaQueuePair> qp, uint64_t /* seq */)
{
    auto it = m_rdmaSending.find(qp->GetQpn());
    NS_ASSERT(it != m_rdmaSending.end());
    // Not from inside the queue pair's own acknowledgement handling: after it returns.
    Simulator::ScheduleNow(&TalbBackgroundTraffic::CloseRdmaFlow, qp, it->second.remote);
    TalbFlowRecord r = it->second.record;
    r.end = Simulator::Now();
    m_rdmaSending.erase(it);
    m_flowDone(r);
}

void
TalbBackgroundTraffic::CloseRdmaFlow(Ptr<TalbRdmaQueuePair> local, Ptr<TalbRdmaQueuePair> remote)
{
    if (Ptr<TalbRdmaNic> nic = local->GetNic())
    {
        nic->DestroyQueuePair(local);
    }
    if (Ptr<TalbRdmaNic> nic = remote->GetNic())
    {
        nic->DestroyQueuePair(remote);
    }
}

void
TalbBackgroundTraffic::RdmaReceived(Ptr<TalbRdmaQueuePair> qp, uint64_t /* seq */, uint64_t bytes)
{
    auto it = m_rdmaExpected.find(qp->GetQpn());
    NS_ASSERT(it != m_rdmaExpected.end());
    NS_ASSERT(bytes == it->second.sizeBytes);
    m_rdmaExpected.erase(it); // the sender reports the flow once acknowledged (RdmaSent)
}

} // namespace ns3
