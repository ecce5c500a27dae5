#include "talb-rps-lb.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRpsLb");

NS_OBJECT_ENSURE_REGISTERED(TalbRpsLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbRpsLb, "rps");

TypeId
TalbRpsLb::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbRpsLb")
                            .SetParent<TalbCorePolicyLb>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbRpsLb>();
    return tid;
}

TalbRpsLb::TalbRpsLb()
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbRpsLb::~TalbRpsLb()
{
    NS_LOG_FUNCTION(this);
}

int64_t
TalbRpsLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    return 1;
}

void
TalbRpsLb::InitializeParams()
{
    BindCore(m_core);
}

uint32_t
TalbRpsLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
