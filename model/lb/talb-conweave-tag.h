#ifndef TALB_CONWEAVE_TAG_H
#define TALB_CONWEAVE_TAG_H

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief ConWeave's header between leaves, carried as a packet tag.
 *
 * On data packets (added by the source leaf, removed by the destination leaf): the flow's epoch
 * and phase (0: sent before the epoch's reroute, on the old path; 1: after it, on the new path),
 * the time the source leaf sent the packet, RTT_REQUEST (the epoch's first packet asks for an
 * RTT_REPLY) and, in phase 1, the send time of the epoch's last phase-0 packet (the TAIL the
 * destination leaf waits for). On the control packets the destination leaf sends back to the
 * source leaf (RTT_REPLY, CLEAR): the flow (its hash at the source leaf) and the epoch; on
 * NOTIFY also the path the marked data packet took.
 */
class TalbConWeaveTag : public Tag
{
  public:
    /// What the packet is.
    enum Kind : uint8_t
    {
        DATA = 0,  //!< a data packet of a flow
        REPLY = 1, //!< RTT_REPLY: the epoch's RTT_REQUEST reached the destination leaf
        CLEAR = 2, //!< the destination leaf has no packet of the epoch's new path held any more
        NOTIFY = 3 //!< an ECN-marked data packet came over path \c path (ConWeave's NOTIFY)
    };

    /// The tag's fields.
    struct Fields
    {
        uint8_t kind{DATA};     //!< a Kind
        bool rttRequest{false}; //!< DATA: asks for an RTT_REPLY
        uint8_t phase{0};       //!< DATA: 0 before the epoch's reroute, 1 after
        uint8_t path{0};        //!< DATA, NOTIFY: spine index of the path
        uint32_t epoch{0};      //!< the flow's epoch at the source leaf
        uint32_t flowHash{0};   //!< REPLY, CLEAR: the flow's hash at the source leaf
        uint64_t txTimeNs{0};   //!< DATA: when the source leaf sent it
        uint64_t tailTimeNs{0}; //!< DATA, phase 1: send time of the epoch's last phase-0 packet
    };

    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TalbConWeaveTag();

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

#endif /* TALB_CONWEAVE_TAG_H */
