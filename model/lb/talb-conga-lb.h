#ifndef TALB_CONGA_LB_H
#define TALB_CONGA_LB_H

#include "talb-load-balancer.h"
#include "talb-path-feedback.h"

#include "ns3/random-variable-stream.h"
#include "ns3/talb-lb-core-flowlet-table.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief CONGA (compact): flowlets placed on the uplink that minimises the larger of the local
 * uplink's DRE and the remote congestion reported by the destination leaf.
 *
 * The feedback (TalbPathFeedback):
 * - Source leaf: a packet of a new flowlet picks argmin over candidate uplinks of
 *   max(local quantised DRE, Congestion-To-Leaf[dst leaf][path]); a TalbCongaTag carries the path
 *   (spine index), CE = local DRE, and one piggybacked feedback entry for the destination leaf.
 * - Spine: CE = max(CE, quantised DRE of the egress port).
 * - Destination leaf: stores CE in Congestion-From-Leaf[src leaf][path], applies the piggybacked
 *   feedback to Congestion-To-Leaf, and removes the tag. Feedback entries are sent round-robin
 *   over the paths, one per packet towards that leaf.
 *
 * Simplifications (documented in doc/talb-switch.rst): paths are spine indices (two-tier
 * leaf-spine); a remote metric older than MetricAgingTime counts as 0; no separate feedback
 * packets (feedback rides on reverse traffic, e.g. TCP ACKs).
 */
class TalbCongaLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbCongaLb();
    ~TalbCongaLb() override;

    int64_t AssignStreams(int64_t stream) override;
    bool CanBeFallback() const override;

    /// \return the remote metric towards \p leaf via \p spine (0 when unknown or aged)
    uint8_t GetCongestionToLeaf(uint32_t leaf, uint32_t spine, Time now) const;

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void DoPacketIn(TalbPacketContext& ctx) override;
    void DoPacketOut(TalbPacketContext& ctx, uint32_t port) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    Time m_flowletTimeout; //!< FlowletTimeout attribute
    uint32_t m_tableSize;  //!< TableSize attribute
    uint8_t m_bits;        //!< QuantizationBits attribute
    Time m_agingTime;      //!< MetricAgingTime attribute

    talb::lb::FlowletTable m_flowlets; //!< the decision core's flowlet table (ns timestamps)
    TalbPathFeedback m_feedback;       //!< the leaf-to-leaf congestion tables
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif /* TALB_CONGA_LB_H */
