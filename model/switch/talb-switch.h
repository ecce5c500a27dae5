#ifndef TALB_SWITCH_H
#define TALB_SWITCH_H

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-pfc.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

class TalbPfcNetDevice;

/**
 * \ingroup talb-switch
 * \brief Device-level IPv4 switch of a leaf-spine fabric: no IPv4 stack on the node.
 *
 * Aggregated to a switch node, it registers one protocol handler for IPv4 frames from all the
 * node's devices, like the SwitchNode of the HPCC and ConWeave simulators. For each packet it
 * reads the IPv4 header and the L4 ports from the first bytes (on the stack), maps the
 * destination address to a host id by address arithmetic (host i has address
 * FirstHostAddress + i), looks the host up in a table the helper precomputed (host id ->
 * candidate egress ports), lets the load balancer choose when there are several, and sends the
 * packet on the chosen device. Per packet: O(candidates), no allocation beyond ns-3's own packet
 * copy.
 *
 * The switch neither decrements TTL nor rewrites the IPv4 header: a two-tier fabric has no
 * loops, and leaving the header alone keeps forwarding free of re-serialisation. ECN marking is
 * done by the egress port's queue (TalbPriorityQueue).
 *
 * Ports are ns-3 PointToPointNetDevices (TCP fabrics) or TalbPfcNetDevices (RDMA fabrics). With
 * the latter, SetPfc() adds priority flow control: each packet is charged to its ingress port
 * and priority (its egress queue band) until its egress device dequeues it (TalbPfc).
 *
 * A load balancer may keep a packet back (TalbLoadBalancer::Hold(), e.g. a reorder queue) and
 * later hand it, or a control packet of its own, to the switch's egress (its transmit
 * callback): such packets are counted when they leave, not when they arrive, and charged to PFC
 * when they leave (or, with ChargeHeldPackets, from their arrival: a held packet occupies its
 * ingress port's share of the buffer while it waits); a packet the balancer made itself is
 * charged to no ingress port when it says so (TalbLoadBalancer::NO_INGRESS).
 *
 * Counter identity (asserted): received + sent by the balancer = forwarded + held by the
 * balancer + dropped (bad packet + no route + unknown host + device refused + PFC headroom
 * overflow).
 */
class TalbSwitch : public Object
{
  public:
    static TypeId GetTypeId();
    TalbSwitch();
    ~TalbSwitch() override;

    /// Why the switch dropped a packet.
    enum DropReason
    {
        DROP_NOT_IPV4 = 0, //!< not an IPv4 packet, or a truncated header
        DROP_UNKNOWN_HOST, //!< destination outside the host address plan
        DROP_NO_ROUTE,     //!< no usable egress port (all failed)
        DROP_DEVICE,       //!< the device refused the packet (queue full, link down)
        DROP_PFC_HEADROOM  //!< a lossless priority's ingress charge past XOFF + headroom
    };

    /// Forwarding statistics.
    struct Stats
    {
        uint64_t nReceived{0};
        uint64_t nForwarded{0};
        uint64_t nDropNotIpv4{0};
        uint64_t nDropUnknownHost{0};
        uint64_t nDropNoRoute{0};
        uint64_t nDropDevice{0};
        uint64_t nDropPfcHeadroom{0};
        uint64_t nLbHeld{0}; //!< packets the load balancer kept (Hold())
        uint64_t nLbSent{0}; //!< packets the load balancer handed to the egress
    };

    /**
     * Take over the node's devices as ports (port id = device index) and register the receive
     * handler. Call once, after the node's devices exist and their TxQueues are set.
     */
    void Install(Ptr<Node> node, const TalbSwitchInfo& info);

    /**
     * Account ingress buffers with \p pfc (priority flow control). Every port must be a
     * TalbPfcNetDevice; installs \p pfc on them. Call once, after Install().
     */
    void SetPfc(Ptr<TalbPfc> pfc);
    /// \return the PFC accounting (null without PFC)
    Ptr<TalbPfc> GetPfc() const;

    /// Use \p lb to choose among candidate ports; attaches it to this switch.
    void SetLoadBalancer(Ptr<TalbLoadBalancer> lb);
    Ptr<TalbLoadBalancer> GetLoadBalancer() const;

    /**
     * Define the host address plan: host i has address \p first + i, for i < \p nHosts, and is
     * attached below leaf \p hostLeaf[i].
     */
    void SetHostPlan(Ipv4Address first, const std::vector<uint32_t>& hostLeaf);

    /// Set the candidate egress ports towards host \p host (replaces the previous entry).
    void SetRoute(uint32_t host, const std::vector<uint32_t>& ports);
    /// \return the candidate ports towards \p host
    const std::vector<uint32_t>& GetRoute(uint32_t host) const;

