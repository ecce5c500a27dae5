#include "talb-exec-graph.h"

#include "ns3/talb-wire.h"

#include <limits>
#include <sstream>

namespace talb
{
namespace graph
{

// The default priority of a node is talb_llm_priority() of its class: the two must agree.
static_assert(static_cast<uint32_t>(CommClass::kTensor) == TALB_CLASS_TENSOR, "CommClass");
static_assert(static_cast<uint32_t>(CommClass::kExpert) == TALB_CLASS_EXPERT, "CommClass");
static_assert(static_cast<uint32_t>(CommClass::kPipeline) == TALB_CLASS_PIPELINE, "CommClass");
static_assert(static_cast<uint32_t>(CommClass::kData) == TALB_CLASS_DATA, "CommClass");
static_assert(static_cast<uint32_t>(CommClass::kOther) == TALB_CLASS_OTHER, "CommClass");

uint32_t
Graph::Label(const std::string& name)
{
    if (labelsIndexed > labels.size())
    {
        labelIndex.clear(); // labels shrank behind Label()'s back: index them again
        labelsIndexed = 0;
    }
    for (; labelsIndexed < labels.size(); ++labelsIndexed)
    {
        labelIndex.emplace(labels[labelsIndexed], static_cast<uint32_t>(labelsIndexed));
    }
    auto it = labelIndex.find(name);
    if (it != labelIndex.end() && labels[it->second] != name)
    {
        // A label edited in place left its old name behind: index them all again.
        labelIndex.clear();
        for (labelsIndexed = 0; labelsIndexed < labels.size(); ++labelsIndexed)
        {
            labelIndex.emplace(labels[labelsIndexed], static_cast<uint32_t>(labelsIndexed));
        }
        it = labelIndex.find(name);
    }
    if (it != labelIndex.end())
    {
        return it->second;
    }
    labels.push_back(name);
    labelsIndexed = labels.size();
    labelIndex.emplace(name, static_cast<uint32_t>(labels.size() - 1));
    return static_cast<uint32_t>(labels.size() - 1);
}

const char*
CollTypeName(CollType type)
{
    switch (type)
    {
    case CollType::kAllReduce:
        return "all_reduce";
    case CollType::kReduceScatter:
        return "reduce_scatter";
    case CollType::kAllGather:
        return "all_gather";
    case CollType::kAllToAll:
        return "all_to_all";
    case CollType::kBroadcast:
        return "broadcast";
    case CollType::kReduce:
        return "reduce";
    case CollType::kGather:
        return "gather";
    case CollType::kScatter:
        return "scatter";
    case CollType::kBarrier:
        return "barrier";
    }
    return "unknown";
}

const char*
CommClassName(CommClass cls)
{
    switch (cls)
    {
    case CommClass::kTensor:
        return "tensor";
    case CommClass::kExpert:
        return "expert";
    case CommClass::kPipeline:
        return "pipeline";
    case CommClass::kData:
        return "data";
    case CommClass::kOther:
        return "other";
    }
    return "unknown";
}

const char*
NodeKindName(NodeKind kind)
{
    switch (kind)
    {
    case NodeKind::kCompute:
        return "compute";
    case NodeKind::kMemory:
        return "memory";
    case NodeKind::kCollective:
        return "collective";
    case NodeKind::kSend:
        return "send";
    case NodeKind::kRecv:
        return "recv";
    }
    return "unknown";
}

namespace
{

template <typename... Args>
std::string
Cat(const Args&... args)
{
    std::ostringstream os;
    (os << ... << args);
    return os.str();
}

/// Validate()'s messages, in the documented formats, up to a limit.
class Report
{
  public:
    Report(const std::string& where, std::size_t maxErrors)
        : m_where(where),
          m_max(maxErrors)
    {
    }

    bool Full() const
    {
        return m_max != 0 && m_messages.size() >= m_max;
    }

    void Node(uint32_t rank, uint32_t node, const std::string& what)
    {
        Add(Cat(m_where, ":rank ", rank, ":node ", node, ": ", what));
    }

    void Rank(uint32_t rank, const std::string& what)
    {
        Add(Cat(m_where, ":rank ", rank, ": ", what));
    }

    void Group(uint32_t index, const talb::graph::Group& group, const std::string& what)
    {
        Add(Cat(m_where, ":group ", index, " '", group.name, "': ", what));
    }

    void Whole(const std::string& what)
    {
        Add(Cat(m_where, ": ", what));
    }

    std::vector<std::string> Take()
    {
        return std::move(m_messages);
    }

