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
    constexpr talb::lb::LetFlow::Config defaults{}; // the attributes' defaults: the core's
    static TypeId tid =
        TypeId("ns3::TalbLetFlowLb")
            .SetParent<TalbCoreLb>()
            .SetGroupName("Talb")
            .AddConstructor<TalbLetFlowLb>()
            .AddAttribute("FlowletTimeout",
                          "Gap between two packets of a flow that starts a new flowlet",
                          TimeValue(NanoSeconds(defaults.timeoutNs)),
                          MakeTimeAccessor(&TalbLetFlowLb::SetFlowletTimeout,
                                           &TalbLetFlowLb::GetFlowletTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Flowlet table slots (a power of two)",
                          UintegerValue(defaults.tableSize),
                          MakeUintegerAccessor(&TalbLetFlowLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24));
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
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    return true;
}

void
TalbLetFlowLb::SetFlowletTimeout(Time timeout)
{
    m_timeout = timeout;
    if (IsAttached())
    {
        m_core.Retune({TalbCoreNs(m_timeout), m_tableSize});
    }
}

Time
TalbLetFlowLb::GetFlowletTimeout() const
{
    return m_timeout;
}

void
TalbLetFlowLb::InitializeParams()
{
    m_core.Configure({TalbCoreNs(m_timeout), m_tableSize});
    BindCore(m_core);
}

uint32_t
TalbLetFlowLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
