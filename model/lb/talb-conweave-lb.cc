#include "talb-conweave-lb.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbConWeaveLb");

NS_OBJECT_ENSURE_REGISTERED(TalbConWeaveLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbConWeaveLb, "conweave");

namespace
{
constexpr uint32_t CONTROL_BYTES = 64; //!< IPv4 size of RTT_REPLY and CLEAR
constexpr uint8_t IP_PROTO_UDP = 17;

void
PutBe16(uint8_t* p, uint16_t v)
{
    p[0] = static_cast<uint8_t>(v >> 8);
    p[1] = static_cast<uint8_t>(v);
}
} // namespace

TypeId
TalbConWeaveLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbConWeaveLb")
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbConWeaveLb>()
            .AddAttribute("TableSize",
                          "Flow table slots at the source and at the destination leaf (a power "
                          "of two)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbConWeaveLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddAttribute("TableProbes",
                          "Slots a flow may take in each table, consecutive from its hash: a "
                          "new flow takes the first that is free or idle past IdleTimeout, "
                          "else evicts the least recently used (1: the slot its hash names, "
                          "evicting whatever flow is there, as before 2026-11-28)",
                          UintegerValue(16),
                          MakeUintegerAccessor(&TalbConWeaveLb::m_tableProbes),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("IdleTimeout",
                          "A flow idle for longer starts afresh on the best path",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_idleTimeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("BaseRtt",
                          "Leaf-to-leaf base RTT of the reply deadline; 0: learned per "
                          "destination leaf as the least reply RTT seen (no deadline before "
                          "the first reply)",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_baseRtt),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ExtraReplyDeadline",
                          "An RTT_REPLY later than the base RTT plus this marks the flow's path "
                          "congested",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_extraReplyDeadline),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("PathPauseTime",
                          "A path judged congested is not chosen again for this long",
                          TimeValue(MicroSeconds(500)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_pathPauseTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("RandomPathChoice",
                          "Choose new and reroute paths uniformly among those not paused (the "
                          "paper's rule) instead of by fewest flows of this leaf, then fewest "
                          "queued bytes",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbConWeaveLb::m_randomChoice),
                          MakeBooleanChecker())
            .AddAttribute("PathSamples",
                          "With RandomPathChoice: draw this many paths uniformly, one after the "
                          "other, and take the first that is not paused; none: a new flow takes "
                          "the first drawn, a late flow stays (ConWeave's simulator draws 2). "
                          "0: uniformly among all paths not paused",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbConWeaveLb::m_pathSamples),
                          MakeUintegerChecker<uint32_t>(0, 64))
            .AddAttribute("PauseOn",
                          "What pauses a path for PathPauseTime: LateReply (an epoch's late "
                          "RTT_REPLY pauses the flow's path), or Notify (ConWeave's NOTIFY: the "
                          "destination leaf answers every ECN-marked data packet with a NOTIFY "
                          "naming its path, which the source leaf pauses; a late reply then "
                          "only moves the flow)",
                          EnumValue(TalbConWeaveLb::LATE_REPLY),
                          MakeEnumAccessor(&TalbConWeaveLb::m_pauseOn),
                          MakeEnumChecker(TalbConWeaveLb::LATE_REPLY,
                                          "LateReply",
                                          TalbConWeaveLb::NOTIFY,
                                          "Notify"))
            .AddAttribute("HoldUntilTail",
                          "Release a reorder queue only when its TAIL arrives, it is full, or "
                          "MaxReorderWait has passed (a lossless fabric: the TAIL is late, never "
                          "lost); false: also at the TAIL's predicted arrival plus "
                          "ExtraFlushTime (ConWeave's rule, for fabrics that drop; the "
                          "behaviour before 2026-11-28)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbConWeaveLb::m_holdUntilTail),
                          MakeBooleanChecker())
            .AddAttribute("ExtraFlushTime",
                          "Margin added to the TAIL's expected arrival before a reorder queue "
                          "is released without it (and the least wait)",
                          TimeValue(MicroSeconds(8)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_extraFlushTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("NoInfoReorderWait",
                          "Least wait for the TAIL when no packet of the epoch has come over the "
                          "old path yet, before ExtraFlushTime (ConWeave's default reorder "
                          "wait; 0: twice the flow's last delay only, as before 2026-11-28)",
                          TimeValue(MicroSeconds(200)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_noInfoWait),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxReorderWait",
                          "Longest a reorder queue waits for the TAIL",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TalbConWeaveLb::m_maxReorderWait),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ReorderQueueLimit",
                          "Packets a flow's reorder queue holds at most; a full queue is "
                          "released",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&TalbConWeaveLb::m_queueLimit),
                          MakeUintegerChecker<uint32_t>(1, 1u << 20))
            .AddAttribute("ChargeControlPackets",
                          "Charge the control packets the destination leaf makes (RTT_REPLY, "
                          "CLEAR, NOTIFY) to the ingress port of the data packet they answer, "
                          "where PFC can drop them past its headroom (as before 2026-11-30); "
                          "false: to no ingress port, as packets a switch makes take no ingress "
                          "buffer",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbConWeaveLb::m_chargeControl),
                          MakeBooleanChecker())
            .AddTraceSource("Flush",
                            "A reorder queue was released: flow hash, packets, by timeout",
                            MakeTraceSourceAccessor(&TalbConWeaveLb::m_flushTrace),
                            "ns3::TalbConWeaveLb::FlushTracedCallback");
    return tid;
}

