#ifndef TALB_DRILL_LB_H
#define TALB_DRILL_LB_H

#include "talb-load-balancer.h"

#include "ns3/random-variable-stream.h"

#include <array>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief DRILL: per packet, sample Samples random candidate ports plus the Memory least-loaded
 * ports remembered from the previous decision, and send on the one with the fewest queued bytes
 * (the egress device queue's real occupancy).
 *
 * One memory per switch, as DRILL keeps one per forwarding engine; a remembered port that is not
 * a candidate for the current packet (other destination, failed link) is skipped.
 */
class TalbDrillLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbDrillLb();
    ~TalbDrillLb() override;

    int64_t AssignStreams(int64_t stream) override;

    static constexpr uint32_t MAX_SAMPLES = 16; //!< bound of the Samples attribute
    static constexpr uint32_t MAX_MEMORY = 8;   //!< bound of the Memory attribute

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;

    uint32_t m_samples;                            //!< Samples attribute (d)
    uint32_t m_memory;                             //!< Memory attribute (m)
    std::array<uint32_t, MAX_MEMORY> m_remembered; //!< remembered port ids
    uint32_t m_nRemembered;                        //!< valid entries of m_remembered
    Ptr<UniformRandomVariable> m_rng;
};

} // namespace ns3

#endif /* TALB_DRILL_LB_H */
