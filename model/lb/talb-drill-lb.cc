#include "talb-drill-lb.h"

#include "talb-core-attributes.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbDrillLb");

NS_OBJECT_ENSURE_REGISTERED(TalbDrillLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbDrillLb, "drill");

TypeId
TalbDrillLb::GetTypeId()
{
    static TypeId tid = TalbCoreAttributes::Add(TypeId("ns3::TalbDrillLb")
                                                    .SetParent<TalbCorePolicyLb>()
                                                    .SetGroupName("Talb")
                                                    .AddConstructor<TalbDrillLb>(),
                                                talb::lb::Drill::Settings(),
                                                &TalbDrillLb::m_config,
                                                &TalbDrillLb::Retune);
    return tid;
}

TalbDrillLb::TalbDrillLb()
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbDrillLb::~TalbDrillLb()
{
    NS_LOG_FUNCTION(this);
}

int64_t
TalbDrillLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    return 1;
}

void
TalbDrillLb::Retune()
{
    if (IsAttached())
    {
        m_core.Retune(m_config);
    }
}

void
TalbDrillLb::InitializeParams()
{
    m_core.Configure(m_config);
    BindCore(m_core);
}

uint32_t
TalbDrillLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
