#ifndef TALB_GRAPH_JOB_HELPER_H
#define TALB_GRAPH_JOB_HELPER_H

#include "ns3/attribute.h"
#include "ns3/data-rate.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-graph-job.h"
#include "ns3/talb-ideal-replay.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Installs a graph job (TalbGraphJob): an LLM training job or any other execution
 * graph, its ranks placed on hosts.
 *
 * It stores recipes only: the graph, and ObjectFactory recipes for the job (attributes JobId,
 * BasePort, Algorithms, NicRate, IntraRate) and the transport (a short name of
 * TalbTransport::GetRegistry() or a TypeId name). Install() builds the objects and schedules
 * the job's start; each call makes a new job.
 */
class TalbGraphJobHelper
{
  public:
    TalbGraphJobHelper();

    /// The graph (validated: talb::graph::Validate() returned no message).
    void SetGraph(std::shared_ptr<const talb::graph::Graph> graph);
    /// Set an attribute of ns3::TalbGraphJob.
    void SetJobAttribute(const std::string& name, const AttributeValue& value);
    /// Choose the transport by short name (or full TypeId name); resets its attributes.
    void SetTransport(const std::string& name);
    void SetTransportAttribute(const std::string& name, const AttributeValue& value);
    /// When the job starts (default 0).
    void SetStartTime(Time start);

    /**
     * Where the ranks run: rank r on host \p return[r] of the job's \p nHosts hosts, and that
     * host is its server. For now one rank per host (\p nHosts >= \p nRanks); the one place
     * to change when servers hold several GPUs.
     * \return the host index of every rank
     */
    static std::vector<uint32_t> PlaceRanks(uint32_t nRanks, uint32_t nHosts);

    /**
     * Create a job whose ranks run on \p hosts as PlaceRanks() says (IPv4 address on interface
     * 1, or RDMA NICs, as the transport needs).
     * \return the job; it starts at the start time
     */
    Ptr<TalbGraphJob> Install(const NodeContainer& hosts) const;

    /**
     * \return the ideal replay of the graph (talb::graph::IdealReplay) with its ranks placed on
     * \p nHosts hosts as PlaceRanks() says, every NIC and intra-server link at \p rate: what
     * "x ideal" divides by
     */
    talb::graph::IdealReplay::Result ComputeIdeal(uint32_t nHosts, DataRate rate) const;

  private:
    std::shared_ptr<const talb::graph::Graph> m_graph;
    ObjectFactory m_job;
    ObjectFactory m_transport;
    Time m_start;
};

} // namespace ns3

#endif /* TALB_GRAPH_JOB_HELPER_H */
