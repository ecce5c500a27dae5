#include "talb-lb-core-hermes.h"

#include "talb-lb-core-flowlet-table.h"

#include <algorithm>
#include <utility>

namespace talb
{
namespace lb
{

const SettingTable<Hermes::Config>&
Hermes::Settings()
{
    // The switch keeps the default table size (no flag). The ports' paths and rates, the leaves
    // and the paths are the switch's, not settings.
    static constexpr Setting<Config> kRows[] = {
        {"TableSize",
         nullptr,
         UnsignedField<&Config::tableSize>(),
         1,
         1u << 24,
         "Flow table slots (a power of two)"},
        {"IdleTimeout",
         "idle-timeout-us",
         TimeField<&Config::idleNs>(),
         1,
         kMaxTimeNs,
         "A flow idle for longer is placed afresh as a new flow"},
        {"EcnThreshold",
         "ecn-threshold",
         RealField<&Config::ecnThreshold>(),
         0,
         1,
         "ECN fraction at or above which (with {DelayHigh}) a path is congested, below which "
         "(with {DelayLow}) it may be good (Hermes: T_ECN)"},
        {"DelayLow",
         "delay-low-us",
         TimeField<&Config::delayLowNs>(),
         0,
         kMaxTimeNs,
         "Path queueing delay below which (with a low ECN fraction) a path is good (Hermes: "
         "T_RTT_low, as delay above the base RTT)"},
        {"DelayHigh",
         "delay-high-us",
         TimeField<&Config::delayHighNs>(),
         0,
         kMaxTimeNs,
         "Path queueing delay at or above which (with a high ECN fraction) a path is congested "
         "(Hermes: T_RTT_high; at least {DelayLow})"},
        {"DeltaEcn",
         "delta-ecn",
         RealField<&Config::deltaEcn>(),
         0,
         1,
         "A notably better path has an ECN fraction lower by this ... (Hermes: delta_ECN)"},
        {"DeltaDelay",
         "delta-delay-us",
         TimeField<&Config::deltaDelayNs>(),
         0,
         kMaxTimeNs,
         "... and a queueing delay lower by this (Hermes: delta_RTT)"},
        {"SizeThreshold",
         "size-threshold",
         UnsignedField<&Config::sizeThresholdBytes>(),
         0,
         1ull << 40,
         "Bytes a flow must have sent before it may be rerouted (Hermes: S)"},
        {"RateThreshold",
         "rate-threshold",
         RealField<&Config::rateThreshold>(),
         0,
         1000,
         "A flow faster than this fraction of its uplink's line rate is not rerouted (Hermes: "
         "R; above 1: no flow is too fast)"},
        {"RateWindow",
         "rate-window-us",
         TimeField<&Config::rateWindowNs>(),
         1,
         kMaxTimeNs,
         "Window over which a flow's rate is measured (on the testbed switch, also its ports' "
         "ECN fraction); a flow moves at most once per window"},
    };
    static const SettingTable<Config> kTable("hermes", kRows);
    return kTable;
}

const char*
Hermes::Check(const Config& config)
{
    if (config.portPath.size() != config.portRateBps.size())
    {
        return "Hermes needs a path and a rate for every port";
    }
    for (size_t p = 0; p < config.portPath.size(); ++p)
    {
        if (config.portPath[p] != kNoPath &&
            (config.portPath[p] >= config.nPaths || config.portRateBps[p] == 0))
        {
            return "a Hermes uplink needs a path index below nPaths and a rate above 0";
        }
    }
    if (!FlowletTable::ValidSize(config.tableSize))
    {
        return "the Hermes flow table size must be a power of two in 1..2^24";
    }
    if (config.idleNs < 1 || config.rateWindowNs < 1)
    {
        return "the Hermes idle timeout and rate window must be at least 1 ns";
    }
    if (!(config.ecnThreshold >= 0 && config.ecnThreshold <= 1))
    {
        return "the Hermes ECN threshold must be in [0, 1]";
    }
    if (config.delayLowNs < 0 || config.delayLowNs > config.delayHighNs)
    {
        return "Hermes needs 0 <= low delay <= high delay";
    }
    if (!(config.deltaEcn >= 0 && config.deltaEcn <= 1) || config.deltaDelayNs < 0)
    {
        return "the Hermes 'notably better' margins must be in [0, 1] and >= 0 ns";
    }
    if (!(config.rateThreshold >= 0))
    {
        return "the Hermes rate threshold must be >= 0";
    }
    return nullptr;
}

bool
Hermes::Configure(const Config& config)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_entries.assign(config.tableSize, Entry());
    m_mask = config.tableSize - 1;
    return true;
}

void
Hermes::BindRemote(const RemoteView* remote)
{
    m_remote = remote;
}

Hermes::Sense
Hermes::Sensed(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    Sense s;
    s.localUtil = Ports().Utilization(port, nowNs);
    uint64_t rate = port < m_config.portRateBps.size() ? m_config.portRateBps[port] : 0;
    if (rate > 0)
    {
        s.delayNs = static_cast<int64_t>(double(Ports().QueueBytes(port)) * 8e9 / double(rate));
    }
    RemotePath r = Remote(port, dstLeaf, nowNs);
    if (r.known)
    {
        s.fraction = r.ecnFraction;
        s.delayNs = std::max(s.delayNs, r.delayNs);
    }
    bool ecnHigh = s.fraction >= m_config.ecnThreshold;
    if (r.failed)
    {
        s.type = FAILED;
    }
    else if (ecnHigh && s.delayNs >= m_config.delayHighNs)
    {
        s.type = CONGESTED;
    }
    else if (!ecnHigh && s.delayNs < m_config.delayLowNs)
    {
        s.type = GOOD;
    }
    else
    {
        s.type = GRAY;
    }
    return s;
}

RemotePath
Hermes::Remote(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    uint32_t path = port < m_config.portPath.size() ? m_config.portPath[port] : kNoPath;
    if (m_remote && path != kNoPath && dstLeaf < m_config.nLeaves)
    {
        return m_remote->Path(dstLeaf, path, nowNs);
    }
    return RemotePath();
}

bool
Hermes::PathFailed(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    return Remote(port, dstLeaf, nowNs).failed;
}

Hermes::PathType
Hermes::Classify(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    return Sensed(port, dstLeaf, nowNs).type;
}

const Hermes::Entry*
Hermes::Find(uint32_t flowHash) const
{
    const Entry& e = m_entries[Mix32(flowHash ^ 0x165667b1u) & m_mask];
    return (e.valid && e.flowHash == flowHash) ? &e : nullptr;
}

double
Hermes::RateOf(uint32_t flowHash) const
{
    const Entry* e = Find(flowHash);
    return e ? e->rateBps : 0.0;
}

uint32_t
Hermes::Place(const PacketInfo& packet, const Candidates& candidates)
{
    // Good paths first, then gray, then congested, then failed; within a type the least local
    // rate.
    return PickLeast(candidates, [&](uint32_t p) {
        Sense s = Sensed(p, packet.dstLeaf, packet.nowNs);
        return std::make_pair(s.type, s.localUtil);
    });
}

uint32_t
Hermes::BetterThan(uint32_t current, const PacketInfo& packet, const Candidates& candidates)
{
    Sense cur = Sensed(current, packet.dstLeaf, packet.nowNs);
    if (cur.type != CONGESTED)
    {
        return kNoPort;
    }
    uint32_t best = kNoPort;
    Sense bestSense;
    for (uint32_t i = 0; i < candidates.count; ++i)
    {
        uint32_t p = candidates.ports[i];
        if (p == current)
        {
            continue;
        }
        Sense s = Sensed(p, packet.dstLeaf, packet.nowNs);
        bool notably = s.fraction <= cur.fraction - m_config.deltaEcn &&
                       s.delayNs <= cur.delayNs - m_config.deltaDelayNs;
        if (s.type >= CONGESTED || !notably)
        {
            continue;
        }
        if (best == kNoPort || s.type < bestSense.type ||
            (s.type == bestSense.type && s.delayNs < bestSense.delayNs))
        {
            best = p;
            bestSense = s;
        }
    }
    return best;
}

uint32_t
Hermes::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    Entry& e = Slot(packet.flowHash);
    bool known =
        e.valid && e.flowHash == packet.flowHash && packet.nowNs - e.lastSeenNs <= m_config.idleNs;
    if (!known)
    {
        if (e.valid && e.flowHash != packet.flowHash)
        {
            NotifyEvicted(e.flowHash, 0);
        }
        e = Entry();
        e.flowHash = packet.flowHash;
        e.valid = true;
        e.port = Place(packet, candidates);
        e.windowStartNs = packet.nowNs;
    }
    else
    {
        if (packet.nowNs - e.windowStartNs >= m_config.rateWindowNs)
        {
            e.rateBps = double(e.windowBytes) * 8e9 / double(packet.nowNs - e.windowStartNs);
            e.windowStartNs = packet.nowNs;
            e.windowBytes = 0;
        }
        uint32_t to = kNoPort;
        if (!candidates.Contains(e.port) || PathFailed(e.port, packet.dstLeaf, packet.nowNs))
        {
            to = Place(packet, candidates); // port down or path failed: move at once
        }
        else if (e.sentBytes >= m_config.sizeThresholdBytes && e.rateBps > 0 &&
                 e.port < m_config.portRateBps.size() &&
                 e.rateBps < m_config.rateThreshold * double(m_config.portRateBps[e.port]))
        {
            to = BetterThan(e.port, packet, candidates);
        }
        if (to != kNoPort && to != e.port)
        {
            NotifyRerouted(packet, e.port, to);
            e.port = to;
            e.rateBps = 0; // measure the flow afresh on its new path
            e.windowStartNs = packet.nowNs;
            e.windowBytes = 0;
        }
    }
    e.sentBytes += packet.size;
    e.windowBytes += packet.size;
    e.lastSeenNs = packet.nowNs;
    return e.port;
}

} // namespace lb
} // namespace talb
