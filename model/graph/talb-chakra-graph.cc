#include "talb-chakra-graph.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <queue>
#include <sstream>
#include <tuple>
#include <unordered_map>

namespace talb
{
namespace graph
{

namespace
{

constexpr uint32_t kMaxTensors = 1u << 24; // the wire's tensor index (talb-wire.h)

bool
FileExists(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return f.good();
}

/// \return "FILE:rank R:node ID: " for messages
std::string
NodeAt(const ChakraTrace& t, uint32_t rank, uint64_t id)
{
    return t.files[rank] + ":rank " + std::to_string(rank) + ":node " + std::to_string(id) + ": ";
}

/// The collective type and how comm_size becomes Node::bytes.
struct CollInfo
{
    CollType type;
    bool perRankSize; //!< comm_size is each rank's part (all-gather, gather)
    bool rootFromSrc; //!< the root is comm_src (broadcast, scatter)
    bool rootFromDst; //!< the root is comm_dst (reduce, gather)
};

CollInfo
Info(ChakraCommType t)
{
    switch (t)
    {
    case ChakraCommType::kAllReduce:
        return {CollType::kAllReduce, false, false, false};
    case ChakraCommType::kReduce:
        return {CollType::kReduce, false, false, true};
    case ChakraCommType::kAllGather:
        return {CollType::kAllGather, true, false, false};
    case ChakraCommType::kGather:
        return {CollType::kGather, true, false, true};
    case ChakraCommType::kScatter:
        return {CollType::kScatter, false, true, false};
    case ChakraCommType::kBroadcast:
        return {CollType::kBroadcast, false, true, false};
    case ChakraCommType::kAllToAll:
        return {CollType::kAllToAll, false, false, false};
    case ChakraCommType::kReduceScatter:
    case ChakraCommType::kReduceScatterBlock:
        return {CollType::kReduceScatter, false, false, false};
    case ChakraCommType::kBarrier:
        break;
    }
    return {CollType::kBarrier, false, false, false};
}

/// One direction and tag of point-to-point traffic: its sends and receives, in issue order.
struct Channel
{
    uint32_t from;
    uint32_t to;
    uint32_t tag;
    std::vector<std::pair<uint32_t, uint32_t>> sends; //!< (node index on from, file position)
    std::vector<std::pair<uint32_t, uint32_t>> recvs; //!< (node index on to, file position)
};

/// Builds the graph of one iteration, rank by rank, then checks the ranks against each other.
class Builder
{
  public:
    Builder(const ChakraTrace& trace,
            const ChakraCommGroups* groups,
            const std::string& groupsWhere,
            const ChakraRun& run,
            Graph* graph)
        : m_trace(trace),
          m_groupFile(groups),
          m_groupsWhere(groupsWhere),
          m_run(run),
          m_graph(*graph)
    {
    }

    std::string Rank(uint32_t r);
    std::string CheckGroups();
    std::string CheckChannels();
    std::string NumberTensors();

    /// per rank: the Chakra id of each graph node (messages)
    std::vector<std::vector<uint64_t>> ids;

  private:
    std::string Order(uint32_t r,
                      std::vector<uint32_t>* order,
                      std::vector<std::vector<uint32_t>>* deps);
    std::string Collective(uint32_t r, const ChakraNode& c, Node* n);
    std::string P2p(uint32_t r, const ChakraNode& c, uint32_t index, Node* n);
    std::string GroupOf(uint32_t r, const ChakraNode& c, uint32_t* group);

