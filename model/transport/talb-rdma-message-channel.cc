#include "talb-rdma-message-channel.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/talb-wire.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaMessageChannel");
NS_OBJECT_ENSURE_REGISTERED(TalbRdmaMessageChannel);

TypeId
TalbRdmaMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbRdmaMessageChannel")
                            .SetParent<TalbMessageChannel>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbRdmaMessageChannel>();
    return tid;
}

TalbRdmaMessageChannel::TalbRdmaMessageChannel()
{
    SetCompletesAtSender();
    NS_LOG_FUNCTION(this);
}

TalbRdmaMessageChannel::~TalbRdmaMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRdmaMessageChannel::DoDispose()
{
    for (Lane& lane : m_lanes)
    {
        if (lane.rx)
        {
            lane.rx->SetReceiveCallback(TalbRdmaQueuePair::ReceiveCallback());
        }
        if (lane.tx)
        {
            lane.tx->SetSendCompleteCallback(TalbRdmaQueuePair::SendCompleteCallback());
        }
        lane = Lane();
    }
    m_src = nullptr;
    m_dst = nullptr;
    m_inFlight.clear();
    m_unacked.clear();
    TalbMessageChannel::DoDispose();
}

void
TalbRdmaMessageChannel::Open(Ptr<TalbRdmaNic> src,
                             Ptr<TalbRdmaNic> dst,
                             QueuePairMode mode,
                             uint8_t trafficClass)
{
    NS_ABORT_MSG_IF(m_src, "TalbRdmaMessageChannel::Open called twice");
    NS_ABORT_MSG_UNLESS(src && dst, "TalbRdmaMessageChannel::Open without two NICs");
    m_src = src;
    m_dst = dst;
    m_mode = mode;
    m_trafficClass = trafficClass;
    if (mode == SINGLE)
    {
        LaneOf(0); // connected at once, as before per-priority queue pairs
    }
}

Ptr<TalbRdmaQueuePair>
TalbRdmaMessageChannel::GetQueuePair(uint8_t priority) const
{
    NS_ABORT_MSG_UNLESS(priority < TALB_NUM_PRIORITIES,
                        "TalbRdmaMessageChannel::GetQueuePair: priority " << unsigned(priority));
    return m_lanes[m_mode == SINGLE ? 0 : priority].tx;
}

TalbRdmaMessageChannel::Lane&
TalbRdmaMessageChannel::LaneOf(uint8_t priority)
{
    Lane& lane = m_lanes[m_mode == SINGLE ? 0 : priority];
    if (!lane.tx)
    {
        auto qps = TalbRdmaNic::Connect(m_src, m_dst);
        lane.tx = qps.first;
        lane.rx = qps.second;
        lane.tx->SetTrafficClass(m_trafficClass);
        lane.rx->SetReceiveCallback(MakeCallback(&TalbRdmaMessageChannel::Received, this));
        lane.tx->SetSendCompleteCallback(
            MakeCallback(&TalbRdmaMessageChannel::SendCompleted, this));
    }
    return lane;
}

