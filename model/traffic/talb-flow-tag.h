#ifndef TALB_FLOW_TAG_H
#define TALB_FLOW_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-traffic
 * \brief Byte tag on a background flow's first byte with what its sink needs for the flow's
 * record: the flow's size and start time.
 *
 * Within one simulation rank the sender tells the sink's application directly
 * (TalbBackgroundTraffic::ExpectFlow); over ns-3's distributed simulator the sink is on another
 * rank, so the sender tags the flow's first byte instead. Tags are simulation metadata: they
 * cost no bytes on the wire.
 */
class TalbFlowTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint64_t sizeBytes{0};
    Time start; //!< the sender started the flow
};

} // namespace ns3

#endif /* TALB_FLOW_TAG_H */
