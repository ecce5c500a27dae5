#include "talb-transport.h"

#include "ns3/abort.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTransport");
NS_OBJECT_ENSURE_REGISTERED(TalbTransport);

TypeId
TalbTransport::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTransport").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbRegistry&
TalbTransport::GetRegistry()
{
    static TalbRegistry registry("transport", GetTypeId());
    return registry;
}

TalbTransport::TalbTransport()
{
    NS_LOG_FUNCTION(this);
}

TalbTransport::~TalbTransport()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTransport::DoDispose()
{
    for (auto& c : m_channels)
    {
        c->Dispose();
    }
    m_channels.clear();
    Object::DoDispose();
}

void
TalbTransport::Setup(uint16_t port)
{
    NS_LOG_FUNCTION(this << port);
    NS_ABORT_MSG_IF(m_setUp, "TalbTransport::Setup called twice");
    m_port = port;
    m_setUp = true;
    NS_ABORT_MSG_UNLESS(CheckConfig(),
                        GetInstanceTypeId().GetName()
                            << ": invalid configuration: " << m_configError);
    DoSetup();
}

bool
TalbTransport::CheckConfig()
{
    return true;
}

bool
TalbTransport::ConfigError(const std::string& message)
{
    NS_LOG_ERROR(message);
    m_configError = message;
    return false;
}

void
TalbTransport::DoSetup()
{
}

Ptr<TalbMessageChannel>
TalbTransport::Connect(Ptr<Node> from,
                       uint32_t fromIndex,
                       Ptr<Node> to,
                       uint32_t toIndex,
                       TalbMessageChannel::DeliveredCallback delivered)
{
    NS_LOG_FUNCTION(this << from->GetId() << to->GetId());
    NS_ABORT_MSG_UNLESS(m_setUp, "TalbTransport::Connect before Setup");
    NS_ABORT_MSG_IF(from == to, "TalbTransport: a channel from a host to itself");
    Ptr<TalbMessageChannel> channel = DoConnect(from, to);
    NS_ABORT_MSG_IF(!channel, GetInstanceTypeId().GetName() << ": DoConnect opened no channel");
    channel->SetEndpoints(fromIndex, toIndex);
    channel->SetDeliveredCallback(delivered);
    m_channels.push_back(channel);
    return channel;
}

Ptr<TalbMessageChannel>
TalbTransport::ConnectThrough(Ptr<TalbTransport> inner, Ptr<Node> from, Ptr<Node> to)
{
    NS_ABORT_MSG_UNLESS(inner && inner->m_setUp, "TalbTransport::ConnectThrough before Setup");
    return inner->DoConnect(from, to);
}

uint16_t
TalbTransport::GetPort() const
{
    return m_port;
}

uint32_t
TalbTransport::GetNChannels() const
{
    return m_channels.size();
}

Ptr<TalbMessageChannel>
TalbTransport::GetChannel(uint32_t i) const
{
    NS_ABORT_MSG_UNLESS(i < m_channels.size(), "TalbTransport::GetChannel: no channel " << i);
    return m_channels[i];
}

Ipv4Address
TalbTransport::GetHostAddress(Ptr<Node> node)
{
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    NS_ABORT_MSG_IF(!ipv4 || ipv4->GetNInterfaces() < 2 || ipv4->GetNAddresses(1) == 0,
                    "node " << node->GetId() << " has no IPv4 address on interface 1");
    return ipv4->GetAddress(1, 0).GetLocal();
}

} // namespace ns3
