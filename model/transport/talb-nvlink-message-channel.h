#ifndef TALB_NVLINK_MESSAGE_CHANNEL_H
#define TALB_NVLINK_MESSAGE_CHANNEL_H

#include "talb-message-channel.h"
#include "talb-nvlink-port.h"

#include "ns3/event-id.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A message channel between two GPUs of one server over their intra-server
 * interconnect (TalbNvlinkTransport opens it): no packets, no fabric.
 *
 * A message of TALB_FRAME_LEN + payload bytes goes through the sender's TalbNvlinkPort (egress
 * serialized at its DataRate, shared by every channel of that GPU) and is delivered Latency
 * after its last byte left. Messages are delivered in the order they were sent. Its flow
 * records have nvlink set (flows.csv kind "nvlink"); srcPort is 0, dstPort the job's port.
 */
class TalbNvlinkMessageChannel : public TalbMessageChannel
{
  public:
    static TypeId GetTypeId();
    TalbNvlinkMessageChannel();
    ~TalbNvlinkMessageChannel() override;

    /// Connect the sender's port \p from to the receiver's port \p to (one server), for the
    /// job's port \p dstPort (the records' dst_port).
    void Open(Ptr<TalbNvlinkPort> from, Ptr<TalbNvlinkPort> to, uint16_t dstPort);

  protected:
    void DoDispose() override;

  private:
    void DoSend(TalbMessage&& message) override;
    /// The oldest message in flight has arrived.
    void Deliver();

    Ptr<TalbNvlinkPort> m_from;
    Ptr<TalbNvlinkPort> m_to;
    uint16_t m_dstPort{0};
    /// Messages in flight, oldest first, with their sizes (header included).
    std::deque<std::pair<TalbMessage, uint64_t>> m_inFlight;
    std::deque<EventId> m_events;
};

} // namespace ns3

#endif /* TALB_NVLINK_MESSAGE_CHANNEL_H */
