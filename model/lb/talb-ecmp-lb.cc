#include "talb-ecmp-lb.h"

#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbEcmpLb");

NS_OBJECT_ENSURE_REGISTERED(TalbEcmpLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbEcmpLb, "ecmp");

TypeId
TalbEcmpLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbEcmpLb")
            .SetParent<TalbCoreLb>()
            .SetGroupName("Talb")
            .AddConstructor<TalbEcmpLb>()
            .AddAttribute("Salt",
                          "Per-switch hash salt; 0 derives one from the switch's node id and the "
                          "RNG seed and run",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbEcmpLb::m_salt),
                          MakeUintegerChecker<uint32_t>());
    return tid;
}

TalbEcmpLb::TalbEcmpLb()
    : m_salt(0)
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
    m_core.Configure({m_salt, GetSwitchInfo().switchId, GetRunKey()});
    BindCore(m_core);
}

uint32_t
TalbEcmpLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
