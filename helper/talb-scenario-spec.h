#ifndef TALB_SCENARIO_SPEC_H
#define TALB_SCENARIO_SPEC_H

#include "ns3/nstime.h"
#include "ns3/talb-attribute-list.h"
#include "ns3/talb-balancer-spec.h"
#include "ns3/talb-fabric-spec.h"
#include "ns3/talb-flow-size-cdf.h"
#include "ns3/talb-hpcc-inputs.h"
#include "ns3/talb-job-spec.h"
#include "ns3/talb-scenario-config.h"

#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief A scenario, parsed once from its checked parameters (the second stage of
 * TalbScenario): what TalbScenario::Run() builds.
 *
 * Parse() checks everything that can be checked before simulating (models are loaded, plug-in
 * names resolved into checked factories, the jobs fit on the hosts, links exist, files are
 * read) and reports every problem with what was wrong; talb-scenario then exits 2.
 */
struct TalbScenarioSpec
{
    TalbFabricSpec fabric;
    // Routing and transport
    std::vector<TalbBalancerSpec> balancers;      //!< one run each
    TalbAttributeList::Pairs lbProfileAttributes; //!< what lbProfile applies under lbAttributes
    std::string rdmaQueuePairs;                   //!< TalbRdmaTransport QueuePairs (its enum name)
    std::string rdmaTrafficClass;                 //!< "tensor", or a fixed class 0..7
    std::string entropyPolicy;                    //!< RDMA NICs' EntropyPolicy (spray)
    bool rdmaPfc{true};                           //!< PFC on an RDMA fabric's switches
    std::string rdmaRateControl{"dcqcn"};         //!< RDMA NICs' RateControl (registry name)
    /// TalbRdmaTransport's attributes of queue-pair scaling and PLB (Name, value as text)
    TalbAttributeList::Pairs rdmaPathAttributes;
    /// TalbTcpTransport's attributes of PLB (Name, value as text)
    TalbAttributeList::Pairs tcpPathAttributes;
    // Training
    std::vector<TalbJobSpec> jobs;
    std::string placement;
    uint32_t warmup{0};
    Time controlDelay; //!< every job's ControlDelay
    // Background
    double bgLoad{0};
    TalbFlowSizeCdf bgCdf;           //!< the flow sizes, loaded once (bgLoad > 0)
    Time bgArrivals;                 //!< arrivals stop here and the run drains; zero: no drain
    Time bgWarmup;                   //!< background flows starting earlier are not counted
    std::vector<TalbHpccFlow> flows; //!< flowFile's flows (then bgLoad is 0)
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
    bool distributed{false}; //!< one of several MPI processes (see TalbScenario::Run())
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

    /**
     * Replaces this spec with the one \p config describes (every TalbScenarioParameters
     * parameter declared), checking everything that can be checked before simulating.
     * \return false, with one message per problem in \p errors (cleared first)
     */
    bool Parse(const TalbScenarioConfig& config, std::vector<std::string>* errors);

    /**
     * Checks that this spec can be split over \c ranks processes: at most one rank per leaf,
     * TCP hosts with TalbSwitch forwarding, one load balancer, and every job over ranks a ring
     * whose reports can cross between them (controlDelay, spines).
     * \return one message per problem (empty: it can)
     */
    std::vector<std::string> CheckPartition() const;

  private:
    /// The jobs, with every default filled in, and whether they fit on the hosts.
    void ParseTraining(const TalbScenarioConfig& config, std::vector<std::string>* errors);
    /// Background traffic and the run's limits and outputs.
    /// The RDMA NICs' recovery and spraying, and the switches' PFC (\p spray: transport spray).
    void ParseRdma(const TalbScenarioConfig& c, bool spray, std::vector<std::string>* errors);
    void ParseRun(const TalbScenarioConfig& config, std::vector<std::string>* errors);
};

} // namespace ns3

#endif /* TALB_SCENARIO_SPEC_H */
