/*
 * The load-balancing decision core: per-packet path decisions as plain C++ over plain inputs,
 * with no ns-3 and no DPDK in it. The ns-3 selectors (model/lb/) and the DPDK software switch
 * (testbed/switch/) both call it, so the simulator and the testbed run one decision code.
 *
 * A policy sees a packet as a PacketInfo (label, flow hash, size, leaves, time in ns), its
 * candidate egress ports as a Candidates view, the ports' state through a PortView the caller
 * owns (queue bytes, DRE utilisation), and draws random numbers from a Random the caller owns:
 * ns-3 passes its RNG stream, the switch its own generator. Policies never allocate after
 * Configure(); their tables are fixed-size.
 *
 * Adding a policy: one subclass of Policy (DoSelect, plus Configure with a Config struct and the
 * Config's settings table, talb-lb-core-settings.h) in this folder, a TalbCorePolicyLb subclass
 * whose attributes the table gives (model/lb/), and its entry in the testbed switch's policies
 * (doc/talb-switch.rst, "Decision core").
 */
#ifndef TALB_LB_CORE_H
#define TALB_LB_CORE_H

#include "ns3/talb-wire.h"

#include <cstdint>

namespace talb
{
namespace lb
{

/// "No port": a port id no switch has.
constexpr uint32_t kNoPort = UINT32_MAX;

/// \return true when TCP sequence number \p a is past \p b (modulo 2^32: sequence numbers
/// wrap, so "past" is a positive signed distance)
inline bool
SeqAfter(uint32_t a, uint32_t b)
{
    return static_cast<int32_t>(a - b) > 0;
}

/// \return a 32-bit avalanche mix of \p x (MurmurHash3's finaliser)
inline uint32_t
Mix32(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x85ebca6bu;
    x ^= x >> 13;
    x *= 0xc2b2ae35u;
    x ^= x >> 16;
    return x;
}

/**
 * \return the flow hash every switch computes from a packet's IPv4 5-tuple, the same at every
 * hop (policies that need per-switch decorrelation salt it themselves)
 * \param src source address, host order
 * \param dst destination address, host order
 * \param ports source port in the high 16 bits, destination port in the low 16 (0 when the
 *        protocol has no ports)
 * \param proto IPv4 protocol number
 */
inline uint32_t
FlowHash(uint32_t src, uint32_t dst, uint32_t ports, uint8_t proto)
{
    return Mix32(src ^ Mix32(dst ^ Mix32(ports ^ (uint32_t(proto) << 24))));
}

/// What a policy knows about one packet. Built on the stack per packet.
struct PacketInfo
{
    uint32_t flowHash{0}; ///< FlowHash() of the 5-tuple
    /// The source and destination hosts, as ids stable per host (the ns-3 switch's host
    /// indices, the DPDK switch's IPv4 addresses): a connection whose queue pairs send from
    /// their own source ports is several flows of one host pair. A policy that keys on the
    /// pair hashes them itself, so other policies pay nothing per packet.
    uint32_t srcHost{0};
    uint32_t dstHost{0};
    uint32_t size{0};     ///< IPv4 packet size in bytes
    uint32_t srcLeaf{0};  ///< leaf of the source host
    uint32_t dstLeaf{0};  ///< leaf of the destination host
    bool hasLabel{false}; ///< the packet carries a TaLB label (option or tag)
    talb_label label{0, TALB_NUM_PRIORITIES - 1, 0}; ///< the label, when hasLabel
    int64_t nowNs{0};                                ///< current time in ns
    /// the flow's transport recovers from reordering only by go-back-N (RoCEv2): a packet that
    /// overtakes an earlier one of its flow costs a retransmission window
    bool goBackN{false};
    /// RoCEv2 packets (goBackN): the BTH's destination queue pair, 24 bits (E-ECMP hashes it)
    uint32_t roceDstQp{0};
    /// the destination host's port under its leaf, 0 .. hostsPerLeaf - 1 (path pinning's
    /// destination slice)
    uint32_t dstLeafPort{0};
    /// TCP data segments: the sequence number past the segment's last byte, and its data bytes
    /// (0: a control segment, not TCP, or not read)
    uint32_t tcpSeqEnd{0};
    uint32_t tcpPayload{0};
};

/// Candidate egress ports of a packet: a view into the caller's forwarding table.
struct Candidates
{
    const uint32_t* ports{nullptr}; ///< port ids, all up
    uint32_t count{0};              ///< number of ports, >= 1