    const ChakraTrace& m_trace;
    const ChakraCommGroups* m_groupFile;
    const std::string& m_groupsWhere;
    const ChakraRun& m_run;
    Graph& m_graph;
    std::map<std::string, uint32_t> m_groupIndex; //!< pg_name -> Graph::groups index
    uint32_t m_allGroup{Node::kNone};
    /// per group, per member position: the member's collective nodes in issue order
    std::vector<std::vector<std::vector<uint32_t>>> m_members;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> m_channelIndex;
    std::vector<Channel> m_channels;
};

/**
 * Indexes rank r's nodes by id and sorts them topologically (Kahn's, the file's order among the
 * ready ones), with every dependency checked (control dependencies only where the run waits for
 * them). \p deps[i]: node i's dependencies (positions).
 */
std::string
Builder::Order(uint32_t r, std::vector<uint32_t>* order, std::vector<std::vector<uint32_t>>* deps)
{
    const auto& nodes = m_trace.ranks[r].nodes;
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    std::unordered_map<uint64_t, uint32_t> index;
    index.reserve(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        if (!index.emplace(nodes[i].id, i).second)
        {
            return NodeAt(m_trace, r, nodes[i].id) + "the node id appears twice in the file";
        }
    }
    deps->assign(n, {});
    std::vector<uint32_t> pending(n, 0);
    std::vector<std::vector<uint32_t>> succ(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        for (const auto* list : {&nodes[i].dataDeps, &nodes[i].ctrlDeps})
        {
            if (list == &nodes[i].ctrlDeps && !m_run.waitForCtrlDeps)
            {
                continue;
            }
            for (uint64_t id : *list)
            {
                auto it = index.find(id);
                if (it == index.end())
                {
                    return NodeAt(m_trace, r, nodes[i].id) +
                           (list == &nodes[i].dataDeps ? "data" : "control") +
                           " dependency on node " + std::to_string(id) +
                           ", which the file does not have";
                }
                if (it->second == i)
                {
                    return NodeAt(m_trace, r, nodes[i].id) + "depends on itself";
                }
                (*deps)[i].push_back(it->second);
            }
        }
        auto& d = (*deps)[i];
        std::sort(d.begin(), d.end());
        d.erase(std::unique(d.begin(), d.end()), d.end());
        pending[i] = static_cast<uint32_t>(d.size());
        for (uint32_t p : d)
        {
            succ[p].push_back(i);
        }
    }
    std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> ready;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (pending[i] == 0)
        {
            ready.push(i);
        }
    }
    order->clear();
    while (!ready.empty())
    {
        uint32_t v = ready.top();
        ready.pop();
        order->push_back(v);
        for (uint32_t s : succ[v])
        {
            if (--pending[s] == 0)
            {
                ready.push(s);
            }
        }
    }
    if (order->size() == n)
    {
        return "";
    }
    // Walk back along unfinished dependencies from an unfinished node until one repeats.
    uint32_t v = 0;
    while (pending[v] == 0)
    {
        ++v;
    }
    auto next = [&](uint32_t u) {
        for (uint32_t d : (*deps)[u])
        {
            if (pending[d] != 0)
            {
                return d;
            }
        }
        return u;
    };
    std::vector<uint8_t> seen(n, 0);
    while (!seen[v])
    {
        seen[v] = 1;
        v = next(v);
    }
    std::string cycle = std::to_string(nodes[v].id);
    uint32_t u = next(v);
    for (int shown = 1; u != v && shown < 8; ++shown, u = next(u))
    {
        cycle += " -> " + std::to_string(nodes[u].id);
    }
    cycle += u == v ? " -> " + std::to_string(nodes[v].id) : " -> ...";
    return NodeAt(m_trace, r, nodes[v].id) + "on a dependency cycle (waits for: " + cycle + ")";
}

std::string
Builder::GroupOf(uint32_t r, const ChakraNode& c, uint32_t* group)
{
    const uint32_t nRanks = static_cast<uint32_t>(m_trace.ranks.size());
    if (!c.pgName)
    {
        if (m_allGroup == Node::kNone)
        {
            m_allGroup = static_cast<uint32_t>(m_graph.groups.size());
            Group all;
            all.name = "all";
            for (uint32_t k = 0; k < nRanks; ++k)
            {
                all.ranks.push_back(k);
            }
            m_graph.groups.push_back(std::move(all));
            m_members.emplace_back(nRanks);
        }
        *group = m_allGroup;
        return "";
    }
    const std::string& name = *c.pgName;
    auto it = m_groupIndex.find(name);
    if (it == m_groupIndex.end())
    {
        if (!m_groupFile)
        {
            return "pg_name '" + name + "' but no communicator-group file was given";
        }
        const std::vector<uint32_t>* ranks = nullptr;
        for (const auto& [n, members] : m_groupFile->groups)
        {
            if (n == name)
            {
                ranks = &members;
            }
        }
        if (!ranks)
        {
            return "pg_name '" + name + "' is not a group of " + m_groupsWhere;
        }
        for (uint32_t k : *ranks)
        {
            if (k >= nRanks)
            {
                return "pg_name '" + name + "': " + m_groupsWhere + " puts rank " +
                       std::to_string(k) + " in it, but the trace has " + std::to_string(nRanks) +
                       " ranks";
            }
        }
        Group g;
        g.name = name;
        g.ranks = *ranks;
        it = m_groupIndex.emplace(name, static_cast<uint32_t>(m_graph.groups.size())).first;
        m_graph.groups.push_back(std::move(g));
        m_members.emplace_back(ranks->size());
    }
    *group = it->second;
    const auto& ranks = m_graph.groups[*group].ranks;
    if (std::find(ranks.begin(), ranks.end(), r) == ranks.end())
    {
        return "rank " + std::to_string(r) + " is not in group '" + name + "' of " + m_groupsWhere;
    }
    return "";
}

std::string
Builder::Collective(uint32_t r, const ChakraNode& c, Node* n)
{
    if (!c.commType)
    {
        return "COMM_COLL_NODE without comm_type";
    }
    const CollInfo info = Info(*c.commType);
    n->kind = NodeKind::kCollective;
    n->coll = info.type;
    std::string error = GroupOf(r, c, &n->group);
    if (!error.empty())
    {
        return error;
    }
    const Group& g = m_graph.groups[n->group];
    if (info.type != CollType::kBarrier)
    {
        if (!c.commSize)
        {
            return std::string(ChakraCommTypeName(*c.commType)) + " without comm_size";
        }
        const uint64_t parts = info.perRankSize ? g.ranks.size() : 1;
        if (*c.commSize > UINT64_MAX / parts)
        {
            return "comm_size " + std::to_string(*c.commSize) + " x " + std::to_string(parts) +
                   " ranks (the " + ChakraCommTypeName(*c.commType) +
                   " output buffer) passes 64 bits";
        }
        n->bytes = *c.commSize * parts;
    }
    if (info.rootFromSrc || info.rootFromDst)
    {
        n->root = 0;
        const std::optional<uint32_t>& root = info.rootFromSrc ? c.commSrc : c.commDst;
        if (root)
        {
            auto it = std::find(g.ranks.begin(), g.ranks.end(), *root);
            if (it == g.ranks.end())
            {
                return std::string(info.rootFromSrc ? "comm_src " : "comm_dst ") +
                       std::to_string(*root) + " (the root) is not in group '" + g.name + "'";
            }
            n->root = static_cast<uint32_t>(it - g.ranks.begin());
        }
    }
    auto& mine = m_members[n->group];
    const uint32_t position =
        static_cast<uint32_t>(std::find(g.ranks.begin(), g.ranks.end(), r) - g.ranks.begin());
    auto& issued = mine[position];
    if (!issued.empty())
    {
        n->deps.push_back(issued.back()); // the rank's previous collective on the group
    }
    issued.push_back(static_cast<uint32_t>(m_graph.ranks[r].size()));
    return "";
}

std::string
Builder::P2p(uint32_t r, const ChakraNode& c, uint32_t index, Node* n)
{
    const bool send = c.type == ChakraNodeType::kCommSend;
    const char* type = send ? "COMM_SEND_NODE" : "COMM_RECV_NODE";
    const std::optional<uint32_t>& peer = send ? c.commDst : c.commSrc;
    const std::optional<uint32_t>& self = send ? c.commSrc : c.commDst;
    const uint32_t nRanks = static_cast<uint32_t>(m_trace.ranks.size());
    if (!peer)
    {
        return std::string(type) + " without " + (send ? "comm_dst" : "comm_src");
    }
    if (*peer >= nRanks)
    {
        return std::string(send ? "comm_dst " : "comm_src ") + std::to_string(*peer) +
               " out of range (the trace has " + std::to_string(nRanks) + " ranks)";
    }
    if (*peer == r)
    {
        return std::string(type) + " to its own rank";
    }
    if (self && *self != r)
    {
        return std::string(send ? "comm_src " : "comm_dst ") + std::to_string(*self) + " of a " +
               type + " is not the file's rank " + std::to_string(r);
    }
    if (!c.commSize)
    {
        return std::string(type) + " without comm_size";
    }
    n->kind = send ? NodeKind::kSend : NodeKind::kRecv;
    n->peer = *peer;
    n->tag = c.commTag.value_or(0);
    n->bytes = *c.commSize;
    auto key = send ? std::make_tuple(r, *peer, n->tag) : std::make_tuple(*peer, r, n->tag);
    auto it = m_channelIndex.find(key);
    if (it == m_channelIndex.end())
    {
        it = m_channelIndex.emplace(key, static_cast<uint32_t>(m_channels.size())).first;
        m_channels.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key), {}, {}});
    }
    auto& mine = send ? m_channels[it->second].sends : m_channels[it->second].recvs;
    if (!mine.empty())
    {
        n->deps.push_back(mine.back().first); // the rank's previous one on the channel
    }
    mine.emplace_back(static_cast<uint32_t>(m_graph.ranks[r].size()), index);
    return "";
}

