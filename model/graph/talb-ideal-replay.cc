#include "talb-ideal-replay.h"

#include "talb-graph-executor.h"

#include <algorithm>
#include <cmath>
#include <queue>
#include <sstream>

namespace talb
{
namespace graph
{

namespace
{

/// An event of the loop: ordered by time, then by the order it was scheduled in.
struct Event
{
    enum Kind : uint8_t
    {
        kComputeDone, ///< a = rank, b = node
        kOpDone,      ///< a = operation slot, b = the slot's version when scheduled
    };

    double time;
    uint64_t seq;
    Kind kind;
    uint32_t a;
    uint32_t b;

    bool operator>(const Event& o) const
    {
        return time != o.time ? time > o.time : seq > o.seq;
    }
};

/// A communication operation in flight: a collective instance or a message.
struct Op
{
    bool collective{false};
    uint32_t group{0};           //!< collective
    uint64_t seq{0};             //!< collective
    uint32_t record{0};          //!< collective: index in Result::collectives
    uint32_t from{0};            //!< message
    uint32_t sendNode{0};        //!< message
    uint32_t to{0};              //!< message
    uint32_t recvNode{0};        //!< message
    std::vector<uint32_t> links; //!< the links it shares (2 x rank + 0 NIC, + 1 intra-server)
    double remainingNs{0};       //!< work left, in ns at the full rate of its links
    double rate{0};              //!< its share now (0: not yet computed)
    double lastNs{0};            //!< when remainingNs was last brought up to date
    uint32_t version{0};         //!< bumped whenever its finish event is rescheduled
};

/// The replay's environment: the event loop, the links' sharing and the records.
class Replay : public ExecutorEnv
{
  public:
    Replay(const Graph& graph, const IdealReplay::Fabric& fabric, IdealReplay::Result* result);

    /// Runs the graph to its end (or until nothing is left to do).
    void Run();

    void StartCompute(uint32_t rank, uint32_t node) override;
    void StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes) override;
    void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode) override;
    void NodeIssued(uint32_t rank, uint32_t node) override;
    void NodeDone(uint32_t rank, uint32_t node) override;

  private:
    /// \return a free operation slot, its links cleared
    uint32_t NewOp();
    /// Puts operation \p op (work and links set) in flight, or schedules it now if no work.
    void StartOp(uint32_t op);
    void FinishOp(uint32_t op);
    /// Marks the operations on \p op's links (once each) and brings their work up to date.
    void TouchNeighbours(uint32_t op);
    /// Recomputes the shares of the marked operations; reschedules those whose share changed.
    void Reshare();
    void Push(Event::Kind kind, double time, uint32_t a, uint32_t b);
    void Finish();

    const Graph& m_graph;
    const IdealReplay::Fabric& m_fabric;
    IdealReplay::Result& m_result;
    Executor m_executor;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> m_events;
    uint64_t m_eventSeq{0};
    double m_now{0};

    std::vector<Op> m_ops;
    std::vector<uint32_t> m_freeOps;
    std::vector<std::vector<uint32_t>> m_linkOps; //!< per link: the operations in flight on it
    std::vector<uint32_t> m_touched;              //!< operations whose share may change
    std::vector<uint64_t> m_touchMark;            //!< per operation slot: last touch's epoch
    uint64_t m_touchEpoch{0};

