#include "talb-message-channel.h"

#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/talb-wire.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbMessageChannel");
NS_OBJECT_ENSURE_REGISTERED(TalbMessageChannel);

uint64_t TalbMessageChannel::s_awaitingCompletion = 0;

uint64_t
TalbMessage::GetPayloadBytes() const
{
    uint64_t total = 0;
    for (const auto& p : parts)
    {
        total += p.bytes;
    }
    return total;
}

TypeId
TalbMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbMessageChannel").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbMessageChannel::TalbMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

TalbMessageChannel::~TalbMessageChannel()
{
    NS_LOG_FUNCTION(this);
    ForgetAwaiting();
}

void
TalbMessageChannel::ForgetAwaiting()
{
    // A run that stopped before its last acknowledgements (stopTime, a signal): the next run of
    // the same process must not wait for them.
    s_awaitingCompletion -= m_awaiting;
    m_awaiting = 0;
}

void
TalbMessageChannel::DoDispose()
{
    m_deliveredCb = DeliveredCallback();
    m_completedCb = CompletedCallback();
    ForgetAwaiting();
    Object::DoDispose();
}

void
TalbMessageChannel::SetDeliveredCallback(DeliveredCallback cb)
{
    m_deliveredCb = cb;
}

void
TalbMessageChannel::SetCompletedCallback(CompletedCallback cb)
{
    m_completedCb = cb;
}

uint64_t
TalbMessageChannel::GetAwaitingCompletion()
{
    return s_awaitingCompletion;
}

void
TalbMessageChannel::SetCompletesAtSender()
{
    m_completesAtSender = true;
}

void
TalbMessageChannel::SetEndpoints(uint32_t from, uint32_t to)
{
    m_from = from;
    m_to = to;
}

uint32_t
TalbMessageChannel::GetFrom() const
{
    return m_from;
}

uint32_t
TalbMessageChannel::GetTo() const
{
    return m_to;
}

void
TalbMessageChannel::SetEndsHere(bool sender, bool receiver)
{
    m_senderHere = sender;
    m_receiverHere = receiver;
}

bool
TalbMessageChannel::IsSenderHere() const
{
    return m_senderHere;
}

bool
TalbMessageChannel::IsReceiverHere() const
{
    return m_receiverHere;
}

std::size_t
TalbMessageChannel::GetPending() const
{
    return m_sent - m_delivered;
}

uint64_t
TalbMessageChannel::GetDelivered() const
{
    return m_delivered;
}

void
TalbMessageChannel::Send(TalbMessage&& message)
{
    if (!m_senderHere)
    {
        return; // the sender's rank sends it
    }
    // The header belongs to the first payload byte's tensor, and so does that tensor's FIRST
    // marker: it moves to the header's first byte.
    message.parts.erase(std::remove_if(message.parts.begin(),
                                       message.parts.end(),
                                       [](const TalbMessage::Part& p) { return p.bytes == 0; }),
                        message.parts.end());
    if (!message.parts.empty())
    {
        message.ownerTensorId = message.parts[0].tensorId;
        message.ownerPriority = message.parts[0].priority;
    }
    ++m_sent;
    ++m_awaiting;
    ++s_awaitingCompletion;
    DoSend(std::move(message));
}

TalbFlowRecord
TalbMessageChannel::RecordOf(const TalbMessage& message, TalbFlowRecord record)
{
    record.start = message.start;
    record.job = talb_job_of(message.ownerTensorId);
    record.iteration = message.iteration;
    record.tensor = message.ownerTensorId & TALB_TENSOR_INDEX_MASK;
    record.priority = message.ownerPriority;
    return record;
}

void
TalbMessageChannel::NotifyDelivered(const TalbMessage& message, TalbFlowRecord record)
{
    // The transport's fields (endpoints, size, end, kind) stay: a field a transport adds needs no
    // copy here.
    TalbFlowRecord filled = RecordOf(message, record);
    ++m_delivered;
    NS_ASSERT_MSG(!m_senderHere || m_delivered <= m_sent,
                  "TalbMessageChannel: delivered a message never sent");
    if (!m_completesAtSender)
    {
        // A transport that sees no acknowledgements: its records end at delivery.
        NotifyCompleted(filled);
    }
    if (!m_deliveredCb.IsNull())
    {
        m_deliveredCb(this, message, filled);
    }
}

void
TalbMessageChannel::NotifyCompleted(TalbFlowRecord record)
{
    if (m_completesAtSender)
    {
        record.end = Simulator::Now();
    }
    if (m_senderHere)
    {
        NS_ASSERT_MSG(m_awaiting > 0, "TalbMessageChannel: completed a message never sent");
        --m_awaiting;
        --s_awaitingCompletion;
    }
    if (!m_completedCb.IsNull())
    {
        m_completedCb(record);
    }
}

} // namespace ns3
