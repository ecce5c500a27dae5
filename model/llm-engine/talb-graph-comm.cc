#include "talb-graph-comm.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/talb-wire.h"

#include <algorithm>
#include <set>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphComm");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphComm);

using talb::graph::CollType;
using talb::graph::Graph;
using GNode = talb::graph::Node;
using talb::graph::NodeKind;

TypeId
TalbGraphComm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbGraphComm").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbGraphComm::TalbGraphComm()
{
    NS_LOG_FUNCTION(this);
}

TalbGraphComm::~TalbGraphComm()
{
    NS_LOG_FUNCTION(this);
}

void
TalbGraphComm::DoDispose()
{
    m_hosts.clear();
    m_transport = nullptr;
    m_algorithms.clear();
    m_channels.clear();
    m_instances.clear();
    m_messages.clear();
    m_memberDone = MemberDoneCallback();
    m_instanceDone = InstanceDoneCallback();
    m_messageDone = MessageDoneCallback();
    m_flow = FlowCallback();
    Object::DoDispose();
}

uint64_t
TalbGraphComm::Key(uint32_t comm, uint32_t from, uint32_t to)
{
    return (uint64_t(comm) << 40) | (uint64_t(from) << 20) | to;
}

void
TalbGraphComm::SetCallbacks(MemberDoneCallback memberDone,
                            InstanceDoneCallback instanceDone,
                            MessageDoneCallback messageDone,
                            FlowCallback flow)
{
    m_memberDone = memberDone;
    m_instanceDone = instanceDone;
    m_messageDone = messageDone;
    m_flow = flow;
}

void
TalbGraphComm::Setup(uint32_t jobId,
                     const Graph* graph,
                     const std::vector<Ptr<Node>>& hosts,
                     Ptr<TalbTransport> transport,
                     const std::vector<Ptr<TalbGraphAlgorithm>>& algorithms)
{
    NS_LOG_FUNCTION(this << jobId);
    NS_ABORT_MSG_IF(hosts.size() != graph->nRanks, "TalbGraphComm: one host per rank");
    NS_ABORT_MSG_IF(graph->nRanks >= (1u << 20), "TalbGraphComm: too many ranks");
    m_jobId = jobId;
    m_graph = graph;
    m_hosts = hosts;
    m_transport = transport;
    m_algorithms = algorithms;
    const std::size_t nGroups = graph->groups.size();
    m_queueBase.assign(nGroups + 1, 0);
    for (std::size_t g = 0; g < nGroups; ++g)
    {
        m_queueBase[g + 1] = m_queueBase[g] + graph->groups[g].ranks.size();
    }
    m_queues.assign(m_queueBase[nGroups], std::deque<uint32_t>());

    // The channels the plans use: per group each (type, root) its collectives take, planned
    // once; per (sender, receiver) of point-to-point messages one more.
    std::set<std::tuple<uint32_t, uint8_t, uint32_t>> kinds;
    std::set<std::pair<uint32_t, uint32_t>> p2p;
    uint32_t maxLayer = 0;
    for (uint32_t r = 0; r < graph->nRanks; ++r)
    {
        for (const GNode& n : graph->ranks[r])
        {
            if (n.kind == NodeKind::kCollective)
            {
                kinds.emplace(n.group, static_cast<uint8_t>(n.coll), n.root);
                maxLayer = std::max(maxLayer, n.layer);
            }
            else if (n.kind == NodeKind::kSend)
            {
                p2p.emplace(r, n.peer);
                maxLayer = std::max(maxLayer, n.layer);
            }
        }
    }
    m_layers = maxLayer + 1;
    for (const auto& [group, type, root] : kinds)
    {
        const auto& ranks = graph->groups[group].ranks;
        NS_ABORT_MSG_IF(type >= algorithms.size() || !algorithms[type],
                        "TalbGraphComm: no algorithm for "
                            << talb::graph::CollTypeName(static_cast<CollType>(type)));
        TalbCollRequest request;
        request.type = static_cast<CollType>(type);
        request.members = ranks.size();
        request.bytes = 1 << 20;
        request.root = root == talb::graph::kNoRoot ? 0 : root;
        TalbCollPlan plan = algorithms[type]->Plan(request);
        for (uint32_t m = 0; m < plan.size(); ++m)
        {
            for (const TalbCollSend& s : plan[m].sends)
            {
                OpenChannel(group, ranks[m], ranks[s.to], m, s.to);
            }
        }
    }
    for (const auto& [from, to] : p2p)
    {
        OpenChannel(nGroups, from, to, from, to);
    }
}

