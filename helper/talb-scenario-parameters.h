#ifndef TALB_SCENARIO_PARAMETERS_H
#define TALB_SCENARIO_PARAMETERS_H

#include "ns3/talb-scenario-config.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Every scenario parameter of the talb programs, declared once: its name, kind,
 * default, range and help (the first stage of TalbScenario).
 *
 * talb-scenario declares them all; talb-leaf-spine, talb-training and talb-sim-bench declare
 * the groups or names they use through the same functions, so a name has the same meaning and
 * default in every program. The groups, in declaration order (talb-scenario's --help and
 * run.json list them in this order):
 *  - FABRIC: leaves, spines and hosts, link rates and delay, MTU, GPU servers and rails,
 *    port queues, asymmetric, failing and flapping links, stock routing (TalbFabricSpec);
 *  - BALANCERS: the load balancers and their attributes (TalbBalancerSpec);
 *  - HOSTS: the hosts' TCP and NIC queueing (TalbFabricSpec);
 *  - TRANSPORT: the jobs' transport and the RDMA transport's defaults;
 *  - TRAINING: the jobs and the defaults of their keys (TalbJobSpec);
 *  - BACKGROUND: background load and flow sizes;
 *  - RUN: seed, simulated time and outputs.
 */
class TalbScenarioParameters
{
  public:
    /// A group of parameters (see the class description).
    enum Group
    {
        FABRIC,
        BALANCERS,
        HOSTS,
        TRANSPORT,
        TRAINING,
        BACKGROUND,
        RUN
    };

    /// Declares every scenario parameter, group by group.
    static void Declare(TalbScenarioConfig& config);
    /// Declares the parameters of \p group.
    static void Declare(TalbScenarioConfig& config, Group group);
    /// Declares the parameters \p names, each as Declare(config) declares it.
    static void Declare(TalbScenarioConfig& config, const std::vector<std::string>& names);
};

} // namespace ns3

#endif /* TALB_SCENARIO_PARAMETERS_H */