    std::vector<std::vector<uint32_t>> m_groupServers; //!< per group: its members' servers
    std::vector<uint8_t> m_groupSpans;                 //!< per group: on several servers
    std::vector<double> m_scratch;                     //!< InstanceBoundNs's byte matrix
};

Replay::Replay(const Graph& graph, const IdealReplay::Fabric& fabric, IdealReplay::Result* result)
    : m_graph(graph),
      m_fabric(fabric),
      m_result(*result),
      m_executor(graph, this),
      m_linkOps(2 * std::size_t(graph.nRanks))
{
    m_groupServers.resize(graph.groups.size());
    m_groupSpans.assign(graph.groups.size(), 0);
    for (std::size_t g = 0; g < graph.groups.size(); ++g)
    {
        for (uint32_t rank : graph.groups[g].ranks)
        {
            m_groupServers[g].push_back(fabric.serverOf[rank]);
            m_groupSpans[g] |= fabric.serverOf[rank] != m_groupServers[g][0];
        }
    }
    uint32_t iterations = std::max<uint32_t>(graph.iterations, 1);
    for (const auto& nodes : graph.ranks)
    {
        for (const Node& node : nodes)
        {
            iterations = std::max(iterations, node.iteration + 1);
        }
    }
    m_result.iterationStartNs.assign(graph.nRanks, std::vector<double>(iterations, -1));
    m_result.iterationEndNs.assign(graph.nRanks, std::vector<double>(iterations, -1));
    m_result.iterationNs.assign(iterations, 0);
}

void
Replay::Run()
{
    m_executor.Start();
    while (!m_events.empty())
    {
        const Event e = m_events.top();
        m_events.pop();
        m_now = e.time;
        if (e.kind == Event::kComputeDone)
        {
            m_executor.ComputeDone(e.a, e.b);
        }
        else if (m_ops[e.a].version == e.b)
        {
            FinishOp(e.a);
        }
    }
    Finish();
}

void
Replay::StartCompute(uint32_t rank, uint32_t node)
{
    Push(Event::kComputeDone, m_now + double(m_graph.ranks[rank][node].durationNs), rank, node);
}

void
Replay::StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes)
{
    const double bound =
        InstanceBoundNs(m_graph, group, nodes, m_groupServers[group], m_fabric.rates, &m_scratch);
    const uint32_t op = NewOp();
    Op& o = m_ops[op];
    o.collective = true;
    o.group = group;
    o.seq = seq;
    o.record = static_cast<uint32_t>(m_result.collectives.size());
    o.remainingNs = bound;
    const uint32_t side = m_groupSpans[group] ? 0 : 1;
    for (uint32_t rank : m_graph.groups[group].ranks)
    {
        o.links.push_back(2 * rank + side);
    }
    m_result.collectives.push_back({group, seq, m_now, m_now, bound});
    StartOp(op);
}

void
Replay::StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode)
{
    const uint32_t fromServer = m_fabric.serverOf[from];
    const uint32_t toServer = m_fabric.serverOf[to];
    const uint32_t op = NewOp();
    Op& o = m_ops[op];
    o.collective = false;
    o.from = from;
    o.sendNode = sendNode;
    o.to = to;
    o.recvNode = recvNode;
    o.remainingNs =
        SendRecvBoundNs(m_graph.ranks[from][sendNode].bytes, fromServer, toServer, m_fabric.rates);
    const uint32_t side = fromServer != toServer ? 0 : 1;
    o.links.push_back(2 * from + side);
    if (to != from)
    {
        o.links.push_back(2 * to + side);
    }
    StartOp(op);
}

void
Replay::NodeIssued(uint32_t rank, uint32_t node)
{
    double& start = m_result.iterationStartNs[rank][m_graph.ranks[rank][node].iteration];
    start = start < 0 ? m_now : std::min(start, m_now);
}

void
Replay::NodeDone(uint32_t rank, uint32_t node)
{
    double& end = m_result.iterationEndNs[rank][m_graph.ranks[rank][node].iteration];
    end = std::max(end, m_now);
    m_result.makespanNs = std::max(m_result.makespanNs, m_now);
}

uint32_t
Replay::NewOp()
{
    uint32_t op;
    if (m_freeOps.empty())
    {
        op = static_cast<uint32_t>(m_ops.size());
        m_ops.emplace_back();
        m_touchMark.push_back(0);
    }
    else
    {
        op = m_freeOps.back();
        m_freeOps.pop_back();
    }
    Op& o = m_ops[op];
    o.links.clear(); // keeps its capacity: slots are reused
    o.rate = 0;
    o.lastNs = m_now;
    return op;
}

void
Replay::StartOp(uint32_t op)
{
    Op& o = m_ops[op];
    if (o.remainingNs <= 0)
    {
        o.links.clear(); // no work: it shares nothing and finishes now
        Push(Event::kOpDone, m_now, op, ++o.version);
        return;
    }
    TouchNeighbours(op);
    for (uint32_t link : o.links)
    {
        m_linkOps[link].push_back(op);
    }
    m_touchMark[op] = m_touchEpoch;
    m_touched.push_back(op);
    Reshare();
}

