#include "talb-collective.h"

#include "talb-parameter-server.h"
#include "talb-ring-all-reduce.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/tcp-socket-factory.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCollective");
NS_OBJECT_ENSURE_REGISTERED(TalbCollective);

namespace
{

struct CollectiveName
{
    const char* name;
    TypeId (*tid)();
};

const CollectiveName COLLECTIVES[] = {
    {"ring", &TalbRingAllReduce::GetTypeId},
    {"ps", &TalbParameterServer::GetTypeId},
};

uint64_t
EndpointKey(Ipv4Address addr, uint16_t port)
{
    return (uint64_t(addr.Get()) << 16) | port;
}

} // namespace

TypeId
TalbCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbCollective").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbCollective::TalbCollective()
{
    NS_LOG_FUNCTION(this);
}

TalbCollective::~TalbCollective()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCollective::DoDispose()
{
    for (auto& l : m_listeners)
    {
        l.second->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeNullCallback<void, Ptr<Socket>, const Address&>());
    }
    m_listeners.clear();
    m_awaitingAccept.clear();
    for (auto& c : m_channels)
    {
        c->Dispose();
    }
    m_channels.clear();
    m_workers.clear();
    m_workerDone = WorkerDoneCallback();
    m_opDone = OpDoneCallback();
    m_flow = FlowCallback();
    Object::DoDispose();
}

TypeId
TalbCollective::LookupByName(const std::string& name)
{
    for (const auto& c : COLLECTIVES)
    {
        if (name == c.name)
        {
            return c.tid();
        }
    }
    NS_FATAL_ERROR("unknown collective '" << name << "'; valid names: " << GetNames());
}

std::string
TalbCollective::GetNames()
{
    std::string names;
    for (const auto& c : COLLECTIVES)
    {
        names += (names.empty() ? "" : ", ") + std::string(c.name);
    }
    return names;
}

Ipv4Address
TalbCollective::GetHostAddress(Ptr<Node> node)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    NS_ABORT_MSG_IF(!ipv4 || ipv4->GetNInterfaces() < 2 || ipv4->GetNAddresses(1) == 0,
                    "node " << node->GetId() << " has no IPv4 address on interface 1");
    return ipv4->GetAddress(1, 0).GetLocal();
}

void
TalbCollective::Setup(uint32_t jobId,
                      const std::vector<Ptr<Node>>& workers,
                      uint16_t port,
                      WorkerDoneCallback workerDone,
                      OpDoneCallback opDone,
                      FlowCallback flow)
{
    NS_LOG_FUNCTION(this << jobId << workers.size() << port);
    NS_ABORT_MSG_IF(workers.empty(), "TalbCollective: no workers");
    m_jobId = jobId;
    m_workers = workers;
    m_port = port;
    m_workerDone = workerDone;
    m_opDone = opDone;
    m_flow = flow;
    DoSetup();
}

Ptr<TalbMessageChannel>
TalbCollective::Connect(Ptr<Node> from, uint32_t fromIndex, Ptr<Node> to, uint32_t toIndex)
{
    NS_ABORT_MSG_IF(from == to, "TalbCollective: a channel from a host to itself");
    auto it = m_listeners.find(to->GetId());
    if (it == m_listeners.end())
    {
        Ptr<Socket> listener = Socket::CreateSocket(to, TcpSocketFactory::GetTypeId());
        NS_ABORT_MSG_IF(listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0,
                        "TalbCollective: port " << m_port << " already in use on node "
                                                << to->GetId() << " (give each job its own port)");
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&TalbCollective::HandleAccept, this));
        m_listeners.emplace(to->GetId(), listener);
    }
    Ptr<TalbMessageChannel> channel = CreateObject<TalbMessageChannel>();
    Ipv4Address src = GetHostAddress(from);
    channel->SetEndpoints(fromIndex, toIndex);
    channel->SetDeliveredCallback(MakeCallback(&TalbCollective::OnDelivered, this));
    channel->Open(from, src, GetHostAddress(to), m_port);
    m_awaitingAccept.emplace(EndpointKey(src, channel->GetSrcPort()), channel);
    m_channels.push_back(channel);
    return channel;
}

void
TalbCollective::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
    auto it = m_awaitingAccept.find(EndpointKey(peer.GetIpv4(), peer.GetPort()));
    NS_ABORT_MSG_IF(it == m_awaitingAccept.end(),
                    "TalbCollective: unexpected connection from " << peer.GetIpv4() << ":"
                                                                  << peer.GetPort());
    it->second->AttachReceiver(socket);
    m_awaitingAccept.erase(it);
}

void
TalbCollective::OnDelivered(Ptr<TalbMessageChannel> channel,
                            const TalbMessage& message,
                            const TalbFlowRecord& record)
{
    if (!m_flow.IsNull())
    {
        m_flow(record);
    }
    Delivered(channel, message);
}

std::vector<uint64_t>
TalbCollective::SegmentStarts(const TalbCommOp& op)
{
    std::vector<uint64_t> starts(op.segments.size() + 1, 0);
    for (std::size_t j = 0; j < op.segments.size(); ++j)
    {
        NS_ABORT_MSG_IF(op.segments[j].bytes == 0, "TalbCollective: empty segment in op " << op.id);
        starts[j + 1] = starts[j] + op.segments[j].bytes;
    }
    return starts;
}

} // namespace ns3
