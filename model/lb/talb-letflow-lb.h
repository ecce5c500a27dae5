#ifndef TALB_LETFLOW_LB_H
#define TALB_LETFLOW_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-letflow.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief LetFlow: a flow keeps its port while its packets are closer than FlowletTimeout; after
 * a longer gap the next packet starts a new flowlet on a uniformly random candidate port. The
 * decision is the core's talb::lb::LetFlow.
 */
class TalbLetFlowLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbLetFlowLb();
    ~TalbLetFlowLb() override;

    int64_t AssignStreams(int64_t stream) override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// After an attribute changed: an installed policy takes a new FlowletTimeout at once.
    void Retune();

    talb::lb::LetFlow::Config m_config; //!< the attributes (FlowletTimeout, TableSize)
    talb::lb::LetFlow m_core;           //!< the decision
};

} // namespace ns3

#endif /* TALB_LETFLOW_LB_H */
