#ifndef TALB_LB_CORE_PORT_TABLE_H
#define TALB_LB_CORE_PORT_TABLE_H

#include "talb-lb-core-dre.h"
#include "talb-lb-core.h"

#include <cstdint>

namespace talb
{
namespace lb
{

/// One port's state as a switch without ns-3 keeps it (the DPDK switch, unit tests).
struct PortState
{
    uint64_t queueBytes{0}; ///< bytes waiting in the egress queue
    /// of queueBytes, those in each priority band (zero where the caller does not count bands)
    uint64_t bandBytes[TALB_NUM_PRIORITIES]{};
    uint64_t rateBps{0}; ///< line (or shaped) rate in bit/s, > 0
    /// the slowest link beyond the port, towards every leaf (0: none slower than rateBps)
    uint64_t remoteRateBps{0};
    /// the egress buffer's size in bytes, shared by its bands (0: not known, as the DPDK
    /// switch's rings: RoomBytes() says kUnknownRoom)
    uint64_t bufferBytes{0};
    Dre dre;       ///< bytes sent on the port, decayed
    bool up{true}; ///< link state: a down port is never a candidate
};

/// A PortView over a caller-owned array of PortState.
class PortTable : public PortView
{
  public:
    /// \param ports an array of \p count ports, indexed by port id (outlives the table)
    PortTable(PortState* ports, uint32_t count);

    uint64_t QueueBytes(uint32_t port) const override;
    double Utilization(uint32_t port, int64_t nowNs) const override;
    /// \return the band bytes of bands 0..\p priority
    uint64_t QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const override;
    uint64_t RateBps(uint32_t port) const override;
    /// min(rateBps, remoteRateBps) (remoteRateBps 0: rateBps)
    uint64_t PathRateBps(uint32_t port, uint32_t dstLeaf) const override;
    /// bufferBytes less queueBytes (0 when full), kUnknownRoom where bufferBytes is 0
    uint64_t RoomBytes(uint32_t port, uint8_t priority) const override;

    /// \return port \p port's state
    PortState& operator[](uint32_t port)
    {
        return m_ports[port];
    }

    /// \return the number of ports
    uint32_t Size() const
    {
        return m_count;
    }

  private:
    PortState* m_ports;
    uint32_t m_count;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_PORT_TABLE_H */
