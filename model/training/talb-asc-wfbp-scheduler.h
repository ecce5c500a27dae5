#ifndef TALB_ASC_WFBP_SCHEDULER_H
#define TALB_ASC_WFBP_SCHEDULER_H

#include "talb-comm-scheduler.h"

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief ASC-WFBP-style scheduling: tensors are fused into groups by a static merge rule and up
 * to Simultaneous groups are all-reduced at the same time.
 *
 * Merge rule (this project's reading of the paper, whose solver is not reproduced): walk the
 * tensors in backward (ready) order with their modelled ready times; the next tensor joins the
 * current group when it becomes ready less than MergeGap after the group's latest tensor
 * (starting another collective would cost more than waiting) and the group stays within
 * MaxGroupSize. A group is launched when its last tensor is ready.
 */
class TalbAscWfbpScheduler : public TalbCommScheduler
{
  public:
    static TypeId GetTypeId();
    TalbAscWfbpScheduler();
    ~TalbAscWfbpScheduler() override;

    /// \return the groups: tensor indices in backward order
    const std::vector<std::vector<uint32_t>>& GetGroups() const;

  private:
    void DoTensorReady(uint32_t iteration, uint32_t tensor) override;
    bool DoCanLaunch(const TalbCommOp& next) const override;
    void InitializeParams() override;

    uint32_t m_simultaneous; //!< Simultaneous attribute
    Time m_mergeGap;
    uint64_t m_maxGroupSize;
    std::vector<std::vector<uint32_t>> m_groups;
    std::vector<int32_t> m_groupClosedBy; //!< per tensor: group it completes, or -1
};

} // namespace ns3

#endif /* TALB_ASC_WFBP_SCHEDULER_H */
