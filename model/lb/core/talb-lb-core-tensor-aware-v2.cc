#include "talb-lb-core-tensor-aware-v2.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace talb
{
namespace lb
{

const char*
TensorAwareV2::Check(const Config& c)
{
    if (c.highThreshold > TALB_NUM_PRIORITIES || c.untaggedPriority >= TALB_NUM_PRIORITIES ||
        c.congestionWaitBelow > TALB_NUM_PRIORITIES)
    {
        return "the high-priority threshold and the congestion wait must be in 0..8 and the "
               "untagged priority in 0..7";
    }
    if (!(c.highMoveMarginBytes >= 0) || !(c.lowMoveMarginBytes >= 0) ||
        !(c.maxReorderBytes >= 0) || !(c.remoteSprayBytes >= 0))
    {
        return "the move margins, the reordering bound and the remote spray penalty must be >= 0";
    }
    if (c.flowSlots < 1 || c.flowSlots > kMaxFlowSlots)
    {
        return "the flow slots per port must be in 1..64";
    }
    if (c.minMoveIntervalNs < 0 || c.activeWindowNs < 1)
    {
        return "the move interval must be >= 0 and the active window at least 1 ns";
    }
    if (c.spray > Spray::kCrowded ||
        !(c.crowdFlowsPerPort >= 0 && c.crowdFlowsPerPort <= c.flowSlots))
    {
        return "the spray mode must be known and the crowd's flows per port in [0, flow slots]";
    }
    if (c.sprayQueue > SprayQueue::kAtOrAboveWithRoom || c.sprayPaths > SprayPaths::kRate)
    {
        return "the spray queue and the spray paths rule must be known";
    }
    if (c.moves > Moves::kContended || !(c.slowRate > 0 && c.slowRate <= 1) ||
        !(c.congestionTarget >= 0 && c.congestionTarget < 1) || c.rateWindowNs < 1 ||
        c.congestionDelayNs < 0)
    {
        return "the move rule must be known, the slow rate in (0, 1], the congestion target in "
               "[0, 1), the rate window at least 1 ns and the congestion delay >= 0";
    }
    if (c.safeSlackNs < 0 || c.safeMoves > SafeMoves::kGoBackNUnlessUntagged)
    {
        return "the safe-move slack must be >= 0 and the safe-move mode known";
    }
    if (c.endedTie > EndedTie::kKeep)
    {
        return "the ended tie rule must be known";
    }
    if (c.windowMode > WindowMode::kPace || !(c.paceFactor >= 1) ||
        (c.windowMode == WindowMode::kPace && c.maxActiveWindowNs < c.activeWindowNs))
    {
        return "the window mode must be known, the pace factor >= 1 and the longest window at "
               "least the active window";
    }
    const int64_t longest =
        c.windowMode == WindowMode::kPace ? c.maxActiveWindowNs : c.activeWindowNs;
    if (c.stallTimeoutNs < 0 || (c.stallTimeoutNs > 0 && c.stallTimeoutNs <= longest))
    {
        return "the stall timeout must be 0 (off) or longer than the longest active window";
    }
    return TensorTable::Check(c.tableSize, c.probeLimit, c.idleTimeoutNs);
}

bool
TensorAwareV2::Configure(const Config& config, uint32_t nPorts)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_table.Configure(config.tableSize, config.probeLimit, config.idleTimeoutNs);
    m_slots.assign(static_cast<size_t>(nPorts) * config.flowSlots, FlowSlot());
    m_rates.assign(config.moves != Moves::kCounts ? config.tableSize : 0, FlowRate());
    m_nPorts = nPorts;
    m_pathClocks.assign(
        config.sprayPaths == SprayPaths::kRate ? static_cast<size_t>(nPorts) * kClockLeaves : 0,
        0);
    m_stats = TableStats();
    return true;
}

bool
TensorAwareV2::Retune(const Config& config)
{
    if (Check(config) || config.tableSize != m_config.tableSize ||
        config.flowSlots != m_config.flowSlots)
    {
        return false;
    }
    m_config = config;
    m_table.Retune(config.probeLimit, config.idleTimeoutNs);
    if (config.moves != Moves::kCounts && m_rates.empty())
    {
        m_rates.assign(config.tableSize, FlowRate());
    }
    if (config.sprayPaths == SprayPaths::kRate && m_pathClocks.empty())
    {
        m_pathClocks.assign(static_cast<size_t>(m_nPorts) * kClockLeaves, 0);
    }
    return true;
}

uint32_t
TensorAwareV2::ActiveFlows(uint32_t port, int64_t nowNs) const
{
    uint32_t n = 0;
    const FlowSlot* slots = Slots(port);
    for (uint32_t i = 0; i < m_config.flowSlots; ++i)
    {
        n += IsActive(slots[i], nowNs) ? 1 : 0;
    }
    return n;
}

uint32_t
TensorAwareV2::ActivePort(uint32_t flowHash,
                          const Candidates& candidates,
                          int64_t nowNs,
                          bool safe,
                          const FlowSlot** slot) const
{
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        const FlowSlot* slots = Slots(candidates.ports[c]);
        for (uint32_t i = 0; i < m_config.flowSlots; ++i)
        {
            const FlowSlot& s = slots[i];
            if (s.flowHash == flowHash && (IsActive(s, nowNs) || (safe && Undrained(s, nowNs))))
            {
                *slot = &s;
                return candidates.ports[c];
            }
        }
    }
    return kNoPort;
}

