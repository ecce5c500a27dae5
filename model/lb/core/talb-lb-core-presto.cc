#include "talb-lb-core-presto.h"

#include "talb-lb-core-flowlet-table.h"

namespace talb
{
namespace lb
{

const SettingTable<Presto::Config>&
Presto::Settings()
{
    // The switch keeps the default table size (no flag).
    static constexpr Setting<Config> kRows[] = {
        {"FlowcellBytes",
         "flowcell-bytes",
         UnsignedField<&Config::flowcellBytes>(),
         1,
         1u << 30,
         "Bytes of a flowcell: a flow moves to its next path every this many"},
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
         "A flow idle for longer restarts at flowcell 0"},
    };
    static const SettingTable<Config> kTable("presto", kRows);
    return kTable;
}

const char*
Presto::Check(const Config& config)
{
    if (config.flowcellBytes < 1)
    {
        return "the Presto flowcell size must be at least 1 byte";
    }
    if (!FlowletTable::ValidSize(config.tableSize))
    {
        return "the Presto flow table size must be a power of two in 1..2^24";
    }
    if (config.idleNs < 1)
    {
        return "the Presto idle timeout must be at least 1 ns";
    }
    return nullptr;
}

bool
Presto::Configure(const Config& config)
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

uint32_t
Presto::CellOf(uint32_t flowHash) const
{
    const Entry& e = m_entries[Mix32(flowHash ^ 0x27d4eb2fu) & m_mask];
    return (e.valid && e.flowHash == flowHash) ? e.cell : 0;
}

uint32_t
Presto::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    Entry& e = Slot(packet.flowHash);
    bool known = e.valid && e.flowHash == packet.flowHash;
    if (known && packet.nowNs - e.lastSeenNs > m_config.idleNs)
    {
        known = false; // an idle flow starts its next message with a full first cell
    }
    if (!known)
    {
        if (e.valid && e.flowHash != packet.flowHash)
        {
            NotifyEvicted(e.flowHash, 0);
        }
        e.flowHash = packet.flowHash;
        e.cell = 0;
        e.cellBytes = 0;
        e.valid = true;
    }
    else if (e.cellBytes > 0 && uint64_t(e.cellBytes) + packet.size > m_config.flowcellBytes)
    {
        ++e.cell;
        e.cellBytes = 0;
    }
    uint32_t n = candidates.count;
    uint32_t port = candidates.ports[(Offset(packet.flowHash) % n + e.cell % n) % n];
    // A new cell on another port is Presto's reroute (and a failed port's replacement too).
    if (known && e.port != port)
    {
        NotifyRerouted(packet, e.port, port);
    }
    e.port = port;
    e.cellBytes += packet.size;
    e.lastSeenNs = packet.nowNs;
    return port;
}

} // namespace lb
} // namespace talb
