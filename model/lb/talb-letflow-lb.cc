#include "talb-letflow-lb.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLetFlowLb");

NS_OBJECT_ENSURE_REGISTERED(TalbLetFlowLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbLetFlowLb, "letflow");

TypeId
TalbLetFlowLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbLetFlowLb")
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbLetFlowLb>()
            .AddAttribute("FlowletTimeout",
                          "Gap between two packets of a flow that starts a new flowlet",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TalbLetFlowLb::m_timeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Flowlet table slots (a power of two)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbLetFlowLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24));
    return tid;
}

TalbLetFlowLb::TalbLetFlowLb()
    : m_tableSize(4096),
      m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbLetFlowLb::~TalbLetFlowLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbLetFlowLb::DoDispose()
{
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbLetFlowLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
TalbLetFlowLb::CheckConfig()
{
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    return true;
}

void
TalbLetFlowLb::InitializeParams()
{
    m_table.Resize(m_tableSize);
}

uint32_t
TalbLetFlowLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    TalbFlowletTable::Entry& e = m_table.Slot(ctx.flowHash);
    if (TalbFlowletTable::IsActive(e, ctx.flowHash, ctx.now, m_timeout) &&
        candidates.Contains(e.port))
    {
        e.lastSeen = ctx.now;
        return e.port;
    }
    uint32_t port = candidates.ports[m_rng->GetInteger(0, candidates.count - 1)];
    if (e.valid && e.flowHash == ctx.flowHash && e.port != port)
    {
        NotifyReroute(ctx, e.port, port);
    }
    e.flowHash = ctx.flowHash;
    e.port = port;
    e.lastSeen = ctx.now;
    e.valid = true;
    return port;
}

} // namespace ns3
