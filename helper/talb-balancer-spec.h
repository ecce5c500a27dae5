#ifndef TALB_BALANCER_SPEC_H
#define TALB_BALANCER_SPEC_H

#include "ns3/object-factory.h"
#include "ns3/talb-attribute-list.h"
#include "ns3/talb-fabric-spec.h"
#include "ns3/talb-scenario-config.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief One load balancer of the "lb" parameter: its name, resolved once into a checked
 * factory that every switch of a run builds its balancer from.
 */
struct TalbBalancerSpec
{
    std::string name;      //!< as given in lb (the scheme column's value)
    ObjectFactory factory; //!< its TypeId, lbProfile's attributes, then lbAttributes' it has

    /**
     * The hosts' transport as far as lbProfile=transport asks: named fields rather than
     * positional flags, since each adds settings of its own.
     */
    struct HostTransport
    {
        bool rdma{false};            //!< RoCEv2 NICs (else TCP)
        bool selectiveRepeat{false}; //!< the NICs recover by selective repeat (else go-back-N)
        bool qpPorts{false}; //!< connections spread over queue pairs with source ports of their own
        bool hostsSpray{false}; //!< the hosts spray every packet over paths (selective repeat)

        static HostTransport Tcp();
        static HostTransport GoBackN();         //!< RoCEv2, one queue pair a connection
        static HostTransport SelectiveRepeat(); //!< RoCEv2 with rdmaRecovery=sr
        static HostTransport Spray();           //!< the spraying transport (REPS hosts)
    };

    /// The jobs as far as lbProfile=transport asks.
    struct Jobs
    {
        /// a job is an LLM job: the generator's, an AICB workload or a Chakra trace
        bool llm{false};
    };

    /**
     * \return the settings lbProfile=transport applies under lbAttributes for \p hosts carrying
     * \p jobs. Why these: doc/talb-switch.rst, "Moves by congestion" (RoCEv2) and "Spreading
     * under contention" (TCP), with the measurements in doc/talb-evaluation.rst, and
     * doc/talb-transport.rst for selective repeat.
     */
    static TalbAttributeList::Pairs TransportProfile(const HostTransport& hosts, const Jobs& jobs);

    /**
     * Reads the BALANCERS parameters of \p config for a fabric like \p fabric (its leaves,
     * spines and transport): one checked factory per name of lb. An lbAttributes value applies
     * to the balancers that have the attribute, so one value can serve a comparison; each must
     * belong to one of them. Each balancer is then asked whether its settings go together on a
     * leaf, as its switches will ask. Each problem is one message appended to \p errors.
     * \param profile set to what lbProfile applies
     * \param jobs what lbProfile=transport asks of the jobs the balancers will carry
     */
    static std::vector<TalbBalancerSpec> ParseList(const TalbScenarioConfig& config,
                                                   const TalbFabricSpec& fabric,
                                                   TalbAttributeList::Pairs* profile,
                                                   std::vector<std::string>* errors,
                                                   const Jobs& jobs);
};

} // namespace ns3

#endif /* TALB_BALANCER_SPEC_H */
