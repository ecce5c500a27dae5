#ifndef TALB_COLLECTIVE_SUMMARY_H
#define TALB_COLLECTIVE_SUMMARY_H

#include "ns3/talb-graph-records.h"

#include <cstdint>
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
 * \brief Completion time per collective type of the graph jobs of a run: per (job, type), how
 * many instances finished, their mean completion (end - start, collectives.csv's columns) and
 * their mean analytic bound (ideal_ns), over the iterations from the warm-up on, as the
 * runner's iteration times count them. A point-to-point message counts as type send_recv.
 */
class TalbCollectiveSummary
{
  public:
    /// The figures of one (job, type).
    struct Stats
    {
        uint64_t count{0};
        double completionNs{0}; //!< summed end - start
        double idealNs{0};      //!< summed analytic bound

        /// \return the mean completion in microseconds
        double GetMeanUs() const;
        /// \return the mean bound in microseconds
        double GetMeanIdealUs() const;
        /// \return mean completion / mean bound; 0 when the bound is 0 (a barrier)
        double GetXIdeal() const;
    };

    /// Count instances of iterations >= \p warmup only (default 0: all).
    void SetWarmup(uint32_t warmup);
    /// Trace sink of a graph job's CollectiveDone.
    void Add(const TalbCollectiveRecord& record);
    /// \return whether no instance was counted
    bool IsEmpty() const;
    /// \return the figures per (job, type), ordered by job then type name
    const std::map<std::pair<uint32_t, std::string>, Stats>& Get() const;

    /**
     * Merge the figures of every process of a distributed run: \p gather receives this
     * process's figures as numbers and returns everyone's (TalbScenarioSpec's gatherOverRanks).
     */
    void Gather(const std::function<void(std::vector<double>*)>& gather);

    /**
     * Print one block per job: a line per scheme and type with the count, mean completion,
     * mean bound (us) and x ideal.
     * \param os where to
     * \param schemes the schemes' names, one per summary
     * \param summaries one per scheme, in table order
     */
    static void Print(std::ostream& os,
                      const std::vector<std::string>& schemes,
                      const std::vector<const TalbCollectiveSummary*>& summaries);

    /// \return job \p job's figures as a JSON list of {type, count, mean_us, ideal_us, x_ideal}
    std::string JobJson(uint32_t job) const;

  private:
    uint32_t m_warmup{0};
    std::map<std::pair<uint32_t, std::string>, Stats> m_stats;
};

} // namespace ns3

#endif /* TALB_COLLECTIVE_SUMMARY_H */
