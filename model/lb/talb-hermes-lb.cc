#include "talb-hermes-lb.h"

#include "talb-core-attributes.h"
#include "talb-hermes-tag.h"

#include "ns3/boolean.h"
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
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("LossSensing",
                          "Sense random drops as Hermes does: a path whose TCP segments are "
                          "often retransmissions while its ECN fraction is low is failed for "
                          "FailedTime (flows leave it, new ones avoid it); false: only down "
                          "ports count as failed (talb's Hermes before 2026-11-30)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbHermesLb::m_lossSensing),
                          MakeBooleanChecker())
            .AddAttribute("RetransmitThreshold",
                          "LossSensing: share of a path's segments that are retransmissions "
                          "above which the path is failed (Hermes: 1 %)",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&TalbHermesLb::m_retxThreshold),
                          MakeDoubleChecker<double>(0.0, 1.0))
            .AddAttribute("LossEwmaGain",
                          "LossSensing: gain of the moving average of the retransmitted share "
                          "per segment (small: a share of 1 % is told from 0 over hundreds of "
                          "segments)",
                          DoubleValue(1.0 / 512),
                          MakeDoubleAccessor(&TalbHermesLb::m_lossGain),
                          MakeDoubleChecker<double>(1e-6, 1.0))
            .AddAttribute("LossMinSamples",
                          "LossSensing: segments a path must have carried since it was last "
                          "judged before it can be failed",
                          UintegerValue(512),
                          MakeUintegerAccessor(&TalbHermesLb::m_lossMinSamples),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("FailedTime",
                          "LossSensing: how long a failed path stays failed before it is "
                          "judged afresh (10 ms let the lossy path of "
                          "scenarios/baselines/hermes-random-drop-dctcp.json back too soon: "
                          "idle, it drew new flows)",
                          TimeValue(MilliSeconds(100)),
                          MakeTimeAccessor(&TalbHermesLb::m_failedTime),
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
    r.failed = m_lb->m_lossSensing &&
               NanoSeconds(nowNs) <
                   m_lb->m_loss[dstLeaf * m_lb->GetSwitchInfo().nSpines + path].failedUntil;
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
    m_loss.assign(m_lossSensing ? info.nLeaves * info.nSpines : 0, LossState());
    m_seq.assign(m_lossSensing ? m_config.tableSize : 0, SeqSlot());
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

uint64_t
TalbHermesLb::GetPathsFailed() const
{
    return m_pathsFailed;
}

std::vector<TalbLoadBalancer::PolicyCounter>
TalbHermesLb::GetPolicyCounters() const
{
    std::vector<PolicyCounter> counters = TalbCorePolicyLb::GetPolicyCounters();
    if (m_lossSensing)
    {
        counters.push_back({"paths_failed", m_pathsFailed});
    }
    return counters;
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
    if (m_lossSensing)
    {
        SenseLoss(ctx, port);
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

void
TalbHermesLb::SenseLoss(const TalbPacketContext& ctx, uint32_t port)
{
    if (ctx.tcpPayload == 0)
    {
        return; // not a TCP data segment
    }
    uint32_t end = ctx.tcpSeq + ctx.tcpPayload;
    SeqSlot& slot = m_seq[talb::lb::Mix32(ctx.flowHash ^ 0x9e3779b9u) & (m_seq.size() - 1)];
    bool retransmitted = false;
    if (slot.valid && slot.flowHash == ctx.flowHash)
    {
        retransmitted = !talb::lb::SeqAfter(end, slot.highEnd);
        if (!retransmitted)
        {
            slot.highEnd = end;
        }
    }
    else
    {
        slot = SeqSlot{ctx.flowHash, end, true};
    }
    const TalbSwitchInfo& info = GetSwitchInfo();
    uint32_t path = GetPort(port).peer;
    LossState& l = m_loss[ctx.dstLeaf * info.nSpines + path];
    l.retxShare += m_lossGain * ((retransmitted ? 1.0 : 0.0) - l.retxShare);
    ++l.samples;
    if (l.samples < m_lossMinSamples || l.retxShare <= m_retxThreshold)
    {
        return;
    }
    talb::lb::RemotePath fed = m_remote.Path(ctx.dstLeaf, path, TalbCoreNs(ctx.now));
    if (!(fed.known && fed.ecnFraction >= m_config.ecnThreshold))
    {
        NS_LOG_LOGIC("path " << path << " to leaf " << ctx.dstLeaf << " failed: " << l.retxShare
                             << " of its segments retransmitted");
        l.failedUntil = ctx.now + m_failedTime;
        ++m_pathsFailed;
    }
    l.retxShare = 0;
    l.samples = 0;
}

} // namespace ns3
