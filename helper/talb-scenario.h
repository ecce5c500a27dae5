#ifndef TALB_SCENARIO_H
#define TALB_SCENARIO_H

#include "ns3/talb-balancer-spec.h"
#include "ns3/talb-scenario-report.h"
#include "ns3/talb-scenario-spec.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief One talb experiment end to end: a leaf-spine fabric (TalbLeafSpineHelper), training
 * jobs (TalbTrainingJobHelper), background traffic (TalbBackgroundTrafficHelper) and the three
 * CSV outputs plus run.json (TalbOutputWriter), run once per load balancer.
 *
 * In stages, each in files of its own name:
 *  1. parameters (TalbScenarioParameters): every parameter declared once, with its kind,
 *     default, range and help; the runner's --help lists them and each value is parsed and
 *     checked against its declaration when it is set (TalbScenarioConfig).
 *  2. spec (TalbScenarioSpec::Parse): the checked parameters become a typed spec (the fabric,
 *     TalbFabricSpec; the load balancers as checked factories, TalbBalancerSpec; the jobs with
 *     their models loaded, TalbJobSpec; the background's flow sizes); everything that can be
 *     checked before simulating is, and every problem is reported (the runner exits 2).
 *  3. build (TalbScenarioBuild), per load balancer: the ns-3 defaults, the fabric, the jobs,
 *     background and outputs;
 *  4. run (Run() here): simulate until the jobs are done, a time limit or a signal;
 *  5. report (TalbScenarioCounters, TalbScenarioReport): the counters, the comparison table
 *     and run.json.
 * Runs can follow each other in one process.
 */
class TalbScenario
{
  public:
    /// What a run measured.
    typedef TalbScenarioResult Result;

    /**
     * Build and simulate \p spec with load balancer \p lb (one of spec.balancers), writing
     * flows.csv, tensors.csv, iterations.csv and run.json into \p outDir.
     *
     * Distributed (spec.distributed): every rank builds the whole fabric, partitioned as
     * TalbLeafSpineHelper's Ranks attribute says, and installs only the jobs on its own hosts;
     * each rank writes its rows into outDir/rank-R, which rank 0 merges into outDir (rows of
     * rank 0, then rank 1, ...) and removes. Every rank stops at the same simulated time: at
     * duration or stopTime, or at the second check (allRanksDone, every 100 us of simulated
     * time or two link delays) after every rank's jobs have finished. The Result holds every rank's
     * figures (counters summed, CPU summed, wall of this rank).
     */
    static Result Run(const TalbScenarioSpec& spec,
                      const TalbBalancerSpec& lb,
                      const std::string& outDir);

    /// \return whether a SIGINT/SIGTERM has stopped a run of this process
    static bool Interrupted();
};

} // namespace ns3

#endif /* TALB_SCENARIO_H */
