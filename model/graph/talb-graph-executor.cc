#include "talb-graph-executor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unordered_map>

namespace talb
{
namespace graph
{

void
ExecutorEnv::NodeIssued(uint32_t, uint32_t)
{
}

void
ExecutorEnv::NodeDone(uint32_t, uint32_t)
{
}

namespace
{

/// Aborts unless \p ok: the environment misused the executor (see the class comment).
void
Require(bool ok, const char* what, uint64_t a, uint64_t b)
{
    if (!ok)
    {
        std::fprintf(stderr,
                     "talb::graph::Executor: %s (%llu, %llu)\n",
                     what,
                     static_cast<unsigned long long>(a),
                     static_cast<unsigned long long>(b));
        std::abort();
    }
}

bool
Rooted(CollType type)
{
    return type == CollType::kBroadcast || type == CollType::kReduce || type == CollType::kGather ||
           type == CollType::kScatter;
}

/// "rank R node N issues all_reduce of B bytes (root P)", for mismatch messages.
std::string
DescribeCollective(uint32_t rank, uint32_t index, const Node& node)
{
    std::ostringstream os;
    os << "rank " << rank << " node " << index << " issues " << CollTypeName(node.coll);
    if (node.coll != CollType::kAllToAll)
    {
        os << " of " << node.bytes << " bytes";
    }
    if (Rooted(node.coll))
    {
        os << " (root " << node.root << ")";
    }
    return os.str();
}

/// A channel's name: (from, to, tag).
struct ChannelKey
{
    uint32_t from;
    uint32_t to;
    uint32_t tag;

    bool operator==(const ChannelKey& o) const
    {
        return from == o.from && to == o.to && tag == o.tag;
    }
};

struct ChannelKeyHash
{
    std::size_t operator()(const ChannelKey& k) const
    {
        uint64_t h = (uint64_t{k.from} << 32 | k.to) * 0x9e3779b97f4a7c15ull;
        h ^= uint64_t{k.tag} + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
        return static_cast<std::size_t>(h);
    }
};

} // namespace

Executor::Executor(const Graph& graph, ExecutorEnv* env)
    : m_graph(graph),
      m_env(env)
{
    m_feeders.reserve(graph.nRanks);
    for (const auto& nodes : graph.ranks)
    {
        m_feeders.emplace_back(nodes);
        m_ranksDone += m_feeders.back().Done();
    }
    m_dirty.assign(graph.nRanks, 0);
    m_isDirty.assign(graph.nRanks, 0);
    IndexNodes();
    SizeSlots();
}

/**
 * Per node its group position or channel (channels numbered in the order a scan of ranks and
 * nodes first meets them); per rank its two compute streams' slices; counts, per group member, its
 * collectives and, per channel, its sends and receives.
 */
void
Executor::IndexNodes()
{
    const uint32_t nRanks = m_graph.nRanks;
    m_nodeBase.assign(nRanks + 1, 0);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        m_nodeBase[r + 1] = m_nodeBase[r] + m_graph.ranks[r].size();
    }
    m_aux.assign(m_nodeBase[nRanks], 0);

    const std::size_t nGroups = m_graph.groups.size();
    m_groups.assign(nGroups, GroupState());
    std::unordered_map<uint64_t, uint32_t> position; // (group << 32 | rank) -> position
    std::size_t members = 0;
    std::size_t largest = 0;
    for (std::size_t g = 0; g < nGroups; ++g)
    {
        const auto& ranks = m_graph.groups[g].ranks;
        m_groups[g].members = members;
        members += ranks.size();
        largest = std::max(largest, ranks.size());
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            position.emplace(uint64_t(g) << 32 | ranks[p], p);
        }
    }
    m_issued.assign(members, 0); // counts collectives per member first
    m_instanceNodes.reserve(largest);

    std::unordered_map<ChannelKey, uint32_t, ChannelKeyHash> channelOf;
    m_streams.assign(kStreams * std::size_t(nRanks), Stream());
    uint32_t streamSlots = 0;
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        uint32_t onStream[kStreams] = {0, 0}; // GPU, host
        const auto& nodes = m_graph.ranks[r];
        for (uint32_t i = 0; i < nodes.size(); ++i)
        {
            const Node& node = nodes[i];
            uint32_t& aux = m_aux[m_nodeBase[r] + i];
            switch (node.kind)
            {
            case NodeKind::kCompute:
            case NodeKind::kMemory:
                ++onStream[node.host];
                break;
            case NodeKind::kCollective:
                aux = position.at(uint64_t(node.group) << 32 | r);
                ++m_issued[m_groups[node.group].members + aux];
                break;
            case NodeKind::kSend:
            case NodeKind::kRecv: {
                const bool send = node.kind == NodeKind::kSend;
                const uint32_t from = send ? r : node.peer;
                const uint32_t to = send ? node.peer : r;
                auto [it, added] = channelOf.emplace(ChannelKey{from, to, node.tag},
                                                     static_cast<uint32_t>(m_channels.size()));
                if (added)
                {
                    m_channels.push_back(Channel{from, to, node.tag});
                }
                aux = it->second;
                Channel& ch = m_channels[aux];
                ++(send ? ch.sendCount : ch.recvCount);
                break;
            }
            }
        }
        for (uint32_t s = 0; s < kStreams; ++s)
        {
            Stream& stream = StreamAt(r, s);
            stream.head = stream.tail = streamSlots;
            streamSlots += onStream[s];
        }
    }
    m_streamSlots.assign(streamSlots, 0);
}

