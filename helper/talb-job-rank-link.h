#ifndef TALB_JOB_RANK_LINK_H
#define TALB_JOB_RANK_LINK_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-training-job.h"

#include <map>
#include <set>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Distributed runs: carries the reports of jobs whose workers span ranks
 * (TalbTrainingJob::SetReportCallback) to the job's copies on the other ranks, through ns-3's
 * MPI interface, arriving report time + delay (at least the lookahead).
 *
 * Each rank receives on an MpiReceiver aggregated to its first host's device, which is on a
 * local channel and so has none of its own. In a build without MPI, Add() is a fatal error.
 */
class TalbJobRankLink
{
  public:
    /**
     * \param fabric the installed, partitioned fabric
     * \param rank this process's rank
     * \param ranks the number of ranks
     * \param delay how long a report takes to reach the other ranks (the jobs' ControlDelay)
     */
    TalbJobRankLink(Ptr<TalbLeafSpineHelper> fabric, uint32_t rank, uint32_t ranks, Time delay);

    /// Connects this rank's copy \p job of job \p jobId, whose workers are on \p ranks, to its
    /// copies on the other ranks.
    void Add(uint32_t jobId, Ptr<TalbTrainingJob> job, const std::set<uint32_t>& ranks);

  private:
    /// A job report on the wire between ranks: job, kind, worker, iteration, item, time.
    static constexpr uint32_t REPORT_BYTES = 1 + 1 + 4 + 4 + 4 + 8;

    /// Sends report \p r of job \p jobId to the job's other ranks.
    void Send(uint32_t jobId, const TalbTrainingJob::Report& r);
    /// Applies a report from another rank to this rank's copy of its job.
    void Receive(Ptr<Packet> p);

    std::vector<std::pair<uint32_t, uint32_t>> m_address; //!< per rank: (node id, device index)
    std::map<uint32_t, Ptr<TalbTrainingJob>> m_jobs;      //!< job id → this rank's copy
    std::map<uint32_t, std::vector<uint32_t>> m_peers;    //!< job id → other ranks with workers
    uint32_t m_rank;
    Time m_delay;
};

} // namespace ns3

#endif /* TALB_JOB_RANK_LINK_H */
