#include "talb-lb-core-band-drr.h"

namespace talb
{
namespace lb
{

const char*
BandDrr::Configure(uint8_t strictBands, const uint32_t* weights, uint32_t quantumBytes)
{
    if (strictBands > kBands)
    {
        return "strict bands must be 0..8";
    }
    for (uint8_t b = 0; b < kBands; ++b)
    {
        if (weights[b] < 1 || weights[b] > 1000)
        {
            return "band weights must be 1..1000";
        }
    }
    if (quantumBytes < 64)
    {
        return "the DWRR quantum must be at least 64 bytes";
    }
    m_strictBands = strictBands;
    for (uint8_t b = 0; b < kBands; ++b)
    {
        m_weight[b] = weights[b];
        m_deficit[b] = 0;
    }
    m_quantum = quantumBytes;
    m_turn = strictBands < kBands ? strictBands : 0;
    return nullptr;
}

void
BandDrr::Charge(uint8_t band, uint32_t bytes)
{
    int64_t quantum = int64_t(m_quantum) * m_weight[band];
    if (band != m_turn)
    {
        m_turn = band; // a new visit: one quantum
        m_deficit[band] += quantum;
    }
    while (m_deficit[band] < int64_t(bytes))
    {
        m_deficit[band] += quantum; // the band is alone: rounds of its own
    }
    m_deficit[band] -= bytes;
}

} // namespace lb
} // namespace talb
