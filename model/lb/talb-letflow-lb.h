#ifndef TALB_LETFLOW_LB_H
#define TALB_LETFLOW_LB_H

#include "talb-flowlet-table.h"
#include "talb-load-balancer.h"

#include "ns3/random-variable-stream.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief LetFlow: a flow keeps its port while its packets are closer than FlowletTimeout; after
 * a longer gap the next packet starts a new flowlet on a uniformly random candidate port.
 */
class TalbLetFlowLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbLetFlowLb();
    ~TalbLetFlowLb() override;

    int64_t AssignStreams(int64_t stream) override;

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    Time m_timeout;       //!< FlowletTimeout attribute
    uint32_t m_tableSize; //!< TableSize attribute
    TalbFlowletTable m_table;
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif /* TALB_LETFLOW_LB_H */
