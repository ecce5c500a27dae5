#include "talb-tensor-aware-lb.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <cmath>

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
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTensorAwareLb>()
            .AddAttribute("HighPriorityThreshold",
                          "Tensors with priority below this value are high priority",
                          UintegerValue(4),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_highThreshold),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES))
            .AddAttribute("MoveMargin",
                          "Cost excess (bytes) of a high-priority tensor's port over the best "
                          "candidate that moves the tensor mid-tensor",
                          DoubleValue(15000),
                          MakeDoubleAccessor(&TalbTensorAwareLb::m_moveMargin),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("DreWeight",
                          "Bytes of cost a fully utilised port adds on top of its queued bytes",
                          DoubleValue(15000),
                          MakeDoubleAccessor(&TalbTensorAwareLb::m_dreWeight),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("LoadQuantum",
                          "Granularity (bytes) at which high-priority loads count as equal",
                          DoubleValue(1500),
                          MakeDoubleAccessor(&TalbTensorAwareLb::m_loadQuantum),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("IdleTimeout",
                          "A tensor entry idle for longer than this is aged out (keep it above the "
                          "largest RTT under load: a sender stalled longer re-places its tensor)",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&TalbTensorAwareLb::m_idleTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Tensor table slots (a power of two)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("ProbeLimit",
                          "Consecutive slots a key may occupy (open addressing window)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_probeLimit),
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
      m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
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
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbTensorAwareLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    // The fallback exists only once attached; the helper assigns streams after Install.
    return 1 + (m_fallback ? m_fallback->AssignStreams(stream + 1) : 0);
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
    m_table.assign(m_tableSize, Entry());
    m_highLoad.assign(GetNPorts(), TalbDre());
    for (auto& dre : m_highLoad)
    {
        dre.Configure(m_dreInterval, m_dreAlpha);
    }
    m_fallback->Attach(GetSwitchInfo(), GetPortTable());
}

const TalbTensorAwareLb::TableStats&
TalbTensorAwareLb::GetTableStats() const
{
    return m_tableStats;
}

bool
TalbTensorAwareLb::IsLive(const Entry& e, Time now) const
{
    return e.valid && now - e.lastSeen <= m_idleTimeout;
}

uint32_t
TalbTensorAwareLb::GetLiveEntries(Time now) const
{
    uint32_t n = 0;
    for (const auto& e : m_table)
    {
        n += IsLive(e, now) ? 1 : 0;
    }
    return n;
}

uint32_t
TalbTensorAwareLb::GetHeldEntries() const
{
    uint32_t n = 0;
    for (const auto& e : m_table)
    {
        n += e.valid ? 1 : 0;
    }
    return n;
}

TalbTensorAwareLb::Entry*
TalbTensorAwareLb::Lookup(uint32_t flowHash, uint32_t tensorId, Time now, Entry** freeSlot)
{
    uint32_t mask = m_tableSize - 1;
    uint32_t start = TalbMix32(flowHash ^ TalbMix32(tensorId)) & mask;
    Entry* free = nullptr;
    Entry* oldest = nullptr;
    for (uint32_t i = 0; i < m_probeLimit; ++i)
    {
        Entry& e = m_table[(start + i) & mask];
        bool live = IsLive(e, now);
        if (live && e.flowHash == flowHash && e.tensorId == tensorId)
        {
            return &e;
        }
        if (!live && !free)
        {
            free = &e;
        }
        if (live && (!oldest || e.lastSeen < oldest->lastSeen))
        {
            oldest = &e;
        }
    }
    *freeSlot = free ? free : oldest;
    return nullptr;
}

uint32_t
TalbTensorAwareLb::LeastCostPort(const TalbCandidates& candidates, Time now)
{
    return PickLeast(candidates, m_rng, [&](uint32_t p) { return PortCost(p, now, m_dreWeight); });
}

uint32_t
TalbTensorAwareLb::LeastHighPriorityLoadPort(const TalbCandidates& candidates, Time now)
{
    return PickLeast(candidates, m_rng, [&](uint32_t p) {
        double load = std::floor(m_highLoad[p].GetBytes(now) / m_loadQuantum);
        return std::make_pair(load, PortCost(p, now, m_dreWeight));
    });
}

uint32_t
TalbTensorAwareLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    if (!ctx.hasLabel)
    {
        ++m_tableStats.nFallback;
        return DelegateSelect(m_fallback, ctx, candidates);
    }
    const bool high = ctx.label.priority < m_highThreshold;
    Entry* slot = nullptr;
    Entry* e = Lookup(ctx.flowHash, ctx.label.tensor_id, ctx.now, &slot);
    uint32_t port;
    if (e && candidates.Contains(e->port))
    {
        port = e->port;
        if (high)
        {
            uint32_t best = LeastCostPort(candidates, ctx.now);
            if (PortCost(port, ctx.now, m_dreWeight) >
                PortCost(best, ctx.now, m_dreWeight) + m_moveMargin)
            {
                ++m_tableStats.nMidTensorMoves;
                NotifyReroute(ctx, port, best);
                port = best;
            }
        }
    }
    else
    {
        port = high ? LeastCostPort(candidates, ctx.now)
                    : LeastHighPriorityLoadPort(candidates, ctx.now);
        if (e)
        {
            // Its port failed: the tensor has to move, whatever its priority.
            NotifyReroute(ctx, e->port, port);
        }
        else if (!(ctx.label.flags & TALB_FLAG_LAST))
        {
            e = slot;
            if (e->valid)
            {
                if (IsLive(*e, ctx.now))
                {
                    ++m_tableStats.nEvicted;
                    m_evictTrace(e->flowHash, e->tensorId);
                }
                else
                {
                    ++m_tableStats.nAgedOut;
                }
            }
            e->flowHash = ctx.flowHash;
            e->tensorId = ctx.label.tensor_id;
            e->valid = true;
            ++m_tableStats.nInserted;
        }
    }
    if (e)
    {
        e->port = port;
        e->lastSeen = ctx.now;
        if (ctx.label.flags & TALB_FLAG_LAST)
        {
            e->valid = false;
            ++m_tableStats.nFreedOnLast;
        }
    }
    if (high)
    {
        m_highLoad[port].Add(ctx.size, ctx.now);
    }
    return port;
}

} // namespace ns3
