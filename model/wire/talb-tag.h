#ifndef TALB_TAG_H
#define TALB_TAG_H

#include "talb-wire.h"

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-wire
 * \brief Per-packet TaLB label: the simulator's stand-in for the TaLB IPv4 option.
 *
 * ns-3's Ipv4Header carries no options, so the option travels as a packet tag holding exactly
 * the option's fields. It serializes to the option's 8 wire bytes (talb-wire.h), so a tag can be
 * checked against the testbed's encoding byte for byte. The 8 bytes are not added to the packet
 * size: link serialization and queue occupancy count the IPv4 packet without the option (see
 * doc/talb.rst, "Header overhead").
 *
 * A host's egress hook attaches it to each TCP data segment; ACKs and untagged traffic carry none.
 */
class TalbTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TalbTag();
    /**
     * \param tensorId tensor id, job id in the top 8 bits
     * \param priority 0 (most urgent) .. 7
     * \param flags TALB_FLAG_FIRST / TALB_FLAG_LAST
     */
    TalbTag(uint32_t tensorId, uint8_t priority, uint8_t flags);

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint32_t GetTensorId() const;
    uint8_t GetJobId() const;
    uint8_t GetPriority() const;
    uint8_t GetFlags() const;
    bool IsFirst() const;
    bool IsLast() const;

    /// \return the label in the wire format's struct
    struct talb_label GetLabel() const;
    void SetLabel(const struct talb_label& label);

  private:
    struct talb_label m_label;
};

} // namespace ns3

#endif /* TALB_TAG_H */
