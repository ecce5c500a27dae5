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
    NS_LOG_FUNCTION(this);
}

TalbRdmaMessageChannel::~TalbRdmaMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRdmaMessageChannel::DoDispose()
{
    if (m_rx)
    {
        m_rx->SetReceiveCallback(TalbRdmaQueuePair::ReceiveCallback());
    }
    m_tx = nullptr;
    m_rx = nullptr;
    m_inFlight.clear();
    TalbMessageChannel::DoDispose();
}

void
TalbRdmaMessageChannel::Open(Ptr<TalbRdmaNic> src, Ptr<TalbRdmaNic> dst)
{
    NS_ABORT_MSG_IF(m_tx, "TalbRdmaMessageChannel::Open called twice");
    auto qps = TalbRdmaNic::Connect(src, dst);
    m_tx = qps.first;
    m_rx = qps.second;
    m_rx->SetReceiveCallback(MakeCallback(&TalbRdmaMessageChannel::Received, this));
}

Ptr<TalbRdmaQueuePair>
TalbRdmaMessageChannel::GetQueuePair() const
{
    return m_tx;
}

void
TalbRdmaMessageChannel::DoSend(TalbMessage&& message)
{
    NS_ABORT_MSG_UNLESS(m_tx, "TalbRdmaMessageChannel::Send before Open");
    message.start = Simulator::Now();
    std::vector<TalbRdmaLabelRun> runs;
    runs.reserve(message.parts.size() + 1);
    TalbRdmaLabelRun header;
    header.bytes = TALB_FRAME_LEN;
    header.labelled = true;
    bool firstMoves = !message.parts.empty() && message.parts[0].first;
    header.label = {message.ownerTensorId,
                    message.ownerPriority,
                    uint8_t(firstMoves ? TALB_FLAG_FIRST : 0)};
    runs.push_back(header);
    uint64_t bytes = TALB_FRAME_LEN;
    for (std::size_t k = 0; k < message.parts.size(); ++k)
    {
        const TalbMessage::Part& part = message.parts[k];
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
    m_inFlight.push_back(std::move(message));
    m_tx->PostSend(bytes, std::move(runs));
}

void
TalbRdmaMessageChannel::Received(Ptr<TalbRdmaQueuePair> /* qp */,
                                 uint64_t /* seq */,
                                 uint64_t bytes)
{
    NS_ABORT_MSG_IF(m_inFlight.empty(), "TalbRdmaMessageChannel: a message arrived unsent");
    TalbMessage m = std::move(m_inFlight.front());
    m_inFlight.pop_front();
    NS_ABORT_MSG_UNLESS(bytes == TALB_FRAME_LEN + m.GetPayloadBytes(),
                        "TalbRdmaMessageChannel: message of "
                            << bytes << " bytes, expected "
                            << TALB_FRAME_LEN + m.GetPayloadBytes());
    TalbFlowRecord r;
    r.src = m_tx->GetLocalAddress();
    r.dst = m_tx->GetPeerAddress();
    r.srcPort = m_tx->GetSourcePort();
    r.dstPort = TalbRoceHeader::UDP_PORT;
    r.sizeBytes = bytes;
    r.end = Simulator::Now();
    NotifyDelivered(m, r);
}

} // namespace ns3
