#ifndef TALB_RDMA_TRANSPORT_H
#define TALB_RDMA_TRANSPORT_H

#include "talb-transport.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The RDMA transport ("rdma"): every channel is RoCEv2 queue pairs
 * (TalbRdmaMessageChannel) between the hosts' TalbRdmaNics, one per tensor priority
 * (QueuePairs PerPriority) or one for all (Single), and the traffic class of their packets:
 * each packet's follows its tensor's priority (TrafficClass Tensor), or every queue pair of the
 * transport is in one class, FixedClass (TrafficClass Fixed: NCCL_IB_TC; the fabric's queues then
 * take the band from the DSCP, TalbRdmaHelper BandFrom, so the TaLB option carries the tensor's
 * priority to the balancers only).
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

    /// What a queue pair's traffic class is (TrafficClass attribute).
    enum TrafficClassMode
    {
        TENSOR, //!< each packet's from its tensor's priority
        FIXED   //!< FixedClass for every queue pair
    };

    int m_queuePairs;     //!< QueuePairs attribute (TalbRdmaMessageChannel::QueuePairMode)
    int m_trafficClass;   //!< TrafficClass attribute (TrafficClassMode)
    uint8_t m_fixedClass; //!< FixedClass attribute
};

} // namespace ns3

#endif /* TALB_RDMA_TRANSPORT_H */
