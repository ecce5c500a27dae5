#include "talb-tcp-transport.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/tcp-socket-factory.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTcpTransport");
NS_OBJECT_ENSURE_REGISTERED(TalbTcpTransport);
TALB_REGISTER_PLUGIN(TalbTransport, TalbTcpTransport, "tcp");

TypeId
TalbTcpTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTcpTransport")
                            .SetParent<TalbTransport>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbTcpTransport>();
    return tid;
}

TalbTcpTransport::TalbTcpTransport()
{
    NS_LOG_FUNCTION(this);
}

TalbTcpTransport::~TalbTcpTransport()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTcpTransport::DoDispose()
{
    for (auto& l : m_listeners)
    {
        l.second->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeNullCallback<void, Ptr<Socket>, const Address&>());
    }
    m_listeners.clear();
    m_awaitingAccept.clear();
    TalbTransport::DoDispose();
}

Ptr<TalbMessageChannel>
TalbTcpTransport::DoConnect(Ptr<Node> from, Ptr<Node> to)
{
    uint16_t port = GetPort();
    // Under ns-3's distributed simulator a rank opens only its own hosts' ends.
    bool fromHere = from->GetSystemId() == Simulator::GetSystemId();
    bool toHere = to->GetSystemId() == Simulator::GetSystemId();
    auto it = m_listeners.find(to->GetId());
    if (toHere && it == m_listeners.end())
    {
        Ptr<Socket> listener = Socket::CreateSocket(to, TcpSocketFactory::GetTypeId());
        NS_ABORT_MSG_IF(listener->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)) != 0,
                        "TalbTcpTransport: port " << port << " already in use on node "
                                                  << to->GetId()
                                                  << " (give each job its own port)");
        listener->Listen();
        listener->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                    MakeCallback(&TalbTcpTransport::HandleAccept, this));
        m_listeners.emplace(to->GetId(), listener);
    }
    Ptr<TalbTcpMessageChannel> channel = CreateObject<TalbTcpMessageChannel>();
    channel->SetEndsHere(fromHere, toHere);
    Ipv4Address src = GetHostAddress(from);
    if (fromHere)
    {
        channel->Open(from, src, GetHostAddress(to), port);
    }
    else
    {
        channel->OpenElsewhere(src, GetHostAddress(to), port);
    }
    if (toHere)
    {
        // The sender's port is its rank's to pick: port 0 stands for any (one channel per
        // pair of hosts and job).
        m_awaitingAccept.emplace(TalbEndpointKey(src, fromHere ? channel->GetSrcPort() : 0),
                                 channel);
    }
    return channel;
}

void
TalbTcpTransport::HandleAccept(Ptr<Socket> socket, const Address& from)
{
    InetSocketAddress peer = InetSocketAddress::ConvertFrom(from);
    auto it = m_awaitingAccept.find(TalbEndpointKey(peer.GetIpv4(), peer.GetPort()));
    if (it == m_awaitingAccept.end())
    {
        it = m_awaitingAccept.find(TalbEndpointKey(peer.GetIpv4(), 0));
    }
    NS_ABORT_MSG_IF(it == m_awaitingAccept.end(),
                    "TalbTcpTransport: unexpected connection from " << peer.GetIpv4() << ":"
                                                                    << peer.GetPort());
    it->second->AttachReceiver(socket);
    m_awaitingAccept.erase(it);
}

} // namespace ns3
