#ifndef TALB_LB_CORE_FLOWLET_TABLE_H
#define TALB_LB_CORE_FLOWLET_TABLE_H

#include "talb-lb-core.h"

#include <cstdint>
#include <vector>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * Fixed-size, direct-mapped flowlet table (LetFlow, CONGA, TaLB's fallback).
 *
 * One slot per hash bucket, as in switch hardware. A slot remembers which flow owns it, so two
 * flows colliding in a bucket evict each other (each collision starts a new flowlet) instead of
 * silently sharing a port. Sized once; lookups are O(1) and allocation-free.
 */
class FlowletTable
{
  public:
    /// One flowlet.
    struct Entry
    {
        uint32_t flowHash{0};  ///< owner flow
        uint32_t port{0};      ///< port of the current flowlet
        int64_t lastSeenNs{0}; ///< time of the flowlet's last packet
        bool valid{false};     ///< the slot holds a flowlet
    };

    /// \return true when \p size is a usable table size (a power of two, 1 .. 2^24)
    static bool ValidSize(uint32_t size);

    /// \param size number of slots (ValidSize); empties the table. The only allocation.
    void Resize(uint32_t size);

    /// \return the slot of \p flowHash (possibly owned by another flow, or invalid)
    Entry& Slot(uint32_t flowHash)
    {
        return m_entries[Index(flowHash)];
    }

    /**
     * \return true when \p e is a live flowlet of \p flowHash: same owner and its last packet
     * at most \p timeoutNs before \p nowNs
     */
    static bool IsActive(const Entry& e, uint32_t flowHash, int64_t nowNs, int64_t timeoutNs)
    {
        return e.valid && e.flowHash == flowHash && nowNs - e.lastSeenNs <= timeoutNs;
    }

    /// \return number of slots
    uint32_t Size() const
    {
        return static_cast<uint32_t>(m_entries.size());
    }

  private:
    /// Salted so that a table indexed by the same hash as ECMP does not inherit its collisions.
    uint32_t Index(uint32_t flowHash) const
    {
        return Mix32(flowHash ^ 0x5bd1e995u) & m_mask;
    }

    std::vector<Entry> m_entries;
    uint32_t m_mask{0};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_FLOWLET_TABLE_H */
