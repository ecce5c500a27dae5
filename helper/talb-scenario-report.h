#ifndef TALB_SCENARIO_REPORT_H
#define TALB_SCENARIO_REPORT_H

#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/talb-collective-summary.h"
#include "ns3/talb-flow-record.h"
#include "ns3/talb-output-writer.h"
#include "ns3/talb-scenario-spec.h"
#include "ns3/talb-training-records.h"

#include <array>
#include <functional>
#include <map>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief What a run of TalbScenario measured, for the comparison table (the CSVs hold
 * everything).
 */
struct TalbScenarioResult
{
    /// A job's ideal iteration (TalbTrainingJobHelper::ComputeIdealIteration) and what it got.
    struct JobIdeal
    {
        bool known{false};         //!< the collective gives an analytic bound
        double iterationMs{0};     //!< ideal mean iteration, iterations >= warm-up
        double computeMs{0};       //!< forward + backward compute of one iteration
        double communicationMs{0}; //!< the collective's analytic time for one iteration's ops
        double measuredMs{0};      //!< measured mean iteration (max over workers), >= warm-up
        /// LLM jobs: per rank, one iteration's bytes per class (talb::graph::LlmAnalyticBytes):
        /// tensor, expert, pipeline, data
        std::vector<std::array<uint64_t, 4>> analyticBytes;
    };

    std::string scheme;
    std::string outDir;
    bool interrupted{false}; //!< stopped by SIGINT/SIGTERM (outputs hold what was measured)
    std::string outputError; //!< run.json could not be written: the file and why (else empty)
    uint64_t tensorFlows{0};
    uint64_t backgroundFlows{0};
    double tensorAvgFctUs{0};
    double tensorP99FctUs{0};
    double backgroundAvgFctUs{0};
    double backgroundP99FctUs{0};
    double allAvgFctUs{0};          //!< every flow: tensor messages and background flows
    double highPrioAvgFctUs{0};     //!< tensor messages of priority 0-1
    uint64_t highPrioFlows{0};      //!< tensor messages of priority 0-1
    bool background{false};         //!< bgLoad > 0: background flows were asked for
    uint64_t iterationsDone{0};     //!< worker-iterations: (job, worker, iteration) records
    uint64_t iterationsExpected{0}; //!< worker-iterations the jobs were asked for
    uint64_t flowsExpected{0};      //!< flowFile's flows, or the drain's started flows
    uint64_t backgroundFinished{0}; //!< background flows finished, counted or not
    bool drained{false};            //!< bgArrivals: the run waited for the background
    double meanIterationMs{0};      //!< mean over (job, iteration >= warm-up) of max over workers
    double idealIterationMs{0};     //!< the jobs' ideals over the same pairs; 0: unknown
    std::vector<JobIdeal> ideals;   //!< per job
    uint64_t deliveredPackets{0};   //!< packets received by host NICs
    uint64_t events{0};             //!< simulator events executed
    uint64_t packetHops{0};         //!< link transmissions started, hosts and switches
    uint64_t remotePacketHops{0};   //!< of those, onto links to another rank (distributed)
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
    /// Graph jobs: completion time per collective type.
    TalbCollectiveSummary collectives;
    /// Counted background flows: (bytes, slowdown) (this process's, in distributed runs).
    std::vector<std::pair<uint64_t, double>> backgroundSlowdowns;

    /// \return whether every worker-iteration and every flow-file flow asked for finished
    bool Finished() const;
    /// \return what finished of what was asked, e.g. "3 of 4 worker-iterations"
    std::string Progress() const;
};

/**
 * \ingroup talb-helper
 * \brief Collects what the comparison table needs while the writer streams the CSVs, and
 * stops the simulation once every worker of every job is done.
 */
struct TalbScenarioCollector
{
    std::vector<double> tensorFct;
    std::vector<double> highPrioFct;
    std::vector<double> backgroundFct;
    std::map<std::pair<uint32_t, uint32_t>, double> iterationMax; //!< (job, iteration) → s
    uint64_t iterations{0};
    uint64_t expected{0};
    uint64_t delivered{0};
    bool stopWhenDone{true};        //!< stop the simulation once every worker finished
    uint64_t expectedHere{0};       //!< worker-iterations of this rank's jobs
    uint64_t backgroundExpected{0}; //!< flow-file flows to wait for (0: background not waited for)
    Time bgArrivalsEnd;             //!< arrivals stop here, then drain (zero: no drain)
    Time bgWarmup;                  //!< background flows that start earlier are not counted
    uint64_t backgroundStarted{0};  //!< background flows started (drain)
    uint64_t backgroundDone{0};     //!< background flows finished, counted or not
    /// Counted background flows: (bytes, FCT / ideal FCT), for the slowdown table.
    std::vector<std::pair<uint64_t, double>> backgroundSlowdowns;
    /// The ideal FCT of a flow (the writer's), for the slowdowns; empty: none kept.
    std::function<Time(const TalbFlowRecord&)> idealFct;
    uint64_t iterationsHere{0};
    /// After the last iteration: the jobs' last reports take effect within their controlDelay.
    Time settle;
    Time lastEnd; //!< the latest iteration end here
    /// Graph jobs' collectives (a sink: TalbCollectiveSummary::Add).
    TalbCollectiveSummary collectives;

