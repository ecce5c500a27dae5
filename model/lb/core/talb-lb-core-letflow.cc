#include "talb-lb-core-letflow.h"

namespace talb
{
namespace lb
{

namespace
{
constexpr SettingSpelling kPick[] = {
    {int(LetFlow::Pick::kRandom), "Random", "random"},
    {int(LetFlow::Pick::kLeastQueued), "LeastQueued", "least-queued"},
};
} // namespace

const SettingTable<LetFlow::Config>&
LetFlow::Settings()
{
    // The switch keeps the default table size (no flag).
    static constexpr Setting<Config> kRows[] = {
        {"FlowletTimeout",
         "timeout-us",
         TimeField<&Config::timeoutNs>(),
         1,
         kMaxTimeNs,
         "Gap between two packets of a flow that starts a new flowlet"},
        {"TableSize",
         nullptr,
         UnsignedField<&Config::tableSize>(),
         1,
         1u << 24,
         "Flowlet table slots (a power of two)"},
        {"FlowletPick",
         "pick",
         EnumField<&Config::pick>(),
         0,
         0,
         "Where a new flowlet goes: Random, a uniformly random candidate (LetFlow); LeastQueued, "
         "the candidate with the fewest bytes queued at this switch, ties at random (load-aware, "
         "and still no reordering within a flowlet)",
         kPick},
    };
    static const SettingTable<Config> kTable("flowlet", kRows);
    return kTable;
}

const char*
LetFlow::Check(const Config& config)
{
    if (config.timeoutNs < 1)
    {
        return "the flowlet timeout must be at least 1 ns";
    }
    if (!FlowletTable::ValidSize(config.tableSize))
    {
        return "the flowlet table size must be a power of two in 1..2^24";
    }
    return nullptr;
}

bool
LetFlow::Configure(const Config& config)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_table.Resize(config.tableSize);
    return true;
}

bool
LetFlow::Retune(const Config& config)
{
    if (Check(config) || config.tableSize != m_table.Size())
    {
        return false;
    }
    m_config = config;
    return true;
}

uint32_t
LetFlow::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    FlowletTable::Entry& e = m_table.Slot(packet.flowHash);
    if (FlowletTable::IsActive(e, packet.flowHash, packet.nowNs, m_config.timeoutNs) &&
        candidates.Contains(e.port))
    {
        e.lastSeenNs = packet.nowNs;
        return e.port;
    }
    const uint32_t port =
        m_config.pick == Pick::kLeastQueued
            ? PickLeast(candidates, [this](uint32_t p) { return Ports().QueueBytes(p); })
            : candidates.ports[Draw(0, candidates.count - 1)];
    if (e.valid && e.flowHash == packet.flowHash && e.port != port)
    {
        NotifyRerouted(packet, e.port, port);
    }
    e.flowHash = packet.flowHash;
    e.port = port;
    e.lastSeenNs = packet.nowNs;
    e.valid = true;
    return port;
}

} // namespace lb
} // namespace talb
