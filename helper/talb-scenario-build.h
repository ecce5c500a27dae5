#ifndef TALB_SCENARIO_BUILD_H
#define TALB_SCENARIO_BUILD_H

#include "ns3/talb-balancer-spec.h"
#include "ns3/talb-graph-job-helper.h"
#include "ns3/talb-graph-job.h"
#include "ns3/talb-ideal-fct.h"
#include "ns3/talb-job-rank-link.h"
#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-output-writer.h"
#include "ns3/talb-scenario-report.h"
#include "ns3/talb-scenario-spec.h"
#include "ns3/talb-training-job.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief What one run of TalbScenario builds (the third stage), kept alive until it has been
 * simulated: the ns-3 defaults, the fabric with one load balancer, the outputs, the jobs on
 * their hosts and the background traffic, all traced into the collector. Call the stages in
 * their order.
 */
class TalbScenarioBuild
{
  public:
    /// \param spec the scenario (outlives this)
    explicit TalbScenarioBuild(const TalbScenarioSpec& spec);

    /// Stage 3a: the RNG run and the ns-3 defaults of the hosts, ports and RDMA transport.
    void ConfigureDefaults() const;
    /// Stage 3b: the fabric with load balancer \p lb, installed, random streams assigned.
    void BuildFabric(const TalbBalancerSpec& lb);
    /// Stage 3c: the outputs in \p folder, scheme column \p scheme, with the flows' ideal FCT.
    void OpenOutputs(const std::string& folder, const std::string& scheme);
    /// Stage 3d: the training jobs (data-parallel and graph jobs), placed on the hosts, traced
    /// into the outputs.
    void InstallJobs();
    /// Stage 3e: background traffic on every host, and the hosts' received-packet counter.
    void InstallBackground();

    /// \return the fabric host indices of every job of \p spec, as its placement says
    static std::vector<std::vector<uint32_t>> PlaceJobs(const TalbScenarioSpec& spec);
    /**
     * \return the helper that installs graph job \p j of \p spec on the hosts PlaceJobs() gives
     * it, in the fabric's servers: NICs at hostRate, intra-server links at nvlinkRate on GPU
     * servers (hostRate otherwise; unused there)
     */
    static TalbGraphJobHelper MakeGraphHelper(const TalbScenarioSpec& spec, uint32_t j);

    Ptr<TalbLeafSpineHelper> GetFabric() const;
    Ptr<TalbOutputWriter> GetWriter() const;
    const TalbScenarioCollector& GetCollector() const;
    /// \return this rank's data-parallel jobs
    const std::vector<Ptr<TalbTrainingJob>>& GetJobs() const;
    /// \return this rank's graph jobs (LLM and benchmark jobs)
    const std::vector<Ptr<TalbGraphJob>>& GetGraphJobs() const;

  private:
    /// Graph job \p j on its \p hosts (ranks placed by TalbGraphJobHelper::PlaceRanks()).
    void InstallGraphJob(uint32_t j, const NodeContainer& hosts);

    const TalbScenarioSpec& m_spec;
    std::unique_ptr<TalbJobRankLink> m_rankLink; //!< jobs across ranks only
    Ptr<TalbLeafSpineHelper> m_fabric;
    Ptr<TalbOutputWriter> m_writer;
    TalbScenarioCollector m_collector;
    std::unique_ptr<TalbIdealFct> m_ideal;      //!< the writer's ideal FCTs
    std::vector<Ptr<TalbTrainingJob>> m_jobs;   //!< this rank's jobs
    std::vector<Ptr<TalbGraphJob>> m_graphJobs; //!< this rank's graph jobs
    int64_t m_stream{0};                        //!< next free RNG stream (background's)
    /// The first RNG stream of the background flows, the same for every balancer.
    static constexpr int64_t kBackgroundStreams = int64_t(1) << 24;
};

} // namespace ns3

#endif /* TALB_SCENARIO_BUILD_H */
