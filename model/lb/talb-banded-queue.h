#ifndef TALB_BANDED_QUEUE_H
#define TALB_BANDED_QUEUE_H

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief What a balancer reads of a port queue that serves TaLB priorities in bands: the bytes a
 * packet of a priority waits behind, and the band untagged traffic is queued in.
 *
 * The balancers' side of the port queue: a switch's queue (TalbPriorityQueue) implements it, and
 * a balancer finds it on a port's queue (TalbPortState::queue) with dynamic_cast; a queue without
 * it counts every queued byte as ahead of every packet.
 */
class TalbBandedQueue
{
  public:
    virtual ~TalbBandedQueue();

    /// \return bytes queued in band \p priority and the more urgent ones (0 .. \p priority)
    virtual uint64_t GetBytesAtOrAbove(uint8_t priority) const = 0;
    /// \return the band untagged packets are reported in (scheduled there, or counted there)
    virtual uint8_t GetUntaggedBand() const = 0;

    /// GetRoomBytes() of a queue that does not know its buffer's room.
    static constexpr uint64_t UNKNOWN_ROOM = UINT64_MAX;

    /**
     * \return bytes the queue can still take of packets of band \p priority before it refuses
     * one (its limit, and the share of a buffer shared among ports it may take now).
     * Default: UNKNOWN_ROOM.
     */
    virtual uint64_t GetRoomBytes(uint8_t priority) const;
};

} // namespace ns3

#endif /* TALB_BANDED_QUEUE_H */
