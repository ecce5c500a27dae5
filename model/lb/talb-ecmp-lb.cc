#include "talb-ecmp-lb.h"

#include "talb-core-attributes.h"

#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbEcmpLb");

NS_OBJECT_ENSURE_REGISTERED(TalbEcmpLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbEcmpLb, "ecmp");

TypeId
TalbEcmpLb::GetTypeId()
{
    static TypeId tid = TalbCoreAttributes::Add(TypeId("ns3::TalbEcmpLb")
                                                    .SetParent<TalbCorePolicyLb>()
                                                    .SetGroupName("Talb")
                                                    .AddConstructor<TalbEcmpLb>(),
                                                talb::lb::Ecmp::Settings(),
                                                &TalbEcmpLb::m_config);
    return tid;
}

TalbEcmpLb::TalbEcmpLb()
{
    NS_LOG_FUNCTION(this);
}

TalbEcmpLb::~TalbEcmpLb()
{
    NS_LOG_FUNCTION(this);
}

uint32_t
TalbEcmpLb::GetRunKey()
{
    uint64_t run = RngSeedManager::GetRun();
    return uint32_t(run) ^ uint32_t(run >> 32) ^ TalbMix32(RngSeedManager::GetSeed());
}

void
TalbEcmpLb::InitializeParams()
{
    m_config.switchId = GetSwitchInfo().switchId;
    m_config.run = GetRunKey();
    m_core.Configure(m_config);
    BindCore(m_core);
}

uint32_t
TalbEcmpLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
