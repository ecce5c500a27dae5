#ifndef TALB_RDMA_TRANSPORT_H
#define TALB_RDMA_TRANSPORT_H

#include "talb-transport.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The RDMA transport ("rdma"): every channel is RoCEv2 queue pairs
 * (TalbRdmaMessageChannel) between the hosts' TalbRdmaNics, one per tensor priority
 * (QueuePairs PerPriority, the default) or one for all (Single).
 *
 * The hosts must carry a TalbRdmaNic (TalbLeafSpineHelper with Transport "rdma"); queue pairs
 * are connected when the channel opens (RDMA connection set-up is not simulated), so messages
 * can be sent at once. The job's port is not used: RoCEv2 always uses UDP port 4791.
 */
class TalbRdmaTransport : public TalbTransport
{
  public:
    static TypeId GetTypeId();
    TalbRdmaTransport();
    ~TalbRdmaTransport() override;

  private:
    Ptr<TalbMessageChannel> DoConnect(Ptr<Node> from, Ptr<Node> to) override;

    int m_queuePairs; //!< QueuePairs attribute (TalbRdmaMessageChannel::QueuePairMode)
};

} // namespace ns3

#endif /* TALB_RDMA_TRANSPORT_H */
