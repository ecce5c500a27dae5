#ifndef TALB_LB_CORE_RANDOM_H
#define TALB_LB_CORE_RANDOM_H

#include "talb-lb-core.h"

#include <cstdint>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * A small, fast random source for callers without ns-3 (the DPDK switch, unit tests):
 * SplitMix64 (Steele, Lea, Flood 2014), mapped to a range by a 64-bit multiply (Lemire). Its
 * bias is below 2^-32 per draw, irrelevant next to a queue's noise. Not for cryptography.
 */
class SplitMixRandom : public Random
{
  public:
    explicit SplitMixRandom(uint64_t seed);

    uint32_t Integer(uint32_t min, uint32_t max) override;

    /// \return the next 64 random bits
    uint64_t Next();

  private:
    uint64_t m_state;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_RANDOM_H */
