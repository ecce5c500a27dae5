#ifndef TALB_TENSOR_BYTE_TAG_H
#define TALB_TENSOR_BYTE_TAG_H

#include "ns3/packet.h"
#include "ns3/tag.h"
#include "ns3/talb-wire.h"

namespace ns3
{

/**
 * \ingroup talb-host
 * \brief Byte tag naming the tensor that owns a range of application bytes.
 *
 * An application tags a message's bytes before Socket::Send(); ns-3 byte tags follow the bytes
 * through TCP's send buffer and segmentation, so each segment still knows which tensor(s) its
 * payload belongs to. Tensor boundaries are marked by extra one-byte tags carrying
 * TALB_FLAG_FIRST (on the tensor's first byte) or TALB_FLAG_LAST (on its last byte), because a
 * segment's clipped byte-tag ranges cannot tell a tensor's first byte from a segment's first byte.
 *
 * Use TagMessage() to tag and LabelSegment() to read a segment's label; the host egress hook
 * calls the latter.
 */
class TalbTensorByteTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TalbTensorByteTag();
    TalbTensorByteTag(uint32_t tensorId, uint8_t priority, uint8_t flags);

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint32_t GetTensorId() const;
    uint8_t GetPriority() const;
    /// \return TALB_FLAG_FIRST / TALB_FLAG_LAST for boundary markers, 0 for a body tag
    uint8_t GetFlags() const;

    /**
     * Tag every byte of \p message as belonging to one tensor.
     * \param message the application bytes about to be sent (non-empty)
     * \param tensorId tensor id (job id in the top 8 bits)
     * \param priority 0 (most urgent) .. 7
     * \param firstOfTensor the message's first byte is the tensor's first byte
     * \param lastOfTensor the message's last byte is the tensor's last byte
     */
    static void TagMessage(Ptr<Packet> message,
                           uint32_t tensorId,
                           uint8_t priority,
                           bool firstOfTensor,
                           bool lastOfTensor);

    /**
     * Label of a TCP segment's payload: the tensor owning its first byte, with FIRST set when
     * that byte is the tensor's first byte and LAST when the segment holds the tensor's last
     * byte. O(number of byte tags in the segment), no allocation.
     * \param segment the segment, possibly with transport headers in front of the payload
     * \param label receives the label
     * \param payloadOffset bytes of headers before the payload (e.g. the TCP header's length)
     * \return false when the first payload byte carries no tensor tag (untagged traffic, or no
     * payload)
     */
    static bool LabelSegment(Ptr<const Packet> segment,
                             struct talb_label* label,
                             uint32_t payloadOffset = 0);

  private:
    struct talb_label m_label;
};

} // namespace ns3

#endif /* TALB_TENSOR_BYTE_TAG_H */
