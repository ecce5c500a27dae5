#ifndef TALB_ECMP_LB_H
#define TALB_ECMP_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-ecmp.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief ECMP: a flow's 5-tuple hash, salted per switch, picks one candidate port.
 *
 * Every packet of a flow takes the same port while the candidate set is unchanged; a failure
 * that shrinks the set rehashes flows (no resilient hashing). The per-switch salt keeps leaf and
 * spine decisions uncorrelated (hash polarisation). Unless the Salt attribute fixes it, the salt
 * derives from the switch's node id and the RNG seed and run (GetRunKey()), so runs with
 * different seeds see different flow collisions, as fabrics of switches with different hash
 * seeds do, and the same run sees the same. The decision is the core's talb::lb::Ecmp.
 */
class TalbEcmpLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbEcmpLb();
    ~TalbEcmpLb() override;

    /**
     * \return ns-3's RNG seed and run (RngSeedManager) folded into the number that varies the
     * derived salt from one run to the next (talb::lb::Ecmp::Config::run)
     */
    static uint32_t GetRunKey();

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void InitializeParams() override;

    talb::lb::Ecmp::Config m_config; //!< the attributes (Salt); the switch id and run at install
    talb::lb::Ecmp m_core;           //!< the decision
};

} // namespace ns3

#endif /* TALB_ECMP_LB_H */