    /// \return true when \p port is one of the candidates (O(count))
    bool Contains(uint32_t port) const
    {
        for (uint32_t i = 0; i < count; ++i)
        {
            if (ports[i] == port)
            {
                return true;
            }
        }
        return false;
    }
};

/**
 * The project's one "least-loaded port, random tie-break" loop: the candidate with the least
 * \p key(port), ties broken uniformly at random by reservoir sampling (the k-th equal minimum
 * replaces the choice with probability 1/k), so \p draw(0, k) is called only on ties and always
 * in candidate order. Keys compare with < and ==; a std::pair orders lexicographically. Core
 * policies use it through Policy::PickLeast, ns-3 selectors through TalbLoadBalancer::PickLeast.
 * \param candidates anything with ports and count (count >= 1)
 * \param draw uniform integer in [min, max]
 * \param key the cost of a port
 */
template <class Cands, class Draw, class Key>
inline uint32_t
PickLeast(const Cands& candidates, Draw&& draw, Key&& key)
{
    uint32_t best = candidates.ports[0];
    auto bestKey = key(best);
    uint32_t ties = 1;
    for (uint32_t i = 1; i < candidates.count; ++i)
    {
        uint32_t p = candidates.ports[i];
        auto k = key(p);
        if (k < bestKey)
        {
            best = p;
            bestKey = k;
            ties = 1;
        }
        else if (k == bestKey && draw(0, ties++) == 0)
        {
            best = p;
        }
    }
    return best;
}

/**
 * \ingroup talb-lb
 * The state of the switch's ports, read lazily: a policy asks only for the ports and the
 * moments its decision needs, so a caller whose estimators decay on access (the DRE) sees
 * exactly the reads the policy makes.
 */
class PortView
{
  public:
    virtual ~PortView() = default;
    /// \return bytes waiting in \p port's egress queue now
    virtual uint64_t QueueBytes(uint32_t port) const = 0;
    /// \return \p port's DRE utilisation estimate at \p nowNs (1.0 = fully busy)
    virtual double Utilization(uint32_t port, int64_t nowNs) const = 0;

    /**
     * \return bytes waiting in \p port's egress queue that are served before or with a packet of
     * TaLB priority \p priority: its band and the more urgent ones (untagged traffic included when
     * it is queued there). Default: QueueBytes(), for a port that does not count per band.
     */
    virtual uint64_t QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const
    {
        (void)priority;
        return QueueBytes(port);
    }

    /// \return \p port's line (or shaped) rate in bit/s; 0 when unknown. Default: 0.
    virtual uint64_t RateBps(uint32_t port) const
    {
        (void)port;
        return 0;
    }

    /**
     * \return the slowest link rate in bit/s on the path through \p port to leaf \p dstLeaf
     * (asymmetric fabrics: a remote slow link), 0 when unknown. Default: RateBps().
     */
    virtual uint64_t PathRateBps(uint32_t port, uint32_t dstLeaf) const
    {
        (void)dstLeaf;
        return RateBps(port);
    }

    /// RoomBytes() of a port that does not say how much its buffer can take.
    static constexpr uint64_t kUnknownRoom = UINT64_MAX;

    /**
     * \return bytes \p port's buffer can still take of packets of TaLB priority \p priority
     * before it refuses one (its own limit and, with a buffer shared among ports, the share it
     * may take now); kUnknownRoom when the port does not say. Default: kUnknownRoom.
     */
    virtual uint64_t RoomBytes(uint32_t port, uint8_t priority) const
    {
        (void)port;
        (void)priority;
        return kUnknownRoom;
    }

