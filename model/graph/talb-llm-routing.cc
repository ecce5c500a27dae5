#include "talb-llm-routing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace talb
{
namespace graph
{

namespace
{

/// SplitMix64: a fully specified generator (the standard library's shuffles are not).
uint64_t
SplitMix64(uint64_t* state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// \return real quotas summing to \p total, proportional to \p weight, none above \p cap
std::vector<double>
CappedQuotas(const std::vector<double>& weight, double total, double cap)
{
    std::vector<double> quota(weight.size(), 0);
    std::vector<bool> capped(weight.size(), false);
    // Each round caps at least one more expert, so at most experts rounds.
    for (size_t round = 0; round <= weight.size(); ++round)
    {
        double left = total;
        double free = 0;
        for (size_t e = 0; e < weight.size(); ++e)
        {
            left -= capped[e] ? cap : 0;
            free += capped[e] ? 0 : weight[e];
        }
        bool more = false;
        for (size_t e = 0; e < weight.size(); ++e)
        {
            quota[e] = capped[e] ? cap : (free > 0 ? left * weight[e] / free : 0);
            if (!capped[e] && quota[e] > cap)
            {
                capped[e] = true;
                more = true;
            }
        }
        if (!more)
        {
            break;
        }
    }
    return quota;
}

} // namespace

std::vector<double>
LlmExpertPopularity(const LlmModel& m, uint32_t layer, uint64_t seed)
{
    std::vector<uint32_t> order(m.experts);
    std::iota(order.begin(), order.end(), 0);
    uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (uint64_t(layer) + 1));
    for (uint32_t i = m.experts; i > 1; --i) // Fisher-Yates
    {
        std::swap(order[i - 1], order[SplitMix64(&state) % i]);
    }
    std::vector<double> p(m.experts);
    double sum = 0;
    for (uint32_t r = 0; r < m.experts; ++r)
    {
        p[order[r]] = std::pow(double(r) + 1, -m.routingSkew);
        sum += p[order[r]];
    }
    for (double& x : p)
    {
        x /= sum;
    }
    return p;
}

std::vector<uint64_t>
LlmExpertTokens(const LlmModel& m,
                uint64_t tokens,
                uint32_t layer,
                uint64_t seed,
                bool padToCapacity)
{
    uint64_t assignments = tokens * m.topK;
    std::vector<double> quota =
        CappedQuotas(LlmExpertPopularity(m, layer, seed), double(assignments), double(tokens));
    std::vector<uint64_t> count(m.experts);
    uint64_t given = 0;
    for (uint32_t e = 0; e < m.experts; ++e)
    {
        count[e] = std::min<uint64_t>(tokens, static_cast<uint64_t>(std::floor(quota[e])));
        given += count[e];
    }
    // Largest remainders first, ties to the lower expert; an expert holds at most `tokens`.
    std::vector<uint32_t> byRemainder(m.experts);
    std::iota(byRemainder.begin(), byRemainder.end(), 0);
    std::stable_sort(byRemainder.begin(), byRemainder.end(), [&](uint32_t a, uint32_t b) {
        return quota[a] - std::floor(quota[a]) > quota[b] - std::floor(quota[b]);
    });
    for (size_t i = 0; given < assignments; i = (i + 1) % m.experts)
    {
        uint32_t e = byRemainder[i];
        if (count[e] < tokens)
        {
            ++count[e];
            ++given;
        }
    }
    if (m.capacityFactor > 0)
    {
        auto capacity = static_cast<uint64_t>(
            std::ceil(m.capacityFactor * double(assignments) / double(m.experts)));
        for (uint64_t& c : count)
        {
            c = padToCapacity ? capacity : std::min(c, capacity);
        }
    }
    return count;
}

} // namespace graph
} // namespace talb
