#ifndef TALB_LB_CORE_BAND_DRR_H
#define TALB_LB_CORE_BAND_DRR_H

#include "ns3/talb-wire.h"

#include <cstdint>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * The port scheduler's choice between the eight priority bands when they are not served in
 * strict order (BandScheduling=Dwrr in the simulator's TalbPriorityQueue, --band-scheduling=dwrr
 * on the DPDK switch): bands 0..strictBands-1 first, the most urgent first; the others by
 * deficit round robin (Shreedhar and Varghese), a visit adding weight x quantum bytes to the
 * band's deficit and the band sending while its deficit covers its head packet. A band that
 * empties forfeits its deficit (Forfeit()), so idle time earns no credit.
 *
 * Per packet: a scan of at most eight bands and one deficit update; no allocation.
 */
class BandDrr
{
  public:
    static constexpr uint8_t kBands = TALB_NUM_PRIORITIES;
    /// No band can send.
    static constexpr uint8_t kNone = kBands;

    /**
     * \param strictBands bands served strictly first, 0..8
     * \param weights each band's weight, 1..1000 (a strict band's is unused)
     * \param quantumBytes bytes per unit of weight and visit, at least 64
     * \return nullptr (and every deficit reset), or what is wrong (and no change)
     */
    const char* Configure(uint8_t strictBands, const uint32_t* weights, uint32_t quantumBytes);

    /**
     * \param ready bit b set: band b holds a packet it may send now
     * \param headBytes headBytes(b): the size of band b's next packet
     * \return the band to serve next, or kNone when \p ready is 0. Changes nothing.
     */
    template <class HeadBytes>
    uint8_t Next(uint32_t ready, HeadBytes headBytes) const
    {
        uint32_t strict = (1u << m_strictBands) - 1;
        if (ready & strict)
        {
            return static_cast<uint8_t>(__builtin_ctz(ready & strict));
        }
        uint32_t dwrr = ready & ~strict & ((1u << kBands) - 1);
        if (dwrr == 0)
        {
            return kNone;
        }
        // The band served last keeps its turn while its deficit covers its head packet;
        // otherwise the next ready band in cyclic order gets one (Charge() adds its quantum).
        if ((dwrr >> m_turn) & 1 && m_deficit[m_turn] >= int64_t(headBytes(m_turn)))
        {
            return m_turn;
        }
        uint32_t after = dwrr & ~((2u << m_turn) - 1);
        return static_cast<uint8_t>(__builtin_ctz(after ? after : dwrr));
    }

    /// What ParseWeights found wrong (kWeightsOk: nothing).
    static constexpr int kWeightsOk = -2;
    static constexpr int kWeightsCount = -1; //!< not one weight per band

    /**
     * Reads a band-weights text, the one syntax of the simulator's BandWeights attribute and
     * the DPDK switch's --band-weights: eight whole numbers 1..1000, comma-separated.
     * \param text the text (NUL-terminated)
     * \param weights filled with the eight weights when the text is right
     * \return kWeightsOk, kWeightsCount, or the band (0..7) whose weight is wrong
     */
    static int ParseWeights(const char* text, uint32_t* weights);

    /// Charges \p bytes that band \p band (not a strict one) sent; a new visit adds a quantum.
    void Charge(uint8_t band, uint32_t bytes);

    /// Band \p band emptied: its deficit is forfeit.
    void Forfeit(uint8_t band)
    {
        m_deficit[band] = 0;
    }

    /// \return true when band \p band is one of the DRR bands (not strict)
    bool IsDrrBand(uint8_t band) const
    {
        return band >= m_strictBands && band < kBands;
    }

  private:
    uint8_t m_strictBands{1};
    uint32_t m_weight[kBands]{1, 1, 1, 1, 1, 1, 1, 1};
    uint32_t m_quantum{9218};
    int64_t m_deficit[kBands]{};
    uint8_t m_turn{1}; ///< the DRR band served last (m_strictBands before the first)
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_BAND_DRR_H */