/// One rank's nodes, in its topological order, metadata nodes left out (their dependents inherit
/// their dependencies). Longer than most: one branch per node type, read as a table.
std::string
Builder::Rank(uint32_t r)
{
    std::vector<uint32_t> order;
    std::vector<std::vector<uint32_t>> deps;
    std::string error = Order(r, &order, &deps);
    if (!error.empty())
    {
        return error;
    }
    const auto& nodes = m_trace.ranks[r].nodes;
    constexpr uint32_t kMetadata = UINT32_MAX;
    std::vector<uint32_t> graphIndex(nodes.size(), kMetadata);
    std::vector<std::vector<uint32_t>> inherited(nodes.size()); // a metadata node's graph deps
    auto& out = m_graph.ranks[r];
    ids.emplace_back();
    for (uint32_t pos : order)
    {
        const ChakraNode& c = nodes[pos];
        std::vector<uint32_t> d;
        for (uint32_t p : deps[pos])
        {
            if (graphIndex[p] == kMetadata)
            {
                d.insert(d.end(), inherited[p].begin(), inherited[p].end());
            }
            else
            {
                d.push_back(graphIndex[p]);
            }
        }
        std::sort(d.begin(), d.end());
        d.erase(std::unique(d.begin(), d.end()), d.end());
        if (c.type == ChakraNodeType::kMetadata)
        {
            inherited[pos] = std::move(d);
            continue;
        }
        Node n;
        n.label = m_graph.Label(c.name.empty() ? "node " + std::to_string(c.id) : c.name);
        n.priority = c.commPriority ? static_cast<int8_t>(*c.commPriority) : kPriorityByRule;
        // A COMM_COLL_NODE without comm_type on the host is the call that launches a collective
        // kernel (c10d::allreduce_, ...), as older PyTorch converters typed it: the kernel node
        // carries the collective; this one is host time, a COMP_NODE.
        const bool hostCall =
            c.type == ChakraNodeType::kCommColl && !c.commType && c.isCpuOp.value_or(false);
        switch (hostCall ? ChakraNodeType::kComp : c.type)
        {
        case ChakraNodeType::kComp:
        case ChakraNodeType::kMemLoad:
        case ChakraNodeType::kMemStore:
            n.kind = c.type == ChakraNodeType::kMemLoad || c.type == ChakraNodeType::kMemStore
                         ? NodeKind::kMemory
                         : NodeKind::kCompute;
            n.durationNs = c.durationMicros * 1000; // the reader bounded it
            n.host = c.isCpuOp.value_or(false);
            break;
        case ChakraNodeType::kCommColl:
            error = Collective(r, c, &n);
            break;
        case ChakraNodeType::kCommSend:
        case ChakraNodeType::kCommRecv:
            error = P2p(r, c, pos, &n);
            break;
        case ChakraNodeType::kMetadata:
            break;
        }
        if (!error.empty())
        {
            return NodeAt(m_trace, r, c.id) + error;
        }
        n.deps.insert(n.deps.end(), d.begin(), d.end());
        std::sort(n.deps.begin(), n.deps.end());
        n.deps.erase(std::unique(n.deps.begin(), n.deps.end()), n.deps.end());
        graphIndex[pos] = static_cast<uint32_t>(out.size());
        out.push_back(std::move(n));
        ids.back().push_back(c.id);
    }
    return "";
}

