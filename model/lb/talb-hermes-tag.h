#ifndef TALB_HERMES_TAG_H
#define TALB_HERMES_TAG_H

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Hermes's path sensing between leaves, carried as a packet tag (the leaf-level stand-in
 * for what Hermes's end hosts learn from ECN echoes and RTT samples).
 *
 * Forward: the path (spine index) the source leaf chose, whether the packet met a queue at or
 * above the ECN marking threshold at some hop, and the queueing delay it met along the path
 * (sum over hops, saturating). Piggybacked feedback: one path's smoothed ECN fraction and
 * delay, measured by the sending leaf on traffic from the destination leaf. Added by the source
 * leaf, updated by the spine, removed by the destination leaf.
 */
class TalbHermesTag : public Tag
{
  public:
    /// The tag's fields.
    struct Fields
    {
        uint8_t path{0};           //!< spine index of the path
        bool marked{false};        //!< met a queue at or above the marking threshold
        uint32_t delayNs{0};       //!< queueing delay met so far (saturating)
        bool hasFeedback{false};   //!< the feedback fields are set
        uint8_t fbPath{0};         //!< path the feedback is about
        uint16_t fbEcnFraction{0}; //!< its ECN fraction x 65535
        uint32_t fbDelayNs{0};     //!< its smoothed queueing delay
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TalbHermesTag();

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    /// \return the fields
    const Fields& Get() const;
    /// \return the fields, to change them
    Fields& Set();

  private:
    Fields m_fields;
};

} // namespace ns3

#endif /* TALB_HERMES_TAG_H */