uint32_t
TensorAwareV2::LastPort(uint32_t flowHash, const Candidates& candidates) const
{
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        if (SlotOf(candidates.ports[c], flowHash))
        {
            return candidates.ports[c];
        }
    }
    return kNoPort;
}

uint32_t
TensorAwareV2::LatestPort(uint32_t flowHash,
                          const Candidates& candidates,
                          const FlowSlot** slot) const
{
    uint32_t port = kNoPort;
    *slot = nullptr;
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        const FlowSlot* s = SlotOf(candidates.ports[c], flowHash);
        if (s && (!*slot || s->lastSeenNs > (*slot)->lastSeenNs))
        {
            *slot = s;
            port = candidates.ports[c];
        }
    }
    return port;
}

const TensorAwareV2::FlowSlot*
TensorAwareV2::SlotOf(uint32_t port, uint32_t flowHash) const
{
    const FlowSlot* slots = Slots(port);
    for (uint32_t i = 0; i < m_config.flowSlots; ++i)
    {
        if (slots[i].valid && slots[i].flowHash == flowHash)
        {
            return &slots[i];
        }
    }
    return nullptr;
}

TensorAwareV2::FlowSlot
TensorAwareV2::Seen(const PacketInfo& packet, uint8_t priority) const
{
    FlowSlot seen;
    seen.flowHash = packet.flowHash;
    seen.priority = priority;
    seen.lastSeenNs = packet.nowNs;
    seen.ended =
        m_config.lastEndsWindow && packet.hasLabel && (packet.label.flags & TALB_FLAG_LAST) != 0;
    seen.valid = true;
    return seen;
}

void
TensorAwareV2::Touch(uint32_t port, const FlowSlot& seen)
{
    FlowSlot* slots = Slots(port);
    FlowSlot* target = nullptr;
    for (uint32_t i = 0; i < m_config.flowSlots; ++i)
    {
        FlowSlot& s = slots[i];
        if (s.valid && s.flowHash == seen.flowHash)
        {
            target = &s;
            break;
        }
        // Otherwise the first slot neither active nor undrained, else the least recently seen.
        if (!target || (Held(*target, seen.lastSeenNs) &&
                        (!Held(s, seen.lastSeenNs) || s.lastSeenNs < target->lastSeenNs)))
        {
            target = &s;
        }
    }
    // Every slot held by another live flow: the port's count saturates (FlowSlots too small).
    if (target->flowHash != seen.flowHash && Held(*target, seen.lastSeenNs))
    {
        ++m_stats.nSlotOverflows;
    }
    *target = seen;
}

bool
TensorAwareV2::Contended(const Candidates& candidates,
                         int64_t nowNs,
                         bool untagged,
                         bool otherJobs,
                         uint8_t job) const
{
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        const FlowSlot* slots = Slots(candidates.ports[c]);
        for (uint32_t i = 0; i < m_config.flowSlots; ++i)
        {
            const FlowSlot& s = slots[i];
            if ((s.untagged ? untagged : (otherJobs && s.job != job)) && IsActive(s, nowNs))
            {
                return true;
            }
        }
    }
    return false;
}

TensorAwareV2::Crowd
TensorAwareV2::CrowdOf(const Candidates& candidates, int64_t nowNs, uint8_t job) const
{
    uint32_t flows = 0;
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        const FlowSlot* slots = Slots(candidates.ports[c]);
        for (uint32_t i = 0; i < m_config.flowSlots; ++i)
        {
            const FlowSlot& s = slots[i];
            if (!IsActive(s, nowNs))
            {
                continue;
            }
            if (s.untagged || s.job != job)
            {
                return Crowd::kContended;
            }
            ++flows;
        }
    }
    return flows > m_config.crowdFlowsPerPort * candidates.count ? Crowd::kCrowded : Crowd::kNone;
}

