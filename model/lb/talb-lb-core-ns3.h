#ifndef TALB_LB_CORE_NS3_H
#define TALB_LB_CORE_NS3_H

#include "talb-load-balancer.h"

#include "ns3/callback.h"
#include "ns3/random-variable-stream.h"
#include "ns3/talb-lb-core.h"
#include "ns3/talb-priority-queue.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief The decision core's view of a TalbSwitch's port table: queue bytes (per band when the
 * queue is a TalbPriorityQueue) from the egress device's queue, utilisation from the port's
 * TalbDre, the line rate; all read when the core asks.
 */
class TalbCorePortView : public talb::lb::PortView
{
  public:
    /// \param ports the switch's port table (outlives the view); may be set later
    explicit TalbCorePortView(const std::vector<TalbPortState>* ports = nullptr);

    /// \param ports the switch's port table (outlives the view)
    void SetPorts(const std::vector<TalbPortState>* ports);

    uint64_t QueueBytes(uint32_t port) const override;
    double Utilization(uint32_t port, int64_t nowNs) const override;
    /// Bands 0..\p priority of a TalbPriorityQueue; all queued bytes of any other queue.
    uint64_t QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const override;
    uint64_t RateBps(uint32_t port) const override;
    /// The port's pathRateBps entry for \p dstLeaf when set, else its rate.
    uint64_t PathRateBps(uint32_t port, uint32_t dstLeaf) const override;

  private:
    const std::vector<TalbPortState>* m_ports;
    std::vector<TalbPriorityQueue*> m_bands; //!< per port: its queue when it counts bands
};

/**
 * \ingroup talb-lb
 * \brief The decision core's random source backed by an ns-3 RNG stream: Integer(min, max) is
 * UniformRandomVariable::GetInteger(min, max), so a selector keeps its stream and draw order.
 * The variable exists once Create() was called (creating one takes an automatic stream index,
 * so it is created exactly where a selector needs it).
 */
class TalbCoreRandom : public talb::lb::Random
{
  public:
    /// Creates the variable.
    void Create();
    /// Draws from \p rng (another's variable) from now on.
    void Share(Ptr<UniformRandomVariable> rng);
    /// Drops the variable (DoDispose).
    void Dispose();

    uint32_t Integer(uint32_t min, uint32_t max) override;

    /// \return the underlying variable (for AssignStreams), null before Create()
    Ptr<UniformRandomVariable> GetVariable() const;

  private:
    Ptr<UniformRandomVariable> m_rng;
};

/**
 * \ingroup talb-lb
 * \brief The decision core's event sink for a selector: reroutes go to a callback (the
 * selector's, which fires its Reroute trace for the packet being decided).
 */
class TalbCoreEvents : public talb::lb::Events
{
  public:
    /// \param rerouted called with (from, to) port ids for every reroute
    explicit TalbCoreEvents(Callback<void, uint32_t, uint32_t> rerouted);

    void Rerouted(const talb::lb::PacketInfo& packet, uint32_t from, uint32_t to) override;

  private:
    Callback<void, uint32_t, uint32_t> m_rerouted;
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
    p.size = ctx.size;
    p.srcLeaf = ctx.srcLeaf;
    p.dstLeaf = ctx.dstLeaf;
    p.hasLabel = ctx.hasLabel;
    p.label = ctx.label;
    p.nowNs = TalbCoreNs(ctx.now);
    p.goBackN = ctx.goBackN;
    return p;
}

/// \return the decision core's view of a switch's candidate ports
inline talb::lb::Candidates
TalbCoreCandidates(const TalbCandidates& candidates)
{
    return talb::lb::Candidates{candidates.ports, candidates.count};
}

} // namespace ns3

#endif /* TALB_LB_CORE_NS3_H */
