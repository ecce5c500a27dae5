#ifndef TALB_TCP_TRANSPORT_H
#define TALB_TCP_TRANSPORT_H

#include "talb-tcp-message-channel.h"
#include "talb-transport.h"

#include "ns3/nstime.h"
#include "ns3/socket.h"

#include <map>
#include <unordered_map>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief The TCP transport ("tcp"): every channel is one persistent TCP connection
 * (TalbTcpMessageChannel) over the hosts' ns-3 TCP stacks.
 *
 * Each receiving host gets one listening socket on the job's port, made when the first channel
 * towards it is opened; an accepted connection is matched to its channel by the sender's
 * address and port. The hosts' TCP variant and socket options are the topology helper's.
 * Plb turns on PLB in every channel it opens (TalbTcpMessageChannel; the hosts must run DCTCP).
 */
class TalbTcpTransport : public TalbTransport
{
  public:
    static TypeId GetTypeId();
    TalbTcpTransport();
    ~TalbTcpTransport() override;

  protected:
    void DoDispose() override;

  private:
    Ptr<TalbMessageChannel> DoConnect(Ptr<Node> from, Ptr<Node> to) override;
    void HandleAccept(Ptr<Socket> socket, const Address& from);

    std::map<uint32_t, Ptr<Socket>> m_listeners;                               //!< by node id
    std::unordered_map<uint64_t, Ptr<TalbTcpMessageChannel>> m_awaitingAccept; //!< by ip:port
    bool m_plb{false};                                                         //!< Plb attribute
    uint32_t m_plbRounds{3};          //!< PlbRounds attribute
    uint32_t m_plbForceRounds{12};    //!< PlbForceRounds attribute
    double m_plbMarkFraction{0.5};    //!< PlbMarkFraction attribute
    bool m_slowStartAfterIdle{false}; //!< SlowStartAfterIdle attribute
    bool m_adaptiveReordering{false}; //!< AdaptiveReordering attribute
    uint32_t m_maxReordering{300};    //!< MaxReordering attribute
    bool m_rackTlp{false};            //!< RackTlp attribute
    Time m_tlpDelay;                  //!< TlpDelay attribute
};

} // namespace ns3

#endif /* TALB_TCP_TRANSPORT_H */
