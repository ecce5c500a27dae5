#ifndef TALB_PRESTO_LB_H
#define TALB_PRESTO_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-presto.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Presto: flows cut into flowcells of FlowcellBytes at the source leaf; successive
 * flowcells of a flow go round-robin over the candidate uplinks from a per-flow offset.
 *
 * The decision is the core's talb::lb::Presto: core reroutes (a new flowcell on another port)
 * become the Reroute trace.
 */
class TalbPrestoLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbPrestoLb();
    ~TalbPrestoLb() override;

    /// \return the flowcell index the flow \p flowHash is in (0 when unknown)
    uint32_t GetCell(uint32_t flowHash) const;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    talb::lb::Presto::Config m_config; //!< the attributes (FlowcellBytes, TableSize, IdleTimeout)
    talb::lb::Presto m_core;           //!< the decision
};

} // namespace ns3

#endif /* TALB_PRESTO_LB_H */