TalbConWeaveLb::TalbConWeaveLb()
    : m_tableSize(4096),
      m_tableProbes(16),
      m_queueLimit(1024)
{
    NS_LOG_FUNCTION(this);
    m_rng = CreateObject<UniformRandomVariable>();
}

TalbConWeaveLb::~TalbConWeaveLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbConWeaveLb::DoDispose()
{
    for (RxEntry& e : m_rx)
    {
        e.flush.Cancel();
        e.queue.clear();
    }
    m_rx.clear();
    m_sweep.Cancel();
    m_rng = nullptr;
    TalbLoadBalancer::DoDispose();
}

int64_t
TalbConWeaveLb::AssignStreams(int64_t stream)
{
    m_rng->SetStream(stream);
    return 1;
}

bool
TalbConWeaveLb::CanBeFallback() const
{
    return false; // needs Hold() and its own tables
}

const TalbConWeaveLb::Counters&
TalbConWeaveLb::GetCounters() const
{
    return m_counters;
}

std::vector<TalbLoadBalancer::PolicyCounter>
TalbConWeaveLb::GetPolicyCounters() const
{
    const Counters& c = m_counters;
    return {{"rtt_requests", c.rttRequests},
            {"replies", c.replies},
            {"late_replies", c.lateReplies},
            {"reroutes", c.reroutes},
            {"clears", c.clears},
            {"notifies", c.notifies},
            {"replies_sent", c.repliesSent},
            {"clears_sent", c.clearsSent},
            {"notifies_sent", c.notifiesSent},
            {"reorder_held", c.held},
            {"released_by_tail", c.releasedByTail},
            {"released_by_timeout", c.releasedByTimeout},
            {"released_by_overflow", c.releasedByOverflow},
            {"reorder_timeouts", c.timeouts},
            {"reorder_held_now", c.heldNow},
            {"tx_table_evictions", c.txEvictions},
            {"rx_table_evictions", c.rxEvictions}};
}

bool
TalbConWeaveLb::CheckConfig()
{
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    if (m_tableProbes > m_tableSize)
    {
        return ConfigError("TableProbes " + std::to_string(m_tableProbes) + " exceeds TableSize " +
                           std::to_string(m_tableSize));
    }
    if (m_pathSamples > 0 && !m_randomChoice)
    {
        return ConfigError("PathSamples " + std::to_string(m_pathSamples) +
                           " needs RandomPathChoice=true (samples are uniform draws)");
    }
    if (GetSwitchInfo().nSpines > 256)
    {
        return ConfigError("the ConWeave tag's path field holds at most 256 spines");
    }
    if (!CanTransmit())
    {
        return ConfigError("the switch gave no transmit callback (ConWeave sends control "
                           "packets and holds data packets)");
    }
    return true;
}

void
TalbConWeaveLb::InitializeParams()
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!info.isLeaf)
    {
        return; // spines only forward
    }
    m_tx.assign(m_tableSize, TxEntry());
    m_portFlows.assign(GetNPorts(), 0);
    m_targets.assign(GetNPorts(), 0);
    m_rx.resize(m_tableSize);
    m_minRtt.assign(info.nLeaves, Time(0));
    m_pausedUntil.assign(info.nLeaves * info.nSpines, Time(0));
    m_uplinkOf.assign(info.nSpines, UINT32_MAX);
    for (uint32_t p = 0; p < GetNPorts(); ++p)
    {
        const TalbPortState& port = GetPort(p);
        if (port.uplink && port.peer < info.nSpines)
        {
            m_uplinkOf[port.peer] = p;
        }
    }
}

