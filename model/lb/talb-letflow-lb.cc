#include "talb-letflow-lb.h"

#include "talb-core-attributes.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLetFlowLb");

NS_OBJECT_ENSURE_REGISTERED(TalbLetFlowLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbLetFlowLb, "letflow");

TypeId
TalbLetFlowLb::GetTypeId()
{
    static TypeId tid = TalbCoreAttributes::Add(TypeId("ns3::TalbLetFlowLb")
                                                    .SetParent<TalbCorePolicyLb>()
                                                    .SetGroupName("Talb")
                                                    .AddConstructor<TalbLetFlowLb>(),
                                                talb::lb::LetFlow::Settings(),
                                                &TalbLetFlowLb::m_config,
                                                &TalbLetFlowLb::Retune);
    return tid;
}

TalbLetFlowLb::TalbLetFlowLb()
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbLetFlowLb::~TalbLetFlowLb()
{
    NS_LOG_FUNCTION(this);
}

int64_t
TalbLetFlowLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    return 1;
}

bool
TalbLetFlowLb::CheckConfig()
{
    const uint32_t tableSize = m_config.tableSize;
    if ((tableSize & (tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(tableSize) + " is not a power of two");
    }
    return true;
}

void
TalbLetFlowLb::Retune()
{
    if (IsAttached())
    {
        m_core.Retune(m_config);
    }
}

void
TalbLetFlowLb::InitializeParams()
{
    m_core.Configure(m_config);
    BindCore(m_core);
}

uint32_t
TalbLetFlowLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