  private:
    void Add(std::string message)
    {
        if (!Full())
        {
            m_messages.push_back(std::move(message));
        }
    }

    std::string m_where;
    std::size_t m_max;
    std::vector<std::string> m_messages;
};

/// \return whether a + b fits 64 bits; stores the sum in *sum when it does
bool
AddBytes(uint64_t a, uint64_t b, uint64_t* sum)
{
    if (a > std::numeric_limits<uint64_t>::max() - b)
    {
        return false;
    }
    *sum = a + b;
    return true;
}

bool
Rooted(CollType type)
{
    return type == CollType::kBroadcast || type == CollType::kReduce || type == CollType::kGather ||
           type == CollType::kScatter;
}

/// One direction of point-to-point traffic with one message size: its sends and receives.
struct P2pKey
{
    uint32_t sender;
    uint32_t receiver;
    uint32_t tag;
    uint64_t bytes;

    bool operator==(const P2pKey& o) const
    {
        return sender == o.sender && receiver == o.receiver && tag == o.tag && bytes == o.bytes;
    }
};

struct P2pKeyHash
{
    std::size_t operator()(const P2pKey& k) const
    {
        uint64_t h = (uint64_t{k.sender} << 32 | k.receiver) * 0x9e3779b97f4a7c15ull;
        h ^= (uint64_t{k.tag} + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2));
        h ^= k.bytes + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        return static_cast<std::size_t>(h);
    }
};

struct P2pCount
{
    uint64_t sends{0};
    uint64_t recvs{0};
    bool reported{false};
};

/// Each rank's memberships: which groups hold it, at which position (CSR by rank).
struct Memberships
{
    std::vector<uint32_t> start; //!< rank r's entries: [start[r], start[r + 1])
    std::vector<uint32_t> group;
    std::vector<uint32_t> position;
    std::vector<std::size_t> countBase; //!< per group: first slot of its members' counts
    std::vector<uint64_t> collectives;  //!< per group member: collectives it issues there
};

/// Checks the groups themselves and indexes their valid members by rank.
Memberships
CheckGroups(const Graph& graph, Report& report)
{
    Memberships m;
    const uint32_t nGroups = static_cast<uint32_t>(graph.groups.size());
    std::vector<uint32_t> seenIn(graph.nRanks, Node::kNone); // last group that listed a rank
    std::vector<uint8_t> valid; // per group member, in order: counted as a member
    m.start.assign(graph.nRanks + 1, 0);
    m.countBase.resize(nGroups + 1, 0);
    for (uint32_t g = 0; g < nGroups; ++g)
    {
        const Group& group = graph.groups[g];
        m.countBase[g + 1] = m.countBase[g] + group.ranks.size();
        if (group.cls > CommClass::kOther)
        {
            report.Group(g, group, Cat("class ", int(group.cls), " is not a CommClass"));
        }
        if (group.ranks.empty())
        {
            report.Group(g, group, "has no ranks");
        }
        for (uint32_t rank : group.ranks)
        {
            bool ok = rank < graph.nRanks && seenIn[rank] != g;
            if (rank >= graph.nRanks)
            {
                report.Group(
                    g,
                    group,
                    Cat("rank ", rank, " out of range (the graph has ", graph.nRanks, " ranks)"));
            }
            else if (seenIn[rank] == g)
            {
                report.Group(g, group, Cat("rank ", rank, " appears twice"));
            }
            else
            {
                seenIn[rank] = g;
                ++m.start[rank + 1];
            }
            valid.push_back(ok);
        }
    }
    for (uint32_t r = 0; r < graph.nRanks; ++r)
    {
        m.start[r + 1] += m.start[r];
    }
    m.group.resize(m.start[graph.nRanks]);
    m.position.resize(m.start[graph.nRanks]);
    std::vector<uint32_t> cursor(m.start.begin(), m.start.end() - 1);
    std::size_t member = 0;
    for (uint32_t g = 0; g < nGroups; ++g)
    {
        const auto& ranks = graph.groups[g].ranks;
        for (uint32_t pos = 0; pos < ranks.size(); ++pos, ++member)
        {
            if (valid[member])
            {
                uint32_t slot = cursor[ranks[pos]]++;
                m.group[slot] = g;
                m.position[slot] = pos;
            }
        }
    }
    m.collectives.assign(m.countBase[nGroups], 0);
    return m;
}

/// Reusable buffers of the per-rank cycle check.
struct CycleScratch
{
    std::vector<uint32_t> pending;
    std::vector<uint32_t> succStart;
    std::vector<uint32_t> succ;
    std::vector<uint32_t> queue;
    std::vector<uint8_t> onPath;
};

/// \return whether dependency d of node i is one the cycle check follows (reported otherwise)
bool
UsableDep(uint32_t d, uint32_t i, std::size_t n)
{
    return d < n && d != i;
}

/**
 * Kahn's algorithm over one rank's usable dependencies; when some node never becomes ready,
 * walks back from the first such node along its first unfinished dependency until a node
 * repeats: that node lies on a cycle, which the message lists (up to 8 nodes).
 */
void
CheckCycles(uint32_t rank, const std::vector<Node>& nodes, CycleScratch& s, Report& report)
{
    const std::size_t n = nodes.size();
    s.pending.assign(n, 0);
    s.succStart.assign(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : nodes[i].deps)
        {
            if (UsableDep(d, i, n))
            {
                ++s.succStart[d + 1];
                ++s.pending[i];
            }
        }
    }
    for (std::size_t i = 0; i < n; ++i)
    {
        s.succStart[i + 1] += s.succStart[i];
    }
    s.succ.resize(s.succStart[n]);
    s.queue.assign(s.succStart.begin(), s.succStart.end() - 1); // fill cursors, reused below
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t d : nodes[i].deps)
        {
            if (UsableDep(d, i, n))
            {
                s.succ[s.queue[d]++] = i;
            }
        }
    }
    s.queue.clear();
    for (uint32_t i = 0; i < n; ++i)
    {
        if (s.pending[i] == 0)
        {
            s.queue.push_back(i);
        }
    }
    for (std::size_t head = 0; head < s.queue.size(); ++head)
    {
        uint32_t v = s.queue[head];
        for (uint32_t k = s.succStart[v]; k < s.succStart[v + 1]; ++k)
        {
            if (--s.pending[s.succ[k]] == 0)
            {
                s.queue.push_back(s.succ[k]);
            }
        }
    }
    if (s.queue.size() == n)
    {
        return;
    }
    // A node never queued keeps pending > 0: one of its dependencies was never queued either.
    auto next = [&](uint32_t v) {
        for (uint32_t d : nodes[v].deps)
        {
            if (UsableDep(d, v, n) && s.pending[d] != 0)
            {
                return d;
            }
        }
        return v; // unreachable: v's pending count > 0 names such a dependency
    };
    uint32_t v = 0;
    while (s.pending[v] == 0)
    {
        ++v;
    }
    s.onPath.assign(n, 0);
    while (!s.onPath[v])
    {
        s.onPath[v] = 1;
        v = next(v);
    }
    std::ostringstream cycle;
    cycle << v;
    uint32_t u = next(v);
    for (int shown = 1; u != v && shown < 8; ++shown, u = next(u))
    {
        cycle << " -> " << u;
    }
    cycle << (u == v ? Cat(" -> ", v) : std::string(" -> ..."));
    report.Node(rank,
                v,
                Cat("on a dependency cycle: ",
                    cycle.str(),
                    " (each waits for the next; ",
                    n - s.queue.size(),
                    " nodes of the rank are on or behind cycles)"));
}