    /// Mark port \p port up or down (the helper also recomputes routes).
    void SetPortUp(uint32_t port, bool up);
    /// Declare \p port an uplink towards spine \p spine (leaf switches).
    void SetUplink(uint32_t port, uint32_t spine);
    /// Record the port's remote end (host id, or leaf index on a spine).
    void SetPeer(uint32_t port, uint32_t peer);
    /// Record the bottleneck rate of the path through uplink \p port to leaf \p dstLeaf.
    void SetPathRate(uint32_t port, uint32_t dstLeaf, DataRate rate);

    uint32_t GetNPorts() const;
    const TalbPortState& GetPort(uint32_t port) const;
    const Stats& GetStats() const;
    const TalbSwitchInfo& GetInfo() const;

    /**
     * \return the host id of \p address, or UINT32_MAX when it is outside the plan
     */
    uint32_t HostIdOf(Ipv4Address address) const;
    /// \return the address of host \p host (HostIdOf's inverse)
    Ipv4Address GetHostAddress(uint32_t host) const;

    /**
     * TracedCallback signature for drops.
     * \param packet the dropped packet
     * \param reason a DropReason
     */
    typedef void (*DropTracedCallback)(Ptr<const Packet> packet, uint32_t reason);
    /**
     * TracedCallback signature for forwarded packets.
     * \param packet the packet
     * \param inPort ingress port id
     * \param outPort egress port id
     */
    typedef void (*ForwardTracedCallback)(Ptr<const Packet> packet,
                                          uint32_t inPort,
                                          uint32_t outPort);

  protected:
    void DoDispose() override;

  private:
    void Receive(Ptr<NetDevice> device,
                 Ptr<const Packet> packet,
                 uint16_t protocol,
                 const Address& from,
                 const Address& to,
                 NetDevice::PacketType packetType);
    /// Route and send \p packet, received on \p inPort (owned: modified and forwarded as is).
    void Forward(uint32_t inPort, Ptr<Packet> packet);
    void Drop(Ptr<const Packet> packet, DropReason reason);
    /// Count \p packet lost at port \p out's queue (refused, or pushed out: PushOut) by its
    /// priority, and drop it
    void DeviceDrop(uint32_t out,
                    Ptr<const Packet> packet,
                    const TalbPriorityQueue::PacketInfo* info);
    /// Port \p out's queue dropped the queued \p packet for a more urgent one (PushOut)
    void PushedOut(uint32_t out, Ptr<const Packet> packet);
    /// Charge \p packet to \p inPort (PFC; unless \p charged already) and send it on \p out;
    /// \p info: what Forward read of it, or null (a packet the load balancer sends: read here
    /// when needed).
    void Transmit(Ptr<Packet> packet,
                  uint32_t inPort,
                  uint32_t out,
                  const TalbPriorityQueue::PacketInfo* info,
                  bool charged = false);
    /// \return the PFC priority (egress band) of a packet the switch read as \p info
    uint8_t PfcBand(const TalbPriorityQueue::PacketInfo& info) const;
    /// Charge \p packet to \p inPort (PFC); drops it past the headroom. \return false then
    bool Admit(uint32_t inPort, Ptr<Packet> packet, const TalbPriorityQueue::PacketInfo& info);
    /// The load balancer's transmit callback (\p kept: a packet its Hold() kept).
    void LbTransmit(Ptr<Packet> packet, uint32_t inPort, uint32_t out, bool kept);

    Time m_dreInterval;     //!< DreInterval attribute
    double m_dreAlpha;      //!< DreAlpha attribute
    bool m_inBandTelemetry; //!< InBandTelemetry attribute
    bool m_chargeHeld;      //!< ChargeHeldPackets attribute

    Ptr<Node> m_node;
    TalbSwitchInfo m_info;
    std::vector<TalbPortState> m_ports;
    /// per port: its device if a TalbPfcNetDevice (sent what Forward read), else null
    std::vector<TalbPfcNetDevice*> m_pfcDevices;
    std::vector<std::vector<uint32_t>> m_routes; //!< host id -> candidate ports
    std::vector<uint32_t> m_hostLeaf;            //!< host id -> leaf index
    std::vector<uint32_t> m_hostLeafPort;        //!< host id -> its port under its leaf
    uint32_t m_firstHost;                        //!< address of host 0
    Ptr<TalbLoadBalancer> m_lb;
    Ptr<TalbPfc> m_pfc;
    Ptr<TalbPriorityQueue> m_classifier; //!< a port queue: the PFC priority is its band
    Stats m_stats;

    TracedCallback<Ptr<const Packet>, uint32_t> m_dropTrace;
    TracedCallback<Ptr<const Packet>, uint32_t, uint32_t> m_forwardTrace;
};

} // namespace ns3

#endif /* TALB_SWITCH_H */