void
TalbGraphComm::OpenChannel(uint32_t comm,
                           uint32_t fromRank,
                           uint32_t toRank,
                           uint32_t from,
                           uint32_t to)
{
    uint64_t key = Key(comm, fromRank, toRank);
    if (m_channels.count(key) == 0)
    {
        Ptr<TalbMessageChannel> channel =
            m_transport->Connect(m_hosts[fromRank],
                                 from,
                                 m_hosts[toRank],
                                 to,
                                 MakeCallback(&TalbGraphComm::Delivered, this));
        channel->SetCompletedCallback(MakeCallback(&TalbGraphComm::Completed, this));
        m_channels.emplace(key, channel);
    }
}

uint8_t
TalbGraphComm::GetPriority(uint32_t rank, uint32_t node) const
{
    const GNode& n = m_graph->ranks[rank][node];
    if (n.priority >= 0)
    {
        return static_cast<uint8_t>(n.priority);
    }
    return talb_llm_priority(static_cast<uint32_t>(n.cls), n.layer, m_layers);
}

std::size_t
TalbGraphComm::GetInFlight() const
{
    return m_instances.size() + m_messages.size();
}

TalbCollRequest
TalbGraphComm::MakeRequest(uint32_t group, const std::vector<uint32_t>& nodes) const
{
    const auto& ranks = m_graph->groups[group].ranks;
    const uint32_t n = ranks.size();
    const GNode& first = m_graph->ranks[ranks[0]][nodes[0]];
    TalbCollRequest r;
    r.type = first.coll;
    r.members = n;
    r.bytes = first.bytes;
    r.root = first.root == talb::graph::kNoRoot ? 0 : first.root;
    if (r.type == CollType::kAllToAll)
    {
        r.sent.resize(uint64_t(n) * n);
        for (uint32_t i = 0; i < n; ++i)
        {
            const GNode& node = m_graph->ranks[ranks[i]][nodes[i]];
            for (uint32_t j = 0; j < n; ++j)
            {
                r.sent[uint64_t(i) * n + j] = node.peerBytes == GNode::kNone
                                                  ? TalbPieceBytes(node.bytes, j, n)
                                                  : m_graph->peerBytes[node.peerBytes][j];
            }
        }
    }
    return r;
}

void
TalbGraphComm::StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes)
{
    const auto& ranks = m_graph->groups[group].ranks;
    const GNode& first = m_graph->ranks[ranks[0]][nodes[0]];
    NS_LOG_FUNCTION(this << group << seq << talb::graph::CollTypeName(first.coll));
    const uint32_t opId = m_nextOp++;
    Instance& inst = m_instances[opId];
    inst.group = group;
    inst.seq = seq;
    inst.iteration = first.iteration;
    inst.tensor = first.tensor;
    inst.priority = GetPriority(ranks[0], nodes[0]);
    inst.plan = m_algorithms[static_cast<uint8_t>(first.coll)]->Plan(MakeRequest(group, nodes));
    const uint32_t n = ranks.size();
    inst.nextSend.assign(n, 0);
    inst.received.assign(n, 0);
    inst.inFlight.assign(n, 0);
    inst.state.assign(n, 0);
    inst.marks.resize(n);
    for (uint32_t m = 0; m < n; ++m)
    {
        m_queues[m_queueBase[group] + m].push_back(opId);
    }
    for (uint32_t m = 0; m < n; ++m)
    {
        RunFront(group, m);
    }
}

void
TalbGraphComm::RunFront(uint32_t group, uint32_t member)
{
    const std::deque<uint32_t>& queue = m_queues[m_queueBase[group] + member];
    if (queue.empty())
    {
        return;
    }
    const uint32_t opId = queue.front();
    Instance& inst = m_instances.at(opId);
    if (inst.state[member] != 0)
    {
        return;
    }
    inst.state[member] = 1;
    if (!inst.started)
    {
        inst.started = true;
        inst.start = Simulator::Now();
    }
    // FIRST on the member's first message to each peer, LAST on its last one.
    const auto& sends = inst.plan[member].sends;
    std::vector<uint8_t>& marks = inst.marks[member];
    marks.assign(sends.size(), 0);
    std::vector<uint8_t> seen(inst.plan.size(), 0);
    for (std::size_t k = 0; k < sends.size(); ++k)
    {
        if (!seen[sends[k].to])
        {
            seen[sends[k].to] = 1;
            marks[k] |= 1;
        }
    }
    std::fill(seen.begin(), seen.end(), 0);
    for (std::size_t k = sends.size(); k-- > 0;)
    {
        if (!seen[sends[k].to])
        {
            seen[sends[k].to] = 1;
            marks[k] |= 2;
        }
    }
    Advance(opId, inst, member);
}

