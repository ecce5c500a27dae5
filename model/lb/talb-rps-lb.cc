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
                            .SetParent<TalbLoadBalancer>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbRpsLb>();
    return tid;
}

TalbRpsLb::TalbRpsLb()
    : m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbRpsLb::~TalbRpsLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRpsLb::DoDispose()
{
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbRpsLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
TalbRpsLb::DoSelectPath(TalbPacketContext& /* ctx */, const TalbCandidates& candidates)
{
    return candidates.ports[m_rng->GetInteger(0, candidates.count - 1)];
}

} // namespace ns3