/**
 * Per group its instances' slots (K instances x N members, K = the most collectives a member
 * issues on it: equal for a valid graph); per channel its send and receive slots.
 */
void
Executor::SizeSlots()
{
    std::size_t slots = 0;
    std::size_t arrivals = 0;
    for (std::size_t g = 0; g < m_groups.size(); ++g)
    {
        GroupState& st = m_groups[g];
        const std::size_t n = m_graph.groups[g].ranks.size();
        for (std::size_t p = 0; p < n; ++p)
        {
            st.instances = std::max(st.instances, m_issued[st.members + p]);
            m_issued[st.members + p] = 0;
        }
        st.slots = slots;
        st.arrivals = arrivals;
        slots += st.instances * n;
        arrivals += st.instances;
    }
    m_collSlots.assign(slots, 0);
    m_arrivals.assign(arrivals, 0);

    uint32_t p2p = 0;
    for (Channel& ch : m_channels)
    {
        ch.sendSlots = p2p;
        ch.recvSlots = p2p + ch.sendCount;
        p2p += ch.sendCount + ch.recvCount;
    }
    m_p2pSlots.assign(p2p, 0);
}

void
Executor::Start()
{
    Require(!m_started, "Start() called twice", 0, 0);
    m_started = true;
    for (uint32_t r = 0; r < m_graph.nRanks; ++r)
    {
        MarkDirty(r);
    }
    Drain();
}

void
Executor::ComputeDone(uint32_t rank, uint32_t node)
{
    Require(rank < m_graph.nRanks && node < m_graph.ranks[rank].size() &&
                StreamOf(rank, node).running == node,
            "ComputeDone() of a node not on the rank's compute stream (rank, node)",
            rank,
            node);
    StreamOf(rank, node).running = Stream::kIdle;
    Complete(rank, node);
    Drain();
}

void
Executor::CollectiveDone(uint32_t group, uint64_t seq, uint32_t member)
{
    Require(group < m_groups.size() && seq < m_groups[group].started,
            "CollectiveDone() of an instance not started (group, seq)",
            group,
            seq);
    const auto& ranks = m_graph.groups[group].ranks;
    Require(member < ranks.size(), "CollectiveDone() of a member outside the group", group, member);
    Complete(ranks[member], CollectiveNode(group, seq, member));
    Drain();
}

void
Executor::MessageDone(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode)
{
    const uint32_t nRanks = m_graph.nRanks;
    const bool known = from < nRanks && to < nRanks && sendNode < m_graph.ranks[from].size() &&
                       recvNode < m_graph.ranks[to].size() &&
                       m_graph.ranks[from][sendNode].kind == NodeKind::kSend &&
                       m_graph.ranks[to][recvNode].kind == NodeKind::kRecv &&
                       m_aux[m_nodeBase[from] + sendNode] == m_aux[m_nodeBase[to] + recvNode];
    Require(known, "MessageDone() of nodes that are no send and receive pair (from, to)", from, to);
    Complete(from, sendNode);
    Complete(to, recvNode);
    Drain();
}

bool
Executor::Done() const
{
    return m_ranksDone == m_graph.nRanks;
}

bool
Executor::RankDone(uint32_t rank) const
{
    return m_feeders[rank].Done();
}

const std::string&
Executor::Error() const
{
    return m_error;
}

uint32_t
Executor::CollectiveNode(uint32_t group, uint64_t seq, uint32_t member) const
{
    Require(group < m_groups.size() && seq < m_groups[group].started,
            "CollectiveNode() of an instance not started (group, seq)",
            group,
            seq);
    const GroupState& st = m_groups[group];
    return m_collSlots[st.slots + seq * m_graph.groups[group].ranks.size() + member];
}

uint64_t
Executor::CollectivesStarted(uint32_t group) const
{
    return m_groups[group].started;
}

