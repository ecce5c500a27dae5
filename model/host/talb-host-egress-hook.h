#ifndef TALB_HOST_EGRESS_HOOK_H
#define TALB_HOST_EGRESS_HOOK_H

#include "ns3/ip-l4-protocol.h"
#include "ns3/ipv4-route.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/talb-wire.h"
#include "ns3/traced-callback.h"

namespace ns3
{

/**
 * \ingroup talb-host
 * \brief Host egress hook: labels each outgoing TCP/UDP segment with its tensor.
 *
 * Installed on a host with an IPv4 stack, it sits between the transport protocols (TCP, UDP)
 * and IPv4 by wrapping their down targets (IpL4Protocol::SetDownTarget). For each segment it
 * reads the TalbTensorByteTag(s) of the payload (TalbTensorByteTag::LabelSegment), and for a
 * tagged payload adds one TalbTag (the tensor owning the first payload byte, FIRST/LAST flags)
 * and sets the DSCP of the packet's SocketIpTosTag to the priority's code point, keeping the ECN
 * bits TCP chose. Segments without payload (ACKs, SYN, FIN) and untagged payload pass unchanged.
 *
 * With AddTag = false only the DSCP is set: the simulator's counterpart of the testbed agent's
 * DSCP-only mode (switches see priorities, not tensor boundaries).
 */
class TalbHostEgressHook : public Object
{
  public:
    static TypeId GetTypeId();
    TalbHostEgressHook();
    ~TalbHostEgressHook() override;

    /**
     * Wrap the down targets of the node's TcpL4Protocol and UdpL4Protocol. Call once, after the
     * internet stack is installed on \p node.
     */
    void Install(Ptr<Node> node);

    /// Counters.
    struct Stats
    {
        uint64_t nSegments{0}; //!< segments seen
        uint64_t nLabelled{0}; //!< segments that got a label
    };

    const Stats& GetStats() const;

    /**
     * TracedCallback signature for labelled segments.
     * \param segment the segment (transport header in front)
     * \param tensorId the tensor owning its first payload byte
     * \param priority the tensor's priority
     * \param flags TALB_FLAG_FIRST / TALB_FLAG_LAST
     */
    typedef void (*LabelTracedCallback)(Ptr<const Packet> segment,
                                        uint32_t tensorId,
                                        uint8_t priority,
                                        uint8_t flags);

  protected:
    void DoDispose() override;

  private:
    void Send(Ptr<Packet> packet,
              Ipv4Address source,
              Ipv4Address destination,
              uint8_t protocol,
              Ptr<Ipv4Route> route);

    bool m_addTag;  //!< AddTag attribute
    bool m_setDscp; //!< SetDscp attribute

    IpL4Protocol::DownTargetCallback m_tcpTarget; //!< TCP's original down target
    IpL4Protocol::DownTargetCallback m_udpTarget; //!< UDP's original down target
    Stats m_stats;
    TracedCallback<Ptr<const Packet>, uint32_t, uint8_t, uint8_t> m_labelTrace;
};

} // namespace ns3

#endif /* TALB_HOST_EGRESS_HOOK_H */
