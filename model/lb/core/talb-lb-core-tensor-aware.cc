#include "talb-lb-core-tensor-aware.h"

#include <cmath>
#include <utility>

namespace talb
{
namespace lb
{

const char*
TensorAwareV1::Check(const Config& c)
{
    if (c.highThreshold > TALB_NUM_PRIORITIES)
    {
        return "the high-priority threshold must be in 0..8";
    }
    if (!(c.moveMarginBytes >= 0) || !(c.dreWeightBytes >= 0) || !(c.loadQuantumBytes >= 1))
    {
        return "the move margin and DRE weight must be >= 0 and the load quantum >= 1";
    }
    if (const char* error = TensorTable::Check(c.tableSize, c.probeLimit, c.idleTimeoutNs))
    {
        return error;
    }
    if (!Dre().Configure(c.dreIntervalNs, c.dreAlpha))
    {
        return "the DRE interval must be > 0 and its alpha in (0, 1]";
    }
    return nullptr;
}

bool
TensorAwareV1::Configure(const Config& config, uint32_t nPorts)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_table.Configure(config.tableSize, config.probeLimit, config.idleTimeoutNs);
    m_highLoad.assign(nPorts, Dre());
    for (Dre& dre : m_highLoad)
    {
        dre.Configure(config.dreIntervalNs, config.dreAlpha);
    }
    m_stats = TableStats();
    return true;
}

bool
TensorAwareV1::Retune(const Config& config)
{
    if (Check(config) || config.tableSize != m_config.tableSize ||
        config.dreIntervalNs != m_config.dreIntervalNs || config.dreAlpha != m_config.dreAlpha)
    {
        return false;
    }
    m_config = config;
    m_table.Retune(config.probeLimit, config.idleTimeoutNs);
    return true;
}

uint32_t
TensorAwareV1::LeastCostPort(const Candidates& candidates, int64_t nowNs)
{
    return PickLeast(candidates, [&](uint32_t p) { return Cost(p, nowNs); });
}

uint32_t
TensorAwareV1::LeastHighPriorityLoadPort(const Candidates& candidates, int64_t nowNs)
{
    return PickLeast(candidates, [&](uint32_t p) {
        double load = std::floor(m_highLoad[p].Bytes(nowNs) / m_config.loadQuantumBytes);
        return std::make_pair(load, Cost(p, nowNs));
    });
}

uint32_t
TensorAwareV1::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    if (!packet.hasLabel)
    {
        return SelectFallback(packet, candidates, packet.goBackN);
    }
    const int64_t now = packet.nowNs;
    const bool high = packet.label.priority < m_config.highThreshold;
    TensorTable::Entry* slot = nullptr;
    TensorTable::Entry* e = m_table.Lookup(packet.flowHash, packet.label.tensor_id, now, &slot);
    uint32_t port;
    if (e && candidates.Contains(e->port))
    {
        port = e->port;
        if (high)
        {
            uint32_t best = LeastCostPort(candidates, now);
            if (Cost(port, now) > Cost(best, now) + m_config.moveMarginBytes)
            {
                ++m_stats.nMidTensorMoves;
                NotifyRerouted(packet, port, best);
                port = best;
            }
        }
    }
    else
    {
        port = high ? LeastCostPort(candidates, now) : LeastHighPriorityLoadPort(candidates, now);
        if (e)
        {
            // Its port failed: the tensor has to move, whatever its priority.
            NotifyRerouted(packet, e->port, port);
        }
        else
        {
            e = Admit(e, slot, packet);
        }
    }
    Remember(e, packet, port);
    if (high)
    {
        m_highLoad[port].Add(packet.size, now);
    }
    return port;
}

} // namespace lb
} // namespace talb
