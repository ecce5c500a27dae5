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
    static TypeId tid = TypeId("ns3::TalbDrillLb")
                            .SetParent<TalbLoadBalancer>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbDrillLb>()
                            .AddAttribute("Samples",
                                          "Random candidate ports sampled per packet (d)",
                                          UintegerValue(2),
                                          MakeUintegerAccessor(&TalbDrillLb::m_samples),
                                          MakeUintegerChecker<uint32_t>(1, MAX_SAMPLES))
                            .AddAttribute("Memory",
                                          "Least-loaded ports remembered for the next packet (m)",
                                          UintegerValue(1),
                                          MakeUintegerAccessor(&TalbDrillLb::m_memory),
                                          MakeUintegerChecker<uint32_t>(0, MAX_MEMORY));
    return tid;
}

TalbDrillLb::TalbDrillLb()
    : m_samples(2),
      m_memory(1),
      m_remembered{},
      m_nRemembered(0),
      m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbDrillLb::~TalbDrillLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbDrillLb::DoDispose()
{
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbDrillLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

uint32_t
TalbDrillLb::DoSelectPath(TalbPacketContext& /* ctx */, const TalbCandidates& candidates)
{
    // Considered ports sorted by queued bytes (insertion sort on a small stack array).
    std::array<uint32_t, MAX_SAMPLES + MAX_MEMORY> port;
    std::array<uint32_t, MAX_SAMPLES + MAX_MEMORY> load;
    uint32_t n = 0;
    auto consider = [&](uint32_t p) {
        for (uint32_t i = 0; i < n; ++i)
        {
            if (port[i] == p)
            {
                return;
            }
        }
        uint32_t q = GetPort(p).queue->GetNBytes();
        uint32_t i = n++;
        // Strict '<' keeps earlier entries (remembered ports) first among equals.
        while (i > 0 && q < load[i - 1])
        {
            port[i] = port[i - 1];
            load[i] = load[i - 1];
            --i;
        }
        port[i] = p;
        load[i] = q;
    };
    for (uint32_t i = 0; i < m_nRemembered; ++i)
    {
        if (candidates.Contains(m_remembered[i]))
        {
            consider(m_remembered[i]);
        }
    }
    for (uint32_t s = 0; s < m_samples; ++s)
    {
        consider(candidates.ports[m_rng->GetInteger(0, candidates.count - 1)]);
    }
    m_nRemembered = std::min(m_memory, n);
    for (uint32_t i = 0; i < m_nRemembered; ++i)
    {
        m_remembered[i] = port[i];
    }
    return port[0];
}

} // namespace ns3