uint32_t
TensorAwareV2::SprayPort(const PacketInfo& packet, const Candidates& candidates, uint8_t job)
{
    const Fastest fastest = FastestRates(packet, candidates);
    const bool remote = m_config.remoteSprayBytes > 0 && m_remote;
    const bool shared = (remote || m_config.sprayQueue == SprayQueue::kAllWhenShared) &&
                        Contended(candidates, packet.nowNs, false, true, job);
    // Another job's packets share the spine downlinks with this flow's whatever their band, so
    // then the split between uplinks balances every band's bytes, as DRILL's does; with only
    // background sharing, a tensor packet's wait here is what matters (DWRR serves the training
    // class its share; doc/talb-switch.rst, "SprayQueue", has the measurement).
    const bool allBands = m_config.sprayQueue == SprayQueue::kAll ||
                          (m_config.sprayQueue == SprayQueue::kAllWhenShared && shared);
    const bool allOnTies = !allBands && m_config.sprayQueue == SprayQueue::kAtOrAboveThenAll;
    const bool withRoom = m_config.sprayQueue == SprayQueue::kAtOrAboveWithRoom;
    // Another job's flows collide with this one at spine downlinks the leaf does not see; a
    // background burst is local and short, and the queue here is the better guide to it. A
    // penalty, not a veto: the report lags and counts the leaf's own packets (doc/talb-switch.rst,
    // "RemoteSprayBytes", has the measurements).
    const double penalty = remote && shared ? AtFastest(m_config.remoteSprayBytes, fastest) : 0.0;
    if (m_config.sprayPaths == SprayPaths::kRate && fastest.slowestPath < fastest.path)
    {
        const int64_t penaltyNs = penalty > 0 && fastest.local > 0
                                      ? static_cast<int64_t>(penalty * 8e9 / fastest.local)
                                      : 0;
        return RateSharedPort(packet, candidates, allBands, allOnTies, withRoom, penaltyNs);
    }
    return PickLeast(candidates, [&](uint32_t port) {
        double bytes = DrainBytes(port, packet, fastest, allBands);
        if (penalty > 0 && Saturated(port, packet))
        {
            bytes += penalty;
        }
        // A full port drops the packet however fast its path: room decides first.
        return std::make_tuple(withRoom && Full(port, packet),
                               PathRatio(port, packet, fastest),
                               bytes,
                               allOnTies ? DrainBytes(port, packet, fastest, true) : 0.0);
    });
}

uint32_t
TensorAwareV2::RateSharedPort(const PacketInfo& packet,
                              const Candidates& candidates,
                              bool allBands,
                              bool allOnTies,
                              bool withRoom,
                              int64_t penaltyNs)
{
    // Weighted round robin by path rate: each (port, destination leaf) clock advances by the
    // time the packet takes on the path's slowest link, and the packet takes the path whose
    // clock would read least after it, plus the time the bytes queued here take to leave. A
    // clock behind the candidates' least is brought up to it (a path that was no candidate for
    // a while gets no burst). Not work-conserving on purpose: the senders' congestion control
    // holds a flow to what the path it is given carries, so a fast path never looks overloaded
    // and the slower ones would carry nothing.
    const uint32_t leaf = packet.dstLeaf % kClockLeaves;
    int64_t base = std::numeric_limits<int64_t>::max();
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        base = std::min(base, m_pathClocks[candidates.ports[c] * kClockLeaves + leaf]);
    }
    auto next = [&](uint32_t port) {
        double path = static_cast<double>(Ports().PathRateBps(port, packet.dstLeaf));
        if (path <= 0)
        {
            return std::numeric_limits<int64_t>::max();
        }
        return std::max(m_pathClocks[port * kClockLeaves + leaf], base) +
               static_cast<int64_t>(packet.size * 8e9 / path);
    };
    uint32_t port = PickLeast(candidates, [&](uint32_t p) {
        int64_t clock = next(p);
        double local = static_cast<double>(Ports().RateBps(p));
        const bool full = withRoom && Full(p, packet);
        if (clock == std::numeric_limits<int64_t>::max() || local <= 0)
        {
            return std::make_tuple(full, std::numeric_limits<int64_t>::max(), uint64_t{0});
        }
        int64_t queued = static_cast<int64_t>(QueuedBytes(p, packet, allBands) * 8e9 / local);
        return std::make_tuple(full,
                               clock + queued +
                                   (penaltyNs > 0 && Saturated(p, packet) ? penaltyNs : 0),
                               allOnTies ? Ports().QueueBytes(p) : uint64_t{0});
    });
    const int64_t clock = port < m_nPorts ? next(port) : std::numeric_limits<int64_t>::max();
    if (clock != std::numeric_limits<int64_t>::max())
    {
        m_pathClocks[port * kClockLeaves + leaf] = clock;
    }
    return port;
}

