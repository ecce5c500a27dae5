#include "talb-pfc.h"

#include "talb-pfc-channel.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPfc");

NS_OBJECT_ENSURE_REGISTERED(TalbPfc);

namespace
{
/// Bytes of a PFC frame: Ethernet header and the 46-byte body.
constexpr uint32_t PAUSE_FRAME_BYTES = 60;
} // namespace

TypeId
TalbPfc::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbPfc")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbPfc>()
            .AddAttribute("XoffThreshold",
                          "Charge of an (ingress port, lossless priority) above which its "
                          "upstream is paused (bytes)",
                          QueueSizeValue(QueueSize("100KB")),
                          MakeQueueSizeAccessor(&TalbPfc::m_xoff),
                          MakeQueueSizeChecker())
            .AddAttribute("XonOffset",
                          "The upstream is resumed when the charge falls to XoffThreshold minus "
                          "this (bytes)",
                          QueueSizeValue(QueueSize("10KB")),
                          MakeQueueSizeAccessor(&TalbPfc::m_xonOffset),
                          MakeQueueSizeChecker())
            .AddAttribute("Headroom",
                          "Bytes an (ingress port, lossless priority) may take above "
                          "XoffThreshold; 0 computes it per port from its rate, propagation "
                          "delay and MTU",
                          QueueSizeValue(QueueSize("0B")),
                          MakeQueueSizeAccessor(&TalbPfc::m_headroom),
                          MakeQueueSizeChecker())
            .AddAttribute("LosslessPriorities",
                          "Bit p set: priority p is lossless (charged and paused); the others "
                          "are lossy (drop-tail)",
                          UintegerValue(0xFF),
                          MakeUintegerAccessor(&TalbPfc::m_lossless),
                          MakeUintegerChecker<uint8_t>())
            .AddAttribute("PauseQuanta",
                          "Pause time requested by XOFF, in quanta of 512 bit times",
                          UintegerValue(0xFFFF),
                          MakeUintegerAccessor(&TalbPfc::m_quanta),
                          MakeUintegerChecker<uint16_t>(2, 0xFFFF))
            .AddTraceSource("Pause",
                            "XOFF sent upstream: ingress port, priority, its charge in bytes",
                            MakeTraceSourceAccessor(&TalbPfc::m_pauseTrace),
                            "ns3::TalbPfc::PfcTracedCallback")
            .AddTraceSource("Resume",
                            "XON sent upstream: ingress port, priority, its charge in bytes",
                            MakeTraceSourceAccessor(&TalbPfc::m_resumeTrace),
                            "ns3::TalbPfc::PfcTracedCallback")
            .AddTraceSource("HeadroomDrop",
                            "A lossless packet dropped past XOFF + headroom: ingress port, "
                            "priority, its charge in bytes",
                            MakeTraceSourceAccessor(&TalbPfc::m_dropTrace),
                            "ns3::TalbPfc::PfcTracedCallback");
    return tid;
}

TalbPfc::TalbPfc()
    : m_lossless(0xFF),
      m_quanta(0xFFFF)
{
    NS_LOG_FUNCTION(this);
}

TalbPfc::~TalbPfc()
{
    NS_LOG_FUNCTION(this);
}

void
TalbPfc::DoDispose()
{
    for (auto& in : m_ingress)
    {
        in.refresh.Cancel();
    }
    m_ports.clear();
    m_shared = nullptr;
    Object::DoDispose();
}

void
TalbPfc::PortRing::Push(uint16_t port)
{
    if (size == slots.size())
    {
        std::vector<uint16_t> grown(slots.empty() ? 64 : 2 * slots.size());
        for (uint32_t k = 0; k < size; ++k)
        {
            grown[k] = slots[(head + k) & (slots.size() - 1)];
        }
        slots.swap(grown);
        head = 0;
    }
    slots[(head + size) & (slots.size() - 1)] = port;
    ++size;
}

uint16_t
TalbPfc::PortRing::Pop()
{
    NS_ASSERT(size > 0);
    uint16_t port = slots[head];
    head = (head + 1) & (slots.size() - 1);
    --size;
    return port;
}

void
TalbPfc::PortRing::PopBack()
{
    NS_ASSERT(size > 0);
    --size;
}

