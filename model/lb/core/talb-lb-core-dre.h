#ifndef TALB_LB_CORE_DRE_H
#define TALB_LB_CORE_DRE_H

#include <cstdint>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * Discounting rate estimator (DRE) of CONGA: a byte register that grows by every byte sent and
 * shrinks by a factor (1 - alpha) every interval Tdre.
 *
 * In steady state at rate R the register holds about R x tau bytes with tau = Tdre / alpha, so
 * X / (C x tau) estimates a link's utilisation. The decay is applied lazily on access, for all
 * elapsed intervals at once: no timer, O(1) per packet, no allocation. Times are in ns.
 */
class Dre
{
  public:
    /// A DRE with Tdre = 20 us and alpha = 0.1.
    Dre();

    /**
     * \param intervalNs decay interval Tdre, > 0
     * \param alpha decay factor per interval, in (0, 1]
     * \param nsInSeconds one ns in seconds as the caller's clock computes it: ns-3's Time
     *        arithmetic gives a value a few ulps below 1e-9, and a caller that must reproduce
     *        ns-3's utilisation bit for bit passes Time(1).GetSeconds()
     * \return false (and no change) when a value is out of range
     */
    bool Configure(int64_t intervalNs, double alpha, double nsInSeconds = 1e-9);

    /// Account \p bytes sent at \p nowNs.
    void Add(uint32_t bytes, int64_t nowNs);

    /// \return the register (bytes) at \p nowNs
    double Bytes(int64_t nowNs) const;

    /// \return the estimated utilisation of a link of \p rateBps at \p nowNs (1.0 = fully busy)
    double Utilization(int64_t nowNs, uint64_t rateBps) const;

    /**
     * \return the utilisation quantised to \p bits bits (0 .. 2^bits - 1), saturating, as
     * CONGA's congestion metric
     */
    uint8_t Quantized(int64_t nowNs, uint64_t rateBps, uint8_t bits) const;

  private:
    void Decay(int64_t nowNs) const;

    int64_t m_intervalNs;     ///< Tdre
    double m_alpha;           ///< decay per interval
    double m_nsInSeconds;     ///< one ns in seconds
    mutable double m_bytes;   ///< register X (bytes)
    mutable int64_t m_lastNs; ///< start of the interval the register is decayed to
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_DRE_H */
