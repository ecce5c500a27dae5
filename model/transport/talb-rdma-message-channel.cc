#include "talb-rdma-message-channel.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
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
    m_plbRound.Cancel();
    for (Lane& lane : m_lanes)
    {
        for (Qp& q : lane.qps)
        {
            q.rx->SetReceiveCallback(TalbRdmaQueuePair::ReceiveCallback());
            q.tx->SetSendCompleteCallback(TalbRdmaQueuePair::SendCompleteCallback());
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
                             uint8_t trafficClass,
                             const Options& options)
{
    NS_ABORT_MSG_IF(m_src, "TalbRdmaMessageChannel::Open called twice");
    NS_ABORT_MSG_UNLESS(src && dst, "TalbRdmaMessageChannel::Open without two NICs");
    NS_ABORT_MSG_UNLESS(options.queuePairs >= 1,
                        "TalbRdmaMessageChannel::Open: queuePairs must be at least 1");
    NS_ABORT_MSG_UNLESS(!options.plb || options.plbRound.IsStrictlyPositive(),
                        "TalbRdmaMessageChannel::Open: plbRound must be positive");
    m_src = src;
    m_dst = dst;
    m_mode = mode;
    m_trafficClass = trafficClass;
    m_options = options;
    if (options.plb)
    {
        TimeValue cnpInterval;
        dst->GetAttribute("CnpInterval", cnpInterval);
        m_cnpInterval = cnpInterval.Get();
    }
    if (mode == SINGLE)
    {
        LaneOf(0); // connected at once, as before per-priority queue pairs
    }
}

Ptr<TalbRdmaQueuePair>
TalbRdmaMessageChannel::GetQueuePair(uint8_t priority, uint32_t index) const
{
    NS_ABORT_MSG_UNLESS(priority < TALB_NUM_PRIORITIES,
                        "TalbRdmaMessageChannel::GetQueuePair: priority " << unsigned(priority));
    NS_ABORT_MSG_UNLESS(index < m_options.queuePairs,
                        "TalbRdmaMessageChannel::GetQueuePair: index " << index << " of "
                                                                       << m_options.queuePairs);
    const Lane& lane = m_lanes[m_mode == SINGLE ? 0 : priority];
    return lane.qps.empty() ? nullptr : lane.qps[index].tx;
}

uint64_t
TalbRdmaMessageChannel::GetRepaths() const
{
    uint64_t repaths = 0;
    for (const Lane& lane : m_lanes)
    {
        for (const Qp& q : lane.qps)
        {
            repaths += q.plb.GetRepaths();
        }
    }
    return repaths;
}

TalbRdmaMessageChannel::Lane&
TalbRdmaMessageChannel::LaneOf(uint8_t priority)
{
    Lane& lane = m_lanes[m_mode == SINGLE ? 0 : priority];
    if (lane.qps.empty())
    {
        // The channel's first queue pair, whose port sharedSourcePort gives the others.
        Ptr<TalbRdmaQueuePair> first;
        for (const Lane& l : m_lanes)
        {
            first = (!first && !l.qps.empty()) ? l.qps[0].tx : first;
        }
        lane.qps.resize(m_options.queuePairs);
        for (Qp& q : lane.qps)
        {
            auto qps = TalbRdmaNic::Connect(m_src, m_dst);
            q.tx = qps.first;
            q.rx = qps.second;
            q.tx->SetTrafficClass(m_trafficClass);
            first = first ? first : q.tx;
            if (m_options.sharedSourcePort)
            {
                q.tx->SetSourcePort(first->GetSourcePort());
            }
            q.plb = TalbPlb(m_options.plbConfig);
            q.rx->SetReceiveCallback(MakeCallback(&TalbRdmaMessageChannel::Received, this));
            q.tx->SetSendCompleteCallback(
                MakeCallback(&TalbRdmaMessageChannel::SendCompleted, this));
        }
    }
    return lane;
}

std::vector<std::pair<uint64_t, std::vector<TalbRdmaLabelRun>>>
TalbRdmaMessageChannel::SplitRuns(std::vector<TalbRdmaLabelRun>&& runs,
                                  uint64_t bytes,
                                  uint32_t pieces)
{
    std::vector<std::pair<uint64_t, std::vector<TalbRdmaLabelRun>>> out;
    if (pieces <= 1 || bytes < pieces)
    {
        out.emplace_back(bytes, std::move(runs));
        return out;
    }
    // Pieces of bytes / pieces (the first bytes % pieces one more); a run cut in two keeps FIRST
    // on its first part and LAST on its last, as the tensor's bytes are labelled on the wire.
    std::size_t r = 0;
    uint64_t usedOfRun = 0;
    for (uint32_t k = 0; k < pieces; ++k)
    {
        uint64_t want = bytes / pieces + (k < bytes % pieces ? 1 : 0);
        out.emplace_back(want, std::vector<TalbRdmaLabelRun>());
        while (want > 0)
        {
            const TalbRdmaLabelRun& run = runs[r];
            TalbRdmaLabelRun part = run;
            part.bytes = std::min(want, run.bytes - usedOfRun);
            if (usedOfRun > 0)
            {
                part.label.flags &= ~TALB_FLAG_FIRST;
            }
            if (usedOfRun + part.bytes < run.bytes)
            {
                part.label.flags &= ~TALB_FLAG_LAST;
            }
            out.back().second.push_back(part);
            want -= part.bytes;
            usedOfRun += part.bytes;
            if (usedOfRun == run.bytes)
            {
                ++r;
                usedOfRun = 0;
            }
        }
    }
    return out;
}

TalbRdmaMessageChannel::Qp*
TalbRdmaMessageChannel::Find(Ptr<TalbRdmaQueuePair> qp, bool tx)
{
    for (Lane& lane : m_lanes)
    {
        for (Qp& q : lane.qps)
        {
            if ((tx ? q.tx : q.rx) == qp)
            {
                return &q;
            }
        }
    }
    return nullptr;
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
        const uint32_t pieces = m_options.splitMessages ? lane.qps.size() : 1;
        for (auto& [pieceBytes, pieceRuns] : SplitRuns(std::move(runs), bytes, pieces))
        {
            Qp& q = lane.qps[lane.next];
            lane.next = (lane.next + 1) % lane.qps.size();
            if (pending.sendsLeft == 0)
            {
                pending.sourcePort = q.tx->GetSourcePort();
            }
            ++pending.sendsLeft;
            q.messages.push_back(index);
            q.unacked.push_back(index);
            q.tx->PostSend(pieceBytes, std::move(pieceRuns));
        }
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
    if (m_options.plb && !m_plbRound.IsRunning())
    {
        for (Lane& lane : m_lanes)
        {
            for (Qp& q : lane.qps)
            {
                q.roundCnps = q.tx->GetStats().cnpsReceived;
                q.roundPackets = q.tx->GetStats().packetsSent;
            }
        }
        m_plbRound =
            Simulator::Schedule(m_options.plbRound, &TalbRdmaMessageChannel::PlbRoundEnd, this);
    }
}

void
TalbRdmaMessageChannel::PlbRoundEnd()
{
    const double cnpShare = m_cnpInterval.GetSeconds() / m_options.plbRound.GetSeconds();
    for (Lane& lane : m_lanes)
    {
        for (Qp& q : lane.qps)
        {
            const TalbRdmaQueuePair::Stats& st = q.tx->GetStats();
            const uint64_t cnps = st.cnpsReceived - q.roundCnps;
            const bool sent = st.packetsSent > q.roundPackets;
            q.roundCnps = st.cnpsReceived;
            q.roundPackets = st.packetsSent;
            // A round without packets says nothing about the path: it neither counts nor resets.
            if (sent && q.plb.EndRound(std::min(1.0, double(cnps) * cnpShare)))
            {
                uint16_t port =
                    TalbPlb::NextSourcePort(q.tx->GetSourcePort(),
                                            q.tx->GetQpn() ^ uint32_t(q.plb.GetRepaths() << 24));
                NS_LOG_LOGIC("PLB repaths queue pair " << q.tx->GetQpn() << " to port " << port);
                q.tx->Repath(port);
            }
        }
    }
    if (!m_unacked.empty())
    {
        m_plbRound =
            Simulator::Schedule(m_options.plbRound, &TalbRdmaMessageChannel::PlbRoundEnd, this);
    }
}

void
TalbRdmaMessageChannel::SendCompleted(Ptr<TalbRdmaQueuePair> qp, uint64_t /* seq */)
{
    Qp* q = Find(qp, true);
    NS_ABORT_MSG_UNLESS(q && !q->unacked.empty(),
                        "TalbRdmaMessageChannel: a SEND completed that was not posted");
    const uint64_t index = q->unacked.front();
    q->unacked.pop_front();
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
    Qp* q = Find(qp, false);
    NS_ABORT_MSG_UNLESS(q && !q->messages.empty(),
                        "TalbRdmaMessageChannel: a message arrived unsent");
    const uint64_t index = q->messages.front();
    q->messages.pop_front();
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