void
TalbPfc::Install(const std::vector<Ptr<TalbPfcNetDevice>>& ports)
{
    NS_LOG_FUNCTION(this << ports.size());
    NS_ABORT_MSG_IF(!m_ports.empty(), "TalbPfc::Install called twice");
    NS_ABORT_MSG_UNLESS(m_xoff.GetUnit() == QueueSizeUnit::BYTES &&
                            m_xonOffset.GetUnit() == QueueSizeUnit::BYTES &&
                            m_headroom.GetUnit() == QueueSizeUnit::BYTES,
                        "TalbPfc: XoffThreshold, XonOffset and Headroom are byte sizes");
    NS_ABORT_MSG_IF(m_xonOffset.GetValue() > m_xoff.GetValue(),
                    "TalbPfc: XonOffset " << m_xonOffset << " above XoffThreshold " << m_xoff);
    NS_ABORT_MSG_IF(ports.size() > 0xFFFF, "TalbPfc: more than 65535 ports");
    m_ports = ports;
    m_ingress.assign(ports.size() * TALB_NUM_PRIORITIES, Ingress());
    m_queued.assign(ports.size() * TalbPriorityQueue::NUM_SLOTS, PortRing());
    for (const auto& dev : ports)
    {
        uint32_t headroom = m_headroom.GetValue();
        if (headroom == 0)
        {
            Ptr<TalbPfcChannel> ch = DynamicCast<TalbPfcChannel>(dev->GetChannel());
            NS_ABORT_MSG_UNLESS(ch, "TalbPfc: port " << dev->GetIfIndex() << " has no channel");
            UintegerValue overhead;
            dev->GetAttribute("PhyOverhead", overhead);
            double rateBytes = dev->GetDataRate().GetBitRate() / 8.0;
            uint32_t maxFrame =
                dev->GetMtu() + TalbPfcNetDevice::ETHERNET_HEADER_BYTES + overhead.Get();
            // After the packet that crossed XOFF (a frame): a frame this port may be sending
            // when the pause is ready, the pause frame, its propagation, a frame upstream may
            // have just started, and the propagation of what is already on the wire.
            headroom = static_cast<uint32_t>(2 * ch->GetDelay().GetSeconds() * rateBytes) +
                       3 * maxFrame + PAUSE_FRAME_BYTES + overhead.Get();
        }
        m_portHeadroom.push_back(headroom);
    }
}

bool
TalbPfc::IsLossless(uint8_t priority) const
{
    return (m_lossless >> priority) & 1;
}

TalbPfc::Ingress&
TalbPfc::At(uint32_t port, uint8_t priority)
{
    return m_ingress[port * TALB_NUM_PRIORITIES + priority];
}

const TalbPfc::Ingress&
TalbPfc::At(uint32_t port, uint8_t priority) const
{
    NS_ABORT_MSG_UNLESS(port < m_ports.size() && priority < TALB_NUM_PRIORITIES,
                        "TalbPfc: no port " << port << " priority " << +priority);
    return m_ingress[port * TALB_NUM_PRIORITIES + priority];
}

bool
TalbPfc::Admit(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    if (!IsLossless(priority) || inPort == NO_INGRESS)
    {
        return true;
    }
    Ingress& in = At(inPort, priority);
    uint32_t xoff = GetXoff();
    uint32_t limit = in.pausing ? std::max(in.pauseLevel, xoff) : xoff;
    if (in.bytes + bytes > limit + m_portHeadroom[inPort])
    {
        ++m_stats.headroomDrops;
        m_dropTrace(inPort, priority, in.bytes);
        return false;
    }
    in.bytes += bytes;
    in.maxBytes = std::max(in.maxBytes, in.bytes);
    m_stats.admittedBytes += bytes;
    if (in.bytes > xoff && !in.pausing)
    {
        ++m_stats.pauseStarts;
        in.pauseLevel = xoff;
        Pause(inPort, priority);
    }
    return true;
}

TalbPfc::PortRing&
TalbPfc::RingOf(uint32_t outPort, uint8_t slot)
{
    NS_ASSERT(slot < TalbPriorityQueue::NUM_SLOTS);
    return m_queued[outPort * TalbPriorityQueue::NUM_SLOTS + slot];
}

void
TalbPfc::Queued(uint32_t inPort, uint32_t outPort, uint8_t priority, uint8_t slot)
{
    if (IsLossless(priority))
    {
        RingOf(outPort, slot)
            .Push(inPort == NO_INGRESS ? RING_NO_INGRESS : static_cast<uint16_t>(inPort));
    }
}

void
TalbPfc::Uncharge(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    if (IsLossless(priority) && inPort != NO_INGRESS)
    {
        Release(inPort, priority, bytes);
    }
}

