#ifndef TALB_RDMA_TRANSPORT_H
#define TALB_RDMA_TRANSPORT_H

#include "talb-transport.h"

#include "ns3/nstime.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The RDMA transport ("rdma"): every channel is RoCEv2 queue pairs
 * (TalbRdmaMessageChannel) between the hosts' TalbRdmaNics, one for all messages (QueuePairs
 * Single) or one per tensor priority (PerPriority), and the traffic class of their packets:
 * every queue pair in one class, FixedClass (TrafficClass Fixed, the default: NCCL_IB_TC; the
 * RDMA fabric's queues take the band from the DSCP, TalbRdmaHelper BandFrom, so the TaLB option
 * carries the tensor's priority to the balancers only), or each packet's class from its tensor's
 * priority (Tensor; with Single, strict priority then reorders a queue pair's packets).
 *
 * The defaults, one queue pair in one class, are what NCCL over RoCE does; they draw no NAK on an
 * idle fabric and cost nothing against per-packet classes. PerPriority splits a connection into up
 * to eight flows with their own UDP source ports, which the fabric places apart (see the
 * transport's doc for what that costs).
 *
 * QueuePairsPerConnection, SharedSourcePort, SplitMessages and Plb (with its PlbRounds,
 * PlbMarkFraction and PlbRound) are the channel's queue-pair scaling and PLB
 * (TalbRdmaMessageChannel::Options); their defaults leave both off.
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
    uint32_t m_qpsPerConnection{1}; //!< QueuePairsPerConnection attribute
    bool m_sharedSourcePort{false}; //!< SharedSourcePort attribute
    bool m_splitMessages{false};    //!< SplitMessages attribute
    bool m_plb{false};              //!< Plb attribute
    uint32_t m_plbRounds{3};        //!< PlbRounds attribute
    double m_plbMarkFraction{0.5};  //!< PlbMarkFraction attribute
    Time m_plbRound;                //!< PlbRound attribute
};

} // namespace ns3

#endif /* TALB_RDMA_TRANSPORT_H */
