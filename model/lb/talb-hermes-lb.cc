#include "talb-hermes-lb.h"

#include "talb-core-attributes.h"
#include "talb-hermes-tag.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbHermesLb");

NS_OBJECT_ENSURE_REGISTERED(TalbHermesLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbHermesLb, "hermes");

TypeId
TalbHermesLb::GetTypeId()
{
    // The core's settings, then the sensing's (this class's own).
    static TypeId tid =
        TalbCoreAttributes::Add(TypeId("ns3::TalbHermesLb")
                                    .SetParent<TalbCorePolicyLb>()
                                    .SetGroupName("Talb")
                                    .AddConstructor<TalbHermesLb>(),
                                talb::lb::Hermes::Settings(),
                                &TalbHermesLb::m_config)
            .AddAttribute("MarkThreshold",
                          "Queue bytes at or above which a hop flags a packet as ECN-marked "
                          "(the fabric's default ECN threshold)",
                          UintegerValue(97500),
                          MakeUintegerAccessor(&TalbHermesLb::m_markBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("EwmaGain",
                          "Gain of the moving averages of the ECN flag and the delay per path",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&TalbHermesLb::m_gain),
                          MakeDoubleChecker<double>(0.001, 1.0))
            .AddAttribute("MetricAgingTime",
                          "Fed-back path state older than this counts as unknown",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TalbHermesLb::m_agingTime),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

TalbHermesLb::TalbHermesLb()
    : m_remote(this)
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbHermesLb::~TalbHermesLb()
{
    NS_LOG_FUNCTION(this);
}

int64_t
TalbHermesLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    return 1;
}

TalbHermesLb::Remote::Remote(const TalbHermesLb* lb)
    : m_lb(lb)
{
}

bool
TalbHermesLb::CanBeFallback() const
{
    return false;
}

talb::lb::RemotePath
TalbHermesLb::Remote::Path(uint32_t dstLeaf, uint32_t path, int64_t nowNs) const
{
    const PathState& s = m_lb->m_toLeaf[dstLeaf * m_lb->GetSwitchInfo().nSpines + path];
    talb::lb::RemotePath r;
    if (s.valid && NanoSeconds(nowNs) - s.updated <= m_lb->m_agingTime)
    {
        r.ecnFraction = s.ecnFraction;
        r.delayNs = static_cast<int64_t>(s.delayNs);
        r.known = true;
    }
    return r;
}

talb::lb::Hermes::Config
TalbHermesLb::Config() const
{
    talb::lb::Hermes::Config c = m_config;
    for (uint32_t p = 0; p < GetNPorts(); ++p)
    {
        const TalbPortState& port = GetPort(p);
        c.portPath.push_back(port.uplink ? port.peer : talb::lb::Hermes::kNoPath);
        c.portRateBps.push_back(port.rate.GetBitRate());
    }
    c.nLeaves = GetSwitchInfo().nLeaves;
    c.nPaths = GetSwitchInfo().nSpines;
    return c;
}

bool
TalbHermesLb::CheckConfig()
{
    if (!CoreConfigError(talb::lb::Hermes::Check(Config())))
    {
        return false;
    }
    if (GetSwitchInfo().nSpines > 256)
    {
        return ConfigError("the Hermes tag's path field holds at most 256 spines");
    }
    return true;
}

void
TalbHermesLb::InitializeParams()
{
    m_core.Configure(Config());
    BindCore(m_core);
    m_core.BindRemote(&m_remote);
    const TalbSwitchInfo& info = GetSwitchInfo();
    m_fromLeaf.assign(info.nLeaves * info.nSpines, PathState());
    m_toLeaf.assign(info.nLeaves * info.nSpines, PathState());
    m_fbCursor.assign(info.nLeaves, 0);
}

talb::lb::Hermes::PathType
TalbHermesLb::Classify(uint32_t port, uint32_t dstLeaf) const
{
    return m_core.Classify(port, dstLeaf, TalbCoreNs(Simulator::Now()));
}

talb::lb::RemotePath
TalbHermesLb::GetRemotePath(uint32_t leaf, uint32_t spine) const
{
    return m_remote.Path(leaf, spine, TalbCoreNs(Simulator::Now()));
}

double
TalbHermesLb::GetFlowRate(uint32_t flowHash) const
{
    return m_core.RateOf(flowHash);
}

uint32_t
TalbHermesLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreSelect(m_core, ctx, candidates);
}

