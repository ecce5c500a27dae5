#ifndef TALB_PFC_CHANNEL_H
#define TALB_PFC_CHANNEL_H

#include "ns3/channel.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"

namespace ns3
{

class TalbPfcNetDevice;

/**
 * \ingroup talb-switch
 * \brief Full-duplex point-to-point link between two TalbPfcNetDevices.
 *
 * A frame handed to TransmitStart() arrives at the other device after its transmission time
 * plus the propagation Delay; the device calls it once per frame it starts sending. Like ns-3's
 * PointToPointChannel, the delivery is a Simulator::ScheduleWithContext on the receiving node,
 * and TransmitStart() is virtual so that a distributed (MPI) variant can hand frames for a device
 * on another rank to ns-3's MPI interface instead; the device's Receive() is public for the
 * MpiReceiver callback that such a variant's helper would connect.
 */
class TalbPfcChannel : public Channel
{
  public:
    static TypeId GetTypeId();
    TalbPfcChannel();
    ~TalbPfcChannel() override;

    /// Attach \p device as one of the two ends (call twice).
    void Attach(Ptr<TalbPfcNetDevice> device);

    /**
     * Start sending \p frame from \p src; it arrives at the peer \p txTime + Delay from now.
     * \return false when the channel has not both ends attached
     */
    virtual bool TransmitStart(Ptr<Packet> frame, Ptr<TalbPfcNetDevice> src, Time txTime);

    std::size_t GetNDevices() const override;
    Ptr<NetDevice> GetDevice(std::size_t i) const override;
    /// \return the device at the other end from \p device
    Ptr<TalbPfcNetDevice> GetPeer(Ptr<const TalbPfcNetDevice> device) const;
    /// \return the propagation delay
    Time GetDelay() const;

  protected:
    void DoDispose() override;

  private:
    Time m_delay;                      //!< Delay attribute
    Ptr<TalbPfcNetDevice> m_device[2]; //!< the two ends
    /// Each end's node id (the context of its events), looked up at its first frame.
    uint32_t m_context[2]{UINT32_MAX, UINT32_MAX};
};

} // namespace ns3

#endif /* TALB_PFC_CHANNEL_H */