double
TensorAwareV2::PathRatio(uint32_t port, const PacketInfo& packet, const Fastest& fastest) const
{
    return Ratio(fastest.path, Ports().PathRateBps(port, packet.dstLeaf));
}

double
TensorAwareV2::DrainBytes(uint32_t port,
                          const PacketInfo& packet,
                          const Fastest& fastest,
                          bool allBands) const
{
    return Ratio(fastest.local, Ports().RateBps(port)) * QueuedBytes(port, packet, allBands);
}

double
TensorAwareV2::QueuedBytes(uint32_t port, const PacketInfo& packet, bool allBands) const
{
    return static_cast<double>(allBands ? Ports().QueueBytes(port)
                                        : Ports().QueueBytesAtOrAbove(port, packet.label.priority));
}

int64_t
TensorAwareV2::DrainTime(uint32_t port, const PacketInfo& packet) const
{
    uint64_t rate = Ports().RateBps(port);
    if (rate == 0)
    {
        return packet.nowNs;
    }
    double bytes =
        static_cast<double>(Ports().QueueBytesAtOrAbove(port, packet.label.priority)) + packet.size;
    return packet.nowNs + static_cast<int64_t>(bytes * 8e9 / static_cast<double>(rate));
}

TensorAwareV2::FlowRate&
TensorAwareV2::RateOf(uint32_t key, int64_t nowNs)
{
    FlowRate& r = m_rates[Mix32(key ^ 0x27d4eb2fu) & (m_rates.size() - 1)];
    if (!r.valid || r.flowHash != key)
    {
        r = FlowRate::Start(key, nowNs);
    }
    return r;
}

uint32_t
TensorAwareV2::CongestionTarget(const PacketInfo& packet,
                                const Candidates& candidates,
                                uint32_t current,
                                const Fastest& fastest) const
{
    if (!Congested(current, packet))
    {
        return kNoPort;
    }
    const bool byShare = m_config.congestionPick == CongestionPick::kLeastShared;
    uint32_t target = kNoPort;
    std::tuple<double, double, double> least{2.0, 2.0, 2.0};
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        uint32_t port = candidates.ports[c];
        double u = m_remote->Congestion(port, packet.dstLeaf, packet.nowNs);
        if (port == current || u > m_config.congestionTarget)
        {
            continue;
        }
        // The local counts only: the remote view is the third key already.
        Cost cost = byShare ? PortCost(port, packet, fastest, false) : Cost{};
        auto key = std::make_tuple(cost.share, cost.crowd, u);
        if (target == kNoPort || key < least)
        {
            least = key;
            target = port;
        }
    }
    return target;
}

bool
TensorAwareV2::Congested(uint32_t port, const PacketInfo& packet) const
{
    if (!Saturated(port, packet))
    {
        return false;
    }
    if (m_config.congestionDelayNs == 0)
    {
        return true;
    }
    const uint64_t rate = Ports().RateBps(port);
    const int64_t local = rate == 0
                              ? 0
                              : static_cast<int64_t>(static_cast<double>(Ports().QueueBytes(port)) *
                                                     8e9 / static_cast<double>(rate));
    const int64_t remote = m_remote->QueueDelayNs(port, packet.dstLeaf, packet.nowNs);
    return std::max(local, remote) >= m_config.congestionDelayNs;
}

void
TensorAwareV2::CountMove(bool midTensor, bool stalled)
{
    ++(stalled ? m_stats.nStallMoves
               : (midTensor ? m_stats.nMidTensorMoves : m_stats.nBoundaryMoves));
}

void
TensorAwareV2::Forget(uint32_t port, uint32_t flowHash)
{
    FlowSlot* slots = Slots(port);
    for (uint32_t i = 0; i < m_config.flowSlots; ++i)
    {
        if (slots[i].valid && slots[i].flowHash == flowHash)
        {
            slots[i].valid = false;
        }
    }
}