void
TalbRdmaMessageChannel::DoSend(TalbMessage&& message)
{
    NS_ABORT_MSG_UNLESS(m_src, "TalbRdmaMessageChannel::Send before Open");
    message.start = Simulator::Now();
    const uint64_t index = m_firstInFlight + m_inFlight.size();
    m_inFlight.emplace_back(); // references to deque elements survive push_back
    Pending& pending = m_inFlight.back();

    // One SEND per run of consecutive parts of one priority (the whole message with SINGLE).
    std::vector<TalbRdmaLabelRun> runs;
    runs.reserve(message.parts.size() + 1);
    uint64_t bytes = 0;
    uint8_t sendPriority = message.ownerPriority;
    auto post = [&]() {
        Lane& lane = LaneOf(sendPriority);
        if (pending.sendsLeft == 0)
        {
            pending.sourcePort = lane.tx->GetSourcePort();
        }
        ++pending.sendsLeft;
        lane.messages.push_back(index);
        lane.unacked.push_back(index);
        lane.tx->PostSend(bytes, std::move(runs));
        runs.clear();
        bytes = 0;
    };

    TalbRdmaLabelRun header;
    header.bytes = TALB_FRAME_LEN;
    header.labelled = true;
    bool firstMoves = !message.parts.empty() && message.parts[0].first;
    header.label = {message.ownerTensorId,
                    message.ownerPriority,
                    uint8_t(firstMoves ? TALB_FLAG_FIRST : 0)};
    runs.push_back(header);
    bytes = TALB_FRAME_LEN;
    for (std::size_t k = 0; k < message.parts.size(); ++k)
    {
        const TalbMessage::Part& part = message.parts[k];
        if (m_mode == PER_PRIORITY && part.priority != sendPriority)
        {
            post();
            sendPriority = part.priority;
        }
        TalbRdmaLabelRun run;
        run.bytes = part.bytes;
        run.labelled = true;
        run.label = {part.tensorId,
                     part.priority,
                     uint8_t(((part.first && k > 0) ? TALB_FLAG_FIRST : 0) |
                             (part.last ? TALB_FLAG_LAST : 0))};
        runs.push_back(run);
        bytes += part.bytes;
    }
    pending.message = std::move(message);
    post();
    Unacked& u = m_unacked[index];
    u.record = RecordOf(pending.message);
    u.record.src = m_src->GetAddress();
    u.record.dst = m_dst->GetAddress();
    u.record.srcPort = pending.sourcePort;
    u.record.dstPort = TalbRoceHeader::UDP_PORT;
    u.record.sizeBytes = TALB_FRAME_LEN + pending.message.GetPayloadBytes();
    u.sendsLeft = pending.sendsLeft;
}

void
TalbRdmaMessageChannel::SendCompleted(Ptr<TalbRdmaQueuePair> qp, uint64_t /* seq */)
{
    Lane* lane = nullptr;
    for (Lane& l : m_lanes)
    {
        lane = l.tx == qp ? &l : lane;
    }
    NS_ABORT_MSG_UNLESS(lane && !lane->unacked.empty(),
                        "TalbRdmaMessageChannel: a SEND completed that was not posted");
    const uint64_t index = lane->unacked.front();
    lane->unacked.pop_front();
    auto it = m_unacked.find(index);
    NS_ASSERT(it != m_unacked.end() && it->second.sendsLeft > 0);
    if (--it->second.sendsLeft == 0)
    {
        TalbFlowRecord r = it->second.record;
        m_unacked.erase(it);
        NotifyCompleted(r);
    }
}

void
TalbRdmaMessageChannel::Received(Ptr<TalbRdmaQueuePair> qp, uint64_t /* seq */, uint64_t bytes)
{
    Lane* lane = nullptr;
    for (Lane& l : m_lanes)
    {
        lane = l.rx == qp ? &l : lane;
    }
    NS_ABORT_MSG_UNLESS(lane && !lane->messages.empty(),
                        "TalbRdmaMessageChannel: a message arrived unsent");
    const uint64_t index = lane->messages.front();
    lane->messages.pop_front();
    Pending& p = m_inFlight[index - m_firstInFlight];
    NS_ASSERT(p.sendsLeft > 0);
    --p.sendsLeft;
    p.bytesReceived += bytes;
    if (p.sendsLeft == 0)
    {
        // Complete: each queue pair is an ordered stream, so messages of one priority arrive
        // in the order sent; a message does not wait for another priority's.
        const uint64_t expected = TALB_FRAME_LEN + p.message.GetPayloadBytes();
        NS_ABORT_MSG_UNLESS(p.bytesReceived == expected,
                            "TalbRdmaMessageChannel: message of "
                                << p.bytesReceived << " bytes, expected " << expected);
        p.delivered = true;
        TalbFlowRecord r;
        r.src = m_src->GetAddress();
        r.dst = m_dst->GetAddress();
        r.srcPort = p.sourcePort;
        r.dstPort = TalbRoceHeader::UDP_PORT;
        r.sizeBytes = p.bytesReceived;
        r.end = Simulator::Now();
        TalbMessage message = std::move(p.message);
        while (!m_inFlight.empty() && m_inFlight.front().delivered)
        {
            m_inFlight.pop_front();
            ++m_firstInFlight;
        }
        // Last: the callback may send on this channel.
        NotifyDelivered(message, r);
    }
}

} // namespace ns3
