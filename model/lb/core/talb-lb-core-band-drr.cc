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

int
BandDrr::ParseWeights(const char* text, uint32_t* weights)
{
    uint32_t parsed[kBands];
    const char* p = text;
    for (int b = 0; b < kBands; ++b)
    {
        // A field: up to the next comma or the end; digits only, 1..1000.
        uint32_t w = 0;
        const char* start = p;
        bool digits = true;
        for (; *p != ',' && *p != '\0'; ++p)
        {
            digits = digits && *p >= '0' && *p <= '9' && p - start < 5;
            w = digits ? w * 10 + uint32_t(*p - '0') : w;
        }
        if (b + 1 < kBands && *p != ',')
        {
            return kWeightsCount; // fewer than eight
        }
        if (p == start || !digits || w < 1 || w > 1000)
        {
            return b;
        }
        parsed[b] = w;
        if (b + 1 < kBands)
        {
            ++p; // past the comma
        }
    }
    if (*p != '\0')
    {
        return kWeightsCount; // more than eight
    }
    for (int b = 0; b < kBands; ++b)
    {
        weights[b] = parsed[b];
    }
    return kWeightsOk;
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
