#ifndef TALB_BALANCER_RULES_H
#define TALB_BALANCER_RULES_H

#include "ns3/talb-attribute-list.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief A rule that TaLB's defaults turn on (its attribute defaults, or lbProfile=transport),
 * named so that the runner's lbRulesOff can turn it off and the evaluation's ablation can
 * measure what it buys (doc/talb-evaluation.rst, "Ablation").
 */
struct TalbBalancerRule
{
    const char* name;       //!< as lbRulesOff names it
    const char* off;        //!< the attributes that turn it off, Name=Value;...
    /// where the defaults have it on: "tcp", "tcp-llm" (TCP where a job is an LLM job), "rdma"
    /// (go-back-N NICs), "rdma-sr" (selective repeat: rdmaRecovery=sr or transport spray), or
    /// several, comma-separated
    const char* transports;
    const char* what;       //!< what the rule does, for --help

    /// \return every rule, in the order --help lists them
    static const std::vector<TalbBalancerRule>& All();

    /// \return the rule named \p name, or nullptr
    static const TalbBalancerRule* Find(const std::string& name);

    /// \return the rules as --help describes them: name (transports): what; off: attributes
    static std::string Describe();

    /**
     * Reads lbRulesOff's value \p text (rule names, comma-separated) into the attributes that
     * turn the rules off, appended to \p off. Each unknown, empty or repeated name is one message
     * in \p errors.
     */
    static void Parse(const std::string& text,
                      TalbAttributeList::Pairs* off,
                      std::vector<std::string>* errors);
};

} // namespace ns3

#endif /* TALB_BALANCER_RULES_H */