/// Checks the fields of one collective node; counts it for its group's members. One check per
/// field, each with its message: long, but read as a list.
void
CheckCollective(const Graph& graph,
                uint32_t rank,
                uint32_t index,
                const Node& node,
                const std::vector<uint32_t>& stampOf,
                const std::vector<uint32_t>& positionOf,
                Memberships& m,
                Report& report)
{
    if (node.coll > CollType::kBarrier)
    {
        report.Node(rank, index, Cat("collective type ", int(node.coll), " is not a CollType"));
        return;
    }
    const char* coll = CollTypeName(node.coll);
    if (node.group >= graph.groups.size())
    {
        report.Node(rank,
                    index,
                    node.group == Node::kNone ? Cat(coll, " names no group")
                                              : Cat(coll,
                                                    " names group ",
                                                    node.group,
                                                    " but the graph has ",
                                                    graph.groups.size(),
                                                    " groups"));
        return;
    }
    const Group& group = graph.groups[node.group];
    if (stampOf[node.group] != rank)
    {
        report.Node(rank,
                    index,
                    Cat(coll,
                        " on group ",
                        node.group,
                        " '",
                        group.name,
                        "', which does not contain this rank"));
        return;
    }
    ++m.collectives[m.countBase[node.group] + positionOf[node.group]];
    const std::size_t size = group.ranks.size();
    if (Rooted(node.coll) && node.root >= size)
    {
        report.Node(rank,
                    index,
                    node.root == kNoRoot ? Cat(coll, " without a root")
                                         : Cat(coll,
                                               " root ",
                                               node.root,
                                               " outside group ",
                                               node.group,
                                               " '",
                                               group.name,
                                               "' of ",
                                               size,
                                               " ranks"));
    }
    if (node.coll == CollType::kBarrier && node.bytes != 0)
    {
        report.Node(rank, index, Cat("barrier of ", node.bytes, " bytes (a barrier moves 0)"));
    }
    if (node.coll != CollType::kAllToAll || node.peerBytes == Node::kNone)
    {
        return;
    }
    if (node.peerBytes >= graph.peerBytes.size())
    {
        report.Node(rank,
                    index,
                    Cat("all_to_all split ",
                        node.peerBytes,
                        " out of range (the graph has ",
                        graph.peerBytes.size(),
                        ")"));
        return;
    }
    const auto& split = graph.peerBytes[node.peerBytes];
    if (split.size() != size)
    {
        report.Node(rank,
                    index,
                    Cat("all_to_all split ",
                        node.peerBytes,
                        " has ",
                        split.size(),
                        " entries, group ",
                        node.group,
                        " '",
                        group.name,
                        "' has ",
                        size,
                        " ranks"));
        return;
    }
    uint64_t sum = 0;
    for (uint64_t part : split)
    {
        if (!AddBytes(sum, part, &sum))
        {
            report.Node(rank,
                        index,
                        Cat("all_to_all split ", node.peerBytes, " overflows 64 bits"));
            return;
        }
    }
    if (sum != node.bytes)
    {
        report.Node(rank,
                    index,
                    Cat("all_to_all split ",
                        node.peerBytes,
                        " sums to ",
                        sum,
                        " bytes, the node has ",
                        node.bytes));
    }
}

