#ifndef TALB_CORE_POLICY_LB_H
#define TALB_CORE_POLICY_LB_H

#include "talb-core-port-view.h"
#include "talb-core-random.h"
#include "talb-load-balancer.h"

#include "ns3/talb-lb-core.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief A load balancer whose per-packet decision is a decision-core policy (model/lb/core,
 * talb::lb), the code the testbed's DPDK switch runs too: the base of every balancer that has
 * one (ECMP, RPS, LetFlow, DRILL, Presto, Hermes, TaLB).
 *
 * The subclass owns its core policy and its Config, whose fields its attributes are
 * (TalbCoreAttributes, from the policy's settings table); this class binds the policy to the
 * attached switch's port table (TalbCorePortView), to the balancer's RNG stream
 * (TalbCoreRandom: the stream and draw order a hand-written ns-3 selector would use) and to its
 * events: a reroute becomes NotifyReroute() (Reroute trace, statistics), an eviction
 * DoCoreEvicted(). A subclass that draws random numbers calls CreateCoreRng() in its
 * constructor, so that the RNG object is created where an ns-3 selector creates its own.
 */
class TalbCorePolicyLb : public TalbLoadBalancer, private talb::lb::Events
{
  public:
    static TypeId GetTypeId();
    TalbCorePolicyLb();
    ~TalbCorePolicyLb() override;

    /**
     * Draws from \p owner's RNG instead of its own, for a balancer that chooses on \p owner's
     * behalf (a fallback): it then needs no stream of its own, so adding it leaves every other
     * object's streams as they were. Nothing when this policy draws nothing.
     */
    void ShareCoreRng(const TalbCorePolicyLb& owner);

  protected:
    void DoDispose() override;

    /// Creates the RNG the policy draws from (constructors of policies that draw).
    void CreateCoreRng();
    /// \return the RNG's variable, for AssignStreams (null when the policy draws nothing)
    Ptr<UniformRandomVariable> GetCoreRng() const;

    /// Binds \p policy to this switch's ports, the RNG and the events (InitializeParams()).
    void BindCore(talb::lb::Policy& policy);

    /// \return \p policy's choice for \p ctx among \p candidates (DoSelectPath())
    uint32_t CoreSelect(talb::lb::Policy& policy,
                        TalbPacketContext& ctx,
                        const TalbCandidates& candidates);

    /// \p policy follows \p port, chosen for \p ctx elsewhere (talb::lb::Policy::Follow())
    void CoreFollow(talb::lb::Policy& policy,
                    TalbPacketContext& ctx,
                    const TalbCandidates& candidates,
                    uint32_t port);

    /// \return where \p policy would move the flow of \p ctx among \p candidates
    /// (talb::lb::Policy::Target())
    uint32_t CoreTarget(talb::lb::Policy& policy,
                        TalbPacketContext& ctx,
                        const TalbCandidates& candidates);

    /// \return the packet CoreSelect() is deciding for (valid during the call)
    TalbPacketContext& CurrentPacket() const;

    /**
     * For CheckConfig(): ConfigError(\p error) when the core's Check() of the Config found one.
     * \return false when \p error is set, else true
     */
    bool CoreConfigError(const char* error);

  private:
    void Rerouted(const talb::lb::PacketInfo& packet, uint32_t from, uint32_t to) override;
    void Evicted(uint32_t flowHash, uint32_t tensorId) override;
    /// A live table entry of the policy was evicted; default: nothing.
    virtual void DoCoreEvicted(uint32_t flowHash, uint32_t tensorId);

    TalbCorePortView m_view;
    TalbCoreRandom m_random;
    TalbPacketContext* m_current; //!< the packet being decided, for the events
};

/// \return \p t in ns, the decision core's unit of time
inline int64_t
TalbCoreNs(Time t)
{
    return t.GetNanoSeconds();
}

/// \return the decision core's view of a packet the switch described in \p ctx
inline talb::lb::PacketInfo
TalbCorePacket(const TalbPacketContext& ctx)
{
    talb::lb::PacketInfo p;
    p.flowHash = ctx.flowHash;
    p.srcHost = ctx.srcHost;
    p.dstHost = ctx.dstHost;
    p.size = ctx.size;
    p.srcLeaf = ctx.srcLeaf;
    p.dstLeaf = ctx.dstLeaf;
    p.hasLabel = ctx.hasLabel;
    p.label = ctx.label;
    p.nowNs = TalbCoreNs(ctx.now);
    p.goBackN = ctx.goBackN;
    p.roceDstQp = ctx.roceDstQp;
    p.dstLeafPort = ctx.dstLeafPort;
    p.tcpSeqEnd = ctx.tcpSeq + ctx.tcpPayload;
    p.tcpPayload = ctx.tcpPayload;
    return p;
}

/// \return the decision core's view of a switch's candidate ports
inline talb::lb::Candidates
TalbCoreCandidates(const TalbCandidates& candidates)
{
    return talb::lb::Candidates{candidates.ports, candidates.count};
}

} // namespace ns3

#endif /* TALB_CORE_POLICY_LB_H */
