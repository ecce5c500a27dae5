#ifndef TALB_SCENARIO_H
#define TALB_SCENARIO_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-output-writer.h"
#include "ns3/talb-scenario-config.h"

#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief One talb experiment end to end: a leaf-spine fabric (TalbLeafSpineHelper), training
 * jobs (TalbTrainingJobHelper), background traffic (TalbBackgroundTrafficHelper) and the three
 * CSV outputs plus run.json (TalbOutputWriter), run once per load balancer.
 *
 * In stages:
 *  1. DeclareParameters(): every parameter once, with its kind, default, range and help; the
 *     runner's --help lists them and each value is checked against its declaration when set.
 *  2. Parse(): the checked parameters become a typed Spec (link-rate overrides, failures, jobs
 *     with their models loaded, plug-in names resolved); everything that can be checked before
 *     simulating is, and every problem is reported with what was wrong (the runner exits 2).
 *  3. Run(), per load balancer: configure the ns-3 defaults, build the fabric, install the
 *     traffic (jobs, background, outputs), simulate, summarise, write run.json. Runs can follow
 *     each other in one process.
 */
class TalbScenario
{
  public:
    /// One training job of the "jobs" parameter, every default filled in.
    struct JobSpec
    {
        std::string modelName; //!< as written: a zoo name or PATH[#MODEL]
        TalbDnnModel model;    //!< the model, loaded by Parse()
        uint32_t workers{8};
        std::string scheduler;  //!< a name of TalbCommScheduler::GetRegistry()
        std::string collective; //!< a name of TalbCollective::GetRegistry()
        std::string transport;  //!< a name of TalbTransport::GetRegistry()
        uint32_t iterations{0};
        uint32_t batch{0};
        std::string device;    //!< a TalbComputeModel preset
        std::string precision; //!< fp32 or fp16
        Time start;
        std::vector<std::pair<std::string, std::string>> schedulerAttributes;  //!< sched.X=v
        std::vector<std::pair<std::string, std::string>> collectiveAttributes; //!< coll.X=v
        std::vector<std::pair<std::string, std::string>> transportAttributes;  //!< trans.X=v
    };

    /// A scenario, parsed once: what Run() builds.
    struct Spec
    {
        // Fabric
        uint32_t leaves{0};
        uint32_t spines{0};
        uint32_t hostsPerLeaf{0};
        DataRate hostRate;
        DataRate fabricRate;
        double oversubscription{0}; //!< 0: use fabricRate
        Time linkDelay;
        uint32_t mtu{0};
        std::string queueSize; //!< empty: the helper's default
        std::string hostQueueSize;
        uint32_t untaggedBand{0};
        bool dwrr{true};              //!< port queues: DWRR classes (false: strict bands)
        uint32_t trainingWeight{1};   //!< DWRR weight of the training class
        uint32_t bestEffortWeight{1}; //!< DWRR weight of the best-effort class
        uint32_t bestEffortBuffer{0}; //!< bytes best effort may hold per switch port (0: all)
        std::string ecnThreshold;     //!< empty: the helper's default
        std::vector<TalbLeafSpineHelper::LinkRate> linkRates;
        std::vector<TalbLeafSpineHelper::LinkFailure> linkFailures;
        std::vector<TalbLeafSpineHelper::LinkFlap> linkFlaps;
        bool stockRouting{false};
        // Routing and transport
        std::vector<std::string> lbs;
        std::vector<std::pair<std::string, std::string>> lbAttributes;
        /// lbProfile's attributes for the transport, applied before lbAttributes
        std::vector<std::pair<std::string, std::string>> lbProfileAttributes;
        std::string tcpVariant;       //!< TypeId name of the hosts' TCP congestion control
        uint32_t sndBuf{0};           //!< hosts' TCP send buffer, bytes (TalbHostConfig)
        uint32_t rcvBuf{0};           //!< hosts' TCP receive buffer, bytes (TalbHostConfig)
        std::string hostQdisc;        //!< hosts' NIC queueing, fifo or fq (TalbHostConfig Qdisc)
        bool rdmaHosts{false};        //!< transport rdma: hosts with RoCEv2 NICs, PFC switches
        std::string rdmaQueuePairs;   //!< TalbRdmaTransport QueuePairs (its enum name)
        std::string rdmaTrafficClass; //!< "tensor", or a fixed class 0..7
        // Training
        std::vector<JobSpec> jobs;
        std::string placement;
        uint32_t warmup{0};
        Time controlDelay; //!< every job's ControlDelay
        // Background
        double bgLoad{0};
        std::string bgCdfPath;
        // Run
        uint64_t seed{1};
        Time duration; //!< zero: until every job finished
        Time stopTime;
        bool progress{true};
        std::string out;
        std::string parametersJson; //!< every parameter, for run.json
        // Distributed run (ns-3's MPI simulator): set by the runner, not scenario parameters
        uint32_t ranks{1};       //!< processes the fabric is partitioned over
        uint32_t rank{0};        //!< this process's rank
        bool distributed{false}; //!< one of several MPI processes (see Run())
        /// Element-wise sum over the ranks, the result on every rank (distributed runs).
        std::function<void(std::vector<uint64_t>*)> sumOverRanks;
        /// Every rank's values in rank order, the result on every rank (distributed runs).
        std::function<void(std::vector<double>*)> gatherOverRanks;
        /**
         * Distributed runs: called by every rank at the same simulated times with whether its
         * own jobs have finished; returns whether every rank's had at the previous call (the
         * exchange overlaps one period, so no rank waits inside an event for another). With
         * \p last set (after the run) it only completes the exchange under way.
         */
        std::function<bool(bool localDone, bool last)> allRanksDone;
        /// Tests and tools: called once the fabric, jobs and traffic are built, just before the
        /// simulation runs (to connect trace sinks); not a scenario parameter.
        std::function<void()> onStart;
    };

