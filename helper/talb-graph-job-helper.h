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
#include "ns3/talb-server-layout.h"

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
 * It stores recipes only: the graph, where the job's hosts sit (SetPlacement()), and
 * ObjectFactory recipes for the job (attributes JobId, BasePort, Algorithms, NicRate,
 * IntraRate) and the transport (a short name of TalbTransport::GetRegistry() or a TypeId
 * name). Install() builds the objects and schedules the job's start; each call makes a new
 * job. On GPU servers (hosts with a TalbNvlinkPort) the transport is wrapped in
 * TalbNvlinkTransport, as TalbTrainingJobHelper does: ranks of one server talk over NVLink.
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
     * Where the job's hosts sit: host k of the job (the k-th node Install() is given) is host
     * \p hosts[k] of the fabric, whose servers \p layout describes. Without it, Install()'s
     * hosts are servers of one GPU each.
     */
    void SetPlacement(const TalbServerLayout& layout, const std::vector<uint32_t>& hosts);

    /// Where each rank of a job runs.
    struct RankPlacement
    {
        std::vector<uint32_t> host;   //!< per rank: its host's position among the job's hosts
        std::vector<uint32_t> server; //!< per rank: its server (the layout's numbering)
    };

    /**
     * Place \p nRanks ranks on the job's hosts \p hosts (fabric host indices in \p layout).
     * With one GPU per server, rank r runs on hosts[r]. With servers of G > 1 GPUs, the ranks
     * fill the job's GPUs server by server, GPU 0 first (ascending host index), so that ranks
     * adjacent in Megatron's order (tensor parallelism fastest) share a server: with a job on
     * whole servers and tp dividing G, every tensor-parallel group is inside one server.
     * Aborts when there are fewer hosts than ranks.
     */
    static RankPlacement PlaceRanks(uint32_t nRanks,
                                    const TalbServerLayout& layout,
                                    const std::vector<uint32_t>& hosts);

    /**
     * Create a job whose ranks run on \p hosts (the job's hosts, in SetPlacement()'s order) as
     * PlaceRanks() says (IPv4 address on interface 1, or RDMA NICs, as the transport needs).
     * \return the job; it starts at the start time
     */
    Ptr<TalbGraphJob> Install(const NodeContainer& hosts) const;

    /**
     * \return the ideal replay of the graph (talb::graph::IdealReplay) with its ranks placed as
     * PlaceRanks() says on SetPlacement()'s hosts (without it, on servers of one GPU each),
     * every NIC at the job's NicRate and every intra-server link at its IntraRate: what
     * "x ideal" divides by
     */
    talb::graph::IdealReplay::Result ComputeIdeal() const;

  private:
    /// \return PlaceRanks() on SetPlacement()'s hosts, or on \p nHosts one-GPU servers
    RankPlacement Place(uint32_t nHosts) const;

    std::shared_ptr<const talb::graph::Graph> m_graph;
    TalbServerLayout m_layout;
    std::vector<uint32_t> m_hostIndices; //!< SetPlacement()'s; empty: one GPU per server
    ObjectFactory m_job;
    ObjectFactory m_transport;
    Time m_start;
};

} // namespace ns3

#endif /* TALB_GRAPH_JOB_HELPER_H */