    bool stopping{false}; //!< the stop is scheduled

    /// \return whether this rank's workers are done and their reports have taken effect
    bool DoneHere() const;
    /**
     * Stops the simulation once every worker of every job is done and every message they sent
     * is complete (its last byte acknowledged: its flow record written), and every flow of a
     * flow file is done.
     */
    void StopWhenDone();
    /// Trace sink of a job's or the background's FlowDone.
    void Flow(const TalbFlowRecord& r);
    /// Trace sink of the background's FlowStarted.
    void BackgroundStarted(const TalbFlowRecord& r);
    /// \return false while the background drains (bgArrivalsEnd not reached or flows left)
    bool Drained() const;
    /// Trace sink of a job's IterationDone.
    void Iteration(const TalbIterationRecord& r);
    /// Trace sink of a host device's MacRx.
    void Rx(Ptr<const Packet> p);
};

/**
 * \ingroup talb-helper
 * \brief The last stage of TalbScenario: what a run measured, against its jobs' ideals, as
 * the comparison table and run.json's figures.
 */
class TalbScenarioReport
{
  public:
    /**
     * Each job's ideal iteration on an idle non-blocking fabric of host links, into \p r: the
     * scheduler's replay for data-parallel jobs, the graph's ideal replay for graph jobs.
     */
    static void ComputeIdeals(const TalbScenarioSpec& spec, TalbScenarioResult* r);
    /**
     * \return graph job \p job's ideal (talb::graph::IdealReplay): the mean over iterations >=
     * warm-up; compute is the busiest rank's compute stream in one iteration, communication the
     * rest of the ideal iteration
     */
    static TalbScenarioResult::JobIdeal GraphJobIdeal(const TalbScenarioSpec& spec, uint32_t job);

    /**
     * The comparison table's figures from what \p c saw (distributed: gathered from every
     * rank), into \p r.
     */
    static void Summarize(const TalbScenarioSpec& spec,
                          const TalbScenarioCollector& c,
                          TalbScenarioResult* r);

    /// \return run.json's "jobs": per job, the ideal and (once measured) the mean iteration
    static std::string JobsJson(const TalbScenarioResult& r);

    /// Slowdown statistics of the counted background flows of one size bucket.
    struct SlowdownBucket
    {
        uint64_t maxBytes{0}; //!< flows of at most this many bytes (UINT64_MAX: the rest)
        uint64_t flows{0};
        double avg{0};
        double p50{0};
        double p99{0};
    };

    /**
     * The background slowdowns by flow size, as HPCC's and ConWeave's analysis scripts report
     * them: buckets up to 10 KB, 100 KB, 1 MB, 10 MB and above; each slowdown clamped at 1.
     */
    static std::vector<SlowdownBucket> SlowdownBuckets(
        const std::vector<std::pair<uint64_t, double>>& slowdowns);

    /// \return run.json of a run of \p spec with \p lb as it starts (marked incomplete)
    static TalbOutputWriter::RunInfo StartRunInfo(const TalbScenarioSpec& spec,
                                                  const std::string& lb,
                                                  const TalbScenarioResult& r);
    /// Completes \p info with what the run measured.
    static void FinishRunInfo(const TalbScenarioSpec& spec,
                              const TalbScenarioResult& r,
                              TalbOutputWriter::RunInfo* info);

    /// Print the comparison table of \p results (first one is the baseline for ratios), and
    /// the legend under it.
    static void PrintTable(const std::vector<TalbScenarioResult>& results, std::ostream& os);

    /// \return what each column of the table is, as printed under it and in --help
    static std::string Legend();

    /**
     * \return what the table of a run of \p spec will leave out, said before it runs: jobs
     * whose iterations all fall in the warm-up (no iteration time, ideal or speedup)
     */
    static std::vector<std::string> Warnings(const TalbScenarioSpec& spec);

    /**
     * \return what \p r's own counters say about the balancer's set-up, said after it ran:
     * TaLB flows that found every flow slot of their port held by other live flows (the
     * port's flow count saturated, so a larger FlowSlots could change the decisions)
     */
    static std::vector<std::string> RunWarnings(const TalbScenarioResult& r);

    /**
     * \return whether \p r's jobs did not finish because the run reached stopTime (the safety
     * limit), not a shorter duration the user asked for: the run failed to do what it was asked
     */
    static bool CutByStopTime(const TalbScenarioSpec& spec, const TalbScenarioResult& r);
};

} // namespace ns3

#endif /* TALB_SCENARIO_REPORT_H */
