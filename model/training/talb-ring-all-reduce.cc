#include "talb-ring-all-reduce.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRingAllReduce");
NS_OBJECT_ENSURE_REGISTERED(TalbRingAllReduce);
TALB_REGISTER_PLUGIN(TalbCollective, TalbRingAllReduce, "ring");

TypeId
TalbRingAllReduce::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbRingAllReduce")
                            .SetParent<TalbCollective>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbRingAllReduce>();
    return tid;
}

TalbRingAllReduce::TalbRingAllReduce()
{
    NS_LOG_FUNCTION(this);
}

TalbRingAllReduce::~TalbRingAllReduce()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRingAllReduce::DoDispose()
{
    m_next.clear();
    m_ops.clear();
    TalbCollective::DoDispose();
}

Time
TalbRingAllReduce::DoGetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const
{
    double perNic = 2.0 * (nWorkers - 1) / nWorkers * double(bytes);
    return Seconds(perNic * 8 / rate.GetBitRate());
}

void
TalbRingAllReduce::DoSetup()
{
    uint32_t n = GetNWorkers();
    if (n < 2)
    {
        return;
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        m_next.push_back(Connect(GetWorkers()[w], w, GetWorkers()[(w + 1) % n], (w + 1) % n));
    }
}

std::pair<uint64_t, uint64_t>
TalbRingAllReduce::Chunk(const OpState& st, uint32_t c) const
{
    uint64_t total = st.starts.back();
    uint64_t n = GetNWorkers();
    return {total * c / n, total * (c + 1) / n};
}

void
TalbRingAllReduce::DoStart(const TalbCommOp& op)
{
    NS_LOG_FUNCTION(this << op.id);
    uint32_t n = GetNWorkers();
    if (n == 1)
    {
        Simulator::ScheduleNow(&TalbRingAllReduce::WorkerDone, this, op.id, 0);
        m_ops[op.id].op = op;
        return;
    }
    auto inserted = m_ops.emplace(op.id, OpState());
    NS_ABORT_MSG_IF(!inserted.second, "TalbRingAllReduce: op " << op.id << " started twice");
    OpState& st = inserted.first->second;
    st.op = op;
    st.starts = SegmentStarts(op);
    std::size_t segs = op.segments.size();
    st.remaining.resize(n * segs);
    st.started.assign(n * segs, 0);
    auto overlap = [&st](std::size_t j, std::pair<uint64_t, uint64_t> r) {
        uint64_t a = std::max(r.first, st.starts[j]);
        uint64_t b = std::min(r.second, st.starts[j + 1]);
        return a < b ? b - a : 0;
    };
    for (uint32_t w = 0; w < n; ++w)
    {
        // w sends every chunk but (w+1) in reduce-scatter and every chunk but (w+2) in
        // all-gather.
        auto rsSkip = Chunk(st, (w + 1) % n);
        auto agSkip = Chunk(st, (w + 2) % n);
        for (std::size_t j = 0; j < segs; ++j)
        {
            st.remaining[w * segs + j] =
                2 * op.segments[j].bytes - overlap(j, rsSkip) - overlap(j, agSkip);
        }
    }
    for (uint32_t w = 0; w < n; ++w)
    {
        SendStep(st, w, 0);
    }
}

void
TalbRingAllReduce::SendStep(OpState& st, uint32_t worker, uint16_t step)
{
    uint32_t n = GetNWorkers();
    uint32_t chunk =
        step < n - 1 ? (worker + n - step) % n : (worker + 1 + n - (step - (n - 1))) % n;
    auto range = Chunk(st, chunk);
    TalbMessage m;
    m.opId = st.op.id;
    m.step = step;
    m.iteration = st.op.iteration;
    m.ownerTensorId = talb_make_tensor_id(GetJobId(), st.op.segments[0].tensor);
    m.ownerPriority = st.op.segments[0].priority;
    std::size_t segs = st.op.segments.size();
    AppendParts(st.op,
                st.starts,
                range.first,
                range.second,
                &m.parts,
                [&](std::size_t j, uint64_t, uint64_t, TalbMessage::Part* part) {
                    const TalbCommSegment& seg = st.op.segments[j];
                    uint64_t& left = st.remaining[worker * segs + j];
                    uint8_t& started = st.started[worker * segs + j];
                    NS_ASSERT(left >= part->bytes);
                    part->first = seg.firstPart && !started;
                    left -= part->bytes;
                    part->last = seg.lastPart && left == 0;
                    started = 1;
                });
    m_next[worker]->Send(std::move(m));
}

void
TalbRingAllReduce::DoDelivered(Ptr<TalbMessageChannel> channel, const TalbMessage& message)
{
    uint32_t n = GetNWorkers();
    auto it = m_ops.find(message.opId);
    NS_ABORT_MSG_IF(it == m_ops.end(), "TalbRingAllReduce: message of unknown op " << message.opId);
    uint32_t receiver = channel->GetTo();
    if (message.step + 1u < 2 * (n - 1))
    {
        SendStep(it->second, receiver, message.step + 1);
    }
    else
    {
        WorkerDone(message.opId, receiver);
    }
}

void
TalbRingAllReduce::WorkerDone(uint32_t opId, uint32_t worker)
{
    auto it = m_ops.find(opId);
    OpState& st = it->second;
    NotifyWorkerDone(st.op, worker);
    // Over several ranks, each rank's copy sees its own workers finish (the job gathers the
    // rest from the other ranks).
    if (++st.done == GetNLocalWorkers())
    {
        TalbCommOp op = std::move(st.op);
        m_ops.erase(it);
        NotifyOpDone(op);
    }
}

} // namespace ns3
