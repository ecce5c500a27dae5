#ifndef TALB_LOAD_BALANCER_H
#define TALB_LOAD_BALANCER_H

#include "talb-dre.h"

#include "ns3/callback.h"
#include "ns3/data-rate.h"
#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/packet.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/talb-lb-core.h"
#include "ns3/talb-registry.h"
#include "ns3/talb-wire.h"
#include "ns3/traced-callback.h"

#include <array>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief State of one switch port, owned by the TalbSwitch and read by its load balancer.
 */
struct TalbPortState
{
    Ptr<NetDevice> device;    //!< egress device (port id = its index in the switch's port table)
    Ptr<Queue<Packet>> queue; //!< the device's transmit queue: real occupancy in bytes (and
                              //!< per band when it is a TalbBandedQueue)
    DataRate rate;            //!< line rate
    TalbDre dre;              //!< bytes sent on the port, decayed (CONGA's DRE)
    bool up{true};            //!< false once the link has failed
    bool uplink{false};       //!< leaf port towards a spine
    uint32_t peer{0};        //!< remote end: spine index (uplink), leaf index (spine port), host id
    uint64_t txPackets{0};   //!< packets the switch sent on this port
    uint64_t txBytes{0};     //!< bytes the switch sent on this port
    uint64_t deviceDrops{0}; //!< packets the egress device refused on this port (queue full)
    /// deviceDrops by the packet's TaLB priority; the last: packets with no label (background,
    /// acknowledgements)
    std::array<uint64_t, TALB_NUM_PRIORITIES + 1> deviceDropsByPriority{};
    /// uplinks: per destination leaf, the slowest link rate (bit/s) on the path through this
    /// port (the fabric's control plane knows it); empty or 0: the port's own rate
    std::vector<uint64_t> pathRateBps;

    /// \return the time the transmit queue takes to drain at line rate (ns, saturating; 0 with
    /// no queue): the queueing delay a packet sent now meets at this port
    uint32_t QueueDelayNs() const;
    /// \return \p pathDelayNs, the queueing delay a packet met before this port, plus this
    /// port's (saturating): what a hop stamps into a packet's path-delay field
    uint32_t AddQueueDelayNs(uint32_t pathDelayNs) const;
};

/**
 * \ingroup talb-lb
 * \brief What a switch knows about itself, handed to its load balancer once at install time.
 */
struct TalbSwitchInfo
{
    uint32_t switchId{0}; //!< node id of the switch
    bool isLeaf{true};    //!< leaf (top of rack) or spine
    uint32_t index{0};    //!< leaf index or spine index
    uint32_t nLeaves{0};  //!< leaves in the fabric
    uint32_t nSpines{0};  //!< spines in the fabric
};

/**
 * \ingroup talb-lb
 * \brief Per-packet facts the switch computes once and passes to its load balancer.
 *
 * Built on the stack for each packet: no allocation. The flow hash is the same at every switch
 * (selectors that need per-switch decorrelation salt it themselves).
 */
struct TalbPacketContext
{
    Packet* packet{nullptr}; //!< the packet (after the link header), for selectors using tags
    uint32_t flowHash{0};    //!< hash of the IPv4 5-tuple
    uint32_t ports{0};       //!< TCP/UDP source port << 16 | destination port (0 otherwise)
    uint32_t size{0};        //!< IPv4 packet size in bytes
    uint32_t inPort{0};      //!< ingress port id
    uint32_t srcHost{0};     //!< source host id
    uint32_t dstHost{0};     //!< destination host id
    uint32_t srcLeaf{0};     //!< leaf of the source host
    uint32_t dstLeaf{0};     //!< leaf of the destination host
    bool hasLabel{false};    //!< the packet carries a TalbTag

    struct talb_label label
    {
        0, TALB_NUM_PRIORITIES - 1, 0
    }; //!< its label when hasLabel

    Time now;            //!< current simulation time
    bool goBackN{false}; //!< the packet is RoCEv2's (UDP to 4791), whose flows recover from
                         //!< reordering by go-back-N; the switch reads it from the headers

    uint32_t roceDstQp{0};   //!< RoCEv2 packets: the BTH's destination queue pair (24 bits)
    uint32_t tcpSeq{0};      //!< TCP segments: the sequence number
    uint32_t tcpPayload{0};  //!< TCP segments: data bytes (0: a control segment, or not TCP)
    uint32_t dstLeafPort{0}; //!< the destination host's port under its leaf
};

/**
 * \ingroup talb-lb
 * \brief Candidate egress ports for a packet: a view into the switch's forwarding table.
 */
struct TalbCandidates
{
    const uint32_t* ports{nullptr}; //!< port ids, all up
    uint32_t count{0};              //!< number of ports, >= 1

    /// \return true when \p port is one of the candidates (O(count))
    bool Contains(uint32_t port) const;
};