void
TalbGraphComm::Advance(uint32_t opId, Instance& inst, uint32_t member)
{
    const TalbCollMemberPlan& plan = inst.plan[member];
    const auto& ranks = m_graph->groups[inst.group].ranks;
    uint32_t& next = inst.nextSend[member];
    while (next < plan.sends.size() && inst.received[member] >= plan.sends[next].after)
    {
        const TalbCollSend& s = plan.sends[next];
        TalbMessage m;
        m.opId = opId;
        m.step = static_cast<uint16_t>(std::min<uint32_t>(next, UINT16_MAX));
        m.iteration = inst.iteration;
        m.ownerTensorId = talb_make_tensor_id(m_jobId, inst.tensor);
        m.ownerPriority = inst.priority;
        if (s.bytes > 0)
        {
            TalbMessage::Part part;
            part.tensorId = m.ownerTensorId;
            part.priority = inst.priority;
            part.bytes = s.bytes;
            part.first = inst.marks[member][next] & 1;
            part.last = inst.marks[member][next] & 2;
            m.parts.push_back(part);
        }
        ++next;
        ++inst.inFlight[member];
        m_channels.at(Key(inst.group, ranks[member], ranks[s.to]))->Send(std::move(m));
    }
    if (inst.state[member] != 1 || next < plan.sends.size() || inst.inFlight[member] > 0 ||
        inst.received[member] < plan.receives)
    {
        return;
    }
    inst.state[member] = 2;
    const uint32_t group = inst.group;
    const uint64_t seq = inst.seq;
    m_queues[m_queueBase[group] + member].pop_front();
    m_memberDone(group, seq, member);
    if (++inst.done == ranks.size())
    {
        Time start = inst.start;
        m_instances.erase(opId); // inst is gone
        m_instanceDone(group, seq, start);
    }
    RunFront(group, member);
}

void
TalbGraphComm::StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode)
{
    NS_LOG_FUNCTION(this << from << sendNode << to << recvNode);
    const GNode& n = m_graph->ranks[from][sendNode];
    const uint32_t opId = m_nextOp++;
    m_messages[opId] = Message{from, sendNode, to, recvNode, Simulator::Now()};
    TalbMessage m;
    m.opId = opId;
    m.iteration = n.iteration;
    m.ownerTensorId = talb_make_tensor_id(m_jobId, n.tensor);
    m.ownerPriority = GetPriority(from, sendNode);
    if (n.bytes > 0)
    {
        TalbMessage::Part part;
        part.tensorId = m.ownerTensorId;
        part.priority = m.ownerPriority;
        part.bytes = n.bytes;
        part.first = true;
        part.last = true;
        m.parts.push_back(part);
    }
    m_channels.at(Key(m_graph->groups.size(), from, to))->Send(std::move(m));
}

void
TalbGraphComm::Completed(const TalbFlowRecord& record)
{
    if (!m_flow.IsNull())
    {
        m_flow(record);
    }
}

void
TalbGraphComm::Delivered(Ptr<TalbMessageChannel> channel,
                         const TalbMessage& message,
                         const TalbFlowRecord& /* record: Completed has it */)
{
    auto msg = m_messages.find(message.opId);
    if (msg != m_messages.end())
    {
        Message m = msg->second;
        m_messages.erase(msg);
        m_messageDone(m.from, m.sendNode, m.to, m.recvNode, m.start);
        return;
    }
    const uint32_t opId = message.opId;
    auto it = m_instances.find(opId);
    NS_ABORT_MSG_IF(it == m_instances.end(), "TalbGraphComm: message of unknown op " << opId);
    const uint32_t from = channel->GetFrom();
    const uint32_t to = channel->GetTo();
    Instance& inst = it->second;
    ++inst.received[to];
    --inst.inFlight[from];
    if (inst.state[to] == 1)
    {
        Advance(opId, inst, to);
    }
    // The receiver's step may have finished the instance.
    it = m_instances.find(opId);
    if (it != m_instances.end() && it->second.state[from] == 1)
    {
        Advance(opId, it->second, from);
    }
}

} // namespace ns3
