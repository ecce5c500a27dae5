#include "talb-presto-lb.h"

#include "talb-core-attributes.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPrestoLb");

NS_OBJECT_ENSURE_REGISTERED(TalbPrestoLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbPrestoLb, "presto");

TypeId
TalbPrestoLb::GetTypeId()
{
    static TypeId tid = TalbCoreAttributes::Add(TypeId("ns3::TalbPrestoLb")
                                                    .SetParent<TalbCorePolicyLb>()
                                                    .SetGroupName("Talb")
                                                    .AddConstructor<TalbPrestoLb>(),
                                                talb::lb::Presto::Settings(),
                                                &TalbPrestoLb::m_config);
    return tid;
}

TalbPrestoLb::TalbPrestoLb()
{
    NS_LOG_FUNCTION(this);
}

TalbPrestoLb::~TalbPrestoLb()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbPrestoLb::CheckConfig()
{
    return CoreConfigError(talb::lb::Presto::Check(m_config));
}

void
TalbPrestoLb::InitializeParams()
{
    m_core.Configure(m_config);
    BindCore(m_core);
}

uint32_t
TalbPrestoLb::GetCell(uint32_t flowHash) const
{
    return m_core.CellOf(flowHash);
}

uint32_t
TalbPrestoLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
