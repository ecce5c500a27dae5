#include "talb-core-policy-lb.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCorePolicyLb");

NS_OBJECT_ENSURE_REGISTERED(TalbCorePolicyLb);

TypeId
TalbCorePolicyLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbCorePolicyLb").SetParent<TalbLoadBalancer>().SetGroupName("Talb");
    return tid;
}

TalbCorePolicyLb::TalbCorePolicyLb()
    : m_current(nullptr)
{
    NS_LOG_FUNCTION(this);
}

TalbCorePolicyLb::~TalbCorePolicyLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCorePolicyLb::DoDispose()
{
    m_random.Dispose();
    m_view.SetPorts(nullptr);
    TalbLoadBalancer::DoDispose();
}

void
TalbCorePolicyLb::CreateCoreRng()
{
    m_random.Create();
}

void
TalbCorePolicyLb::ShareCoreRng(const TalbCorePolicyLb& owner)
{
    if (m_random.GetVariable())
    {
        m_random.Share(owner.GetCoreRng());
    }
}

Ptr<UniformRandomVariable>
TalbCorePolicyLb::GetCoreRng() const
{
    return m_random.GetVariable();
}

void
TalbCorePolicyLb::BindCore(talb::lb::Policy& policy)
{
    m_view.SetPorts(GetPortTable());
    policy.Bind(&m_view, m_random.GetVariable() ? &m_random : nullptr, this);
}

uint32_t
TalbCorePolicyLb::CoreSelect(talb::lb::Policy& policy,
                             TalbPacketContext& ctx,
                             const TalbCandidates& candidates)
{
    m_current = &ctx;
    uint32_t port = policy.Select(TalbCorePacket(ctx), TalbCoreCandidates(candidates));
    m_current = nullptr;
    return port;
}

void
TalbCorePolicyLb::CoreFollow(talb::lb::Policy& policy,
                             TalbPacketContext& ctx,
                             const TalbCandidates& candidates,
                             uint32_t port)
{
    m_current = &ctx;
    policy.Follow(TalbCorePacket(ctx), TalbCoreCandidates(candidates), port);
    m_current = nullptr;
}

uint32_t
TalbCorePolicyLb::CoreTarget(talb::lb::Policy& policy,
                             TalbPacketContext& ctx,
                             const TalbCandidates& candidates)
{
    m_current = &ctx;
    uint32_t port = policy.Target(TalbCorePacket(ctx), TalbCoreCandidates(candidates));
    m_current = nullptr;
    return port;
}

TalbPacketContext&
TalbCorePolicyLb::CurrentPacket() const
{
    NS_ASSERT_MSG(m_current, "CurrentPacket outside CoreSelect");
    return *m_current;
}

bool
TalbCorePolicyLb::CoreConfigError(const char* error)
{
    return error ? ConfigError(error) : true;
}

void
TalbCorePolicyLb::Rerouted(const talb::lb::PacketInfo& /* packet */, uint32_t from, uint32_t to)
{
    NotifyReroute(CurrentPacket(), from, to);
}

void
TalbCorePolicyLb::Evicted(uint32_t flowHash, uint32_t tensorId)
{
    DoCoreEvicted(flowHash, tensorId);
}

void
TalbCorePolicyLb::DoCoreEvicted(uint32_t /* flowHash */, uint32_t /* tensorId */)
{
}

} // namespace ns3
