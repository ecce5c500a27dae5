/*
 * The switch's load balancer: one policy of the decision core (model/lb/core), chosen by name,
 * with its random source and, for TaLB, its fallback for unlabelled packets. Built once.
 */
#ifndef TALB_SWITCH_POLICY_H
#define TALB_SWITCH_POLICY_H

#include "ns3/talb-lb-core-drill.h"
#include "ns3/talb-lb-core-letflow.h"
#include "ns3/talb-lb-core-random.h"
#include "ns3/talb-lb-core-tensor-aware.h"

#include <memory>
#include <string>

namespace talb
{

/// The names --lb accepts, comma-separated.
extern const char* const kPolicyNames;

struct PolicyOptions
{
    std::string name = "ecmp";        ///< ecmp, rps, letflow, drill or talb
    std::string fallback = "letflow"; ///< TaLB's policy for unlabelled packets
    uint64_t seed = 1;                ///< of the random source
    uint32_t switchId = 0;            ///< ECMP's salt derives from it (decorrelates switches)
    uint32_t ecmpSalt = 0;            ///< 0: derived from switchId
    lb::LetFlow::Config letflow;
    lb::Drill::Config drill;
    lb::TensorAwareV1::Config talb;
};

class PolicySet
{
  public:
    /**
     * Builds the policy named by \p options and binds it to \p ports and \p events.
     * \param nPorts the switch's port count
     * \return false with *error naming the option at fault
     */
    bool Build(const PolicyOptions& options,
               uint32_t nPorts,
               const lb::PortView* ports,
               lb::Events* events,
               std::string* error);

    /// \return the policy that decides (Build() succeeded)
    lb::Policy& Main()
    {
        return *m_main;
    }

    /// \return the TaLB policy, or nullptr when another one decides (for its table stats)
    const lb::TensorAwareV1* TensorAware() const
    {
        return m_tensorAware;
    }

  private:
    std::unique_ptr<lb::Policy> Make(const std::string& name,
                                     const PolicyOptions& options,
                                     uint32_t nPorts,
                                     std::string* error);

    std::unique_ptr<lb::Policy> m_main;
    std::unique_ptr<lb::Policy> m_fallback;
    lb::TensorAwareV1* m_tensorAware{nullptr};
    std::unique_ptr<lb::SplitMixRandom> m_random;
    std::unique_ptr<lb::SplitMixRandom> m_fallbackRandom;
};

} // namespace talb

#endif /* TALB_SWITCH_POLICY_H */
