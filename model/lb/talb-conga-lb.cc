#include "talb-conga-lb.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCongaLb");

NS_OBJECT_ENSURE_REGISTERED(TalbCongaLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbCongaLb, "conga");

TypeId
TalbCongaLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbCongaLb")
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbCongaLb>()
            .AddAttribute("FlowletTimeout",
                          "Gap between two packets of a flow that starts a new flowlet",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TalbCongaLb::m_flowletTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Flowlet table slots (a power of two)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbCongaLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("QuantizationBits",
                          "Bits of the quantised congestion metric",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TalbCongaLb::m_bits),
                          MakeUintegerChecker<uint8_t>(1, 8))
            .AddAttribute("MetricAgingTime",
                          "A remote congestion metric older than this counts as 0",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&TalbCongaLb::m_agingTime),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

TalbCongaLb::TalbCongaLb()
    : m_tableSize(4096),
      m_bits(3),
      m_rng(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbCongaLb::~TalbCongaLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCongaLb::DoDispose()
{
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbCongaLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
TalbCongaLb::CanBeFallback() const
{
    // It tags packets in PacketOut and learns from them in PacketIn.
    return false;
}

bool
TalbCongaLb::CheckConfig()
{
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    if (GetSwitchInfo().nSpines > 256)
    {
        return ConfigError("CONGA's path field holds at most 256 spines");
    }
    return true;
}

void
TalbCongaLb::InitializeParams()
{
    m_flowlets.Resize(m_tableSize);
    m_feedback.Configure(GetSwitchInfo(), *GetPortTable(), m_bits, m_agingTime);
}

uint8_t
TalbCongaLb::GetCongestionToLeaf(uint32_t leaf, uint32_t spine, Time now) const
{
    return m_feedback.GetCongestionToLeaf(leaf, spine, now);
}

uint32_t
TalbCongaLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    const int64_t now = ctx.now.GetNanoSeconds();
    talb::lb::FlowletTable::Entry& e = m_flowlets.Slot(ctx.flowHash);
    if (talb::lb::FlowletTable::IsActive(e, ctx.flowHash, now, m_flowletTimeout.GetNanoSeconds()) &&
        candidates.Contains(e.port))
    {
        e.lastSeenNs = now;
        return e.port;
    }
    uint32_t best = PickLeast(candidates, m_rng, [&](uint32_t p) {
        return std::max<uint32_t>(m_feedback.LocalMetric(p, ctx.now),
                                  m_feedback.RemoteMetric(p, ctx.dstLeaf, ctx.now));
    });
    if (e.valid && e.flowHash == ctx.flowHash && e.port != best)
    {
        NotifyReroute(ctx, e.port, best);
    }
    e.flowHash = ctx.flowHash;
    e.port = best;
    e.lastSeenNs = now;
    e.valid = true;
    return best;
}

void
TalbCongaLb::DoPacketIn(TalbPacketContext& ctx)
{
    m_feedback.PacketIn(ctx);
}

void
TalbCongaLb::DoPacketOut(TalbPacketContext& ctx, uint32_t port)
{
    m_feedback.PacketOut(ctx, port);
}

} // namespace ns3
