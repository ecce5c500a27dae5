#ifndef TALB_SCENARIO_H
#define TALB_SCENARIO_H

#include "ns3/nstime.h"
#include "ns3/talb-scenario-config.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb
 * \brief One talb experiment end to end: a leaf-spine fabric (TalbLeafSpineHelper), training
 * jobs (TalbTrainingJobHelper), background traffic (TalbBackgroundTrafficHelper) and the three
 * CSV outputs plus run.json (TalbOutputWriter), run once per load balancer.
 *
 * The parameters are declared once in DeclareParameters() (the runner's --help lists them) and
 * checked by Validate() before anything is built, so a bad scenario fails with a message, not
 * mid-simulation. Run() builds, simulates and tears down one run; several runs can follow each
 * other in one process.
 */
class TalbScenario
{
  public:
    /// One training job of the "jobs" parameter.
    struct JobSpec
    {
        std::string model; //!< empty: the "model" parameter
        uint32_t workers{8};
        std::string scheduler{"fusion"};
        std::string collective{"ring"};
        uint32_t iterations{0}; //!< 0: the "iterations" parameter
        uint32_t batch{0};      //!< 0: the "batch" parameter
        std::string device;     //!< empty: the "device" parameter
        std::string precision;  //!< empty: the "precision" parameter
        Time start;
        std::vector<std::pair<std::string, std::string>> schedulerAttributes;  //!< sched.X=v
        std::vector<std::pair<std::string, std::string>> collectiveAttributes; //!< coll.X=v
    };

    /// What a run measured, for the comparison table (the CSVs hold everything).
    struct Result
    {
        std::string scheme;
        std::string outDir;
        bool interrupted{false}; //!< stopped by SIGINT/SIGTERM (outputs hold what was measured)
        uint64_t tensorFlows{0};
        uint64_t backgroundFlows{0};
        double tensorAvgFctUs{0};
        double tensorP99FctUs{0};
        double backgroundAvgFctUs{0};
        double backgroundP99FctUs{0};
        double highPrioAvgFctUs{0}; //!< tensor messages of priority 0-1
        uint64_t iterationsDone{0}; //!< (job, worker, iteration) records
        uint64_t iterationsExpected{0};
        double meanIterationMs{0};    //!< mean over (job, iteration >= warm-up) of max over workers
        uint64_t deliveredPackets{0}; //!< packets received by host NICs
        uint64_t events{0};           //!< simulator events executed
        uint64_t packetHops{0};       //!< link transmissions started, hosts and switches
        double simSeconds{0};
        double wallSeconds{0};    //!< the whole run: build, simulate, tear down
        double runWallSeconds{0}; //!< Simulator::Run() alone
        double runCpuSeconds{0};  //!< CPU time of this process during Simulator::Run()
    };

    /// Declare every scenario parameter with its default and help.
    static void DeclareParameters(TalbScenarioConfig& config);

    /**
     * Check everything that can be checked before simulating: names of models, load balancers,
     * schedulers and collectives, the jobs fit on the hosts, link indices, files exist.
     * \return one message per problem (empty: valid)
     */
    static std::vector<std::string> Validate(const TalbScenarioConfig& config);

    /**
     * Parse the "jobs" parameter: jobs separated by ';', each a ','-separated list of
     * key=value (model, workers, scheduler, collective, iterations, batch, device, precision,
     * start, sched.<Attribute>, coll.<Attribute>).
     * \return an error message, or empty
     */
    static std::string ParseJobs(const std::string& text, std::vector<JobSpec>* jobs);

    /// The load balancers of the "lb" parameter (comma-separated), in order.
    static std::vector<std::string> LoadBalancers(const TalbScenarioConfig& config);

    /**
     * Build and simulate the scenario with load balancer \p lb, writing flows.csv,
     * tensors.csv, iterations.csv and run.json into \p outDir.
     */
    static Result Run(const TalbScenarioConfig& config,
                      const std::string& lb,
                      const std::string& outDir);

    /// Print the comparison table of \p results (first one is the baseline for ratios).
    /// \return whether a SIGINT/SIGTERM has stopped a run of this process
    static bool Interrupted();

    static void PrintTable(const std::vector<Result>& results, std::ostream& os);
};

} // namespace ns3

#endif /* TALB_SCENARIO_H */