/// The checks of one node alone (and its collective's group); counts its send or receive.
void
CheckNode(const Graph& graph,
          uint32_t rank,
          uint32_t index,
          const Node& node,
          const std::vector<uint32_t>& stampOf,
          const std::vector<uint32_t>& positionOf,
          Memberships& m,
          std::unordered_map<P2pKey, P2pCount, P2pKeyHash>& p2p,
          Report& report)
{
    const std::size_t n = graph.ranks[rank].size();
    for (uint32_t d : node.deps)
    {
        if (d >= n)
        {
            report.Node(rank,
                        index,
                        Cat("dependency ", d, " out of range (the rank has ", n, " nodes)"));
        }
        else if (d == index)
        {
            report.Node(rank, index, "depends on itself");
        }
    }
    if (node.priority < kPriorityByRule || node.priority >= TALB_NUM_PRIORITIES)
    {
        report.Node(rank,
                    index,
                    Cat("priority ",
                        int(node.priority),
                        " is not 0..",
                        TALB_NUM_PRIORITIES - 1,
                        " or kPriorityByRule"));
    }
    if (node.label != Node::kNone && node.label >= graph.labels.size())
    {
        report.Node(rank,
                    index,
                    Cat("label ",
                        node.label,
                        " out of range (the graph has ",
                        graph.labels.size(),
                        " labels)"));
    }
    if (node.tensor > TALB_TENSOR_INDEX_MASK)
    {
        report.Node(rank, index, Cat("tensor ", node.tensor, " does not fit the wire's 24 bits"));
    }
    if (node.kind > NodeKind::kRecv)
    {
        report.Node(rank, index, Cat("kind ", int(node.kind), " is not a NodeKind"));
        return;
    }
    const bool comm = node.kind == NodeKind::kCollective || node.kind == NodeKind::kSend ||
                      node.kind == NodeKind::kRecv;
    if (comm && node.cls > CommClass::kOther)
    {
        report.Node(rank, index, Cat("class ", int(node.cls), " is not a CommClass"));
    }
    if (node.kind == NodeKind::kCollective)
    {
        CheckCollective(graph, rank, index, node, stampOf, positionOf, m, report);
    }
    else if (node.kind == NodeKind::kSend || node.kind == NodeKind::kRecv)
    {
        if (node.peer >= graph.nRanks)
        {
            report.Node(rank,
                        index,
                        Cat(NodeKindName(node.kind),
                            " peer ",
                            node.peer,
                            " out of range (the graph has ",
                            graph.nRanks,
                            " ranks)"));
        }
        else if (node.kind == NodeKind::kSend)
        {
            ++p2p[P2pKey{rank, node.peer, node.tag, node.bytes}].sends;
        }
        else
        {
            ++p2p[P2pKey{node.peer, rank, node.tag, node.bytes}].recvs;
        }
    }
}

