#include "talb-nvlink-transport.h"

#include "talb-nvlink-message-channel.h"
#include "talb-nvlink-port.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbNvlinkTransport");
NS_OBJECT_ENSURE_REGISTERED(TalbNvlinkTransport);
TALB_REGISTER_PLUGIN(TalbTransport, TalbNvlinkTransport, "nvlink");

TypeId
TalbNvlinkTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbNvlinkTransport")
            .SetParent<TalbTransport>()
            .SetGroupName("Talb")
            .AddConstructor<TalbNvlinkTransport>()
            .AddAttribute("Inner",
                          "Transport between servers (a short name or TypeId name of the "
                          "transport family other than nvlink), made with its defaults unless "
                          "SetInner() gave one",
                          StringValue("tcp"),
                          MakeStringAccessor(&TalbNvlinkTransport::m_innerName),
                          MakeStringChecker());
    return tid;
}

TalbNvlinkTransport::TalbNvlinkTransport()
{
    NS_LOG_FUNCTION(this);
}

TalbNvlinkTransport::~TalbNvlinkTransport()
{
    NS_LOG_FUNCTION(this);
}

void
TalbNvlinkTransport::DoDispose()
{
    // This transport owns the inner transport's channels too (TalbTransport::DoDispose).
    if (m_inner)
    {
        m_inner->Dispose();
    }
    m_inner = nullptr;
    TalbTransport::DoDispose();
}

void
TalbNvlinkTransport::SetInner(Ptr<TalbTransport> inner)
{
    NS_ABORT_MSG_IF(DynamicCast<TalbNvlinkTransport>(inner),
                    "TalbNvlinkTransport: the inner transport cannot be nvlink");
    m_inner = inner;
}

Ptr<TalbTransport>
TalbNvlinkTransport::GetInner() const
{
    return m_inner;
}

Ptr<TalbTransport>
TalbNvlinkTransport::Wrap(Ptr<TalbTransport> inner, const NodeContainer& hosts)
{
    if (DynamicCast<TalbNvlinkTransport>(inner))
    {
        return inner;
    }
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        if (hosts.Get(i)->GetObject<TalbNvlinkPort>())
        {
            Ptr<TalbNvlinkTransport> outer = CreateObject<TalbNvlinkTransport>();
            outer->SetInner(inner);
            return outer;
        }
    }
    return inner;
}

bool
TalbNvlinkTransport::IsSameServer(Ptr<Node> a, Ptr<Node> b)
{
    Ptr<TalbNvlinkPort> pa = a->GetObject<TalbNvlinkPort>();
    Ptr<TalbNvlinkPort> pb = b->GetObject<TalbNvlinkPort>();
    return pa && pb && pa->GetServer() == pb->GetServer();
}

bool
TalbNvlinkTransport::CheckConfig()
{
    if (m_inner)
    {
        return true;
    }
    TypeId tid;
    std::string error;
    if (!GetRegistry().Lookup(m_innerName, &tid, &error))
    {
        return ConfigError("Inner: " + error);
    }
    if (tid == GetTypeId())
    {
        return ConfigError("Inner: the inner transport cannot be nvlink");
    }
    return true;
}

void
TalbNvlinkTransport::DoSetup()
{
    if (!m_inner)
    {
        ObjectFactory factory;
        factory.SetTypeId(GetRegistry().Get(m_innerName));
        m_inner = factory.Create<TalbTransport>();
    }
    m_inner->Setup(GetPort());
}

Ptr<TalbMessageChannel>
TalbNvlinkTransport::DoConnect(Ptr<Node> from, Ptr<Node> to)
{
    if (!IsSameServer(from, to))
    {
        return ConnectThrough(m_inner, from, to);
    }
    Ptr<TalbNvlinkMessageChannel> channel = CreateObject<TalbNvlinkMessageChannel>();
    channel->Open(from->GetObject<TalbNvlinkPort>(), to->GetObject<TalbNvlinkPort>(), GetPort());
    return channel;
}

} // namespace ns3
