#include "talb-pfc-channel.h"

#include "talb-pfc-net-device.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPfcChannel");

NS_OBJECT_ENSURE_REGISTERED(TalbPfcChannel);

TypeId
TalbPfcChannel::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbPfcChannel")
                            .SetParent<Channel>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbPfcChannel>()
                            .AddAttribute("Delay",
                                          "Propagation delay of the link",
                                          TimeValue(MicroSeconds(1)),
                                          MakeTimeAccessor(&TalbPfcChannel::m_delay),
                                          MakeTimeChecker(Seconds(0)));
    return tid;
}

TalbPfcChannel::TalbPfcChannel()
    : m_delay(MicroSeconds(1))
{
    NS_LOG_FUNCTION(this);
}

TalbPfcChannel::~TalbPfcChannel()
{
    NS_LOG_FUNCTION(this);
}

void
TalbPfcChannel::DoDispose()
{
    m_device[0] = nullptr;
    m_device[1] = nullptr;
    Channel::DoDispose();
}

void
TalbPfcChannel::Attach(Ptr<TalbPfcNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    NS_ABORT_MSG_IF(m_device[1], "TalbPfcChannel: a third device attached");
    m_device[m_device[0] ? 1 : 0] = device;
}

bool
TalbPfcChannel::TransmitStart(Ptr<Packet> frame, Ptr<TalbPfcNetDevice> src, Time txTime)
{
    if (!m_device[1])
    {
        return false;
    }
    uint32_t to = m_device[0] == src ? 1 : 0;
    if (m_context[to] == UINT32_MAX)
    {
        m_context[to] = m_device[to]->GetNode()->GetId();
    }
    // A plain pointer in the event: the devices outlive the simulation's events.
    Simulator::ScheduleWithContext(m_context[to],
                                   txTime + m_delay,
                                   &TalbPfcNetDevice::Receive,
                                   PeekPointer(m_device[to]),
                                   frame);
    return true;
}

std::size_t
TalbPfcChannel::GetNDevices() const
{
    return m_device[1] ? 2 : (m_device[0] ? 1 : 0);
}

Ptr<NetDevice>
TalbPfcChannel::GetDevice(std::size_t i) const
{
    NS_ABORT_MSG_UNLESS(i < 2, "TalbPfcChannel::GetDevice: no device " << i);
    return m_device[i];
}

Ptr<TalbPfcNetDevice>
TalbPfcChannel::GetPeer(Ptr<const TalbPfcNetDevice> device) const
{
    return m_device[m_device[0] == device ? 1 : 0];
}

Time
TalbPfcChannel::GetDelay() const
{
    return m_delay;
}

} // namespace ns3
