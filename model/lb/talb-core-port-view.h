#ifndef TALB_CORE_PORT_VIEW_H
#define TALB_CORE_PORT_VIEW_H

#include "talb-banded-queue.h"
#include "talb-load-balancer.h"

#include "ns3/talb-lb-core.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief The decision core's view (talb::lb::PortView) of a switch's port table: queue bytes
 * (per band when the queue is a TalbBandedQueue) from the egress device's queue, utilisation
 * from the port's TalbDre, the line rate; all read when the core asks.
 */
class TalbCorePortView : public talb::lb::PortView
{
  public:
    /// \param ports the switch's port table (outlives the view); may be set later
    explicit TalbCorePortView(const std::vector<TalbPortState>* ports = nullptr);

    /// \param ports the switch's port table (outlives the view)
    void SetPorts(const std::vector<TalbPortState>* ports);

    uint64_t QueueBytes(uint32_t port) const override;
    double Utilization(uint32_t port, int64_t nowNs) const override;
    /// Bands 0..\p priority of a TalbBandedQueue; all queued bytes of any other queue.
    uint64_t QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const override;
    uint64_t RateBps(uint32_t port) const override;
    /// The port's pathRateBps entry for \p dstLeaf when set, else its rate.
    uint64_t PathRateBps(uint32_t port, uint32_t dstLeaf) const override;
    /// A TalbBandedQueue's GetRoomBytes(); MaxSize in bytes less the bytes queued of any other
    /// queue; kUnknownRoom without a queue or under a limit in packets.
    uint64_t RoomBytes(uint32_t port, uint8_t priority) const override;

  private:
    const std::vector<TalbPortState>* m_ports;
    std::vector<const TalbBandedQueue*> m_bands; //!< per port: its queue when it counts bands
};

} // namespace ns3

#endif /* TALB_CORE_PORT_VIEW_H */