bool
TalbConWeaveLb::Paused(uint32_t port, uint32_t dstLeaf, const Time& now) const
{
    const TalbPortState& p = GetPort(port);
    uint32_t nSpines = GetSwitchInfo().nSpines;
    return p.uplink && p.peer < nSpines && dstLeaf < m_minRtt.size() &&
           now < m_pausedUntil[dstLeaf * nSpines + p.peer];
}

uint32_t
TalbConWeaveLb::PickPath(const TalbCandidates& candidates, uint32_t dstLeaf, uint32_t exclude)
{
    Time now = Simulator::Now();
    if (m_pathSamples > 0)
    {
        // ConWeave's simulator: a few uniform draws, the first that is not paused; when that is
        // the path the flow is leaving, it stays.
        for (uint32_t i = 0; i < m_pathSamples; ++i)
        {
            uint32_t port = candidates.ports[m_rng->GetInteger(0, candidates.count - 1)];
            if (!Paused(port, dstLeaf, now))
            {
                return port == exclude ? UINT32_MAX : port;
            }
        }
        return UINT32_MAX;
    }
    uint32_t best = UINT32_MAX;
    uint32_t bestFlows = 0;
    uint64_t bestBytes = 0;
    uint32_t ties = 0;
    for (uint32_t i = 0; i < candidates.count; ++i)
    {
        uint32_t port = candidates.ports[i];
        if (port == exclude || Paused(port, dstLeaf, now))
        {
            continue;
        }
        const TalbPortState& p = GetPort(port);
        // Random choice (the paper's) makes every path that is not paused a tie.
        uint32_t flows = m_randomChoice ? 0 : m_portFlows[port];
        uint64_t bytes = m_randomChoice || !p.queue ? 0 : p.queue->GetNBytes();
        if (best == UINT32_MAX || flows < bestFlows || (flows == bestFlows && bytes < bestBytes))
        {
            best = port;
            bestFlows = flows;
            bestBytes = bytes;
            ties = 1;
        }
        else if (flows == bestFlows && bytes == bestBytes && m_rng->GetInteger(0, ties++) == 0)
        {
            best = port; // reservoir sampling: uniform among the ties
        }
    }
    return best;
}

uint32_t
TalbConWeaveLb::AskTarget(TalbPacketContext& ctx,
                          const TalbCandidates& candidates,
                          uint32_t exclude,
                          const TargetCallback& target)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < candidates.count; ++i)
    {
        uint32_t port = candidates.ports[i];
        if (port != exclude && !Paused(port, ctx.dstLeaf, ctx.now))
        {
            m_targets[n++] = port;
        }
    }
    if (n == 0)
    {
        return UINT32_MAX;
    }
    TalbCandidates open{m_targets.data(), n};
    uint32_t port = target(ctx, open);
    NS_ASSERT_MSG(open.Contains(port), "a move target outside the paths offered");
    return port;
}

void
TalbConWeaveLb::Place(TxEntry& e, uint32_t port)
{
    if (e.port != UINT32_MAX)
    {
        --m_portFlows[e.port];
    }
    else if (port != UINT32_MAX && m_activeFlows++ == 0)
    {
        m_sweep = Simulator::Schedule(m_idleTimeout, &TalbConWeaveLb::Sweep, this);
    }
    if (port != UINT32_MAX)
    {
        ++m_portFlows[port];
    }
    else if (e.port != UINT32_MAX)
    {
        --m_activeFlows;
    }
    e.port = port;
}

void
TalbConWeaveLb::Sweep()
{
    // Flows idle past IdleTimeout no longer count on their port; the sweep runs only while
    // some flow is counted.
    Time now = Simulator::Now();
    for (TxEntry& e : m_tx)
    {
        if (e.port != UINT32_MAX && now - e.lastTx > m_idleTimeout)
        {
            Place(e, UINT32_MAX);
        }
    }
    if (m_activeFlows > 0)
    {
        m_sweep = Simulator::Schedule(m_idleTimeout, &TalbConWeaveLb::Sweep, this);
    }
}

