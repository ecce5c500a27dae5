#ifndef TALB_FLOWLET_TABLE_H
#define TALB_FLOWLET_TABLE_H

#include "ns3/nstime.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Fixed-size, direct-mapped flowlet table (LetFlow, CONGA, TaLB's fallback).
 *
 * One slot per hash bucket, as in switch hardware. A slot remembers which flow owns it, so two
 * flows colliding in a bucket evict each other (each collision starts a new flowlet) instead of
 * silently sharing a port. Sized once; lookups are O(1) and allocation-free.
 */
class TalbFlowletTable
{
  public:
    /// One flowlet.
    struct Entry
    {
        uint32_t flowHash{0}; //!< owner flow
        uint32_t port{0};     //!< port of the current flowlet
        Time lastSeen;        //!< time of the flowlet's last packet
        bool valid{false};    //!< the slot holds a flowlet
    };

    /// \param size number of slots, a power of two
    void Resize(uint32_t size);

    /// \return the slot of \p flowHash (possibly owned by another flow, or invalid)
    Entry& Slot(uint32_t flowHash);

    /**
     * \return true when \p e is a live flowlet of \p flowHash: same owner and its last packet
     * at most \p timeout before \p now
     */
    static bool IsActive(const Entry& e, uint32_t flowHash, Time now, Time timeout);

    /// \return number of slots
    uint32_t GetSize() const;

  private:
    std::vector<Entry> m_entries;
    uint32_t m_mask{0};
};

} // namespace ns3

#endif /* TALB_FLOWLET_TABLE_H */
