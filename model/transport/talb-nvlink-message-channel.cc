#include "talb-nvlink-message-channel.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/talb-wire.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbNvlinkMessageChannel");
NS_OBJECT_ENSURE_REGISTERED(TalbNvlinkMessageChannel);

TypeId
TalbNvlinkMessageChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbNvlinkMessageChannel")
                            .SetParent<TalbMessageChannel>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbNvlinkMessageChannel>();
    return tid;
}

TalbNvlinkMessageChannel::TalbNvlinkMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

TalbNvlinkMessageChannel::~TalbNvlinkMessageChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbNvlinkMessageChannel::DoDispose()
{
    for (auto& e : m_events)
    {
        e.Cancel();
    }
    m_events.clear();
    m_inFlight.clear();
    m_from = nullptr;
    m_to = nullptr;
    TalbMessageChannel::DoDispose();
}

void
TalbNvlinkMessageChannel::Open(Ptr<TalbNvlinkPort> from, Ptr<TalbNvlinkPort> to, uint16_t dstPort)
{
    NS_ABORT_MSG_UNLESS(from && to && from != to && from->GetServer() == to->GetServer(),
                        "TalbNvlinkMessageChannel: the ends must be two GPUs of one server");
    m_from = from;
    m_to = to;
    m_dstPort = dstPort;
}

void
TalbNvlinkMessageChannel::DoSend(TalbMessage&& message)
{
    NS_ABORT_MSG_UNLESS(m_from, "TalbNvlinkMessageChannel: Send before Open");
    message.start = Simulator::Now();
    uint64_t bytes = TALB_FRAME_LEN + message.GetPayloadBytes();
    // The port is FIFO, so arrivals of one channel are in sending order; events of equal
    // time run in the order they were scheduled.
    Time arrival = m_from->Transmit(bytes);
    NS_LOG_FUNCTION(this << bytes << arrival);
    m_inFlight.emplace_back(std::move(message), bytes);
    m_events.push_back(
        Simulator::Schedule(arrival - Simulator::Now(), &TalbNvlinkMessageChannel::Deliver, this));
}

void
TalbNvlinkMessageChannel::Deliver()
{
    TalbMessage message = std::move(m_inFlight.front().first);
    uint64_t bytes = m_inFlight.front().second;
    m_inFlight.pop_front();
    m_events.pop_front();
    if (!IsReceiverHere())
    {
        return;
    }
    TalbFlowRecord record;
    record.src = m_from->GetAddress();
    record.dst = m_to->GetAddress();
    record.srcPort = 0;
    record.dstPort = m_dstPort;
    record.sizeBytes = bytes;
    record.end = Simulator::Now();
    record.nvlink = true;
    NotifyDelivered(message, record);
}

} // namespace ns3
