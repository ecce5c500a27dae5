#ifndef TALB_DRE_H
#define TALB_DRE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/talb-lb-core-dre.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Discounting rate estimator (DRE) of CONGA: a byte register that grows by every byte
 * sent and shrinks by a factor (1 - alpha) every interval Tdre.
 *
 * In steady state at rate R the register holds about R * tau bytes with tau = Tdre / alpha, so
 * X / (C * tau) estimates a link's utilisation. The decay is applied lazily on access, for all
 * elapsed intervals at once: no timer events, O(1) per packet, no allocation.
 *
 * The arithmetic is the decision core's talb::lb::Dre (model/lb/core), which the testbed's
 * switch runs too; this class gives it ns-3's Time and DataRate, and ns-3's value of one ns in
 * seconds, so that utilisations are the simulator's to the last bit.
 */
class TalbDre
{
  public:
    TalbDre();

    /**
     * \param interval decay interval Tdre (> 0)
     * \param alpha decay factor per interval, in (0, 1]
     */
    void Configure(Time interval, double alpha);

    /// Account \p bytes sent at \p now.
    void Add(uint32_t bytes, Time now);

    /// \return the register (bytes) at \p now
    double GetBytes(Time now) const;

    /// \return the estimated utilisation of a link of \p rate at \p now (1.0 = fully busy)
    double GetUtilization(Time now, DataRate rate) const;

    /**
     * \return the utilisation quantised to \p bits bits (0 .. 2^bits - 1), saturating, as
     * CONGA's congestion metric
     */
    uint8_t GetQuantized(Time now, DataRate rate, uint8_t bits) const;

  private:
    talb::lb::Dre m_dre; //!< the estimator, times in ns
};

} // namespace ns3

#endif /* TALB_DRE_H */