template <class Entry, class IsIdle, class LastUse>
uint32_t
TalbConWeaveLb::FindSlot(const std::vector<Entry>& table,
                         uint32_t flowHash,
                         bool insert,
                         IsIdle isIdle,
                         LastUse lastUse) const
{
    // Evicting an active flow makes it start afresh (new path, epoch from 1) while its packets
    // are still on the old path, and at the destination leaf it loses its reordering state:
    // either reorders at the receiver. Many slots stay taken by flows that have finished but
    // are not yet idle long enough, so a direct-mapped table evicts active flows often.
    uint32_t first = TalbMix32(flowHash);
    uint32_t free = UINT32_MAX;
    uint32_t oldest = UINT32_MAX;
    for (uint32_t i = 0; i < m_tableProbes; ++i)
    {
        uint32_t slot = (first + i) & (m_tableSize - 1);
        const Entry& e = table[slot];
        if (e.valid && e.key == flowHash)
        {
            return slot;
        }
        if (free == UINT32_MAX && (!e.valid || isIdle(e)))
        {
            free = slot;
        }
        if (oldest == UINT32_MAX || lastUse(e) < lastUse(table[oldest]))
        {
            oldest = slot;
        }
    }
    if (!insert)
    {
        return UINT32_MAX;
    }
    return free != UINT32_MAX ? free : oldest;
}

uint32_t
TalbConWeaveLb::FindTx(uint32_t flowHash) const
{
    return FindSlot(
        m_tx,
        flowHash,
        false,
        [](const TxEntry&) { return false; },
        [](const TxEntry& x) { return x.lastTx; });
}

TalbConWeaveLb::TxEntry&
TalbConWeaveLb::TxLookup(uint32_t flowHash, const Time& now)
{
    uint32_t slot = FindSlot(
        m_tx,
        flowHash,
        true,
        [&](const TxEntry& x) { return now - x.lastTx > m_idleTimeout; },
        [](const TxEntry& x) { return x.lastTx; });
    TxEntry& e = m_tx[slot];
    if (!e.valid || e.key != flowHash || now - e.lastTx > m_idleTimeout)
    {
        if (e.valid && e.key != flowHash && now - e.lastTx <= m_idleTimeout)
        {
            ++m_counters.txEvictions;
        }
        // A new flow or flowlet: a fresh epoch on the best path (the epoch keeps counting for
        // the same flow, so the destination leaf sees it grow).
        uint32_t epoch = (e.valid && e.key == flowHash) ? e.epoch : 0;
        Place(e, UINT32_MAX);
        e = TxEntry();
        e.key = flowHash;
        e.valid = true;
        e.epoch = epoch;
    }
    return e;
}

uint32_t
TalbConWeaveLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return SelectPlaced(ctx, candidates, UINT32_MAX);
}

bool
TalbConWeaveLb::IsSourceLeaf(const TalbPacketContext& ctx) const
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    return info.isLeaf && ctx.srcLeaf == info.index && ctx.dstLeaf != info.index;
}

bool
TalbConWeaveLb::Tracks(const TalbPacketContext& ctx, const TalbCandidates& candidates) const
{
    uint32_t slot = FindTx(ctx.flowHash);
    if (slot == UINT32_MAX)
    {
        return false;
    }
    const TxEntry& e = m_tx[slot];
    return e.port != UINT32_MAX && ctx.now - e.lastTx <= m_idleTimeout &&
           candidates.Contains(e.port);
}

uint32_t
TalbConWeaveLb::SelectPlaced(TalbPacketContext& ctx,
                             const TalbCandidates& candidates,
                             uint32_t placed,
                             const TargetCallback& target)
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!IsSourceLeaf(ctx))
    {
        // Spines have one path per leaf; elsewhere: the flow's hash.
        return candidates.ports[TalbMix32(ctx.flowHash ^ info.switchId) % candidates.count];
    }
    const Time& now = ctx.now;
    TxEntry& e = TxLookup(ctx.flowHash, now);
    if (e.port == UINT32_MAX || !candidates.Contains(e.port))
    {
        uint32_t old = e.port;
        uint32_t port =
            placed != UINT32_MAX ? placed : PickPath(candidates, ctx.dstLeaf, UINT32_MAX);
        if (port == UINT32_MAX)
        {
            port = PickPath(candidates, UINT32_MAX, UINT32_MAX); // every path paused
        }
        Place(e, port);
        if (old != UINT32_MAX)
        {
            NotifyReroute(ctx, old, e.port); // its path failed: move without waiting
        }
        e.stabilized = true;
    }
    bool request = false;
    if (e.stabilized)
    {
        StartEpoch(e);
        e.waitingReply = true;
        e.requestTime = now;
        request = true;
        ++m_counters.rttRequests;
    }
    else if (e.waitingReply && e.phase == 0)
    {
        Time base = m_baseRtt.IsZero() ? m_minRtt[ctx.dstLeaf] : m_baseRtt;
        if (!base.IsZero() && now - e.requestTime > base + m_extraReplyDeadline)
        {
            // The reply is late: the path is congested. Move once, if a better path exists.
            ++m_counters.lateReplies;
            e.waitingReply = false;
            const TalbPortState& cur = GetPort(e.port);
            if (m_pauseOn == LATE_REPLY && cur.uplink && cur.peer < info.nSpines)
            {
                m_pausedUntil[ctx.dstLeaf * info.nSpines + cur.peer] = now + m_pathPauseTime;
            }
            uint32_t better = UINT32_MAX;
            if (!target.IsNull())
            {
                // The other balancer knows the flows it placed; the late reply only says when.
                better = AskTarget(ctx, candidates, e.port, target);
            }
            else
            {
                // Better: a path that is not paused and, with this flow moved there, carries no
                // more of this leaf's flows than the current one does now (flows that meet
                // congestion together must not all jump onto the same path).
                better = PickPath(candidates, ctx.dstLeaf, e.port);
                if (!m_randomChoice && better != UINT32_MAX &&
                    m_portFlows[better] + 1 > m_portFlows[e.port])
                {
                    better = UINT32_MAX;
                }
            }
            if (better != UINT32_MAX)
            {
                NS_LOG_LOGIC("switch " << info.switchId << " flow " << ctx.flowHash << " reroutes "
                                       << e.port << " -> " << better << " epoch " << e.epoch);
                NotifyReroute(ctx, e.port, better);
                ++m_counters.reroutes;
                e.tailTime = e.lastTx;
                Place(e, better);
                e.phase = 1;
            }
            else
            {
                e.stabilized = true; // stay; the next packet probes again
            }
        }
    }
    TagData(ctx, e, request);
    return e.port;
}

