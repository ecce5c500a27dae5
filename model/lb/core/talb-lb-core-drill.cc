#include "talb-lb-core-drill.h"

#include <algorithm>

namespace talb
{
namespace lb
{

const SettingTable<Drill::Config>&
Drill::Settings()
{
    static constexpr Setting<Config> kRows[] = {
        {"Samples",
         "samples",
         UnsignedField<&Config::samples>(),
         1,
         kMaxSamples,
         "Random candidate ports sampled per packet (d)"},
        {"Memory",
         "memory",
         UnsignedField<&Config::memory>(),
         0,
         kMaxMemory,
         "Least-loaded ports remembered for the next packet (m)"},
    };
    static const SettingTable<Config> kTable("drill", kRows);
    return kTable;
}

const char*
Drill::Check(const Config& config)
{
    if (config.samples < 1 || config.samples > kMaxSamples)
    {
        return "DRILL samples must be in 1..16";
    }
    if (config.memory > kMaxMemory)
    {
        return "DRILL memory must be in 0..8";
    }
    return nullptr;
}

bool
Drill::Configure(const Config& config)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    m_nRemembered = 0;
    return true;
}

bool
Drill::Retune(const Config& config)
{
    if (Check(config))
    {
        return false;
    }
    m_config = config;
    return true;
}

uint32_t
Drill::DoSelect(const PacketInfo& /* packet */, const Candidates& candidates)
{
    // Considered ports sorted by queued bytes (insertion sort on a small stack array).
    std::array<uint32_t, kMaxSamples + kMaxMemory> port;
    std::array<uint64_t, kMaxSamples + kMaxMemory> load;
    uint32_t n = 0;
    auto consider = [&](uint32_t p) {
        for (uint32_t i = 0; i < n; ++i)
        {
            if (port[i] == p)
            {
                return;
            }
        }
        uint64_t q = Ports().QueueBytes(p);
        uint32_t i = n++;
        // Strict '<' keeps earlier entries (remembered ports) first among equals.
        while (i > 0 && q < load[i - 1])
        {
            port[i] = port[i - 1];
            load[i] = load[i - 1];
            --i;
        }
        port[i] = p;
        load[i] = q;
    };
    for (uint32_t i = 0; i < m_nRemembered; ++i)
    {
        if (candidates.Contains(m_remembered[i]))
        {
            consider(m_remembered[i]);
        }
    }
    for (uint32_t s = 0; s < m_config.samples; ++s)
    {
        consider(candidates.ports[Draw(0, candidates.count - 1)]);
    }
    m_nRemembered = std::min(m_config.memory, n);
    for (uint32_t i = 0; i < m_nRemembered; ++i)
    {
        m_remembered[i] = port[i];
    }
    return port[0];
}

} // namespace lb
} // namespace talb
