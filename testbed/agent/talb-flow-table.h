/*
 * Fixed-capacity table of tracked TCP connection directions, allocated once at start-up.
 * Set-associative: a key hashes to a bucket of kWays entries; lookups compare at most kWays
 * keys. No allocation after construction.
 */
#ifndef TALB_FLOW_TABLE_H
#define TALB_FLOW_TABLE_H

#include "talb-packet-view.h"
#include "talb-seq-tracker.h"

#include <cstdint>
#include <vector>

namespace talb
{

class FlowTable
{
  public:
    static constexpr uint32_t kWays = 4;

    /// \param maxFlows entries wanted; rounded up to a power-of-two number of buckets
    explicit FlowTable(uint32_t maxFlows);

    /// \return the key's tracker, or nullptr when the connection is not tracked
    SeqTracker* Find(const FlowKey& key, uint32_t now);

    /**
     * Finds or makes the key's entry (on a SYN). A full bucket gives up first a closed entry,
     * then the least recently used one.
     * \param now a clock for recency: any counter that increases, wrap-around allowed
     * \param[out] evicted true when a connection that was not closed lost its entry
     */
    SeqTracker* Insert(const FlowKey& key, uint32_t now, bool* evicted);

    /// Marks the entry closed (FIN seen): it stays, for retransmissions, but is reused first.
    void Close(const FlowKey& key);

    /// Removes the entry (RST seen).
    void Erase(const FlowKey& key);

    uint32_t Capacity() const;
    uint32_t Size() const;

  private:
    struct Bucket
    {
        FlowKey keys[kWays];
        uint32_t lastUsed[kWays];
        uint8_t used;   ///< bit per way
        uint8_t closed; ///< bit per way
    };

    /// \return the way holding key in bucket b, or -1
    static int Way(const Bucket& b, const FlowKey& key);
    Bucket& BucketOf(const FlowKey& key);

    std::vector<Bucket> m_buckets;
    std::vector<SeqTracker> m_trackers; ///< bucket * kWays + way
    uint32_t m_mask;
    uint32_t m_size = 0;
};

} // namespace talb

#endif /* TALB_FLOW_TABLE_H */