void
TalbConWeaveLb::StartEpoch(TxEntry& e)
{
    ++e.epoch;
    e.phase = 0;
    e.stabilized = false;
}

void
TalbConWeaveLb::TagData(TalbPacketContext& ctx, TxEntry& e, bool rttRequest)
{
    TalbConWeaveTag tag;
    TalbConWeaveTag::Fields& f = tag.Set();
    f.kind = TalbConWeaveTag::DATA;
    f.rttRequest = rttRequest;
    f.phase = e.phase;
    f.path = static_cast<uint8_t>(GetPort(e.port).peer);
    f.epoch = e.epoch;
    f.txTimeNs = ctx.now.GetNanoSeconds();
    f.tailTimeNs = e.tailTime.GetNanoSeconds();
    ctx.packet->AddPacketTag(tag);
    e.lastTx = ctx.now;
}

TalbConWeaveLb::ChosenPath
TalbConWeaveLb::TagChosenPath(TalbPacketContext& ctx,
                              const TalbCandidates& candidates,
                              uint32_t& port,
                              bool onlyHidden)
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!info.isLeaf || ctx.srcLeaf != info.index || ctx.dstLeaf == info.index)
    {
        return NOT_TAGGED;
    }
    TxEntry& e = TxLookup(ctx.flowHash, ctx.now);
    ChosenPath verdict = SAME_PATH;
    if (e.port == UINT32_MAX)
    {
        e.stabilized = true; // a new flow or flowlet: an epoch on its first path
    }
    else if (port != e.port && !e.stabilized && e.phase == 0)
    {
        e.tailTime = e.lastTx;
        e.phase = 1;
        verdict = HIDDEN_MOVE;
    }
    else if (port != e.port && onlyHidden && candidates.Contains(e.port))
    {
        port = e.port;
        verdict = KEPT_PATH;
    }
    else if (port != e.port)
    {
        // The TAIL the destination leaf would wait for belongs to an earlier epoch, which it
        // no longer matches: start a new epoch on the new path instead.
        e.stabilized = true;
        verdict = UNHIDDEN_MOVE;
    }
    if (e.port != port)
    {
        Place(e, port);
    }
    if (e.stabilized)
    {
        StartEpoch(e);
    }
    TagData(ctx, e, false);
    return verdict;
}

TalbLoadBalancer::HoldVerdict
TalbConWeaveLb::DoHold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet)
{
    const TalbSwitchInfo& info = GetSwitchInfo();
    if (!info.isLeaf || ctx.dstLeaf != info.index || ctx.srcLeaf == info.index)
    {
        return SEND;
    }
    TalbConWeaveTag tag;
    if (!packet->RemovePacketTag(tag))
    {
        return SEND;
    }
    const TalbConWeaveTag::Fields& f = tag.Get();
    if (f.kind != TalbConWeaveTag::DATA)
    {
        ReceiveControl(f, ctx.srcLeaf, ctx.now);
        return CONSUMED; // its own control packet
    }
    return ReceiveData(ctx, port, packet, f);
}