void
TalbPfc::Refused(uint32_t inPort, uint32_t outPort, uint8_t priority, uint8_t slot, uint32_t bytes)
{
    if (IsLossless(priority))
    {
        RingOf(outPort, slot).PopBack();
        if (inPort != NO_INGRESS)
        {
            Release(inPort, priority, bytes);
        }
    }
}

void
TalbPfc::Released(uint32_t outPort, uint8_t priority, uint8_t slot, uint32_t bytes)
{
    if (!IsLossless(priority))
    {
        return;
    }
    PortRing& ring = RingOf(outPort, slot);
    if (ring.size == 0)
    {
        // Not a forwarded packet (nothing the switch charged): e.g. a packet queued before
        // PFC was installed.
        return;
    }
    uint16_t inPort = ring.Pop();
    if (inPort != RING_NO_INGRESS)
    {
        Release(inPort, priority, bytes);
    }
}

void
TalbPfc::Release(uint32_t inPort, uint8_t priority, uint32_t bytes)
{
    Ingress& in = At(inPort, priority);
    NS_ASSERT_MSG(in.bytes >= bytes, "TalbPfc: release of more than port " << inPort << " holds");
    in.bytes -= bytes;
    m_stats.releasedBytes += bytes;
    NS_ASSERT(m_stats.admittedBytes >= m_stats.releasedBytes);
    if (in.pausing && MayResume(in))
    {
        Resume(inPort, priority);
    }
}

void
TalbPfc::Pause(uint32_t port, uint8_t priority)
{
    NS_LOG_LOGIC("port " << port << " pauses priority " << +priority << " at "
                         << At(port, priority).bytes);
    Ingress& in = At(port, priority);
    in.pausing = true;
    ++m_stats.pausesSent;
    m_pauseTrace(port, priority, in.bytes);
    m_ports[port]->SendPause(priority, m_quanta);
    // Refresh before the pause runs out, as switches do, in case the charge stays high.
    in.refresh = Simulator::Schedule(m_ports[port]->PauseDuration(m_quanta / 2),
                                     &TalbPfc::Refresh,
                                     this,
                                     port,
                                     priority);
}

bool
TalbPfc::MayResume(const Ingress& in) const
{
    if (!m_shared)
    {
        return in.bytes <= m_xoff.GetValue() - m_xonOffset.GetValue();
    }
    return in.bytes == 0 || uint64_t(in.bytes) + m_xonOffset.GetValue() <= GetXoff();
}

void
TalbPfc::Refresh(uint32_t port, uint8_t priority)
{
    Ingress& in = At(port, priority);
    if (!in.pausing)
    {
        return;
    }
    // A dynamic threshold rises as other ports drain: the charge may now be low enough.
    if (m_shared && MayResume(in))
    {
        Resume(port, priority);
        return;
    }
    Pause(port, priority);
}

void
TalbPfc::Resume(uint32_t port, uint8_t priority)
{
    Ingress& in = At(port, priority);
    in.pausing = false;
    in.refresh.Cancel();
    ++m_stats.resumesSent;
    m_resumeTrace(port, priority, in.bytes);
    m_ports[port]->SendPause(priority, 0);
}

uint32_t
TalbPfc::GetIngressBytes(uint32_t port, uint8_t priority) const
{
    return At(port, priority).bytes;
}

uint32_t
TalbPfc::GetMaxIngressBytes(uint32_t port, uint8_t priority) const
{
    return At(port, priority).maxBytes;
}

bool
TalbPfc::IsPausing(uint32_t port, uint8_t priority) const
{
    return At(port, priority).pausing;
}

uint32_t
TalbPfc::GetXoff() const
{
    if (m_shared)
    {
        return static_cast<uint32_t>(std::min<uint64_t>(m_shared->GetPfcThreshold(), UINT32_MAX));
    }
    return m_xoff.GetValue();
}

void
TalbPfc::SetSharedBuffer(Ptr<TalbSharedBuffer> buffer)
{
    m_shared = buffer;
}

uint32_t
TalbPfc::GetHeadroom(uint32_t port) const
{
    NS_ABORT_MSG_UNLESS(port < m_portHeadroom.size(), "TalbPfc::GetHeadroom: no port " << port);
    return m_portHeadroom[port];
}

const TalbPfc::Stats&
TalbPfc::GetStats() const
{
    return m_stats;
}

} // namespace ns3
