#ifndef TALB_INT_TAG_H
#define TALB_INT_TAG_H

#include "ns3/tag.h"

#include <array>
#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-wire
 * \brief In-band network telemetry (INT) of one packet: what each switch egress it crossed
 * reported, as HPCC (Li et al., "HPCC: High Precision Congestion Control", SIGCOMM 2019)
 * reads it.
 *
 * A sender whose rate control uses telemetry (TalbRdmaRateControl::UsesTelemetry) attaches an
 * empty tag to each data packet; every switch port that sends the packet pushes one hop record
 * as the packet leaves its queue (TalbPfcNetDevice, InBandTelemetry of TalbSwitch); the
 * responder copies the records of the packet it acknowledges into the acknowledgement, marked
 * as an echo, which switches leave as it is.
 *
 * A record holds the port's identity (node and interface, so a sender can tell one link from
 * another when its packets take several paths), the time the packet left, the bytes the port
 * had sent before it, the bytes still queued at the port after it, and the port's rate. Values
 * are kept exact; HPCC's hardware encoding packs a record into 8 bytes, which is what
 * WIRE_BYTES reserves on the wire (the sender pads its packets by that much), so link
 * serialisation and queues see INT's overhead. At most MAX_HOPS records: further hops are
 * counted (GetDroppedHops) and not recorded.
 */
class TalbIntTag : public Tag
{
  public:
    /// Most hop records a packet carries (HPCC's header holds five).
    static constexpr uint32_t MAX_HOPS = 5;
    /// Wire bytes INT adds to a packet: HPCC's header, a 2-byte hop count and 8 bytes per hop.
    static constexpr uint32_t WIRE_BYTES = 2 + 8 * MAX_HOPS;

    /// What one switch port reported.
    struct Hop
    {
        uint32_t node{0};       //!< the switch's node id
        uint32_t port{0};       //!< its interface index
        uint64_t timeNs{0};     //!< when the packet left the queue
        uint64_t txBytes{0};    //!< bytes the port sent before this packet
        uint64_t rateBps{0};    //!< the port's line rate
        uint32_t queueBytes{0}; //!< bytes queued at the port after the packet left
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    /// Append a hop record (counted, not kept, beyond MAX_HOPS).
    void PushHop(const Hop& hop);
    uint32_t GetNHops() const;
    /// \return record \p i (0: the first switch the packet crossed)
    const Hop& GetHop(uint32_t i) const;
    /// \return hops crossed beyond MAX_HOPS
    uint32_t GetDroppedHops() const;
    /**
     * Mark the tag as an echo: the records of a data packet, carried back in its
     * acknowledgement. Switches do not stamp an echo (the way back is not the data's path).
     */
    void SetEcho();
    bool IsEcho() const;

  private:
    std::array<Hop, MAX_HOPS> m_hops;
    uint8_t m_nHops{0};
    uint8_t m_droppedHops{0};
    bool m_echo{false};
};

} // namespace ns3

#endif /* TALB_INT_TAG_H */
