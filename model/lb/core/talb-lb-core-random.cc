#include "talb-lb-core-random.h"

namespace talb
{
namespace lb
{

SplitMixRandom::SplitMixRandom(uint64_t seed)
    : m_state(seed)
{
}

uint64_t
SplitMixRandom::Next()
{
    uint64_t z = (m_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

uint32_t
SplitMixRandom::Integer(uint32_t min, uint32_t max)
{
    uint64_t span = uint64_t(max) - min + 1; // 1 .. 2^32
    return min + static_cast<uint32_t>(((Next() >> 32) * span) >> 32);
}

} // namespace lb
} // namespace talb