/// Every member of a group issues as many collectives on it, the k-th alike.
std::string
Builder::CheckGroups()
{
    for (uint32_t g = 0; g < m_graph.groups.size(); ++g)
    {
        const Group& group = m_graph.groups[g];
        const auto& members = m_members[g];
        const uint32_t r0 = group.ranks[0];
        for (uint32_t m = 1; m < members.size(); ++m)
        {
            const uint32_t r = group.ranks[m];
            if (members[m].size() != members[0].size())
            {
                return m_trace.files[r] + ":rank " + std::to_string(r) + ": issues " +
                       std::to_string(members[m].size()) + " collectives on group '" + group.name +
                       "' but rank " + std::to_string(r0) + " issues " +
                       std::to_string(members[0].size()) + " (every member issues each)";
            }
            for (std::size_t k = 0; k < members[m].size(); ++k)
            {
                const Node& a = m_graph.ranks[r0][members[0][k]];
                const Node& b = m_graph.ranks[r][members[m][k]];
                if (a.coll != b.coll || (a.coll != CollType::kAllToAll && a.bytes != b.bytes) ||
                    a.root != b.root)
                {
                    auto say = [&group](const Node& n) {
                        std::string s = std::string(CollTypeName(n.coll)) + " of " +
                                        std::to_string(n.bytes) + " bytes";
                        return n.root == kNoRoot
                                   ? s
                                   : s + " rooted at rank " + std::to_string(group.ranks[n.root]);
                    };
                    return NodeAt(m_trace, r, ids[r][members[m][k]]) + "collective #" +
                           std::to_string(k) + " on group '" + group.name + "' is " + say(b) +
                           ", but rank " + std::to_string(r0) + "'s (node " +
                           std::to_string(ids[r0][members[0][k]]) + ") is " + say(a);
                }
            }
        }
    }
    return "";
}