/**
 * \ingroup talb-lb
 * \brief Abstract path selector ("load balancer") of a TalbSwitch.
 *
 * Split like ns-3's QueueDisc: the public, non-virtual SelectPath() validates, counts, and fires
 * the PathSelected trace; policies implement the private DoSelectPath(). A policy is one class
 * that registers its short name for command lines (ecmp, eecmp, pin, rps, letflow, drill, conga,
 * presto, hermes, conweave, talb) in GetRegistry() with TALB_REGISTER_PLUGIN in its own .cc.
 *
 * The switch calls, for every packet it forwards: PacketIn() on arrival, SelectPath() when the
 * forwarding table offers more than one candidate port, PacketOut() once the port is chosen, and
 * Hold() just before sending. A policy that keeps packets back (a reorder queue) or consumes
 * its own control packets says so from DoHold() (KEPT, CONSUMED); it then owns the packet and
 * hands a kept one back to the switch's egress with Release(), and packets it makes with
 * Transmit() (both through the switch's transmit callback).
 *
 * Counter identities (asserted): selections = tagged selections + untagged selections; the
 * PathSelected trace fires once per selection and Reroute once per counted reroute.
 */
class TalbLoadBalancer : public Object
{
  public:
    static TypeId GetTypeId();

    TalbLoadBalancer();
    ~TalbLoadBalancer() override;

    /// Selection statistics.
    struct Stats
    {
        uint64_t nSelections{0};         //!< SelectPath() calls
        uint64_t nTaggedSelections{0};   //!< ... for packets carrying a TalbTag
        uint64_t nUntaggedSelections{0}; //!< ... for packets without one
        uint64_t nReroutes{0};           //!< a flow, flowlet or tensor changed port
        uint64_t nHeld{0};               //!< packets Hold() kept or consumed
        uint64_t nTransmitted{0};        //!< packets the policy handed to Transmit() or Release()
    };