Executor::Stream&
Executor::StreamAt(uint32_t rank, uint32_t stream)
{
    return m_streams[kStreams * std::size_t(rank) + stream];
}

Executor::Stream&
Executor::StreamOf(uint32_t rank, uint32_t node)
{
    return StreamAt(rank, m_graph.ranks[rank][node].host);
}

void
Executor::Issue(uint32_t rank, uint32_t node)
{
    m_env->NodeIssued(rank, node);
    switch (m_graph.ranks[rank][node].kind)
    {
    case NodeKind::kCompute:
    case NodeKind::kMemory:
        // Each node enters once: its slot is free.
        m_streamSlots[StreamOf(rank, node).tail++] = node;
        break;
    case NodeKind::kCollective:
        IssueCollective(rank, node);
        break;
    case NodeKind::kSend:
    case NodeKind::kRecv:
        IssueP2p(rank, node);
        break;
    }
}

void
Executor::IssueCollective(uint32_t rank, uint32_t node)
{
    const uint32_t group = m_graph.ranks[rank][node].group;
    GroupState& st = m_groups[group];
    const std::size_t n = m_graph.groups[group].ranks.size();
    const uint32_t member = m_aux[m_nodeBase[rank] + node];
    const uint64_t seq = m_issued[st.members + member]++;
    Require(seq < st.instances, "a member issues more collectives than the group has", group, rank);
    m_collSlots[st.slots + seq * n + member] = node;
    if (++m_arrivals[st.arrivals + seq] == n)
    {
        StartReadyCollectives(group);
    }
}

/**
 * Starts the group's instances whose members have all issued them, in sequence order (a
 * member issues seq before seq + 1, so instance seq fills first). An instance whose members
 * disagree is an Error() and blocks the group.
 */
void
Executor::StartReadyCollectives(uint32_t group)
{
    GroupState& st = m_groups[group];
    const auto& ranks = m_graph.groups[group].ranks;
    const std::size_t n = ranks.size();
    while (!st.failed && st.started < st.instances && m_arrivals[st.arrivals + st.started] == n)
    {
        const uint32_t* nodes = m_collSlots.data() + st.slots + st.started * n;
        const Node& first = m_graph.ranks[ranks[0]][nodes[0]];
        for (std::size_t i = 1; i < n && !st.failed; ++i)
        {
            const Node& other = m_graph.ranks[ranks[i]][nodes[i]];
            const bool agree = other.coll == first.coll &&
                               (first.coll == CollType::kAllToAll || other.bytes == first.bytes) &&
                               (!Rooted(first.coll) || other.root == first.root);
            if (!agree)
            {
                st.failed = true;
                std::ostringstream os;
                os << "group " << group << " '" << m_graph.groups[group].name << "' collective "
                   << st.started << ": " << DescribeCollective(ranks[0], nodes[0], first) << ", "
                   << DescribeCollective(ranks[i], nodes[i], other)
                   << " (the members of a group must issue the same collectives in the same "
                      "order)";
                Fail(os.str());
            }
        }
        if (st.failed)
        {
            return;
        }
        m_instanceNodes.assign(nodes, nodes + n);
        const uint64_t seq = st.started++; // before the call: the environment may answer in it
        m_env->StartCollective(group, seq, m_instanceNodes);
    }
}

void
Executor::IssueP2p(uint32_t rank, uint32_t node)
{
    const uint32_t channel = m_aux[m_nodeBase[rank] + node];
    Channel& ch = m_channels[channel];
    if (m_graph.ranks[rank][node].kind == NodeKind::kSend)
    {
        Require(ch.sends < ch.sendCount, "more sends issued than counted (rank, node)", rank, node);
        m_p2pSlots[ch.sendSlots + ch.sends++] = node;
    }
    else
    {
        Require(ch.recvs < ch.recvCount, "more receives issued than counted", rank, node);
        m_p2pSlots[ch.recvSlots + ch.recvs++] = node;
    }
    MatchMessages(channel);
}

/// Starts the channel's messages whose send and receive are both issued, in issue order.
void
Executor::MatchMessages(uint32_t channel)
{
    Channel& ch = m_channels[channel];
    while (!ch.failed && ch.matched < std::min(ch.sends, ch.recvs))
    {
        const uint32_t sendNode = m_p2pSlots[ch.sendSlots + ch.matched];
        const uint32_t recvNode = m_p2pSlots[ch.recvSlots + ch.matched];
        const uint64_t sent = m_graph.ranks[ch.from][sendNode].bytes;
        const uint64_t received = m_graph.ranks[ch.to][recvNode].bytes;
        if (sent != received)
        {
            ch.failed = true;
            std::ostringstream os;
            os << "message " << ch.matched << " from rank " << ch.from << " to rank " << ch.to
               << " (tag " << ch.tag << "): rank " << ch.from << " node " << sendNode << " sends "
               << sent << " bytes, rank " << ch.to << " node " << recvNode << " receives "
               << received << " (sends and receives of a tag match in issue order)";
            Fail(os.str());
            return;
        }
        ++ch.matched;
        m_env->StartMessage(ch.from, sendNode, ch.to, recvNode);
    }
}