    /// A job's ideal iteration (TalbTrainingJobHelper::ComputeIdealIteration) and what it got.
    struct JobIdeal
    {
        bool known{false};         //!< the collective gives an analytic bound
        double iterationMs{0};     //!< ideal mean iteration, iterations >= warm-up
        double computeMs{0};       //!< forward + backward compute of one iteration
        double communicationMs{0}; //!< the collective's analytic time for one iteration's ops
        double measuredMs{0};      //!< measured mean iteration (max over workers), >= warm-up
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
        double idealIterationMs{0};   //!< the jobs' ideals over the same pairs; 0: unknown
        std::vector<JobIdeal> ideals; //!< per job
        uint64_t deliveredPackets{0}; //!< packets received by host NICs
        uint64_t events{0};           //!< simulator events executed
        uint64_t packetHops{0};       //!< link transmissions started, hosts and switches
        uint64_t remotePacketHops{0}; //!< of those, onto links to another rank (distributed)
        double simSeconds{0};
        double wallSeconds{0};    //!< the whole run: build, simulate, tear down
        double runWallSeconds{0}; //!< Simulator::Run() alone
        double runCpuSeconds{0};  //!< CPU time of this process during Simulator::Run()

        /// Go-back-N counters of the hosts' queue pairs (rdma transport).
        TalbOutputWriter::RdmaCounters rdma;
        /// Retransmissions of the jobs' TCP senders (tcp transport).
        TalbOutputWriter::TcpCounters tcp;
        /// Path selections and reroutes of the switches' load balancers.
        TalbOutputWriter::LbCounters paths;
        /// The switches' per-class queue counters and PFC state (summed over every switch).
        TalbOutputWriter::SwitchCounters switches;
    };

    /// Declare every scenario parameter with its kind, default, range and help.
    static void DeclareParameters(TalbScenarioConfig& config);

    /**
     * Turn checked parameters into a Spec, checking everything that can be checked before
     * simulating: models (loaded here), plug-in names and their attributes, the jobs fit on the
     * hosts, link indices, files exist.
     * \return false, with one message per problem in \p errors
     */
    static bool Parse(const TalbScenarioConfig& config,
                      Spec* spec,
                      std::vector<std::string>* errors);
    /**
     * Check that \p spec can be split over spec.ranks processes: at most one rank per leaf, TCP
     * hosts with TalbSwitch forwarding, one load balancer, no background traffic, and every job
     * on the leaves of one rank (its collective keeps the state of all its workers in one
     * process).
     * \return one message per problem (empty: it can)
     */
    static std::vector<std::string> CheckPartition(const Spec& spec);

    /// Parse() for its messages only. \return one message per problem (empty: valid)
    static std::vector<std::string> Validate(const TalbScenarioConfig& config);

    /**
     * Parse the "jobs" text: jobs separated by ';', each a ','-separated list of key=value
     * (model, workers, scheduler, collective, transport, iterations, batch, device, precision,
     * start, sched.<Attribute>, coll.<Attribute>, trans.<Attribute>). Keys left out keep the
     * values \p defaults has; names and attributes are checked by Parse().
     * \return an error message, or empty
     */
    static std::string ParseJobs(const std::string& text,
                                 const JobSpec& defaults,
                                 std::vector<JobSpec>* jobs);

    /**
     * Build and simulate \p spec with load balancer \p lb, writing flows.csv, tensors.csv,
     * iterations.csv and run.json into \p outDir.
     *
     * Distributed (spec.distributed): every rank builds the whole fabric, partitioned as
     * TalbLeafSpineHelper's Ranks attribute says, and installs only the jobs on its own hosts;
     * each rank writes its rows into outDir/rank-R, which rank 0 merges into outDir (rows of
     * rank 0, then rank 1, ...) and removes. Every rank stops at the same simulated time: at
     * duration or stopTime, or at the second check (allRanksDone, every 100 us of simulated
     * time or two link delays) after every rank's jobs have finished. The Result holds every rank's
     * figures (counters summed, CPU summed, wall of this rank).
     */
    static Result Run(const Spec& spec, const std::string& lb, const std::string& outDir);

    /// \return whether a SIGINT/SIGTERM has stopped a run of this process
    static bool Interrupted();

    /// Print the comparison table of \p results (first one is the baseline for ratios).
    static void PrintTable(const std::vector<Result>& results, std::ostream& os);
};

} // namespace ns3

#endif /* TALB_SCENARIO_H */