/// Every group's members issue as many collectives on it: one message per group that differs.
void
CheckCollectiveCounts(const Graph& graph, const Memberships& m, Report& report)
{
    for (uint32_t g = 0; g < graph.groups.size() && !report.Full(); ++g)
    {
        const auto& ranks = graph.groups[g].ranks;
        const uint64_t* counts = m.collectives.data() + m.countBase[g];
        for (uint32_t pos = 1; pos < ranks.size(); ++pos)
        {
            if (counts[pos] != counts[0])
            {
                report.Group(g,
                             graph.groups[g],
                             Cat("rank ",
                                 ranks[0],
                                 " issues ",
                                 counts[0],
                                 " collectives on it, rank ",
                                 ranks[pos],
                                 " issues ",
                                 counts[pos]));
                break;
            }
        }
    }
}

/// Every (sender, receiver, tag, bytes) has as many sends as receives: reported once, at the
/// first node (in rank, then node order) of the side that has more.
void
CheckSendRecv(const Graph& graph,
              std::unordered_map<P2pKey, P2pCount, P2pKeyHash>& p2p,
              Report& report)
{
    for (uint32_t r = 0; r < graph.nRanks && !report.Full(); ++r)
    {
        const auto& nodes = graph.ranks[r];
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            const Node& node = nodes[i];
            const bool send = node.kind == NodeKind::kSend;
            if ((!send && node.kind != NodeKind::kRecv) || node.peer >= graph.nRanks)
            {
                continue;
            }
            P2pKey key = send ? P2pKey{r, node.peer, node.tag, node.bytes}
                              : P2pKey{node.peer, r, node.tag, node.bytes};
            P2pCount& count = p2p[key];
            const bool excess = send ? count.sends > count.recvs : count.recvs > count.sends;
            if (excess && !count.reported)
            {
                count.reported = true;
                report.Node(r,
                            i,
                            Cat(send ? "send to" : "recv from",
                                " rank ",
                                node.peer,
                                " (tag ",
                                node.tag,
                                ", ",
                                node.bytes,
                                " bytes) unmatched: rank ",
                                key.sender,
                                " sends ",
                                count.sends,
                                " such messages, rank ",
                                key.receiver,
                                " receives ",
                                count.recvs));
            }
        }
    }
}

} // namespace

std::vector<std::string>
Validate(const Graph& graph, const std::string& where, std::size_t maxErrors)
{
    Report report(where, maxErrors);
    if (graph.ranks.size() != graph.nRanks)
    {
        // Every other check indexes ranks by number: nothing more can be said reliably.
        report.Whole(Cat("nRanks is ",
                         graph.nRanks,
                         " but the graph has ",
                         graph.ranks.size(),
                         " node lists"));
        return report.Take();
    }
    Memberships m = CheckGroups(graph, report);
    std::vector<uint32_t> stampOf(graph.groups.size(), Node::kNone); // group -> rank in it
    std::vector<uint32_t> positionOf(graph.groups.size(), 0);        // that rank's position
    std::unordered_map<P2pKey, P2pCount, P2pKeyHash> p2p;
    CycleScratch scratch;
    uint64_t jobBytes = 0;
    bool jobOverflow = false;
    for (uint32_t r = 0; r < graph.nRanks && !report.Full(); ++r)
    {
        for (uint32_t k = m.start[r]; k < m.start[r + 1]; ++k)
        {
            stampOf[m.group[k]] = r;
            positionOf[m.group[k]] = m.position[k];
        }
        const auto& nodes = graph.ranks[r];
        uint64_t rankBytes = 0;
        bool rankOverflow = false;
        for (uint32_t i = 0; i < nodes.size() && !report.Full(); ++i)
        {
            CheckNode(graph, r, i, nodes[i], stampOf, positionOf, m, p2p, report);
            if (!rankOverflow && !AddBytes(rankBytes, nodes[i].bytes, &rankBytes))
            {
                rankOverflow = true;
                report.Node(r, i, "the rank's byte total overflows 64 bits");
            }
        }
        if (!report.Full())
        {
            CheckCycles(r, nodes, scratch, report);
        }
        if (!rankOverflow && !jobOverflow && !AddBytes(jobBytes, rankBytes, &jobBytes))
        {
            jobOverflow = true;
            report.Rank(r, "the job's byte total overflows 64 bits from this rank on");
        }
    }
    if (!report.Full())
    {
        CheckCollectiveCounts(graph, m, report);
    }
    if (!report.Full())
    {
        CheckSendRecv(graph, p2p, report);
    }
    return report.Take();
}

} // namespace graph
} // namespace talb
