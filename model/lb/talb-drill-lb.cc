#include "talb-drill-lb.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbDrillLb");

NS_OBJECT_ENSURE_REGISTERED(TalbDrillLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbDrillLb, "drill");

TypeId
TalbDrillLb::GetTypeId()
{
    constexpr talb::lb::Drill::Config defaults{}; // the attributes' defaults: the core's
    static TypeId tid =
        TypeId("ns3::TalbDrillLb")
            .SetParent<TalbCoreLb>()
            .SetGroupName("Talb")
            .AddConstructor<TalbDrillLb>()
            .AddAttribute("Samples",
                          "Random candidate ports sampled per packet (d)",
                          UintegerValue(defaults.samples),
                          MakeUintegerAccessor(&TalbDrillLb::SetSamples, &TalbDrillLb::GetSamples),
                          MakeUintegerChecker<uint32_t>(1, MAX_SAMPLES))
            .AddAttribute("Memory",
                          "Least-loaded ports remembered for the next packet (m)",
                          UintegerValue(defaults.memory),
                          MakeUintegerAccessor(&TalbDrillLb::SetMemory, &TalbDrillLb::GetMemory),
                          MakeUintegerChecker<uint32_t>(0, MAX_MEMORY));
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
TalbDrillLb::SetSamples(uint32_t samples)
{
    m_samples = samples;
    if (IsAttached())
    {
        m_core.Retune({m_samples, m_memory});
    }
}

void
TalbDrillLb::SetMemory(uint32_t memory)
{
    m_memory = memory;
    if (IsAttached())
    {
        m_core.Retune({m_samples, m_memory});
    }
}

uint32_t
TalbDrillLb::GetSamples() const
{
    return m_samples;
}

uint32_t
TalbDrillLb::GetMemory() const
{
    return m_memory;
}

void
TalbDrillLb::InitializeParams()
{
    m_core.Configure({m_samples, m_memory});
    BindCore(m_core);
}

uint32_t
TalbDrillLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

} // namespace ns3