/// Every channel has as many sends as receives, the k-th of equal bytes.
std::string
Builder::CheckChannels()
{
    for (const Channel& ch : m_channels)
    {
        const std::size_t pairs = std::min(ch.sends.size(), ch.recvs.size());
        for (std::size_t k = 0; k < pairs; ++k)
        {
            const Node& s = m_graph.ranks[ch.from][ch.sends[k].first];
            const Node& v = m_graph.ranks[ch.to][ch.recvs[k].first];
            if (s.bytes != v.bytes)
            {
                return NodeAt(m_trace, ch.to, ids[ch.to][ch.recvs[k].first]) + "receive #" +
                       std::to_string(k) + " from rank " + std::to_string(ch.from) + " tag " +
                       std::to_string(ch.tag) + " is " + std::to_string(v.bytes) +
                       " bytes, but the send (node " +
                       std::to_string(ids[ch.from][ch.sends[k].first]) + ") is " +
                       std::to_string(s.bytes);
            }
        }
        if (ch.sends.size() != ch.recvs.size())
        {
            const bool moreSends = ch.sends.size() > ch.recvs.size();
            const uint32_t r = moreSends ? ch.from : ch.to;
            const uint32_t node = moreSends ? ch.sends[pairs].first : ch.recvs[pairs].first;
            return NodeAt(m_trace, r, ids[r][node]) + (moreSends ? "send" : "receive") +
                   " with no matching " + (moreSends ? "receive on rank " : "send on rank ") +
                   std::to_string(moreSends ? ch.to : ch.from) + " (tag " + std::to_string(ch.tag) +
                   ")";
        }
    }
    return "";
}

