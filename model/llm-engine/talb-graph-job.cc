#include "talb-graph-job.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-collective-bounds.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-wire.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphJob");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphJob);

using talb::graph::CollType;
using talb::graph::Graph;
using GNode = talb::graph::Node;
using talb::graph::NodeKind;

TypeId
TalbGraphJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbGraphJob")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbGraphJob>()
            .AddAttribute("JobId",
                          "Job id: the top 8 bits of the tensor ids on the wire, and the port",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbGraphJob::m_jobId),
                          MakeUintegerChecker<uint32_t>(0, TALB_MAX_JOBS - 1))
            .AddAttribute("BasePort",
                          "Receivers of job j listen on BasePort + j",
                          UintegerValue(20000),
                          MakeUintegerAccessor(&TalbGraphJob::m_basePort),
                          MakeUintegerChecker<uint16_t>(1, 65535 - TALB_MAX_JOBS))
            .AddAttribute("Algorithms",
                          "Collective algorithms (TalbGraphAlgorithm names), ','-separated: each "
                          "collective type runs on the first that supports it",
                          StringValue("ring,pipeline,direct"),
                          MakeStringAccessor(&TalbGraphJob::m_algorithmNames),
                          MakeStringChecker())
            .AddAttribute("NicRate",
                          "Rate of a rank's NIC, for the analytic bounds of collectives.csv",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&TalbGraphJob::m_nicRate),
                          MakeDataRateChecker())
            .AddAttribute("IntraRate",
                          "Rate of a rank's link into its server's interconnect, for the "
                          "analytic bounds (ranks sharing a server)",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&TalbGraphJob::m_intraRate),
                          MakeDataRateChecker())
            .AddAttribute("IntraLatency",
                          "Latency of a message between two ranks of one server (the NVLink "
                          "port's Latency), for the analytic bounds",
                          TimeValue(Seconds(0)),
                          MakeTimeAccessor(&TalbGraphJob::m_intraLatency),
                          MakeTimeChecker(Seconds(0)))
            .AddTraceSource("FlowDone",
                            "A message was delivered",
                            MakeTraceSourceAccessor(&TalbGraphJob::m_flowTrace),
                            "ns3::TalbTrainingJob::FlowTracedCallback")
            .AddTraceSource("CollectiveDone",
                            "A collective instance or point-to-point message finished",
                            MakeTraceSourceAccessor(&TalbGraphJob::m_collectiveTrace),
                            "ns3::TalbGraphJob::CollectiveTracedCallback")
            .AddTraceSource("OperationDone",
                            "A node of a rank completed",
                            MakeTraceSourceAccessor(&TalbGraphJob::m_operationTrace),
                            "ns3::TalbGraphJob::OperationTracedCallback")
            .AddTraceSource("IterationDone",
                            "A rank finished an iteration",
                            MakeTraceSourceAccessor(&TalbGraphJob::m_iterationTrace),
                            "ns3::TalbTrainingJob::IterationTracedCallback");
    return tid;
}

TalbGraphJob::TalbGraphJob()
    : m_jobId(0),
      m_basePort(20000),
      m_nicRate("100Gbps"),
      m_intraRate("100Gbps")
{
    NS_LOG_FUNCTION(this);
}

TalbGraphJob::~TalbGraphJob()
{
    NS_LOG_FUNCTION(this);
}

void
TalbGraphJob::DoDispose()
{
    m_executor.reset();
    if (m_comm)
    {
        m_comm->Dispose();
    }
    m_comm = nullptr;
    m_transport = nullptr;
    m_hosts.clear();
    Object::DoDispose();
}

void
TalbGraphJob::SetGraph(std::shared_ptr<const Graph> graph)
{
    NS_ABORT_MSG_IF(m_started, "TalbGraphJob: graph set after the start");
    m_graph = std::move(graph);
}

const Graph&
TalbGraphJob::GetGraph() const
{
    return *m_graph;
}

void
TalbGraphJob::SetHosts(const std::vector<Ptr<Node>>& hosts, const std::vector<uint32_t>& servers)
{
    m_hosts = hosts;
    m_servers = servers;
}

void
TalbGraphJob::SetTransport(Ptr<TalbTransport> transport)
{
    m_transport = transport;
}

Ptr<TalbTransport>
TalbGraphJob::GetTransport() const
{
    return m_transport;
}

uint32_t
TalbGraphJob::GetJobId() const
{
    return m_jobId;
}

uint32_t
TalbGraphJob::GetNRanks() const
{
    return m_graph ? m_graph->nRanks : 0;
}

bool
TalbGraphJob::IsFinished() const
{
    return m_executor && m_executor->Done();
}

Time
TalbGraphJob::GetFinishTime() const
{
    return m_finishTime;
}