TensorAwareV2::Fastest
TensorAwareV2::FastestRates(const PacketInfo& packet, const Candidates& candidates) const
{
    Fastest f;
    for (uint32_t c = 0; c < candidates.count; ++c)
    {
        uint32_t port = candidates.ports[c];
        double local = static_cast<double>(Ports().RateBps(port));
        double path = static_cast<double>(Ports().PathRateBps(port, packet.dstLeaf));
        f.local = local > f.local ? local : f.local;
        f.path = path > f.path ? path : f.path;
        f.slowestPath = c == 0 || path < f.slowestPath ? path : f.slowestPath;
    }
    return f;
}

TensorAwareV2::Cost
TensorAwareV2::PortCost(uint32_t port,
                        const PacketInfo& packet,
                        const Fastest& fastest,
                        bool remote,
                        bool ended) const
{
    // Slower paths and ports cost proportionally more (1 on a symmetric fabric).
    double rPath = PathRatio(port, packet, fastest);
    uint32_t atOrAbove = 0;
    uint32_t all = 0;
    uint32_t endedHere = 0;
    const FlowSlot* slots = Slots(port);
    for (uint32_t i = 0; i < m_config.flowSlots; ++i)
    {
        const FlowSlot& s = slots[i];
        if (s.flowHash == packet.flowHash)
        {
            continue;
        }
        if (IsActive(s, packet.nowNs))
        {
            ++all;
            atOrAbove += s.priority <= packet.label.priority ? 1 : 0;
        }
        else if (ended && s.valid && s.ended && packet.nowNs - s.lastSeenNs <= Window(s))
        {
            ++endedHere;
        }
    }
    Cost cost;
    cost.ended = endedHere;
    cost.share = rPath * (1 + atOrAbove);
    cost.crowd = rPath * (1 + all);
    if (remote && m_remote && m_config.remotePlacement)
    {
        // A path the remote leaf reports saturated is shared with a flow we cannot see. Partial
        // utilisation is left to the local keys: the metric is coarse, lags, and counts every
        // priority and this leaf's own traffic (charging it in proportion measured worse:
        // doc/talb-switch.rst, "RemoteAwareness").
        double u = Saturated(port, packet) ? 2.0 : 1.0;
        cost.share = std::max(cost.share, rPath * u);
        cost.crowd = std::max(cost.crowd, rPath * u);
    }
    cost.drainBytes = DrainBytes(port, packet, fastest);
    return cost;
}

uint32_t
TensorAwareV2::Best(const PacketInfo& packet,
                    const Candidates& candidates,
                    uint32_t current,
                    const Fastest& fastest,
                    Cost* bestCost,
                    Cost* currentCost,
                    uint32_t avoid,
                    uint32_t uncharged,
                    uint32_t prefer,
                    bool ended)
{
    // Costs are computed once per candidate (PickLeast asks each key once, in candidate order).
    uint32_t best = PickLeast(candidates, [&](uint32_t port) {
        Cost c = PortCost(port, packet, fastest, port != uncharged, ended);
        if (port == current)
        {
            *currentCost = c;
        }
        return std::make_tuple(c.share,
                               c.crowd,
                               port == avoid,
                               c.ended,
                               port != prefer,
                               c.drainBytes);
    });
    *bestCost =
        best == current ? *currentCost : PortCost(best, packet, fastest, best != uncharged, ended);
    return best;
}

TensorAwareV2::Flow
TensorAwareV2::FlowOf(const PacketInfo& packet)
{
    Flow f;
    f.entry = m_table.Lookup(packet.flowHash, packet.label.tensor_id, packet.nowNs, &f.slot);
    f.safe = SafeMovesFor(packet);
    f.job = static_cast<uint8_t>(talb_job_of(packet.label.tensor_id));
    return f;
}

uint32_t
TensorAwareV2::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    if (!packet.hasLabel)
    {
        return SelectUntagged(packet, candidates);
    }
    Flow f = FlowOf(packet);
    if (Sprays(packet, candidates, f))
    {
        return SelectSprayed(packet, candidates, f);
    }
    if (m_config.spreadRetransmits && Retransmits(packet, f.entry))
    {
        // Not a reroute and not the flow's port: only this segment leaves it.
        ++m_stats.nRetransmitsSpread;
        return SprayPort(packet, candidates, f.job);
    }
    Locate(packet, candidates, &f);
    uint32_t port = f.current;
    bool moved = false;
    if (f.current == kNoPort)
    {
        port = Place(packet, candidates);
        moved = f.failed;
    }
    else if (!f.midTensor || packet.nowNs - f.entry->lastMoveNs >= m_config.minMoveIntervalNs)
    {
        port = Reconsider(packet, candidates, f, &moved);
    }
    Record(packet, f, port, moved);
    return port;
}