void
TalbConWeaveLb::ReceiveControl(const TalbConWeaveTag::Fields& f, uint32_t fromLeaf, const Time& now)
{
    if (f.kind == TalbConWeaveTag::NOTIFY)
    {
        uint32_t nSpines = GetSwitchInfo().nSpines;
        if (fromLeaf < m_minRtt.size() && f.path < nSpines)
        {
            ++m_counters.notifies;
            m_pausedUntil[fromLeaf * nSpines + f.path] = now + m_pathPauseTime;
        }
        return;
    }
    uint32_t slot = FindTx(f.flowHash);
    if (slot == UINT32_MAX || m_tx[slot].epoch != f.epoch)
    {
        return; // a stale answer
    }
    TxEntry& e = m_tx[slot];
    if (f.kind == TalbConWeaveTag::REPLY)
    {
        if (!e.waitingReply || e.phase != 0 || fromLeaf >= m_minRtt.size())
        {
            return;
        }
        Time rtt = now - e.requestTime;
        Time& minRtt = m_minRtt[fromLeaf];
        if (minRtt.IsZero() || rtt < minRtt)
        {
            minRtt = rtt;
        }
        Time base = m_baseRtt.IsZero() ? minRtt : m_baseRtt;
        // A late reply leaves waitingReply set: the flow's next packet reroutes.
        if (rtt <= base + m_extraReplyDeadline)
        {
            ++m_counters.replies;
            e.waitingReply = false;
            e.stabilized = true;
        }
    }
    else if (f.kind == TalbConWeaveTag::CLEAR && e.phase == 1)
    {
        ++m_counters.clears;
        e.stabilized = true;
    }
}

TalbConWeaveLb::RxEntry&
TalbConWeaveLb::RxLookup(uint32_t flowHash, const Time& now)
{
    // A flow that holds packets is never idle: its timer is running.
    uint32_t slot = FindSlot(
        m_rx,
        flowHash,
        true,
        [&](const RxEntry& x) { return !x.reordering && now - x.lastRx > m_idleTimeout; },
        [](const RxEntry& x) { return x.lastRx; });
    RxEntry& e = m_rx[slot];
    if (!e.valid || e.key != flowHash)
    {
        if (e.valid && (e.reordering || now - e.lastRx <= m_idleTimeout))
        {
            ++m_counters.rxEvictions;
        }
        if (e.valid && e.reordering)
        {
            Flush(e, e.key, OVERFLOW); // another flow takes the slot
        }
        e.key = flowHash;
        e.valid = true;
        e.epoch = 0;
        e.phase = 0;
        e.seenPhase0 = false;
        e.lastPhase0TxNs = 0;
        e.tailTimeNs = 0;
        e.delay = Time(0);
        e.pace = 1.0;
        e.reordering = false;
    }
    return e;
}

void
TalbConWeaveLb::SetReturnPath(RxEntry& e,
                              const TalbPacketContext& ctx,
                              uint8_t path,
                              Ptr<Packet> packet)
{
    // The reverse direction's IPv4 and UDP headers: control packets are addressed to the flow's
    // source host, so the fabric routes them to its leaf, which consumes them.
    uint8_t buf[64];
    uint32_t n = packet->CopyData(buf, sizeof(buf));
    uint32_t ihl = n >= 20 ? (buf[0] & 0x0F) * 4u : 0;
    if (ihl < 20 || n < ihl)
    {
        return;
    }
    uint8_t* c = e.control;
    std::memset(c, 0, sizeof(e.control));
    c[0] = 0x45;
    PutBe16(c + 2, CONTROL_BYTES);
    c[8] = 64; // TTL
    c[9] = IP_PROTO_UDP;
    std::memcpy(c + 12, buf + 16, 4);
    std::memcpy(c + 16, buf + 12, 4);
    if (n >= ihl + 4)
    {
        std::memcpy(c + 20, buf + ihl + 2, 2);
        std::memcpy(c + 22, buf + ihl, 2);
    }
    PutBe16(c + 24, CONTROL_BYTES - 20);
    e.controlInPort = ctx.inPort;
    e.controlOutPort = path < m_uplinkOf.size() ? m_uplinkOf[path] : UINT32_MAX;
    e.hasReturnPath = true;
}

