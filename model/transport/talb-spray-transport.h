#ifndef TALB_SPRAY_TRANSPORT_H
#define TALB_SPRAY_TRANSPORT_H

#include "talb-transport.h"

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The packet-spraying transport ("spray"): RDMA queue pairs with selective repeat whose
 * packets each take their own entropy (UDP source port, which the switches' ECMP hashes) from a
 * host-side entropy policy (TalbEntropyPolicy: oblivious spraying, REPS), in the manner of the
 * Ultra Ethernet transport's packet spraying.
 *
 * Every channel is one queue pair (TalbRdmaMessageChannel Single) in the traffic class
 * FixedClass, as the rdma transport's default. Reliability is the queue pair's selective repeat
 * (TalbRdmaQueuePair): packets are placed in any order, messages reach the application in order.
 * Congestion control is the NIC's rate control, DCQCN by default: a stand-in for Ultra
 * Ethernet's NSCC, which this model does not implement.
 *
 * The hosts must carry TalbRdmaNics with Recovery SelectiveRepeat and an EntropyPolicy (the
 * scenario runner sets both for --transport=spray); DoConnect refuses others, since go-back-N
 * cannot take sprayed packets and without a policy nothing would be sprayed.
 */
class TalbSprayTransport : public TalbTransport
{
  public:
    static TypeId GetTypeId();
    TalbSprayTransport();
    ~TalbSprayTransport() override;

  private:
    Ptr<TalbMessageChannel> DoConnect(Ptr<Node> from, Ptr<Node> to) override;

    uint8_t m_fixedClass; //!< FixedClass attribute
};

} // namespace ns3

#endif /* TALB_SPRAY_TRANSPORT_H */
