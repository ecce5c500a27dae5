#include "talb-eecmp-lb.h"

#include "talb-core-attributes.h"
#include "talb-ecmp-lb.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbEEcmpLb");

NS_OBJECT_ENSURE_REGISTERED(TalbEEcmpLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbEEcmpLb, "eecmp");

TypeId
TalbEEcmpLb::GetTypeId()
{
    static TypeId tid = TalbCoreAttributes::Add(TypeId("ns3::TalbEEcmpLb")
                                                    .SetParent<TalbCorePolicyLb>()
                                                    .SetGroupName("Talb")
                                                    .AddConstructor<TalbEEcmpLb>(),
                                                talb::lb::EEcmp::Settings(),
                                                &TalbEEcmpLb::m_config);
    return tid;
}

TalbEEcmpLb::TalbEEcmpLb()
{
    NS_LOG_FUNCTION(this);
}

TalbEEcmpLb::~TalbEEcmpLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbEEcmpLb::InitializeParams()
{
    m_config.switchId = GetSwitchInfo().switchId;
    m_config.run = TalbEcmpLb::GetRunKey();
    m_core.Configure(m_config);
    BindCore(m_core);
}

uint32_t
TalbEEcmpLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