void
TalbConWeaveLb::SendControl(const RxEntry& e,
                            uint8_t kind,
                            uint32_t flowHash,
                            uint32_t epoch,
                            uint8_t path)
{
    if (!e.hasReturnPath)
    {
        return;
    }
    uint32_t out = e.controlOutPort;
    if (out == UINT32_MAX || !GetPort(out).up)
    {
        // The data's spine is unreachable now: any uplink that is up.
        out = UINT32_MAX;
        for (uint32_t port : m_uplinkOf)
        {
            if (port != UINT32_MAX && GetPort(port).up)
            {
                out = port;
                break;
            }
        }
        if (out == UINT32_MAX)
        {
            return;
        }
    }
    uint8_t bytes[CONTROL_BYTES] = {};
    std::memcpy(bytes, e.control, sizeof(e.control));
    Ptr<Packet> p = Create<Packet>(bytes, CONTROL_BYTES);
    TalbConWeaveTag tag;
    TalbConWeaveTag::Fields& f = tag.Set();
    f.kind = kind;
    f.flowHash = flowHash;
    f.epoch = epoch;
    f.path = path;
    p->AddPacketTag(tag);
    ++(kind == TalbConWeaveTag::REPLY   ? m_counters.repliesSent
       : kind == TalbConWeaveTag::CLEAR ? m_counters.clearsSent
                                        : m_counters.notifiesSent);
    Transmit(p, m_chargeControl ? e.controlInPort : NO_INGRESS, out);
}

TalbLoadBalancer::HoldVerdict
TalbConWeaveLb::ReceiveData(TalbPacketContext& ctx,
                            uint32_t port,
                            Ptr<Packet> packet,
                            const TalbConWeaveTag::Fields& f)
{
    RxEntry& e = RxLookup(ctx.flowHash, ctx.now);
    Time delay = ctx.now - NanoSeconds(f.txTimeNs);
    Time previousDelay = e.delay;
    e.delay = delay;
    // After IdleTimeout without packets the source leaf may have forgotten the flow and count
    // its epochs from 1 again: any epoch then starts afresh.
    bool restart = f.epoch < e.epoch && !e.reordering && ctx.now - e.lastRx > m_idleTimeout;
    e.lastRx = ctx.now;
    if (f.epoch < e.epoch && !restart)
    {
        return SEND; // from an epoch already resolved
    }
    if (f.epoch > e.epoch || restart)
    {
        if (e.reordering)
        {
            Flush(e, ctx.flowHash, TIMEOUT);
        }
        e.epoch = f.epoch;
        e.phase = 0;
        e.seenPhase0 = false;
        e.lastPhase0TxNs = 0;
        e.tailTimeNs = 0;
        SetReturnPath(e, ctx, f.path, packet);
    }
    if (f.rttRequest)
    {
        SendControl(e, TalbConWeaveTag::REPLY, ctx.flowHash, f.epoch);
    }
    if (m_pauseOn == NOTIFY)
    {
        uint8_t ip[2];
        if (packet->CopyData(ip, 2) == 2 && (ip[1] & 0x03) == 0x03)
        {
            // Congestion Experienced: tell the source leaf which path marked it.
            SendControl(e, TalbConWeaveTag::NOTIFY, ctx.flowHash, f.epoch, f.path);
        }
    }
    if (f.phase == 0)
    {
        if (e.seenPhase0 && f.txTimeNs > e.lastPhase0TxNs && ctx.now > e.lastPhase0Rx)
        {
            // How fast the old path delivers what was sent: send-time progress per arrival
            // time, 1 on an uncongested path, below 1 while its queue builds or drains.
            double pace = double(f.txTimeNs - e.lastPhase0TxNs) /
                          double((ctx.now - e.lastPhase0Rx).GetNanoSeconds());
            e.pace = 0.5 * e.pace + 0.5 * std::min(std::max(pace, 0.01), 1.0);
        }
        e.lastPhase0TxNs = e.seenPhase0 ? std::max(e.lastPhase0TxNs, f.txTimeNs) : f.txTimeNs;
        e.seenPhase0 = true;
        e.lastPhase0Rx = ctx.now;
        if (e.reordering && f.txTimeNs >= e.tailTimeNs)
        {
            NS_LOG_LOGIC("flow " << ctx.flowHash << " TAIL sent at " << f.txTimeNs << " arrives");
            // The TAIL: it goes first, then the packets it held back.
            Release(packet, ctx.inPort, port);
            Flush(e, ctx.flowHash, TAIL);
            return KEPT;
        }
        if (e.reordering)
        {
            ScheduleFlush(e, ctx.flowHash, ctx.now); // the old path is moving: re-estimate
        }
        return SEND;
    }
    if (e.phase == 0)
    {
        // The epoch's first packet on the new path.
        e.phase = 1;
        e.tailTimeNs = f.tailTimeNs;
        SetReturnPath(e, ctx, f.path, packet);
        if (e.seenPhase0 && e.lastPhase0TxNs >= e.tailTimeNs)
        {
            SendControl(e, TalbConWeaveTag::CLEAR, ctx.flowHash, e.epoch);
            return SEND; // the old path has drained: nothing to reorder
        }
        e.reordering = true;
        e.holdStart = ctx.now;
        if (!e.seenPhase0)
        {
            // Nothing of this epoch came over the old path yet, so its pace is unknown: the
            // TAIL is expected after twice the flow's last delay, or after NoInfoReorderWait,
            // whichever is later. A new flow has no last delay, and the old path's queue,
            // which made the reply late, may be far longer than the delay before it.
            e.lastPhase0TxNs = f.tailTimeNs; // for the estimate only; seenPhase0 stays false
            e.lastPhase0Rx =
                std::max(NanoSeconds(f.tailTimeNs) + 2 * previousDelay, ctx.now + m_noInfoWait);
        }
        ScheduleFlush(e, ctx.flowHash, ctx.now);
    }
    if (!e.reordering)
    {
        return SEND;
    }
    if (e.queue.size() >= m_queueLimit)
    {
        Flush(e, ctx.flowHash, OVERFLOW); // then this packet, behind them
        return SEND;
    }
    e.queue.push_back(Held{packet, ctx.inPort, port});
    ++m_counters.held;
    ++m_counters.heldNow;
    return KEPT;
}

