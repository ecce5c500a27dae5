#include "talb-hermes-lb.h"

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
    // The defaults of the attributes the core takes are the core's.
    static const talb::lb::Hermes::Config defaults;
    static TypeId tid =
        TypeId("ns3::TalbHermesLb")
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbHermesLb>()
            .AddAttribute("TableSize",
                          "Flow table slots (a power of two)",
                          UintegerValue(defaults.tableSize),
                          MakeUintegerAccessor(&TalbHermesLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("IdleTimeout",
                          "A flow idle for longer is placed afresh as a new flow",
                          TimeValue(NanoSeconds(defaults.idleNs)),
                          MakeTimeAccessor(&TalbHermesLb::m_idleTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("EcnThreshold",
                          "ECN fraction at or above which (with DelayHigh) a path is congested, "
                          "below which (with DelayLow) it may be good (Hermes: T_ECN)",
                          DoubleValue(defaults.ecnThreshold),
                          MakeDoubleAccessor(&TalbHermesLb::m_ecnThreshold),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("DelayLow",
                          "Path queueing delay below which (with a low ECN fraction) a path is "
                          "good (Hermes: T_RTT_low, as delay above the base RTT)",
                          TimeValue(NanoSeconds(defaults.delayLowNs)),
                          MakeTimeAccessor(&TalbHermesLb::m_delayLow),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DelayHigh",
                          "Path queueing delay at or above which (with a high ECN fraction) a "
                          "path is congested (Hermes: T_RTT_high)",
                          TimeValue(NanoSeconds(defaults.delayHighNs)),
                          MakeTimeAccessor(&TalbHermesLb::m_delayHigh),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("DeltaEcn",
                          "A notably better path has an ECN fraction lower by this ... "
                          "(Hermes: delta_ECN)",
                          DoubleValue(defaults.deltaEcn),
                          MakeDoubleAccessor(&TalbHermesLb::m_deltaEcn),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("DeltaDelay",
                          "... and a queueing delay lower by this (Hermes: delta_RTT)",
                          TimeValue(NanoSeconds(defaults.deltaDelayNs)),
                          MakeTimeAccessor(&TalbHermesLb::m_deltaDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("SizeThreshold",
                          "Bytes a flow must have sent before it may be rerouted (Hermes: S)",
                          UintegerValue(defaults.sizeThresholdBytes),
                          MakeUintegerAccessor(&TalbHermesLb::m_sizeThreshold),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("RateThreshold",
                          "A flow faster than this fraction of its uplink's line rate is not "
                          "rerouted (Hermes: R)",
                          DoubleValue(defaults.rateThreshold),
                          MakeDoubleAccessor(&TalbHermesLb::m_rateThreshold),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("RateWindow",
                          "Window over which a flow's rate is measured; a flow moves at most "
                          "once per window",
                          TimeValue(NanoSeconds(defaults.rateWindowNs)),
                          MakeTimeAccessor(&TalbHermesLb::m_rateWindow),
                          MakeTimeChecker(NanoSeconds(1)))
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
    : m_events(MakeCallback(&TalbHermesLb::CoreRerouted, this)),
      m_remote(this),
      m_current(nullptr)
{
    NS_LOG_FUNCTION(this);
    m_random.Create();
}

TalbHermesLb::~TalbHermesLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbHermesLb::DoDispose()
{
    m_view.SetPorts(nullptr);
    m_random.Dispose();
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbHermesLb::AssignStreams(int64_t stream)
{
    m_random.GetVariable()->SetStream(stream);
    return 1;
}

void
TalbHermesLb::CoreRerouted(uint32_t from, uint32_t to)
{
    NotifyReroute(*m_current, from, to);
}

TalbHermesLb::Remote::Remote(const TalbHermesLb* lb)
    : m_lb(lb)
{
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
    talb::lb::Hermes::Config c;
    for (uint32_t p = 0; p < GetNPorts(); ++p)
    {
        const TalbPortState& port = GetPort(p);
        c.portPath.push_back(port.uplink ? port.peer : talb::lb::Hermes::kNoPath);
        c.portRateBps.push_back(port.rate.GetBitRate());
    }
    c.nLeaves = GetSwitchInfo().nLeaves;
    c.nPaths = GetSwitchInfo().nSpines;
    c.tableSize = m_tableSize;
    c.idleNs = TalbCoreNs(m_idleTimeout);
    c.ecnThreshold = m_ecnThreshold;
    c.delayLowNs = TalbCoreNs(m_delayLow);
    c.delayHighNs = TalbCoreNs(m_delayHigh);
    c.deltaEcn = m_deltaEcn;
    c.deltaDelayNs = TalbCoreNs(m_deltaDelay);
    c.sizeThresholdBytes = m_sizeThreshold;
    c.rateThreshold = m_rateThreshold;
    c.rateWindowNs = TalbCoreNs(m_rateWindow);
    return c;
}

bool
TalbHermesLb::CheckConfig()
{
    if (const char* error = talb::lb::Hermes::Check(Config()))
    {
        NS_LOG_ERROR(error);
        return false;
    }
    if (GetSwitchInfo().nSpines > 256)
    {
        NS_LOG_ERROR("the Hermes tag's path field holds at most 256 spines");
        return false;
    }
    return true;
}

void
TalbHermesLb::InitializeParams()
{
    m_core.Configure(Config());
    m_view.SetPorts(GetPortTable());
    m_core.Bind(&m_view, &m_random, &m_events);
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
    m_current = &ctx;
    return m_core.Select(TalbCorePacket(ctx), TalbCoreCandidates(candidates));
}

uint32_t
TalbHermesLb::QueueDelayNs(uint32_t port) const
{
    const TalbPortState& p = GetPort(port);
    if (!p.queue || p.rate.GetBitRate() == 0)
    {
        return 0;
    }
    double ns = double(p.queue->GetNBytes()) * 8e9 / double(p.rate.GetBitRate());
    return static_cast<uint32_t>(std::min(ns, double(UINT32_MAX)));
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
            f.delayNs =
                uint32_t(std::min<uint64_t>(uint64_t(f.delayNs) + QueueDelayNs(port), UINT32_MAX));
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
    f.delayNs = QueueDelayNs(port);
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
