#include "talb-core-lb.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCoreLb");

NS_OBJECT_ENSURE_REGISTERED(TalbCoreLb);

TypeId
TalbCoreLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbCoreLb").SetParent<TalbLoadBalancer>().SetGroupName("Talb");
    return tid;
}

TalbCoreLb::TalbCoreLb()
    : m_current(nullptr)
{
    NS_LOG_FUNCTION(this);
}

TalbCoreLb::~TalbCoreLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCoreLb::DoDispose()
{
    m_random.Dispose();
    m_view.SetPorts(nullptr);
    TalbLoadBalancer::DoDispose();
}

void
TalbCoreLb::CreateCoreRng()
{
    m_random.Create();
}

void
TalbCoreLb::ShareCoreRng(const TalbCoreLb& owner)
{
    if (m_random.GetVariable())
    {
        m_random.Share(owner.GetCoreRng());
    }
}

Ptr<UniformRandomVariable>
TalbCoreLb::GetCoreRng() const
{
    return m_random.GetVariable();
}

void
TalbCoreLb::BindCore(talb::lb::Policy& policy)
{
    m_view.SetPorts(GetPortTable());
    policy.Bind(&m_view, m_random.GetVariable() ? &m_random : nullptr, this);
}

uint32_t
TalbCoreLb::CoreSelect(talb::lb::Policy& policy,
                       TalbPacketContext& ctx,
                       const TalbCandidates& candidates)
{
    m_current = &ctx;
    uint32_t port = policy.Select(TalbCorePacket(ctx), TalbCoreCandidates(candidates));
    m_current = nullptr;
    return port;
}

TalbPacketContext&
TalbCoreLb::CurrentPacket() const
{
    NS_ASSERT_MSG(m_current, "CurrentPacket outside CoreSelect");
    return *m_current;
}

void
TalbCoreLb::Rerouted(const talb::lb::PacketInfo& /* packet */, uint32_t from, uint32_t to)
{
    NotifyReroute(CurrentPacket(), from, to);
}

void
TalbCoreLb::Evicted(uint32_t flowHash, uint32_t tensorId)
{
    DoCoreEvicted(flowHash, tensorId);
}

void
TalbCoreLb::DoCoreEvicted(uint32_t /* flowHash */, uint32_t /* tensorId */)
{
}

} // namespace ns3