void
TensorAwareV2::DoFollow(const PacketInfo& packet, const Candidates& candidates, uint32_t port)
{
    if (!packet.hasLabel)
    {
        return; // an untagged flow's slot is refreshed only where the fallback chose
    }
    Flow f = FlowOf(packet);
    Locate(packet, candidates, &f);
    Record(packet, f, port, f.failed || (f.current != kNoPort && f.current != port));
}

uint32_t
TensorAwareV2::DoTarget(const PacketInfo& packet, const Candidates& candidates)
{
    return Place(packet, candidates);
}

uint32_t
TensorAwareV2::SelectUntagged(const PacketInfo& packet, const Candidates& candidates)
{
    uint32_t port = SelectFallback(packet, candidates, GoBackN(packet));
    if (packet.size >= kUntaggedMinBytes)
    {
        // No pace: the fallback may spray an untagged flow's packets (drill), so their gaps on
        // one port are not the flow's pace, and many short background flows would hold the
        // slots tensor flows need.
        FlowSlot seen = Seen(packet, m_config.untaggedPriority);
        seen.untagged = true;
        Touch(port, seen);
    }
    return port;
}

bool
TensorAwareV2::Retransmits(const PacketInfo& packet, const TensorTable::Entry* e) const
{
    return e && packet.tcpPayload > 0 && e->tcpHighEnd != 0 &&
           !SeqAfter(packet.tcpSeqEnd, e->tcpHighEnd);
}

bool
TensorAwareV2::Sprays(const PacketInfo& packet, const Candidates& candidates, const Flow& f)
{
    // Per-packet spreading is for flows that tolerate reordering: neither the safe-move ones nor
    // go-back-N ones (each reordered packet costs a retransmission window), whatever SafeMoves.
    if (f.safe || GoBackN(packet))
    {
        return false;
    }
    switch (m_config.spray)
    {
    case Spray::kNever:
        return false;
    case Spray::kAlways:
        return true;
    case Spray::kSharedDestination:
        return m_remote && m_remote->DestinationShared(packet.dstLeaf, packet.nowNs);
    case Spray::kCrowded:
        switch (CrowdOf(candidates, packet.nowNs, f.job))
        {
        case Crowd::kContended:
            return true;
        case Crowd::kCrowded:
            // Counted apart: a run whose crowd_sprayed stays 0 chose as Spray=Contended would.
            ++m_stats.nCrowdSprayed;
            return true;
        default:
            return false;
        }
    default:
        return Contended(candidates,
                         packet.nowNs,
                         true,
                         m_config.spray == Spray::kContended,
                         f.job);
    }
}

uint32_t
TensorAwareV2::SelectSprayed(const PacketInfo& packet, const Candidates& candidates, const Flow& f)
{
    // Spread: a flow that tolerates reordering pools the ports' capacity with the untagged
    // bursts instead of waiting out the ones on its own port (not a reroute, as for DRILL).
    uint32_t port = SprayPort(packet, candidates, f.job);
    ++m_stats.nSprayed;
    Remember(Admit(f.entry, f.slot, packet), packet, port);
    FlowSlot seen = Seen(packet, packet.label.priority);
    seen.job = f.job;
    Touch(port, seen);
    return port;
}

void
TensorAwareV2::Locate(const PacketInfo& packet, const Candidates& candidates, Flow* f)
{
    const int64_t now = packet.nowNs;
    const TensorTable::Entry* e = f->entry;
    // Moves other than Counts: the flow's rate, looked up once per packet.
    f->rate = m_config.moves != Moves::kCounts ? &RateOf(RateKeyOf(packet), now) : nullptr;
    // The flow's current port: its tensor's, else (a new tensor) the port the flow is active on.
    if (e)
    {
        f->failed = !candidates.Contains(e->port);
        f->current = f->failed ? kNoPort : e->port;
        f->onCurrent = f->failed ? nullptr : SlotOf(f->current, packet.flowHash);
    }
    else
    {
        f->current = ActivePort(packet.flowHash, candidates, now, f->safe, &f->onCurrent);
    }
    // A tensor the table holds and that kept sending is mid-tensor; anything else is at a
    // boundary (a new tensor, or a pause long enough for the flow to have left its port).
    // The flow's pace: its tensor's, else (a new tensor) what its slot on its port knew.
    const FlowSlot* on = f->onCurrent;
    int64_t pace = e ? e->paceNs : (on ? on->paceNs : 0);
    f->midTensor = e && !f->failed && now - e->lastSeenNs <= WindowFor(pace);
    if (m_config.windowMode == WindowMode::kPace && (e || on))
    {
        pace = NextPace(pace, now - (e ? e->lastSeenNs : on->lastSeenNs));
    }
    f->pace = pace;
    // A tensor that went silent this long mid-tensor was stalled (a TCP retransmission timeout):
    // its port loses ties, and what is still queued behind the stall is being retransmitted, so
    // the reordering bound does not hold the move. Safe-move flows keep their drain rule.
    f->stalled = !f->safe && e && !f->failed && m_config.stallTimeoutNs > 0 &&
                 now - e->lastSeenNs >= m_config.stallTimeoutNs;
}