    /// \return port congestion in bytes: queue bytes + dreWeightBytes x DRE utilisation
    double Cost(uint32_t port, int64_t nowNs, double dreWeightBytes) const
    {
        return static_cast<double>(QueueBytes(port)) + dreWeightBytes * Utilization(port, nowNs);
    }
};

/// Random numbers, supplied by the caller (ns-3: its RNG stream; the switch: its generator).
class Random
{
  public:
    virtual ~Random() = default;
    /// \return an integer uniformly drawn from [min, max], bounds included
    virtual uint32_t Integer(uint32_t min, uint32_t max) = 0;
};

/**
 * \ingroup talb-lb
 * Notifications a policy gives while deciding. The defaults ignore them; the ns-3 selectors
 * turn them into trace sources, the switch into counters.
 */
class Events
{
  public:
    virtual ~Events() = default;
    /// A flow, flowlet or tensor left \p from for \p to.
    virtual void Rerouted(const PacketInfo& packet, uint32_t from, uint32_t to);
    /// A live table entry (flow hash, tensor id) was evicted for lack of space.
    virtual void Evicted(uint32_t flowHash, uint32_t tensorId);
};

/**
 * \ingroup talb-lb
 * A per-packet path selection policy.
 *
 * Split like ns-3's QueueDisc: the public, non-virtual Select() checks its inputs and returns
 * the single candidate without asking the policy; policies implement the private DoSelect().
 * Bind() hands the policy the caller's port view, random source and event sink once; the
 * policy's own Configure() sizes its tables once. Neither Select() nor DoSelect() allocates.
 */
class Policy
{
  public:
    Policy();
    virtual ~Policy();
    Policy(const Policy&) = delete;
    Policy& operator=(const Policy&) = delete;

    /**
     * \param ports the switch's port state (outlives the policy's use of it)
     * \param random the random source (may be null for policies that draw nothing)
     * \param events where notifications go (null: ignored)
     */
    void Bind(const PortView* ports, Random* random, Events* events);

    /**
     * Choose an egress port among \p candidates (count >= 1, all up). O(candidates).
     * \return a port id contained in \p candidates
     */
    uint32_t Select(const PacketInfo& packet, const Candidates& candidates);

    /**
     * \p packet leaves on \p port, which something other than the policy chose for it (a
     * protocol that moves flows itself, as ConWeave's under TaLB's RttMoves): the policy's
     * state follows, as if it had chosen \p port. Nothing with a single candidate, as Select().
     */
    void Follow(const PacketInfo& packet, const Candidates& candidates, uint32_t port);

    /**
     * Where the policy would send \p packet's flow if it had to leave its path now, among
     * \p candidates (count >= 1; the caller has left out the path it leaves and any it must
     * avoid): a protocol that decides when a flow moves asks the policy where (ConWeave's late
     * RTT reply under TaLB's RttMoveTarget=Talb). The policy's state does not change; Follow()
     * tells it the move. O(candidates).
     * \return a port id contained in \p candidates
     */
    uint32_t Target(const PacketInfo& packet, const Candidates& candidates);

  protected:
    /// \return the bound port view
    const PortView& Ports() const
    {
        return *m_ports;
    }

    /// \return a uniform integer in [min, max] from the bound random source
    uint32_t Draw(uint32_t min, uint32_t max)
    {
        return m_random->Integer(min, max);
    }

    /// \return the candidate with the least \p key(port), ties at random (lb::PickLeast)
    template <class Key>
    uint32_t PickLeast(const Candidates& candidates, Key&& key)
    {
        return lb::PickLeast(
            candidates,
            [this](uint32_t min, uint32_t max) { return Draw(min, max); },
            key);
    }

    /// Tell the event sink, if any, that a flow, flowlet or tensor moved.
    void NotifyRerouted(const PacketInfo& packet, uint32_t from, uint32_t to)
    {
        if (m_events)
        {
            m_events->Rerouted(packet, from, to);
        }
    }

    /// Tell the event sink, if any, that a live table entry was evicted.
    void NotifyEvicted(uint32_t flowHash, uint32_t tensorId)
    {
        if (m_events)
        {
            m_events->Evicted(flowHash, tensorId);
        }
    }

  private:
    /**
     * Choose the egress port. Called by Select() with at least two candidates.
     * \return a port id contained in \p candidates
     */
    virtual uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) = 0;

    /// Follow() with at least two candidates; default: nothing (a policy without flow state).
    virtual void DoFollow(const PacketInfo& packet, const Candidates& candidates, uint32_t port);

    /// Target() with at least two candidates; default: one drawn uniformly (the first without
    /// a random source): a policy that keeps no costs of its own has no better answer.
    virtual uint32_t DoTarget(const PacketInfo& packet, const Candidates& candidates);

    const PortView* m_ports;
    Random* m_random;
    Events* m_events;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_H */
