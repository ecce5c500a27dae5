#include "talb-parameter-server.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbParameterServer");
NS_OBJECT_ENSURE_REGISTERED(TalbParameterServer);
TALB_REGISTER_PLUGIN(TalbCollective, TalbParameterServer, "ps");

TypeId
TalbParameterServer::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbParameterServer")
                            .SetParent<TalbCollective>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbParameterServer>();
    return tid;
}

TalbParameterServer::TalbParameterServer()
{
    NS_LOG_FUNCTION(this);
}

TalbParameterServer::~TalbParameterServer()
{
    NS_LOG_FUNCTION(this);
}

void
TalbParameterServer::DoDispose()
{
    m_servers.clear();
    m_push.clear();
    m_pull.clear();
    m_ops.clear();
    TalbCollective::DoDispose();
}

void
TalbParameterServer::SetServers(const NodeContainer& servers)
{
    NS_ABORT_MSG_IF(IsSetUp(), "TalbParameterServer: SetServers after Setup");
    m_servers.assign(servers.Begin(), servers.End());
}

Time
TalbParameterServer::DoGetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const
{
    // Setup() fills m_servers with the workers when colocated.
    bool colocated = m_servers.empty() || (IsSetUp() && m_servers == GetWorkers());
    double perPhase = colocated ? double(nWorkers - 1) / nWorkers * double(bytes)
                                : std::max(1.0, double(nWorkers) / m_servers.size()) * bytes;
    return Seconds(2 * perPhase * 8 / rate.GetBitRate());
}

void
TalbParameterServer::DoSetup()
{
    if (m_servers.empty())
    {
        m_servers = GetWorkers();
    }
    uint32_t n = GetNWorkers();
    uint32_t ps = m_servers.size();
    m_push.assign(n * ps, nullptr);
    m_pull.assign(ps * n, nullptr);
    for (uint32_t w = 0; w < n; ++w)
    {
        for (uint32_t p = 0; p < ps; ++p)
        {
            if (GetWorkers()[w] != m_servers[p])
            {
                m_push[w * ps + p] = Connect(GetWorkers()[w], w, m_servers[p], p);
                m_pull[p * n + w] = Connect(m_servers[p], p, GetWorkers()[w], w);
            }
        }
    }
}

std::pair<uint64_t, uint64_t>
TalbParameterServer::Shard(const OpState& st, uint32_t p) const
{
    uint64_t total = st.starts.back();
    uint64_t ps = m_servers.size();
    return {total * p / ps, total * (p + 1) / ps};
}

TalbMessage
TalbParameterServer::MakeMessage(const OpState& st, uint32_t p, uint16_t step) const
{
    TalbMessage m;
    m.opId = st.op.id;
    m.step = step;
    m.iteration = st.op.iteration;
    m.ownerTensorId = talb_make_tensor_id(GetJobId(), st.op.segments[0].tensor);
    m.ownerPriority = st.op.segments[0].priority;
    auto shard = Shard(st, p);
    // Each connection carries one message per op: its range of a segment is all this op
    // sends of it there.
    AppendParts(st.op,
                st.starts,
                shard.first,
                shard.second,
                &m.parts,
                [&st](std::size_t j, uint64_t lo, uint64_t hi, TalbMessage::Part* part) {
                    const TalbCommSegment& seg = st.op.segments[j];
                    part->first = seg.firstPart && lo == 0;
                    part->last = seg.lastPart && hi == seg.bytes;
                });
    return m;
}

void
TalbParameterServer::DoStart(const TalbCommOp& op)
{
    NS_LOG_FUNCTION(this << op.id);
    auto inserted = m_ops.emplace(op.id, OpState());
    NS_ABORT_MSG_IF(!inserted.second, "TalbParameterServer: op " << op.id << " started twice");
    OpState& st = inserted.first->second;
    st.op = op;
    st.starts = SegmentStarts(op);
    uint32_t n = GetNWorkers();
    uint32_t ps = m_servers.size();
    st.pushes.assign(ps, 0);
    st.pulls.assign(n, 0);
    for (uint32_t p = 0; p < ps; ++p)
    {
        auto shard = Shard(st, p);
        if (shard.first == shard.second)
        {
            continue;
        }
        ++st.shards;
        for (uint32_t w = 0; w < n; ++w)
        {
            Ptr<TalbMessageChannel> ch = m_push[w * ps + p];
            if (ch)
            {
                ch->Send(MakeMessage(st, p, 0));
            }
            else
            {
                Simulator::ScheduleNow(&TalbParameterServer::PushArrived, this, op.id, p);
            }
        }
    }
}

void
TalbParameterServer::DoDelivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message)
{
    if (message.step == 0)
    {
        PushArrived(message.opId, channel->GetTo());
    }
    else
    {
        PullArrived(message.opId, channel->GetTo());
    }
}

void
TalbParameterServer::PushArrived(uint32_t opId, uint32_t server)
{
    auto it = m_ops.find(opId);
    NS_ABORT_MSG_IF(it == m_ops.end(), "TalbParameterServer: push of unknown op " << opId);
    OpState& st = it->second;
    uint32_t n = GetNWorkers();
    if (++st.pushes[server] < n)
    {
        return;
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        Ptr<TalbMessageChannel> ch = m_pull[server * n + w];
        if (ch)
        {
            ch->Send(MakeMessage(st, server, 1));
        }
        else
        {
            Simulator::ScheduleNow(&TalbParameterServer::PullArrived, this, opId, w);
        }
    }
}

void
TalbParameterServer::PullArrived(uint32_t opId, uint32_t worker)
{
    auto it = m_ops.find(opId);
    NS_ABORT_MSG_IF(it == m_ops.end(), "TalbParameterServer: pull of unknown op " << opId);
    OpState& st = it->second;
    if (++st.pulls[worker] < st.shards)
    {
        return;
    }
    NotifyWorkerDone(st.op, worker);
    if (++st.done == GetNWorkers())
    {
        TalbCommOp op = std::move(st.op);
        m_ops.erase(it);
        NotifyOpDone(op);
    }
}

} // namespace ns3