void
TalbConWeaveLb::ScheduleFlush(RxEntry& e, uint32_t flowHash, const Time& now)
{
    uint32_t slot = static_cast<uint32_t>(&e - m_rx.data());
    if (m_holdUntilTail)
    {
        // On a lossless fabric the TAIL is late, never lost: every release before it reorders
        // at the receiver (measured: each TAIL came 1-19 us after its queue timed out).
        if (!e.flush.IsRunning())
        {
            e.flush = Simulator::Schedule(std::max(e.holdStart + m_maxReorderWait - now, Time(0)),
                                          &TalbConWeaveLb::FlushTimeout,
                                          this,
                                          slot);
        }
        return;
    }
    // The TAIL's expected arrival: the old path still has to deliver what was sent between
    // the last packet it delivered and the TAIL, at the pace it delivers; plus a margin.
    // Releasing too early costs a go-back-N, waiting longer only delays the held packets.
    Time remaining = NanoSeconds(e.tailTimeNs) - NanoSeconds(e.lastPhase0TxNs);
    if (remaining.IsNegative())
    {
        remaining = Time(0);
    }
    Time expected = e.lastPhase0Rx +
                    NanoSeconds(int64_t(double(remaining.GetNanoSeconds()) / e.pace)) +
                    m_extraFlushTime;
    Time deadline =
        std::min(std::max(expected, now + m_extraFlushTime), e.holdStart + m_maxReorderWait);
    e.flush.Cancel();
    NS_LOG_LOGIC("flow " << flowHash << " waits for the TAIL sent at " << e.tailTimeNs
                         << " ns until " << deadline.GetMicroSeconds() << " us");
    e.flush = Simulator::Schedule(std::max(deadline - now, Time(0)),
                                  &TalbConWeaveLb::FlushTimeout,
                                  this,
                                  slot);
}

void
TalbConWeaveLb::FlushTimeout(uint32_t slot)
{
    RxEntry& e = m_rx[slot];
    if (e.valid && e.reordering)
    {
        ++m_counters.timeouts;
        Flush(e, e.key, TIMEOUT);
    }
}

void
TalbConWeaveLb::Flush(RxEntry& e, uint32_t flowHash, FlushReason reason)
{
    e.flush.Cancel();
    e.reordering = false;
    uint32_t n = e.queue.size();
    while (!e.queue.empty())
    {
        Held h = e.queue.front();
        e.queue.pop_front();
        --m_counters.heldNow;
        Release(h.packet, h.inPort, h.outPort);
    }
    switch (reason)
    {
    case TAIL:
        m_counters.releasedByTail += n;
        break;
    case TIMEOUT:
        m_counters.releasedByTimeout += n;
        break;
    case OVERFLOW:
        m_counters.releasedByOverflow += n;
        break;
    }
    NS_ASSERT(m_counters.held == m_counters.releasedByTail + m_counters.releasedByTimeout +
                                     m_counters.releasedByOverflow + m_counters.heldNow);
    NS_LOG_LOGIC("flow " << flowHash << " releases " << n << " packets, reason " << reason);
    m_flushTrace(flowHash, n, reason != TAIL);
    SendControl(e, TalbConWeaveTag::CLEAR, flowHash, e.epoch);
}

} // namespace ns3
