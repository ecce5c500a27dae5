#ifndef TALB_FLOW_LABEL_TAG_H
#define TALB_FLOW_LABEL_TAG_H

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A TCP segment's flow label: the path entropy a host may change without changing the
 * connection, as PLB changes IPv6's flow label.
 *
 * talb's fabric is IPv4, which has no flow label; this packet tag stands in for IPv6's 20-bit
 * field and, like it, costs no bytes on the wire. A switch mixes a non-zero label into the
 * flow hash its balancer sees (TalbSwitch), so a new label is a new path for ECMP and a new
 * flow for every balancer. Switches look for the tag only once a sender has set one
 * (IsInUse()), so runs without PLB read TCP segments as before.
 */
class TalbFlowLabelTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    /// \return whether any sender has labelled a segment in this process
    static bool IsInUse();
    /// Declares that senders label segments (switches then read the tag).
    static void SetInUse();

    uint32_t label{0}; //!< 20 bits as IPv6's; 0: no label (the 5-tuple alone)
};

} // namespace ns3

#endif /* TALB_FLOW_LABEL_TAG_H */