uint32_t
TensorAwareV2::Place(const PacketInfo& packet, const Candidates& candidates)
{
    Cost bestCost;
    Cost unused;
    // The flow's last port, where it paused, is not charged: its remote metric still holds the
    // flow's own load (the DRE and the feedback lag by hundreds of microseconds).
    // With an ended tie rule, the port of the flow's latest slot: it may keep older ones on
    // ports it left (LastPort, the first found, then charges the port it just left, which its
    // own load saturates, and sends it back onto a port another flow holds).
    const bool ended = m_config.lastEndsWindow && m_config.endedTie != EndedTie::kQueue;
    const FlowSlot* latestSlot = nullptr;
    uint32_t latest = ended ? LatestPort(packet.flowHash, candidates, &latestSlot) : kNoPort;
    uint32_t last = m_remote ? (ended ? latest : LastPort(packet.flowHash, candidates)) : kNoPort;
    uint32_t prefer =
        m_config.endedTie == EndedTie::kKeep && latestSlot && latestSlot->ended ? latest : kNoPort;
    return Best(packet,
                candidates,
                kNoPort,
                FastestRates(packet, candidates),
                &bestCost,
                &unused,
                kNoPort,
                last,
                prefer,
                ended);
}

uint32_t
TensorAwareV2::Reconsider(const PacketInfo& packet,
                          const Candidates& candidates,
                          const Flow& f,
                          bool* moved)
{
    const uint32_t current = f.current;
    const Fastest fastest = FastestRates(packet, candidates);
    Cost bestCost;
    Cost currentCost;
    uint32_t best = Best(packet,
                         candidates,
                         current,
                         fastest,
                         &bestCost,
                         &currentCost,
                         f.stalled ? current : kNoPort,
                         current);
    bool byQueue = false; // a move by the margin between equally shared ports
    bool better = best != current && Better(packet, f, fastest, bestCost, currentCost, &byQueue);
    const bool byCongestion = m_config.moves == Moves::kCongestion ||
                              (m_config.moves == Moves::kContended &&
                               Contended(candidates, packet.nowNs, true, true, f.job));
    if (byCongestion && !f.stalled)
    {
        // Only congestion moves the flow off its port, and with queueMoves a local burst.
        better = m_config.queueMoves && byQueue;
        uint32_t target = CongestionMove(packet, candidates, f, fastest, better);
        if (target != kNoPort)
        {
            *moved = true;
            return target;
        }
    }
    if (better && TakesMove(packet, candidates, f, fastest, bestCost, currentCost))
    {
        *moved = true;
        return best;
    }
    return current;
}

bool
TensorAwareV2::Better(const PacketInfo& packet,
                      const Flow& f,
                      const Fastest& fastest,
                      const Cost& bestCost,
                      const Cost& currentCost,
                      bool* byQueue) const
{
    if (f.stalled || bestCost.SharesLess(currentCost))
    {
        return true;
    }
    if (!f.midTensor || !m_config.marginMoves)
    {
        return false;
    }
    // The same queueing delay at any rate: 15000 bytes tuned at 10 Gb/s moved a go-back-N flow
    // for 1.2 us of queue at 100 Gb/s, a retransmission window each time.
    double margin =
        AtFastest(packet.label.priority < m_config.highThreshold ? m_config.highMoveMarginBytes
                                                                 : m_config.lowMoveMarginBytes,
                  fastest);
    *byQueue = currentCost.drainBytes - bestCost.drainBytes > margin;
    return *byQueue;
}