void
Executor::Complete(uint32_t rank, uint32_t node)
{
    Feeder& feeder = m_feeders[rank];
    feeder.Complete(node); // aborts on a node not in flight
    m_env->NodeDone(rank, node);
    m_ranksDone += feeder.Done();
    MarkDirty(rank);
}

void
Executor::MarkDirty(uint32_t rank)
{
    if (!m_isDirty[rank])
    {
        m_isDirty[rank] = 1;
        m_dirty[(m_dirtyHead + m_dirtyCount++) % m_dirty.size()] = rank;
    }
}

/**
 * A loop, not recursion: an environment answering inside a Start* call only marks ranks here,
 * so chains of zero-time nodes neither nest Start* calls nor grow the stack.
 */
void
Executor::Drain()
{
    if (m_draining)
    {
        return;
    }
    m_draining = true;
    while (m_dirtyCount > 0)
    {
        const uint32_t rank = m_dirty[m_dirtyHead];
        m_dirtyHead = (m_dirtyHead + 1) % m_dirty.size();
        --m_dirtyCount;
        m_isDirty[rank] = 0;
        Feeder& feeder = m_feeders[rank];
        while (feeder.HasReady())
        {
            Issue(rank, feeder.PopReady());
        }
        for (uint32_t s = 0; s < kStreams; ++s)
        {
            Stream& stream = StreamAt(rank, s);
            if (stream.running == Stream::kIdle && stream.head < stream.tail)
            {
                stream.running = m_streamSlots[stream.head++];
                m_env->StartCompute(rank, stream.running);
            }
        }
    }
    m_draining = false;
}

void
Executor::Fail(std::string message)
{
    if (m_error.empty())
    {
        m_error = std::move(message);
    }
}

std::string
Executor::Stall() const
{
    if (Done())
    {
        return "";
    }
    constexpr std::size_t kMaxLines = 8;
    std::vector<std::string> lines;
    for (uint32_t g = 0; g < m_groups.size() && lines.size() < kMaxLines; ++g)
    {
        const GroupState& st = m_groups[g];
        const auto& ranks = m_graph.groups[g].ranks;
        const uint32_t arrived =
            st.started < st.instances ? m_arrivals[st.arrivals + st.started] : 0;
        if (st.failed || arrived == 0)
        {
            continue; // a failed instance is Error()'s; an instance none issued waits elsewhere
        }
        for (uint32_t p = 0; p < ranks.size(); ++p)
        {
            if (m_issued[st.members + p] <= st.started)
            {
                std::ostringstream os;
                os << "group " << g << " '" << m_graph.groups[g].name << "' collective "
                   << st.started << " waits for rank " << ranks[p] << " (" << arrived << " of "
                   << ranks.size() << " members issued it)";
                lines.push_back(os.str());
                break;
            }
        }
    }
    for (const Channel& ch : m_channels)
    {
        if (lines.size() >= kMaxLines)
        {
            break;
        }
        if (ch.failed || ch.sends == ch.recvs)
        {
            continue;
        }
        const bool sendWaits = ch.sends > ch.recvs;
        const uint32_t node =
            m_p2pSlots[sendWaits ? ch.sendSlots + ch.recvs : ch.recvSlots + ch.sends];
        std::ostringstream os;
        os << (sendWaits ? "send" : "receive") << " of rank " << (sendWaits ? ch.from : ch.to)
           << " node " << node << " (tag " << ch.tag << ") waits for rank "
           << (sendWaits ? ch.to : ch.from) << "'s " << (sendWaits ? "receive" : "send");
        lines.push_back(os.str());
    }
    for (uint32_t r = 0; r < m_graph.nRanks && lines.size() < kMaxLines; ++r)
    {
        if (!m_feeders[r].Done())
        {
            std::ostringstream os;
            os << "rank " << r << ": " << m_feeders[r].Completed() << " of "
               << m_graph.ranks[r].size() << " nodes completed";
            lines.push_back(os.str());
        }
    }
    std::string text;
    for (const auto& line : lines)
    {
        text += (text.empty() ? "" : "; ") + line;
    }
    return text;
}

} // namespace graph
} // namespace talb
