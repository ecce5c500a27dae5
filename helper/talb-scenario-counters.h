#ifndef TALB_SCENARIO_COUNTERS_H
#define TALB_SCENARIO_COUNTERS_H

#include "ns3/talb-graph-job.h"
#include "ns3/talb-leaf-spine-helper.h"
#include "ns3/talb-output-writer.h"
#include "ns3/talb-scenario-report.h"
#include "ns3/talb-scenario-spec.h"
#include "ns3/talb-training-job.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The counters a run of TalbScenario reports, read from the fabric, hosts and jobs
 * once the simulation stopped. Distributed runs: each rank counts what it simulates (the
 * others' queues stay empty), summed over the ranks (peaks: the largest).
 */
class TalbScenarioCounters
{
  public:
    /**
     * Packets that started a link transmission, over every point-to-point device of every
     * node: every packet a device sends passes its transmit queue, so the queues' counters
     * give the count without a per-packet trace sink (received - dropped - still queued).
     * \param remoteHops set to those onto links to another rank
     */
    static uint64_t CountPacketHops(uint64_t* remoteHops);

    /**
     * Reads the hosts', jobs' (data-parallel \p jobs and \p graphJobs) and switches' counters
     * into \p r (rdma, tcp, paths, switches).
     */
    static void Collect(const TalbScenarioSpec& spec,
                        Ptr<TalbLeafSpineHelper> fabric,
                        const std::vector<Ptr<TalbTrainingJob>>& jobs,
                        const std::vector<Ptr<TalbGraphJob>>& graphJobs,
                        TalbScenarioResult* r);

    /**
     * Sets \p r's events (those executed since \p eventsBefore); distributed runs sum them, the
     * TCP counters and the path counters over the ranks.
     */
    static void SumEvents(const TalbScenarioSpec& spec,
                          uint64_t eventsBefore,
                          TalbScenarioResult* r);

  private:
    /// The switches' per-class queue counters, egress drops and PFC state.
    static TalbOutputWriter::SwitchCounters SumSwitches(const TalbScenarioSpec& spec,
                                                        Ptr<TalbLeafSpineHelper> fabric);
    /// The hosts' go-back-N counters (their queue pairs live until the fabric goes).
    static TalbOutputWriter::RdmaCounters SumRdma(const TalbScenarioSpec& spec,
                                                  Ptr<TalbLeafSpineHelper> fabric);
    /// The TCP senders' retransmissions (the channels of this rank's jobs' \p transports).
    static TalbOutputWriter::TcpCounters SumTcp(const std::vector<Ptr<TalbTransport>>& transports);
    /// Path selections and reroutes of every switch's load balancer.
    static TalbOutputWriter::LbCounters SumPaths(const TalbScenarioSpec& spec,
                                                 Ptr<TalbLeafSpineHelper> fabric);
};

} // namespace ns3

#endif /* TALB_SCENARIO_COUNTERS_H */
