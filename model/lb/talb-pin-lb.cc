#include "talb-pin-lb.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPinLb");

NS_OBJECT_ENSURE_REGISTERED(TalbPinLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbPinLb, "pin");

TypeId
TalbPinLb::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbPinLb")
                            .SetParent<TalbCorePolicyLb>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbPinLb>();
    return tid;
}

TalbPinLb::TalbPinLb()
{
    NS_LOG_FUNCTION(this);
}

TalbPinLb::~TalbPinLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbPinLb::InitializeParams()
{
    BindCore(m_core);
}

uint32_t
TalbPinLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