    /// \return the family's registry: short policy names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /**
     * Bind the balancer to a switch. Called once by TalbSwitch before the first packet.
     * \param info the switch's role in the fabric
     * \param ports the switch's port table (outlives the balancer's use of it)
     */
    void Attach(const TalbSwitchInfo& info, const std::vector<TalbPortState>* ports);

    /**
     * Checks the attribute values as Attach() does for a switch described by \p info (which
     * also gives it an egress, see SetTransmitCallback()), without attaching (a balancer not
     * attached yet), so a program can report a bad configuration before it builds anything
     * instead of aborting in Attach().
     * \return "" when Attach() would accept them, else what is wrong
     */
    std::string CheckConfiguration(const TalbSwitchInfo& info);

    /**
     * Choose an egress port among \p candidates. O(candidates), allocation-free.
     * \return a port id contained in \p candidates
     */
    uint32_t SelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates);

    /// A packet arrived (before the forwarding lookup).
    void PacketIn(TalbPacketContext& ctx);
    /// A packet is about to leave on \p port (after the selection).
    void PacketOut(TalbPacketContext& ctx, uint32_t port);

    /**
     * The switch's egress, for packets a policy sends itself: \p packet (starting with its
     * IPv4 header) is sent on port \p outPort and charged (PFC) to ingress port \p inPort, or
     * to none with NO_INGRESS (a packet the policy made: it took no ingress buffer). The last
     * argument is true for a packet Hold() kept (Release()), which the switch may have charged
     * since it arrived.
     */
    typedef Callback<void, Ptr<Packet>, uint32_t, uint32_t, bool> TransmitCallback;
    /// Transmit()'s ingress for a packet the policy made itself.
    static constexpr uint32_t NO_INGRESS = UINT32_MAX;
    /// Set by the switch before Attach(); policies that hold packets need it.
    void SetTransmitCallback(TransmitCallback cb);

    /// What Hold() did with a packet.
    enum HoldVerdict
    {
        SEND,    //!< nothing: the switch sends it
        KEPT,    //!< the policy keeps it and will Release() it (a reorder queue)
        CONSUMED //!< the policy took it and will not send it (its own control packet)
    };

    /**
     * Last look at a packet about to leave on \p port (after PacketOut()).
     * \return SEND, or what the policy did with \p packet instead: the switch then neither
     * sends nor counts it as forwarded
     */
    HoldVerdict Hold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet);

    const Stats& GetStats() const;

    /// One of a policy's own counters (GetPolicyCounters()).
    struct PolicyCounter
    {
        const char* name; //!< stable snake_case name: a key of run.json's "lb_counters"
        uint64_t value;   //!< its value at this switch
    };

    /**
     * The policy's own counters at this switch, for reports: the scenario runner sums them by
     * name over the switches into run.json's "lb_counters", so a result can be traced to what
     * the policy did (moves taken and held, fallbacks, reorder buffers). Every call lists the
     * same names in the same order. It builds a vector: for the end of a run, not per packet.
     * \return none unless a policy keeps counters of its own
     */
    virtual std::vector<PolicyCounter> GetPolicyCounters() const;

    /**
     * Capability query: whether this policy can choose for another balancer (DelegateSelect),
     * i.e. it needs neither the PacketIn/PacketOut hooks nor per-tensor state.
     * \return true unless a policy says otherwise
     */
    virtual bool CanBeFallback() const;

    /**
     * Assign fixed random variable streams.
     * \return the number of streams used
     */
    virtual int64_t AssignStreams(int64_t stream);

    /**
     * TracedCallback signature for path decisions.
     * \param ctx the packet's context: flow hash, ports, hosts, label, size, time
     * \param port the chosen port id
     */
    typedef void (*PathSelectedTracedCallback)(const TalbPacketContext& ctx, uint32_t port);
    /**
     * TracedCallback signature for reroutes.
     * \param flowHash 5-tuple hash
     * \param tensorId tensor id (0 for untagged flows and flowlets)
     * \param oldPort the port the flow/tensor used
     * \param newPort the port it moves to
     */
    typedef void (*RerouteTracedCallback)(uint32_t flowHash,
                                          uint32_t tensorId,
                                          uint32_t oldPort,
                                          uint32_t newPort);

  protected:
    void DoDispose() override;

    /// Hand \p packet, made by the policy, to the switch's egress (see TransmitCallback);
    /// needs the callback.
    void Transmit(Ptr<Packet> packet, uint32_t inPort, uint32_t outPort);
    /// Hand \p packet, which Hold() kept (it arrived on \p inPort), to the switch's egress.
    void Release(Ptr<Packet> packet, uint32_t inPort, uint32_t outPort);
    /// \return true when the switch gave a transmit callback
    bool CanTransmit() const;
    /// \return the switch's transmit callback, to give a delegate that holds or makes packets
    /// the same egress (null before SetTransmitCallback())
    const TransmitCallback& GetTransmitCallback() const;

    /// Policies call this when a flow, flowlet or tensor leaves its previous port.
    void NotifyReroute(const TalbPacketContext& ctx, uint32_t oldPort, uint32_t newPort);

    /// \return the state of port \p port of the attached switch
    const TalbPortState& GetPort(uint32_t port) const;
    /// \return the number of ports of the attached switch
    uint32_t GetNPorts() const;
    /// \return the attached switch's info
    const TalbSwitchInfo& GetSwitchInfo() const;
    /// \return true once Attach() ran
    bool IsAttached() const;
    /// \return the attached switch's port table, to attach a delegate to the same switch
    const std::vector<TalbPortState>* GetPortTable() const;

    /**
     * Let another balancer (a fallback) choose, without its traces firing twice: calls its
     * DoSelectPath() directly. \p delegate must be attached to the same switch.
     */
    static uint32_t DelegateSelect(Ptr<TalbLoadBalancer> delegate,
                                   TalbPacketContext& ctx,
                                   const TalbCandidates& candidates);

    /**
     * The candidate with the least \p key(port), ties broken uniformly at random, drawing from
     * \p rng only on ties: talb::lb::PickLeast, the loop the decision core's policies share.
     * O(candidates), allocation-free.
     */
    template <class Key>
    static uint32_t PickLeast(const TalbCandidates& candidates,
                              const Ptr<UniformRandomVariable>& rng,
                              Key key);

    /**
     * For CheckConfig(): record why the configuration is unusable; Attach() aborts with it.
     * \return false
     */
    bool ConfigError(const std::string& message);

  private:
    /**
     * Choose the egress port. Called by SelectPath() with at least two candidates, all up.
     * \return a port id contained in \p candidates
     */
    virtual uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) = 0;
    /// Hook for every arriving packet; default: nothing.
    virtual void DoPacketIn(TalbPacketContext& ctx);
    /// Hook for every departing packet; default: nothing.
    virtual void DoPacketOut(TalbPacketContext& ctx, uint32_t port);
    /**
     * Whether to keep or consume \p packet instead of sending it on \p port now.
     * \return KEPT or CONSUMED to take ownership (default: SEND, send it)
     */
    virtual HoldVerdict DoHold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet);
    /**
     * Check the attribute values; called once at attach time.
     * \return false (after ConfigError()) on an unusable configuration
     */
    virtual bool CheckConfig();
    /// Size the policy's tables for the attached switch; called once after CheckConfig().
    virtual void InitializeParams();

    TalbSwitchInfo m_info;
    const std::vector<TalbPortState>* m_ports;
    Stats m_stats;
    std::string m_configError; //!< set by ConfigError()
    TransmitCallback m_transmit;

    TracedCallback<const TalbPacketContext&, uint32_t> m_pathSelectedTrace;
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_rerouteTrace;
};

template <class Key>
uint32_t
TalbLoadBalancer::PickLeast(const TalbCandidates& candidates,
                            const Ptr<UniformRandomVariable>& rng,
                            Key key)
{
    return talb::lb::PickLeast(
        candidates,
        [&rng](uint32_t min, uint32_t max) { return rng->GetInteger(min, max); },
        key);
}

/**
 * \ingroup talb-lb
 * \return a 32-bit avalanche mix of \p x (MurmurHash3's finaliser), used for flow hashing: the
 * decision core's talb::lb::Mix32, so that the simulator and the testbed hash alike
 */
inline uint32_t
TalbMix32(uint32_t x)
{
    return talb::lb::Mix32(x);
}

} // namespace ns3

#endif /* TALB_LOAD_BALANCER_H */