uint32_t
TensorAwareV2::CongestionMove(const PacketInfo& packet,
                              const Candidates& candidates,
                              const Flow& f,
                              const Fastest& fastest,
                              bool queueMove)
{
    const int64_t now = packet.nowNs;
    const bool slow =
        f.rate->rateBps >= 0 &&
        f.rate->rateBps < m_config.slowRate * static_cast<double>(Ports().RateBps(f.current));
    uint32_t target = kNoPort;
    if (!queueMove && m_remote && f.midTensor && slow &&
        now - f.entry->lastMoveNs >= m_config.minMoveIntervalNs)
    {
        target = CongestionTarget(packet, candidates, f.current, fastest);
    }
    if (target != kNoPort && packet.label.priority < m_config.congestionWaitBelow &&
        MovesOnlyDrained(packet, candidates, f) && !Drained(packet, f))
    {
        ++m_stats.nUndrainedHeld;
        target = kNoPort;
    }
    if (target != kNoPort)
    {
        // At once: a go-back-N window costs less than a tensor held on a congested path.
        CountMove(f.midTensor, f.stalled);
        ++m_stats.nCongestionMoves;
        *f.rate = FlowRate::Start(RateKeyOf(packet), now); // measured afresh on its new path
    }
    return target;
}

bool
TensorAwareV2::MovesOnlyDrained(const PacketInfo& packet,
                                const Candidates& candidates,
                                const Flow& f) const
{
    // Background bursts are what the flow counts do not see; while one is active a go-back-N
    // flow moves as others do rather than wait out the burst.
    return f.safe && !(m_config.safeMoves == SafeMoves::kGoBackNUnlessUntagged &&
                       Contended(candidates, packet.nowNs, true, false, f.job));
}

bool
TensorAwareV2::Drained(const PacketInfo& packet, const Flow& f) const
{
    // The flow's last packet on its port (or, its slot gone, its last packet anywhere) must have
    // left the port, and the slack passed, before a packet may go elsewhere.
    int64_t drained = f.onCurrent ? f.onCurrent->drainedNs : f.entry->lastSeenNs;
    return packet.nowNs >= drained + m_config.safeSlackNs;
}

bool
TensorAwareV2::TakesMove(const PacketInfo& packet,
                         const Candidates& candidates,
                         const Flow& f,
                         const Fastest& fastest,
                         const Cost& bestCost,
                         const Cost& currentCost)
{
    if (MovesOnlyDrained(packet, candidates, f))
    {
        if (!Drained(packet, f))
        {
            ++m_stats.nUndrainedHeld;
            return false;
        }
    }
    else
    {
        // Bytes ahead of the flow on its port that would drain after a packet sent now on the
        // new one, in bytes of the current port's rate.
        double r = Ratio(fastest.local, Ports().RateBps(f.current));
        double reorder = (currentCost.drainBytes - bestCost.drainBytes) / r;
        if (reorder > m_config.maxReorderBytes && !f.stalled)
        {
            ++m_stats.nReorderHeld;
            return false;
        }
    }
    CountMove(f.midTensor, f.stalled);
    return true;
}

void
TensorAwareV2::Record(const PacketInfo& packet, const Flow& f, uint32_t port, bool moved)
{
    const int64_t now = packet.nowNs;
    if (moved)
    {
        uint32_t from = f.failed ? f.entry->port : f.current;
        NotifyRerouted(packet, from, port);
        if (!f.failed)
        {
            Forget(from, packet.flowHash);
        }
    }
    TensorTable::Entry* e = Admit(f.entry, f.slot, packet);
    if (e)
    {
        if (moved || e->port != port)
        {
            e->lastMoveNs = now;
        }
        e->paceNs = f.pace;
        if (m_config.spreadRetransmits && packet.tcpPayload > 0 &&
            (e->tcpHighEnd == 0 || SeqAfter(packet.tcpSeqEnd, e->tcpHighEnd)))
        {
            e->tcpHighEnd = packet.tcpSeqEnd;
        }
    }
    if (FlowRate* rate = f.rate)
    {
        if (now - rate->windowStartNs >= m_config.rateWindowNs)
        {
            rate->rateBps = static_cast<double>(rate->windowBytes) * 8e9 /
                            static_cast<double>(now - rate->windowStartNs);
            rate->windowStartNs = now;
            rate->windowBytes = 0;
        }
        rate->windowBytes += packet.size;
    }
    Remember(e, packet, port);
    FlowSlot seen = Seen(packet, packet.label.priority);
    seen.safe = f.safe;
    seen.drainedNs = f.safe ? DrainTime(port, packet) : 0;
    seen.paceNs = f.pace;
    seen.job = f.job;
    Touch(port, seen);
}

} // namespace lb
} // namespace talb