void
Replay::FinishOp(uint32_t op)
{
    Op& o = m_ops[op];
    for (uint32_t link : o.links)
    {
        auto& ops = m_linkOps[link];
        ops.erase(std::find(ops.begin(), ops.end(), op));
    }
    TouchNeighbours(op);
    Reshare();
    ++o.version; // any event still queued for the slot is stale now
    m_freeOps.push_back(op);
    // The executor may start operations now, reusing this slot: read it before.
    if (o.collective)
    {
        const uint32_t group = o.group;
        const uint64_t seq = o.seq;
        m_result.collectives[o.record].endNs = m_now;
        const std::size_t members = m_graph.groups[group].ranks.size();
        for (uint32_t m = 0; m < members; ++m)
        {
            m_executor.CollectiveDone(group, seq, m);
        }
    }
    else
    {
        m_executor.MessageDone(o.from, o.sendNode, o.to, o.recvNode); // arguments copied
    }
}

void
Replay::TouchNeighbours(uint32_t op)
{
    ++m_touchEpoch;
    m_touched.clear();
    for (uint32_t link : m_ops[op].links)
    {
        for (uint32_t other : m_linkOps[link])
        {
            if (other != op && m_touchMark[other] != m_touchEpoch)
            {
                m_touchMark[other] = m_touchEpoch;
                m_touched.push_back(other);
                Op& o = m_ops[other];
                o.remainingNs = std::max(0.0, o.remainingNs - o.rate * (m_now - o.lastNs));
                o.lastNs = m_now;
            }
        }
    }
}

void
Replay::Reshare()
{
    for (uint32_t op : m_touched)
    {
        Op& o = m_ops[op];
        std::size_t busiest = 1;
        for (uint32_t link : o.links)
        {
            busiest = std::max(busiest, m_linkOps[link].size());
        }
        const double rate = 1.0 / double(busiest);
        if (rate != o.rate)
        {
            o.rate = rate;
            Push(Event::kOpDone, m_now + o.remainingNs / rate, op, ++o.version);
        }
    }
}

void
Replay::Push(Event::Kind kind, double time, uint32_t a, uint32_t b)
{
    m_events.push(Event{time, m_eventSeq++, kind, a, b});
}

/// Iteration times and the error, once the loop has run dry.
void
Replay::Finish()
{
    for (uint32_t r = 0; r < m_graph.nRanks; ++r)
    {
        for (std::size_t i = 0; i < m_result.iterationNs.size(); ++i)
        {
            const double start = m_result.iterationStartNs[r][i];
            if (start >= 0)
            {
                m_result.iterationNs[i] =
                    std::max(m_result.iterationNs[i], m_result.iterationEndNs[r][i] - start);
            }
        }
    }
    if (!m_executor.Done())
    {
        m_result.error = m_executor.Error().empty()
                             ? "the graph deadlocks: " + m_executor.Stall()
                             : m_executor.Error() + " (stalled: " + m_executor.Stall() + ")";
    }
}

} // namespace

std::string
IdealReplay::CheckFabric(const Graph& graph, const Fabric& fabric)
{
    std::ostringstream os;
    if (fabric.serverOf.size() != graph.nRanks)
    {
        os << "fabric: serverOf has " << fabric.serverOf.size() << " entries, the graph has "
           << graph.nRanks << " ranks";
    }
    else if (!(fabric.rates.nicBps > 0) || !std::isfinite(fabric.rates.nicBps))
    {
        os << "fabric: NIC rate " << fabric.rates.nicBps << " bit/s is not positive and finite";
    }
    else if (!(fabric.rates.intraBps > 0) || !std::isfinite(fabric.rates.intraBps))
    {
        os << "fabric: intra-server rate " << fabric.rates.intraBps
           << " bit/s is not positive and finite";
    }
    return os.str();
}

IdealReplay::Result
IdealReplay::Run(const Graph& graph, const Fabric& fabric)
{
    Result result;
    result.error = CheckFabric(graph, fabric);
    if (!result.error.empty())
    {
        return result;
    }
    Replay replay(graph, fabric, &result);
    replay.Run();
    return result;
}

} // namespace graph
} // namespace talb