bool
TalbHermesLb::AtMark(uint32_t port) const
{
    const TalbPortState& p = GetPort(port);
    return p.queue && p.queue->GetNBytes() >= m_markBytes;
}

void
TalbHermesLb::DoPacketIn(TalbPacketContext& ctx)
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!info.isLeaf || ctx.dstLeaf != info.index || ctx.srcLeaf == info.index)
    {
        return;
    }
    TalbHermesTag tag;
    if (!ctx.packet->RemovePacketTag(tag) || tag.Get().path >= info.nSpines)
    {
        return;
    }
    const TalbHermesTag::Fields& f = tag.Get();
    PathState& from = m_fromLeaf[ctx.srcLeaf * info.nSpines + f.path];
    double marked = f.marked ? 1.0 : 0.0;
    if (from.valid)
    {
        from.ecnFraction += m_gain * (marked - from.ecnFraction);
        from.delayNs += m_gain * (double(f.delayNs) - from.delayNs);
    }
    else
    {
        from.ecnFraction = marked;
        from.delayNs = f.delayNs;
    }
    from.updated = ctx.now;
    from.valid = true;
    if (f.hasFeedback && f.fbPath < info.nSpines)
    {
        PathState& to = m_toLeaf[ctx.srcLeaf * info.nSpines + f.fbPath];
        to.ecnFraction = f.fbEcnFraction / 65535.0;
        to.delayNs = f.fbDelayNs;
        to.updated = ctx.now;
        to.valid = true;
    }
}

void
TalbHermesLb::DoPacketOut(TalbPacketContext& ctx, uint32_t port)
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!info.isLeaf)
    {
        TalbHermesTag tag;
        if (ctx.packet->PeekPacketTag(tag))
        {
            TalbHermesTag::Fields& f = tag.Set();
            f.marked = f.marked || AtMark(port);
            f.delayNs = GetPort(port).AddQueueDelayNs(f.delayNs);
            ctx.packet->ReplacePacketTag(tag);
        }
        return;
    }
    if (ctx.srcLeaf != info.index || ctx.dstLeaf == info.index || !GetPort(port).uplink)
    {
        return;
    }
    TalbHermesTag tag;
    TalbHermesTag::Fields& f = tag.Set();
    f.path = static_cast<uint8_t>(GetPort(port).peer);
    f.marked = AtMark(port);
    f.delayNs = GetPort(port).QueueDelayNs();
    // Feed back the next path measured on traffic from the destination leaf (fresh entries
    // only: an aged one would report a path as it was long ago).
    for (uint32_t k = 0; k < info.nSpines; ++k)
    {
        uint32_t& cursor = m_fbCursor[ctx.dstLeaf];
        uint32_t spine = cursor;
        cursor = (cursor + 1) % info.nSpines;
        const PathState& m = m_fromLeaf[ctx.dstLeaf * info.nSpines + spine];
        if (m.valid && ctx.now - m.updated <= m_agingTime)
        {
            f.hasFeedback = true;
            f.fbPath = static_cast<uint8_t>(spine);
            f.fbEcnFraction = static_cast<uint16_t>(m.ecnFraction * 65535.0 + 0.5);
            f.fbDelayNs = static_cast<uint32_t>(std::min(m.delayNs, double(UINT32_MAX)));
            break;
        }
    }
    ctx.packet->AddPacketTag(tag);
}

} // namespace ns3