std::string
Builder::NumberTensors()
{
    uint64_t next = 0;
    for (uint32_t g = 0; g < m_graph.groups.size(); ++g)
    {
        const auto& members = m_members[g];
        for (uint32_t m = 0; m < members.size(); ++m)
        {
            for (std::size_t k = 0; k < members[m].size(); ++k)
            {
                m_graph.ranks[m_graph.groups[g].ranks[m]][members[m][k]].tensor =
                    static_cast<uint32_t>((next + k) % kMaxTensors);
            }
        }
        next += members[0].size();
    }
    for (const Channel& ch : m_channels)
    {
        for (std::size_t k = 0; k < ch.sends.size(); ++k)
        {
            m_graph.ranks[ch.from][ch.sends[k].first].tensor =
                static_cast<uint32_t>((next + k) % kMaxTensors);
            m_graph.ranks[ch.to][ch.recvs[k].first].tensor =
                static_cast<uint32_t>((next + k) % kMaxTensors);
        }
        next += ch.sends.size();
    }
    if (next > kMaxTensors)
    {
        return "the trace has " + std::to_string(next) +
               " collectives and messages; a job's tensor ids count at most " +
               std::to_string(kMaxTensors);
    }
    return "";
}

/// Repeats each rank's nodes \p iterations times: iteration i > 0 starts with a zero-time
/// compute node that waits for every last node of iteration i - 1 (one the rank finishes it).
void
Repeat(Graph* graph, uint32_t iterations)
{
    const uint32_t boundary = iterations > 1 ? graph->Label("iteration start") : 0;
    for (auto& nodes : graph->ranks)
    {
        const std::vector<Node> base = std::move(nodes);
        nodes.clear();
        if (base.empty())
        {
            continue;
        }
        std::vector<uint8_t> hasSucc(base.size(), 0);
        for (const Node& n : base)
        {
            for (uint32_t d : n.deps)
            {
                hasSucc[d] = 1;
            }
        }
        nodes.reserve((base.size() + 1) * iterations);
        uint32_t lastStart = 0;
        for (uint32_t it = 0; it < iterations; ++it)
        {
            uint32_t start = static_cast<uint32_t>(nodes.size());
            uint32_t gate = Node::kNone;
            if (it > 0)
            {
                Node b;
                b.kind = NodeKind::kCompute;
                b.label = boundary;
                b.iteration = it;
                for (uint32_t i = 0; i < base.size(); ++i)
                {
                    if (!hasSucc[i])
                    {
                        b.deps.push_back(lastStart + i);
                    }
                }
                gate = start;
                nodes.push_back(std::move(b));
                ++start;
            }
            for (const Node& n : base)
            {
                Node copy = n;
                copy.iteration = it;
                for (uint32_t& d : copy.deps)
                {
                    d += start;
                }
                if (gate != Node::kNone && copy.deps.empty())
                {
                    copy.deps.push_back(gate);
                }
                nodes.push_back(std::move(copy));
            }
            lastStart = start;
        }
    }
}

} // namespace