std::vector<Time>
TalbGraphJob::GetIterationTimes() const
{
    std::vector<Time> times(m_graph->iterations, Time(0));
    for (uint32_t r = 0; r < m_iterEnd.size(); ++r)
    {
        for (uint32_t i = 0; i < times.size(); ++i)
        {
            if (m_left[r][i] == 0 && m_iterStart[r][i] >= Time(0))
            {
                times[i] = std::max(times[i], m_iterEnd[r][i] - m_iterStart[r][i]);
            }
        }
    }
    return times;
}

talb::graph::LinkRates
TalbGraphJob::GetRates() const
{
    talb::graph::LinkRates rates;
    rates.nicBps = static_cast<double>(m_nicRate.GetBitRate());
    rates.intraBps = static_cast<double>(m_intraRate.GetBitRate());
    rates.intraLatencyNs = m_intraLatency.ToDouble(Time::NS);
    return rates;
}

std::vector<Ptr<TalbGraphAlgorithm>>
TalbGraphJob::MakeAlgorithms() const
{
    std::vector<Ptr<TalbGraphAlgorithm>> available;
    for (const auto& name : TalbParse::Split(m_algorithmNames, ','))
    {
        TypeId tid = TalbGraphAlgorithm::GetRegistry().Get(TalbParse::Trim(name));
        ObjectFactory factory(tid.GetName());
        available.push_back(factory.Create<TalbGraphAlgorithm>());
    }
    std::vector<Ptr<TalbGraphAlgorithm>> byType(static_cast<uint8_t>(CollType::kBarrier) + 1);
    for (uint8_t t = 0; t < byType.size(); ++t)
    {
        for (const auto& a : available)
        {
            if (a->Supports(static_cast<CollType>(t)))
            {
                byType[t] = a;
                break;
            }
        }
    }
    return byType;
}

void
TalbGraphJob::Start()
{
    NS_LOG_FUNCTION(this << m_jobId);
    NS_ABORT_MSG_IF(m_started, "TalbGraphJob::Start called twice");
    NS_ABORT_MSG_IF(!m_graph || !m_transport, "TalbGraphJob: no graph or no transport");
    NS_ABORT_MSG_IF(m_hosts.size() != m_graph->nRanks || m_servers.size() != m_graph->nRanks,
                    "TalbGraphJob: one host and one server per rank");
    m_started = true;
    const Graph& g = *m_graph;
    m_issued.resize(g.nRanks);
    m_left.assign(g.nRanks, std::vector<uint32_t>(g.iterations, 0));
    m_iterStart.assign(g.nRanks, std::vector<Time>(g.iterations, Time(-1)));
    m_iterEnd.assign(g.nRanks, std::vector<Time>(g.iterations, Time(0)));
    m_iterCompute.assign(g.nRanks, std::vector<Time>(g.iterations, Time(0)));
    for (uint32_t r = 0; r < g.nRanks; ++r)
    {
        m_issued[r].assign(g.ranks[r].size(), Time(0));
        for (const GNode& n : g.ranks[r])
        {
            NS_ABORT_MSG_IF(n.iteration >= g.iterations,
                            "TalbGraphJob: a node of iteration " << n.iteration << " of "
                                                                 << g.iterations);
            ++m_left[r][n.iteration];
        }
    }
    m_computing.assign(g.nRanks, 0);
    m_busySince.assign(g.nRanks, Time(0));
    m_transport->Setup(m_basePort + m_jobId);
    m_comm = CreateObject<TalbGraphComm>();
    m_comm->SetCallbacks(MakeCallback(&TalbGraphJob::MemberDone, this),
                         MakeCallback(&TalbGraphJob::InstanceDone, this),
                         MakeCallback(&TalbGraphJob::MessageDone, this),
                         MakeCallback(&TalbGraphJob::Flow, this));
    m_comm->Setup(m_jobId, m_graph.get(), m_hosts, m_transport, MakeAlgorithms());
    m_executor.reset(new talb::graph::Executor(g, static_cast<talb::graph::ExecutorEnv*>(this)));
    m_executor->Start();
    CheckProgress();
}

void
TalbGraphJob::StartCompute(uint32_t rank, uint32_t node)
{
    ++m_pending;
    if (m_computing[rank]++ == 0)
    {
        m_busySince[rank] = Simulator::Now();
    }
    Simulator::Schedule(NanoSeconds(m_graph->ranks[rank][node].durationNs),
                        &TalbGraphJob::ComputeFinished,
                        this,
                        rank,
                        node);
}

void
TalbGraphJob::ComputeFinished(uint32_t rank, uint32_t node)
{
    --m_pending;
    // The rank computes while either stream runs: an interval ends with the last node on it,
    // which belongs to the iteration the interval began in (a rank's iterations follow each
    // other). Counted before the Executor hears of it, which may end the iteration.
    if (--m_computing[rank] == 0)
    {
        m_iterCompute[rank][m_graph->ranks[rank][node].iteration] +=
            Simulator::Now() - m_busySince[rank];
    }
    m_executor->ComputeDone(rank, node);
    CheckProgress();
}

void
TalbGraphJob::StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes)
{
    m_comm->StartCollective(group, seq, nodes);
}

