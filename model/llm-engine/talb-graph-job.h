#ifndef TALB_GRAPH_JOB_H
#define TALB_GRAPH_JOB_H

#include "talb-graph-algorithm.h"
#include "talb-graph-comm.h"
#include "talb-graph-records.h"

#include "ns3/data-rate.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/talb-collective-bounds.h"
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-graph-executor.h"
#include "ns3/talb-training-records.h"
#include "ns3/talb-transport.h"
#include "ns3/traced-callback.h"

#include <memory>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-llm-engine
 * \brief A training job given as an execution graph (talb::graph::Graph: an LLM job from the
 * workload generator, a collective benchmark, a trace), run on the simulated fabric.
 *
 * It is the ns-3 environment of the graph's Executor (talb::graph::ExecutorEnv) for every rank:
 * - compute and memory nodes run on the rank's GPU or host stream (the Executor runs one at a
 *   time per stream) for their durationNs of simulated time;
 * - collectives and messages go to the communication engine (TalbGraphComm) over the job's
 *   transport (port BasePort + JobId), each collective type with the first algorithm of
 *   Algorithms that runs it; a rank runs its collectives on one group one at a time, in issue
 *   order (NCCL's semantics per communicator);
 * - completions go back to the Executor from events of their own, so the Executor's calls never
 *   nest inside the engine's.
 * Records: every delivered message (FlowDone), collective instance and message
 * (CollectiveDone, with its analytic bound), node (OperationDone) and (rank, iteration)
 * (IterationDone: a rank's iteration starts when it issues its first node of the iteration and
 * ends when its last one completes; compute is the iteration's time during which at least one of
 * the rank's streams ran a compute or memory node). A run that can go no further aborts with what
 * it waits for (Executor::Stall()).
 */
class TalbGraphJob : public Object, private talb::graph::ExecutorEnv
{
  public:
    static TypeId GetTypeId();
    TalbGraphJob();
    ~TalbGraphJob() override;

    typedef void (*CollectiveTracedCallback)(const TalbCollectiveRecord& record);
    typedef void (*OperationTracedCallback)(const TalbOperationRecord& record);

    /// The graph (validated: talb::graph::Validate() returned no message).
    void SetGraph(std::shared_ptr<const talb::graph::Graph> graph);
    const talb::graph::Graph& GetGraph() const;
    /**
     * \param hosts the host of each rank (IPv4 address on interface 1, or an RDMA NIC)
     * \param servers the server of each rank (the analytic bounds' fabric)
     */
    void SetHosts(const std::vector<Ptr<Node>>& hosts, const std::vector<uint32_t>& servers);
    void SetTransport(Ptr<TalbTransport> transport);
    Ptr<TalbTransport> GetTransport() const;

    /// Open the channels and issue every rank's first nodes (once, at the job's start time).
    void Start();

    uint32_t GetJobId() const;
    uint32_t GetNRanks() const;
    /// \return whether every rank completed every node
    bool IsFinished() const;
    /// \return when the last rank completed its last node (zero before)
    Time GetFinishTime() const;
    /// \return per iteration: the longest span over the ranks (zero where not finished)
    std::vector<Time> GetIterationTimes() const;

  protected:
    void DoDispose() override;

  private:
    // talb::graph::ExecutorEnv
    void StartCompute(uint32_t rank, uint32_t node) override;
    void StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes) override;
    void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode) override;
    void NodeIssued(uint32_t rank, uint32_t node) override;
    void NodeDone(uint32_t rank, uint32_t node) override;

    void ComputeFinished(uint32_t rank, uint32_t node);
    void MemberDone(uint32_t group, uint64_t seq, uint32_t member);
    void InstanceDone(uint32_t group, uint64_t seq, Time start);
    void MessageDone(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode, Time start);
    void Flow(const TalbFlowRecord& record);
    /// Aborts when nothing is in flight and the graph is not done (a deadlock or a mismatch).
    void CheckProgress();
    /// \return the algorithm of each collective type, from the Algorithms attribute
    std::vector<Ptr<TalbGraphAlgorithm>> MakeAlgorithms() const;
    talb::graph::LinkRates GetRates() const;

    // Attributes
    uint32_t m_jobId;
    uint16_t m_basePort;
    std::string m_algorithmNames;
    DataRate m_nicRate;
    DataRate m_intraRate;
    Time m_intraLatency; //!< a message inside a server: arrival after its last byte (bounds)

    std::shared_ptr<const talb::graph::Graph> m_graph;
    std::vector<Ptr<Node>> m_hosts;
    std::vector<uint32_t> m_servers;
    Ptr<TalbTransport> m_transport;
    Ptr<TalbGraphComm> m_comm;
    std::unique_ptr<talb::graph::Executor> m_executor;
    bool m_started{false};
    uint64_t m_pending{0}; //!< compute nodes running and completions scheduled
    Time m_finishTime;

    std::vector<std::vector<Time>> m_issued;      //!< [rank][node]
    std::vector<std::vector<uint32_t>> m_left;    //!< [rank][iteration]: nodes not done
    std::vector<std::vector<Time>> m_iterStart;   //!< [rank][iteration]; negative: not begun
    std::vector<std::vector<Time>> m_iterEnd;     //!< [rank][iteration]
    std::vector<std::vector<Time>> m_iterCompute; //!< [rank][iteration]
    std::vector<uint8_t> m_computing;             //!< [rank]: streams running a node (0-2)
    std::vector<Time> m_busySince;                //!< [rank]: when m_computing left 0
    std::vector<uint32_t> m_instanceServers;      //!< InstanceDone()'s scratch
    std::vector<uint32_t> m_instanceNodes;        //!< InstanceDone()'s scratch

    TracedCallback<const TalbFlowRecord&> m_flowTrace;
    TracedCallback<const TalbCollectiveRecord&> m_collectiveTrace;
    TracedCallback<const TalbOperationRecord&> m_operationTrace;
    TracedCallback<const TalbIterationRecord&> m_iterationTrace;
};

} // namespace ns3

#endif /* TALB_GRAPH_JOB_H */
