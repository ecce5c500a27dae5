#include "talb-tensor-aware-lb.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTensorAwareLb");

NS_OBJECT_ENSURE_REGISTERED(TalbTensorAwareLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbTensorAwareLb, "talb");

TypeId
TalbTensorAwareLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTensorAwareLb")
            .SetParent<TalbCoreLb>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTensorAwareLb>()
            .AddAttribute("HighPriorityThreshold",
                          "Tensors with priority below this value are high priority",
                          UintegerValue(4),
                          MakeUintegerAccessor(&TalbTensorAwareLb::SetHighThreshold,
                                               &TalbTensorAwareLb::GetHighThreshold),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES))
            .AddAttribute("MoveMargin",
                          "Cost excess (bytes) of a high-priority tensor's port over the best "
                          "candidate that moves the tensor mid-tensor",
                          DoubleValue(15000),
                          MakeDoubleAccessor(&TalbTensorAwareLb::SetMoveMargin,
                                             &TalbTensorAwareLb::GetMoveMargin),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("DreWeight",
                          "Bytes of cost a fully utilised port adds on top of its queued bytes",
                          DoubleValue(15000),
                          MakeDoubleAccessor(&TalbTensorAwareLb::SetDreWeight,
                                             &TalbTensorAwareLb::GetDreWeight),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("LoadQuantum",
                          "Granularity (bytes) at which high-priority loads count as equal",
                          DoubleValue(1500),
                          MakeDoubleAccessor(&TalbTensorAwareLb::SetLoadQuantum,
                                             &TalbTensorAwareLb::GetLoadQuantum),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("IdleTimeout",
                          "A tensor entry idle for longer than this is aged out (keep it above the "
                          "largest RTT under load: a sender stalled longer re-places its tensor)",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&TalbTensorAwareLb::SetIdleTimeout,
                                           &TalbTensorAwareLb::GetIdleTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Tensor table slots (a power of two)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("ProbeLimit",
                          "Consecutive slots a key may occupy (open addressing window)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&TalbTensorAwareLb::SetProbeLimit,
                                               &TalbTensorAwareLb::GetProbeLimit),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Fallback",
                          "Policy for untagged packets: a load balancer that can serve as a "
                          "fallback (ecmp, letflow, rps, drill)",
                          StringValue("letflow"),
                          MakeStringAccessor(&TalbTensorAwareLb::m_fallbackName),
                          MakeRegistryNameChecker(TalbLoadBalancer::GetRegistry()))
            .AddAttribute("DreInterval",
                          "Decay interval of the per-port high-priority load estimator",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbTensorAwareLb::m_dreInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DreAlpha",
                          "Decay factor per interval of the high-priority load estimator",
                          DoubleValue(0.1),
                          MakeDoubleAccessor(&TalbTensorAwareLb::m_dreAlpha),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddTraceSource("TableEvict",
                            "A live tensor entry was evicted for lack of space",
                            MakeTraceSourceAccessor(&TalbTensorAwareLb::m_evictTrace),
                            "ns3::TalbTensorAwareLb::TableEvictTracedCallback");
    return tid;
}

TalbTensorAwareLb::TalbTensorAwareLb()
    : m_highThreshold(4),
      m_moveMargin(15000),
      m_dreWeight(15000),
      m_loadQuantum(1500),
      m_tableSize(4096),
      m_probeLimit(8),
      m_dreAlpha(0.1),
      m_fallbackPolicy(this)
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbTensorAwareLb::~TalbTensorAwareLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTensorAwareLb::DoDispose()
{
    if (m_fallback)
    {
        m_fallback->Dispose();
    }
    m_fallback = nullptr;
    TalbCoreLb::DoDispose();
}

int64_t
TalbTensorAwareLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    // The fallback exists only once attached; the helper assigns streams after Install.
    return 1 + (m_fallback ? m_fallback->AssignStreams(stream + 1) : 0);
}

talb::lb::TensorAwareV1::Config
TalbTensorAwareLb::MakeConfig() const
{
    talb::lb::TensorAwareV1::Config c;
    c.highThreshold = m_highThreshold;
    c.moveMarginBytes = m_moveMargin;
    c.dreWeightBytes = m_dreWeight;
    c.loadQuantumBytes = m_loadQuantum;
    c.idleTimeoutNs = TalbCoreNs(m_idleTimeout);
    c.tableSize = m_tableSize;
    c.probeLimit = m_probeLimit;
    c.dreIntervalNs = TalbCoreNs(m_dreInterval);
    c.dreAlpha = m_dreAlpha;
    return c;
}

void
TalbTensorAwareLb::Retune()
{
    if (IsAttached() && !m_core.Retune(MakeConfig()))
    {
        const char* why = talb::lb::TensorAwareV1::Check(MakeConfig());
        NS_LOG_WARN("attribute change not taken: "
                    << (why ? why : "table size and DRE parameters are fixed at install"));
    }
}

void
TalbTensorAwareLb::SetHighThreshold(uint8_t threshold)
{
    m_highThreshold = threshold;
    Retune();
}

uint8_t
TalbTensorAwareLb::GetHighThreshold() const
{
    return m_highThreshold;
}

void
TalbTensorAwareLb::SetMoveMargin(double bytes)
{
    m_moveMargin = bytes;
    Retune();
}

double
TalbTensorAwareLb::GetMoveMargin() const
{
    return m_moveMargin;
}

void
TalbTensorAwareLb::SetDreWeight(double bytes)
{
    m_dreWeight = bytes;
    Retune();
}

double
TalbTensorAwareLb::GetDreWeight() const
{
    return m_dreWeight;
}

void
TalbTensorAwareLb::SetLoadQuantum(double bytes)
{
    m_loadQuantum = bytes;
    Retune();
}

double
TalbTensorAwareLb::GetLoadQuantum() const
{
    return m_loadQuantum;
}

void
TalbTensorAwareLb::SetIdleTimeout(Time timeout)
{
    m_idleTimeout = timeout;
    Retune();
}

Time
TalbTensorAwareLb::GetIdleTimeout() const
{
    return m_idleTimeout;
}

void
TalbTensorAwareLb::SetProbeLimit(uint32_t limit)
{
    m_probeLimit = limit;
    Retune();
}

uint32_t
TalbTensorAwareLb::GetProbeLimit() const
{
    return m_probeLimit;
}

bool
TalbTensorAwareLb::CheckConfig()
{
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    if (m_probeLimit > m_tableSize)
    {
        return ConfigError("ProbeLimit " + std::to_string(m_probeLimit) + " exceeds TableSize " +
                           std::to_string(m_tableSize));
    }
    if (const char* error = talb::lb::TensorAwareV1::Check(MakeConfig()))
    {
        return ConfigError(error);
    }
    TypeId fallback;
    std::string error;
    if (!GetRegistry().Lookup(m_fallbackName, &fallback, &error))
    {
        return ConfigError("Fallback: " + error);
    }
    ObjectFactory factory;
    factory.SetTypeId(fallback);
    m_fallback = factory.Create<TalbLoadBalancer>();
    if (!m_fallback->CanBeFallback())
    {
        return ConfigError("Fallback '" + m_fallbackName +
                           "' cannot choose for another balancer (it has per-packet hooks or "
                           "per-tensor state)");
    }
    return true;
}

bool
TalbTensorAwareLb::CanBeFallback() const
{
    return false;
}

void
TalbTensorAwareLb::InitializeParams()
{
    m_core.Configure(MakeConfig(), GetNPorts());
    m_core.SetFallback(&m_fallbackPolicy);
    BindCore(m_core);
    m_fallback->Attach(GetSwitchInfo(), GetPortTable());
}

const TalbTensorAwareLb::TableStats&
TalbTensorAwareLb::GetTableStats() const
{
    return m_core.GetTableStats();
}

uint32_t
TalbTensorAwareLb::GetLiveEntries(Time now) const
{
    return m_core.LiveEntries(TalbCoreNs(now));
}

uint32_t
TalbTensorAwareLb::GetHeldEntries() const
{
    return m_core.HeldEntries();
}

uint32_t
TalbTensorAwareLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

void
TalbTensorAwareLb::DoCoreEvicted(uint32_t flowHash, uint32_t tensorId)
{
    m_evictTrace(flowHash, tensorId);
}

TalbTensorAwareLb::Fallback::Fallback(TalbTensorAwareLb* owner)
    : m_owner(owner)
{
}

uint32_t
TalbTensorAwareLb::Fallback::DoSelect(const talb::lb::PacketInfo& /* packet */,
                                      const talb::lb::Candidates& candidates)
{
    // The fallback chooses for the packet the core is deciding on, without its own traces.
    return DelegateSelect(m_owner->m_fallback,
                          m_owner->CurrentPacket(),
                          TalbCandidates{candidates.ports, candidates.count});
}

} // namespace ns3