void
TalbGraphJob::MemberDone(uint32_t group, uint64_t seq, uint32_t member)
{
    // From an event of its own: the engine is inside its own bookkeeping here.
    ++m_pending;
    Simulator::ScheduleNow([this, group, seq, member]() {
        --m_pending;
        m_executor->CollectiveDone(group, seq, member);
        CheckProgress();
    });
}

void
TalbGraphJob::InstanceDone(uint32_t group, uint64_t seq, Time start)
{
    const Graph& g = *m_graph;
    const auto& ranks = g.groups[group].ranks;
    m_instanceNodes.resize(ranks.size());
    m_instanceServers.resize(ranks.size());
    TalbCollectiveRecord r;
    for (uint32_t i = 0; i < ranks.size(); ++i)
    {
        m_instanceNodes[i] = m_executor->CollectiveNode(group, seq, i);
        m_instanceServers[i] = m_servers[ranks[i]];
        r.bytes += g.ranks[ranks[i]][m_instanceNodes[i]].bytes;
    }
    const GNode& first = g.ranks[ranks[0]][m_instanceNodes[0]];
    r.job = m_jobId;
    r.iteration = first.iteration;
    r.operation = first.label == GNode::kNone ? "" : g.labels[first.label];
    r.group = g.groups[group].name;
    r.type = talb::graph::CollTypeName(first.coll);
    r.cls = talb::graph::CommClassName(first.cls);
    r.priority = m_comm->GetPriority(ranks[0], m_instanceNodes[0]);
    r.start = start;
    r.end = Simulator::Now();
    r.ideal = NanoSeconds(static_cast<int64_t>(std::llround(
        talb::graph::InstanceBoundNs(g, group, m_instanceNodes, m_instanceServers, GetRates()))));
    m_collectiveTrace(r);
}

void
TalbGraphJob::StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode)
{
    m_comm->StartMessage(from, sendNode, to, recvNode);
}

void
TalbGraphJob::MessageDone(uint32_t from,
                          uint32_t sendNode,
                          uint32_t to,
                          uint32_t recvNode,
                          Time start)
{
    const GNode& n = m_graph->ranks[from][sendNode];
    TalbCollectiveRecord r;
    r.job = m_jobId;
    r.iteration = n.iteration;
    r.operation = n.label == GNode::kNone ? "" : m_graph->labels[n.label];
    r.group = "p2p";
    r.type = "send_recv";
    r.cls = talb::graph::CommClassName(n.cls);
    r.bytes = n.bytes;
    r.priority = m_comm->GetPriority(from, sendNode);
    r.start = start;
    r.end = Simulator::Now();
    r.ideal = NanoSeconds(static_cast<int64_t>(std::llround(
        talb::graph::SendRecvBoundNs(n.bytes, m_servers[from], m_servers[to], GetRates()))));
    m_collectiveTrace(r);
    ++m_pending;
    Simulator::ScheduleNow([this, from, sendNode, to, recvNode]() {
        --m_pending;
        m_executor->MessageDone(from, sendNode, to, recvNode);
        CheckProgress();
    });
}

void
TalbGraphJob::NodeIssued(uint32_t rank, uint32_t node)
{
    m_issued[rank][node] = Simulator::Now();
    Time& start = m_iterStart[rank][m_graph->ranks[rank][node].iteration];
    if (start.IsStrictlyNegative())
    {
        start = Simulator::Now();
    }
}

void
TalbGraphJob::NodeDone(uint32_t rank, uint32_t node)
{
    const uint32_t iteration = m_graph->ranks[rank][node].iteration;
    TalbOperationRecord op;
    op.job = m_jobId;
    op.rank = rank;
    op.node = node;
    op.iteration = iteration;
    op.issued = m_issued[rank][node];
    op.end = Simulator::Now();
    m_operationTrace(op);
    if (--m_left[rank][iteration] == 0)
    {
        m_iterEnd[rank][iteration] = Simulator::Now();
        TalbIterationRecord r;
        r.job = m_jobId;
        r.worker = rank;
        r.iteration = iteration;
        r.start = m_iterStart[rank][iteration];
        r.end = Simulator::Now();
        r.compute = m_iterCompute[rank][iteration];
        m_iterationTrace(r);
    }
}

void
TalbGraphJob::Flow(const TalbFlowRecord& record)
{
    m_flowTrace(record);
}

void
TalbGraphJob::CheckProgress()
{
    if (m_executor->Done())
    {
        if (m_finishTime.IsZero())
        {
            m_finishTime = Simulator::Now();
        }
        return;
    }
    NS_ABORT_MSG_IF(m_pending == 0 && m_comm->GetInFlight() == 0,
                    "TalbGraphJob "
                        << m_jobId << ": the graph can go no further: "
                        << (m_executor->Error().empty() ? "" : m_executor->Error() + "; ")
                        << m_executor->Stall());
}

} // namespace ns3
