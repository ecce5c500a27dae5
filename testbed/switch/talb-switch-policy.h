/*
 * The switch's load balancer: one policy of the decision core (model/lb/core), chosen by name,
 * with its random source and, for TaLB, its fallback for unlabelled packets. Built once.
 *
 * The policies --lb can name are registered in one table (PolicyKinds()): a name, whether the
 * policy may serve as TaLB's fallback, a maker that configures it from PolicyOptions and an
 * optional report of its table statistics. Their settings are the flags of the policies'
 * settings tables (the simulator's attributes; talb-switch-flags.h), each filling its Config in
 * PolicyOptions. PolicySet looks the name up; it knows no policy.
 */
#ifndef TALB_SWITCH_POLICY_H
#define TALB_SWITCH_POLICY_H

#include "ns3/talb-lb-core-drill.h"
#include "ns3/talb-lb-core-ecmp.h"
#include "ns3/talb-lb-core-eecmp.h"
#include "ns3/talb-lb-core-hermes.h"
#include "ns3/talb-lb-core-letflow.h"
#include "ns3/talb-lb-core-pin.h"
#include "ns3/talb-lb-core-presto.h"
#include "ns3/talb-lb-core-random.h"
#include "ns3/talb-lb-core-tensor-aware-config.h"

#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace talb
{

struct PolicyOptions
{
    std::string name = "ecmp";      ///< a PolicyKinds() name
    std::string fallback = "drill"; ///< TaLB's policy for unlabelled packets (the simulator's)
    /// TaLB's policy for unlabelled go-back-N (RoCEv2) data; "none": fallback's (the simulator's)
    std::string goBackNFallback = "letflow";
    uint64_t seed = 1;     ///< of the random source
    uint32_t switchId = 0; ///< ECMP's salt derives from it (decorrelates switches)
    /// ecmp's and eecmp's salt (0: derived from switchId); switchId: set when built
    lb::Ecmp::Config ecmp;
    lb::LetFlow::Config letflow;
    lb::Drill::Config drill;
    lb::Presto::Config presto;
    lb::Hermes::Config hermes; ///< its ports' paths and rates: set when built
    /// --lb=talb runs talb.v2 (untaggedPriority: set by the pipeline to the band it queues
    /// untagged data in), --lb=talb-v1 talb.v1
    lb::TensorAwareConfig talb;
};

/// What a policy's maker gets besides the options.
struct PolicyContext
{
    uint32_t nPorts{0};                    ///< port ids are below it
    const lb::PortView* ports{nullptr};    ///< the ports (their rates are known)
    const lb::RemoteView* remote{nullptr}; ///< path sensing for Hermes (null: none)
    lb::Policy* fallback{nullptr};         ///< built and bound, for kinds that need one
    lb::Policy* goBackNFallback{nullptr};  ///< the same for go-back-N data (null: fallback)
};

/// One load balancer --lb can name.
struct PolicyKind
{
    const char* name;
    /// may choose for TaLB's unlabelled packets (no per-tensor state)
    bool canBeFallback;
    /// hands unlabelled packets to the --fallback policy
    bool needsFallback;
    /// \return the configured policy, or nullptr with *error saying what is wrong
    std::unique_ptr<lb::Policy> (*make)(const PolicyOptions& options,
                                        const PolicyContext& context,
                                        std::string* error);
    /// \return a line of the policy's table statistics at \p nowNs (null: it has none)
    std::string (*report)(const lb::Policy& policy, int64_t nowNs);
    /// reads the destination host's port under its leaf: every route with several ports must
    /// name it (hostport=N)
    bool needsHostPort{false};
};

/// \return the load balancers --lb accepts, in the order --help lists them
const std::vector<PolicyKind>& PolicyKinds();

/// \return the kind named \p name, or nullptr
const PolicyKind* FindPolicyKind(const std::string& name);

/// \return the names, comma-separated ("ecmp, rps, ..."); \p fallbacks: only those that can be
/// TaLB's fallback
std::string PolicyNames(bool fallbacks = false);

/**
 * Parses \p name = \p value when \p name is a flag of a policy's settings (--drill-samples,
 * --talb-max-reorder, ...) into its Config in \p options.
 * \return false when \p name is no such flag; true with \p *ok false and *error naming the flag
 * when the value is refused
 */
bool ParsePolicyFlag(const std::string& name,
                     const std::string& value,
                     PolicyOptions* options,
                     bool* ok,
                     std::string* error);

/// Writes the --help entries of the policies' flags, under a heading per policy.
void WritePolicyFlagsUsage(std::ostream& os);

/**
 * Checks what the flags' ranges cannot: values that must agree with each other.
 * \return false with *error naming the flags at fault
 */
bool CheckPolicyOptions(const PolicyOptions& options, std::string* error);

class PolicySet
{
  public:
    /**
     * Builds the policy named by \p options (and its fallback) and binds it to \p ports and
     * \p events.
     * \param nPorts the switch's port count
     * \param remote Hermes's path sensing (outlives the policy; may be null)
     * \return false with *error naming the option at fault
     */
    bool Build(const PolicyOptions& options,
               uint32_t nPorts,
               const lb::PortView* ports,
               const lb::RemoteView* remote,
               lb::Events* events,
               std::string* error);

    /// \return the policy that decides (Build() succeeded)
    lb::Policy& Main()
    {
        return *m_main;
    }

    /// \return the policy that decides (Build() succeeded)
    const lb::Policy& Main() const
    {
        return *m_main;
    }

    /// \return the deciding policy's table statistics at \p nowNs ("" when it keeps none)
    std::string Report(int64_t nowNs) const;

  private:
    /// \return the fallback kind \p name built (not bound), or nullptr with *error naming
    /// \p option
    static std::unique_ptr<lb::Policy> MakeFallback(const char* option,
                                                    const std::string& name,
                                                    const PolicyOptions& options,
                                                    const PolicyContext& context,
                                                    std::string* error);

    std::unique_ptr<lb::Policy> m_main;
    std::unique_ptr<lb::Policy> m_fallback;
    std::unique_ptr<lb::Policy> m_goBackNFallback;
    const PolicyKind* m_kind{nullptr};
    std::unique_ptr<lb::SplitMixRandom> m_random;
    std::unique_ptr<lb::SplitMixRandom> m_fallbackRandom;
    std::unique_ptr<lb::SplitMixRandom> m_goBackNRandom;
};

} // namespace talb

#endif /* TALB_SWITCH_POLICY_H */
