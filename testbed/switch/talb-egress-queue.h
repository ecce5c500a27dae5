/*
 * One switch port's egress queue, without DPDK: eight strict-priority bands sharing one
 * buffer (drop-tail, or push-out by band), ECN marking on arrival, and the scheduler that picks
 * the next band. Items are opaque pointers (mbufs in talb-switch) with their size in bytes.
 *
 * Marking follows the simulator's TalbPriorityQueue: an ECN-capable packet is marked CE when
 * the port's occupancy at its arrival is at least the threshold. Band 0 is served first.
 *
 * Scheduling lives in one place, NextBand(): strict priority over the eight bands (the
 * default), or with dwrrBands the decision core's lb::BandDrr, the rule the simulator's
 * BandScheduling=Dwrr runs: bands below strictBands first, the others by deficit round robin
 * with their weights. Dequeue() charges the band it served.
 *
 * Push-out follows TalbPriorityQueue's PushOut too: an arrival that finds the buffer full drops
 * the oldest queued packets of lower bands instead, the lowest band first, only where removing
 * every one of them would make room; never its own band or above, and under dwrr never the
 * untagged band (the simulator's best-effort class). Evicted items go to EgressConfig::release.
 */
#ifndef TALB_EGRESS_QUEUE_H
#define TALB_EGRESS_QUEUE_H

#include "ns3/talb-lb-core-band-drr.h"
#include "ns3/talb-wire.h"

#include <cstdint>
#include <vector>

namespace talb
{

struct EgressConfig
{
    uint64_t bufferBytes = 1u << 20;    ///< shared by the bands (drop-tail)
    uint64_t ecnThresholdBytes = 97500; ///< occupancy from which ECT packets are marked CE
    bool ecn = true;                    ///< mark at all
    uint32_t bandPackets = 1024;        ///< packets per band, a power of two
    bool dwrrBands = false;             ///< bands from strictBands on share by DWRR
    uint8_t strictBands = 1;            ///< dwrrBands: bands served strictly first, 0..8
    uint32_t bandWeights[TALB_NUM_PRIORITIES] = {1, 1, 1, 1, 1, 1, 1, 1}; ///< 1..1000
    uint32_t quantumBytes = 9218; ///< DWRR bytes per unit of weight (the largest frame)
    bool pushOut = false;         ///< a full buffer drops lower bands' packets, not the arrival
    /// dwrrBands: the band of untagged traffic, which push-out never evicts (8: none)
    uint8_t bestEffortBand = TALB_NUM_PRIORITIES;
    /// pushOut: frees a pushed-out item (the queue owned it); required with pushOut
    void (*release)(void* item) = nullptr;
};

/// What Enqueue() did with a packet.
enum class EnqueueResult
{
    kQueued,  ///< queued as it is
    kMarked,  ///< queued; the caller must set its ECN field to CE
    kDropped, ///< the buffer or the band is full: the caller frees it
};

/**
 * Counter identity (asserted by the tests): enqueued = dequeued + pushedOut + Packets(); every
 * packet offered is enqueued or dropped; marked counts enqueued packets told to be marked.
 */
struct EgressCounters
{
    uint64_t enqueued = 0;
    uint64_t dropped = 0;   ///< refused on arrival
    uint64_t pushedOut = 0; ///< enqueued, then evicted for a more urgent arrival (pushOut)
    uint64_t marked = 0;
    uint64_t dequeued = 0;
    uint64_t dequeuedBytes = 0;
};

class EgressQueue
{
  public:
    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const EgressConfig& config);

    /// Allocates the bands' rings (the only allocation). \return false when Check() fails
    bool Init(const EgressConfig& config);

    /**
     * Offers a packet. \p band is 0..7 (0 served first); \p ecnCapable: its ECN field is ECT(0)
     * or ECT(1).
     */
    EnqueueResult Enqueue(void* item, uint32_t bytes, uint8_t band, bool ecnCapable);

    /// \return the next packet by the scheduler, or nullptr when empty; \p bytes gets its size
    void* Dequeue(uint32_t* bytes);

    /// \return the size of the packet Dequeue() would return next (0 when empty)
    uint32_t HeadBytes() const;

    /// \return bytes a packet of \p band fits in before Enqueue() refuses it: the buffer less
    /// the bytes queued (less those push-out would evict), 0 once the band's ring is full
    uint64_t RoomBytes(uint8_t band) const;

    bool Empty() const
    {
        return m_nonEmpty == 0;
    }

    uint64_t Bytes() const
    {
        return m_bytes;
    }

    uint32_t Packets() const
    {
        return m_packets;
    }

    uint64_t BandBytes(uint8_t band) const
    {
        return m_bands[band].bytes;
    }

    uint32_t BandPackets(uint8_t band) const
    {
        return m_bands[band].tail - m_bands[band].head;
    }

    const EgressCounters& Counters() const
    {
        return m_counters;
    }

    const EgressConfig& Config() const
    {
        return m_config;
    }

  private:
    struct Item
    {
        void* item;
        uint32_t bytes;
    };

    struct Band
    {
        std::vector<Item> ring;
        uint32_t head{0}; ///< free-running indices, masked on access
        uint32_t tail{0};
        uint64_t bytes{0};
    };

    /// pushOut: evicts lower bands' oldest packets where that makes room for \p bytes in \p band
    void PushOut(uint8_t band, uint32_t bytes);
    /// \return bytes queued in the bands below \p band that push-out may evict for it
    uint64_t LowerBytes(uint8_t band) const;

    /// \return true for the band push-out never evicts (the untagged band under dwrr)
    bool Spared(uint8_t band) const
    {
        return m_config.dwrrBands && band == m_config.bestEffortBand;
    }

    /// Takes the oldest packet of non-empty \p band off the queue (no counters, no DWRR charge)
    Item RemoveHead(uint8_t band);

    /// The scheduler: the band to serve next; the queue is not empty. Changes nothing.
    uint8_t NextBand() const
    {
        if (!m_config.dwrrBands)
        {
            return static_cast<uint8_t>(__builtin_ctz(m_nonEmpty));
        }
        return m_drr.Next(m_nonEmpty, [this](uint8_t band) {
            return m_bands[band].ring[m_bands[band].head & m_mask].bytes;
        });
    }

    EgressConfig m_config;
    Band m_bands[TALB_NUM_PRIORITIES];
    uint32_t m_mask{0};
    uint32_t m_nonEmpty{0};  ///< bit b set: band b holds packets
    talb::lb::BandDrr m_drr; ///< dwrrBands: the decision core's band scheduler
    uint64_t m_bytes{0};
    uint32_t m_packets{0};
    EgressCounters m_counters;
};

} // namespace talb

#endif /* TALB_EGRESS_QUEUE_H */
