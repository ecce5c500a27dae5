#ifndef TALB_MESSAGE_TAG_H
#define TALB_MESSAGE_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief Byte tag on a message's frame header with what its receiver cannot read from the
 * frame: the collective's operation, step and iteration, and when the sender started it.
 *
 * Within one simulation rank a channel's receiver finds these in the sender's queue; over
 * ns-3's distributed simulator the sender is on another rank, so the channel tags the header
 * bytes of such channels only (TalbMessageChannel::IsReceiverHere()). Tags are simulation
 * metadata: they cost no bytes on the wire.
 */
class TalbMessageTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint32_t opId{0};
    uint16_t step{0};
    uint32_t iteration{0};
    Time start; //!< the sender handed the header to its transport
};

} // namespace ns3

#endif /* TALB_MESSAGE_TAG_H */
