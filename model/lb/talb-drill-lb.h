#ifndef TALB_DRILL_LB_H
#define TALB_DRILL_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-drill.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief DRILL: per packet, sample Samples random candidate ports plus the Memory least-loaded
 * ports remembered from the previous decision, and send on the one with the fewest queued bytes
 * (the egress device queue's real occupancy).
 *
 * One memory per switch, as DRILL keeps one per forwarding engine; a remembered port that is not
 * a candidate for the current packet (other destination, failed link) is skipped. The decision
 * is the core's talb::lb::Drill.
 */
class TalbDrillLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbDrillLb();
    ~TalbDrillLb() override;

    int64_t AssignStreams(int64_t stream) override;

    /// bound of the Samples attribute
    static constexpr uint32_t MAX_SAMPLES = talb::lb::Drill::kMaxSamples;
    /// bound of the Memory attribute
    static constexpr uint32_t MAX_MEMORY = talb::lb::Drill::kMaxMemory;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void InitializeParams() override;
    /// After an attribute changed: an installed policy takes the new values at once.
    void Retune();

    talb::lb::Drill::Config m_config; //!< the attributes (Samples d, Memory m)
    talb::lb::Drill m_core;           //!< the decision
};

} // namespace ns3

#endif /* TALB_DRILL_LB_H */
