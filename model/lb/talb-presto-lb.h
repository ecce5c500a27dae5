#ifndef TALB_PRESTO_LB_H
#define TALB_PRESTO_LB_H

#include "talb-lb-core-ns3.h"
#include "talb-load-balancer.h"

#include "ns3/talb-lb-core-presto.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Presto: flows cut into flowcells of FlowcellBytes at the source leaf; successive
 * flowcells of a flow go round-robin over the candidate uplinks from a per-flow offset.
 *
 * A thin wrapper of the decision core's talb::lb::Presto: attributes map to its Config, core
 * reroutes (a new flowcell on another port) become the Reroute trace, evictions are logged.
 */
class TalbPrestoLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbPrestoLb();
    ~TalbPrestoLb() override;

    /// \return the flowcell index flow \p flowHash is in (0 when unknown)
    uint32_t GetCell(uint32_t flowHash) const;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// The core's reroute of the packet being decided, to the Reroute trace.
    void CoreRerouted(uint32_t from, uint32_t to);

    talb::lb::Presto::Config Config() const;

    uint32_t m_flowcellBytes; //!< FlowcellBytes attribute
    uint32_t m_tableSize;     //!< TableSize attribute
    Time m_idleTimeout;       //!< IdleTimeout attribute

    talb::lb::Presto m_core;
    TalbCorePortView m_view;
    TalbCoreEvents m_events;
    const TalbPacketContext* m_current; //!< the packet being decided, for the Reroute trace
};

} // namespace ns3

#endif /* TALB_PRESTO_LB_H */