bool
ReadChakraTrace(const std::string& prefix,
                uint32_t maxRanks,
                ChakraTrace* trace,
                std::string* error)
{
    *trace = ChakraTrace();
    for (uint32_t r = 0;; ++r)
    {
        const std::string plain = prefix + "." + std::to_string(r) + ".et";
        const bool hasPlain = FileExists(plain);
        const bool hasGz = FileExists(plain + ".gz");
        if (hasPlain && hasGz)
        {
            *error = prefix + ": rank " + std::to_string(r) + " has two files, " + plain + " and " +
                     plain + ".gz (keep one)";
            *trace = ChakraTrace();
            return false;
        }
        if (!hasPlain && !hasGz)
        {
            if (r == 0)
            {
                *error = prefix + ": no file " + plain + " (or .et.gz): a trace has one file " +
                         "per rank, PREFIX.0.et, PREFIX.1.et, ...";
                return false;
            }
            // A gap: a later rank's file without this one.
            for (uint32_t k = r + 1; k < r + 64; ++k)
            {
                const std::string later = prefix + "." + std::to_string(k) + ".et";
                if (FileExists(later) || FileExists(later + ".gz"))
                {
                    *error = prefix + ": rank " + std::to_string(r) + "'s file " + plain +
                             " is missing, but " + later + " exists";
                    *trace = ChakraTrace();
                    return false;
                }
            }
            return true;
        }
        if (r >= maxRanks)
        {
            *error = prefix + ": more than " + std::to_string(maxRanks) + " ranks";
            *trace = ChakraTrace();
            return false;
        }
        trace->files.push_back(hasPlain ? plain : plain + ".gz");
        trace->ranks.emplace_back();
        if (!ReadChakraRankFile(trace->files.back(), &trace->ranks.back(), error))
        {
            *trace = ChakraTrace();
            return false;
        }
    }
}

/// Rank by rank, then the ranks against each other, then the iterations: one read of the steps.
bool
BuildChakraGraph(const ChakraTrace& trace,
                 const ChakraCommGroups* groups,
                 const std::string& groupsWhere,
                 const ChakraRun& run,
                 const std::string& where,
                 Graph* graph,
                 std::string* error)
{
    *graph = Graph();
    auto fail = [&](const std::string& message) {
        *graph = Graph();
        *error = message;
        return false;
    };
    const uint64_t nRanks = trace.ranks.size();
    if (nRanks == 0 || trace.files.size() != nRanks)
    {
        return fail(where + ": the trace has no ranks");
    }
    if (run.iterations == 0)
    {
        return fail(where + ": 0 iterations");
    }
    graph->nRanks = static_cast<uint32_t>(nRanks);
    graph->iterations = run.iterations;
    graph->ranks.resize(nRanks);
    Builder b(trace, groups, groupsWhere, run, graph);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        std::string e = b.Rank(r);
        if (!e.empty())
        {
            return fail(e);
        }
        if ((uint64_t(graph->ranks[r].size()) + 1) * run.iterations >= Node::kNone)
        {
            return fail(trace.files[r] + ":rank " + std::to_string(r) + ": " +
                        std::to_string(graph->ranks[r].size()) + " nodes x " +
                        std::to_string(run.iterations) + " iterations pass 2^32 nodes");
        }
    }
    // In order: tensor ids are numbered only once the members agree.
    for (auto check : {&Builder::CheckGroups, &Builder::CheckChannels, &Builder::NumberTensors})
    {
        std::string e = (b.*check)();
        if (!e.empty())
        {
            return fail(e);
        }
    }
    uint64_t total = 0;
    for (const auto& nodes : graph->ranks)
    {
        for (const Node& n : nodes)
        {
            if (n.bytes > UINT64_MAX - total)
            {
                return fail(where + ": the bytes of all ranks' nodes pass 64 bits");
            }
            total += n.bytes;
        }
    }
    if (total > UINT64_MAX / run.iterations)
    {
        return fail(where + ": the bytes of all ranks' nodes over " +
                    std::to_string(run.iterations) + " iterations pass 64 bits");
    }
    Repeat(graph, run.iterations);
    return true;
}

} // namespace graph
} // namespace talb
