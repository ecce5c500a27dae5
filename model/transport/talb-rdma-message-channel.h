#ifndef TALB_RDMA_MESSAGE_CHANNEL_H
#define TALB_RDMA_MESSAGE_CHANNEL_H

#include "talb-message-channel.h"
#include "talb-rdma-nic.h"

#include <deque>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief One direction of an RDMA connection between two hosts: a queue pair (TalbRdmaNic)
 * that carries each message as one RDMA SEND.
 *
 * A message is posted as TALB_FRAME_LEN header bytes, labelled with the tensor of its first
 * payload byte (that tensor's FIRST marker moves to the header, as on the TCP channel), followed
 * by its parts, each labelled with its tensor; so its size on the wire and its labels match the
 * TCP channel's. The responder reports messages in order; the flow record's ports are the queue
 * pair's UDP source port and RoCEv2's 4791.
 */
class TalbRdmaMessageChannel : public TalbMessageChannel
{
  public:
    static TypeId GetTypeId();
    TalbRdmaMessageChannel();
    ~TalbRdmaMessageChannel() override;

    /// Connect a queue pair from \p src to \p dst (NICs of two hosts).
    void Open(Ptr<TalbRdmaNic> src, Ptr<TalbRdmaNic> dst);
    /// \return the sending end of the queue pair (null before Open)
    Ptr<TalbRdmaQueuePair> GetQueuePair() const;

  protected:
    void DoDispose() override;

  private:
    void DoSend(TalbMessage&& message) override;
    void Received(Ptr<TalbRdmaQueuePair> qp, uint64_t seq, uint64_t bytes);

    Ptr<TalbRdmaQueuePair> m_tx;
    Ptr<TalbRdmaQueuePair> m_rx;
    std::deque<TalbMessage> m_inFlight; //!< posted, not yet received
};

} // namespace ns3

#endif /* TALB_RDMA_MESSAGE_CHANNEL_H */
