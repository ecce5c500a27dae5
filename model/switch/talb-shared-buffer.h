#ifndef TALB_SHARED_BUFFER_H
#define TALB_SHARED_BUFFER_H

#include "ns3/object.h"
#include "ns3/queue-size.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief A switch's packet buffer shared by all its egress queues, with dynamic thresholds
 * (Choudhury and Hahne, "Dynamic Queue Length Thresholds for Shared-Memory Packet Switches",
 * 1998), as merchant switch silicon manages it.
 *
 * Every byte queued at any of the switch's ports is charged to the pool (Size) while it waits.
 * A lossy packet is admitted to an egress queue only while the queue, with it, stays within
 * Alpha times the free pool: T = Alpha (Size - used). One congested queue alone may then take
 * Alpha / (1 + Alpha) of the pool (half with Alpha 1), n congested queues Alpha / (1 + n Alpha)
 * each, and a queue never holds more than its share while others need theirs; a packet that
 * would not fit in the pool at all is refused too.
 *
 * Lossless packets (PFC priorities) are never refused here: TalbPfc holds them back upstream,
 * with its XOFF threshold dynamic when it shares this buffer: PfcAlpha times the free pool
 * (GetPfcThreshold()), so pauses start earlier the fuller the switch. The bytes that still
 * arrive after XOFF (PFC headroom) are charged too and may take the pool past Size; the
 * overshoot is counted (Stats::peakBytes above Size), not refused, since losing them is what
 * lossless forbids.
 *
 * Sizes: doc/talb-switch.rst, "Shared buffer".
 */
class TalbSharedBuffer : public Object
{
  public:
    static TypeId GetTypeId();
    TalbSharedBuffer();
    ~TalbSharedBuffer() override;

    /// Counters since the buffer was made.
    struct Stats
    {
        uint64_t usedBytes{0};      //!< charged now
        uint64_t peakBytes{0};      //!< most charged at once
        uint64_t admittedBytes{0};  //!< charged in all
        uint64_t thresholdDrops{0}; //!< lossy packets refused by the dynamic threshold
        uint64_t fullDrops{0};      //!< lossy packets refused because the pool was full
        uint64_t droppedBytes{0};   //!< their bytes
    };

    /**
     * Decide a lossy packet's admission to an egress queue; counts a refusal.
     * \param queueBytes bytes the queue holds now
     * \param bytes the packet's
     * \return whether it may be queued (the caller then Charge()s it)
     */
    bool AdmitLossy(uint64_t queueBytes, uint32_t bytes);
    /// A packet of \p bytes was queued (lossy after AdmitLossy(), or lossless).
    void Charge(uint32_t bytes);
    /// A packet of \p bytes left its queue (sent or removed).
    void Release(uint32_t bytes);

    /// \return Size in bytes
    uint64_t GetSize() const;
    /// \return bytes not charged (0 when the pool is over-committed)
    uint64_t GetFreeBytes() const;
    /// \return the lossy queues' threshold now: Alpha x free
    uint64_t GetQueueThreshold() const;
    /// \return the dynamic XOFF threshold of PFC now: PfcAlpha x free
    uint64_t GetPfcThreshold() const;
    const Stats& GetStats() const;

  private:
    QueueSize m_size;  //!< Size attribute
    double m_alpha;    //!< Alpha attribute
    double m_pfcAlpha; //!< PfcAlpha attribute
    Stats m_stats;
};

} // namespace ns3

#endif /* TALB_SHARED_BUFFER_H */
