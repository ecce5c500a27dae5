#include "talb-load-balancer.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLoadBalancer");

NS_OBJECT_ENSURE_REGISTERED(TalbLoadBalancer);

bool
TalbCandidates::Contains(uint32_t port) const
{
    return std::find(ports, ports + count, port) != ports + count;
}

TypeId
TalbLoadBalancer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbLoadBalancer")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddTraceSource("PathSelected",
                            "A path selection: the packet's context (flow hash, ports, hosts, "
                            "label, size, time) "
                            "and the chosen port id",
                            MakeTraceSourceAccessor(&TalbLoadBalancer::m_pathSelectedTrace),
                            "ns3::TalbLoadBalancer::PathSelectedTracedCallback")
            .AddTraceSource("Reroute",
                            "A flow, flowlet or tensor moved: flow hash, tensor id, old, new port",
                            MakeTraceSourceAccessor(&TalbLoadBalancer::m_rerouteTrace),
                            "ns3::TalbLoadBalancer::RerouteTracedCallback");
    return tid;
}

TalbRegistry&
TalbLoadBalancer::GetRegistry()
{
    static TalbRegistry registry("load balancer", GetTypeId());
    return registry;
}

TalbLoadBalancer::TalbLoadBalancer()
    : m_ports(nullptr)
{
    NS_LOG_FUNCTION(this);
}

TalbLoadBalancer::~TalbLoadBalancer()
{
    NS_LOG_FUNCTION(this);
}

void
TalbLoadBalancer::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_ports = nullptr;
    m_transmit = TransmitCallback();
    Object::DoDispose();
}

uint32_t
TalbPortState::QueueDelayNs() const
{
    if (!queue || rate.GetBitRate() == 0)
    {
        return 0;
    }
    double ns = double(queue->GetNBytes()) * 8e9 / double(rate.GetBitRate());
    return static_cast<uint32_t>(std::min(ns, double(UINT32_MAX)));
}

uint32_t
TalbPortState::AddQueueDelayNs(uint32_t pathDelayNs) const
{
    return static_cast<uint32_t>(
        std::min<uint64_t>(uint64_t(pathDelayNs) + QueueDelayNs(), UINT32_MAX));
}

void
TalbLoadBalancer::Attach(const TalbSwitchInfo& info, const std::vector<TalbPortState>* ports)
{
    NS_LOG_FUNCTION(this << info.switchId);
    NS_ABORT_MSG_IF(ports == nullptr, "TalbLoadBalancer::Attach: no port table");
    NS_ABORT_MSG_IF(m_ports != nullptr, "TalbLoadBalancer::Attach: already attached");
    m_info = info;
    m_ports = ports;
    NS_ABORT_MSG_UNLESS(CheckConfig(),
                        GetInstanceTypeId().GetName()
                            << ": invalid configuration: " << m_configError);
    InitializeParams();
}

namespace
{

/// The egress CheckConfiguration() wires in, as a switch does before Attach(): a check sends
/// nothing.
void
NoEgress(Ptr<Packet> /* packet */, uint32_t /* inPort */, uint32_t /* outPort */, bool /* kept */)
{
}

} // namespace

std::string
TalbLoadBalancer::CheckConfiguration(const TalbSwitchInfo& info)
{
    NS_ABORT_MSG_IF(m_ports != nullptr, "TalbLoadBalancer::CheckConfiguration: attached");
    m_info = info;
    m_configError.clear();
    TransmitCallback transmit = m_transmit;
    if (transmit.IsNull())
    {
        m_transmit = MakeCallback(&NoEgress);
    }
    bool ok = CheckConfig();
    m_transmit = transmit;
    return ok ? "" : m_configError;
}

uint32_t
TalbLoadBalancer::SelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    NS_ASSERT_MSG(m_ports, "SelectPath before Attach");
    NS_ASSERT_MSG(candidates.count >= 1, "SelectPath without candidates");
    uint32_t port = candidates.count == 1 ? candidates.ports[0] : DoSelectPath(ctx, candidates);
    NS_ASSERT_MSG(candidates.Contains(port),
                  GetInstanceTypeId().GetName()
                      << " chose port " << port << " outside its candidates");
    ++m_stats.nSelections;
    ++(ctx.hasLabel ? m_stats.nTaggedSelections : m_stats.nUntaggedSelections);
    NS_ASSERT(m_stats.nSelections == m_stats.nTaggedSelections + m_stats.nUntaggedSelections);
    m_pathSelectedTrace(ctx, port);
    return port;
}

void
TalbLoadBalancer::PacketIn(TalbPacketContext& ctx)
{
    DoPacketIn(ctx);
}

void
TalbLoadBalancer::PacketOut(TalbPacketContext& ctx, uint32_t port)
{
    DoPacketOut(ctx, port);
}

void
TalbLoadBalancer::SetTransmitCallback(TransmitCallback cb)
{
    m_transmit = cb;
}

TalbLoadBalancer::HoldVerdict
TalbLoadBalancer::Hold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet)
{
    HoldVerdict verdict = DoHold(ctx, port, packet);
    if (verdict != SEND)
    {
        ++m_stats.nHeld;
    }
    return verdict;
}

void
TalbLoadBalancer::Transmit(Ptr<Packet> packet, uint32_t inPort, uint32_t outPort)
{
    NS_ASSERT_MSG(!m_transmit.IsNull(), "Transmit without the switch's transmit callback");
    NS_ASSERT_MSG(outPort < GetNPorts(), "Transmit on port " << outPort);
    ++m_stats.nTransmitted;
    m_transmit(packet, inPort, outPort, false);
}

void
TalbLoadBalancer::Release(Ptr<Packet> packet, uint32_t inPort, uint32_t outPort)
{
    NS_ASSERT_MSG(!m_transmit.IsNull(), "Release without the switch's transmit callback");
    NS_ASSERT_MSG(outPort < GetNPorts(), "Release on port " << outPort);
    ++m_stats.nTransmitted;
    m_transmit(packet, inPort, outPort, true);
}

bool
TalbLoadBalancer::CanTransmit() const
{
    return !m_transmit.IsNull();
}

const TalbLoadBalancer::TransmitCallback&
TalbLoadBalancer::GetTransmitCallback() const
{
    return m_transmit;
}

TalbLoadBalancer::HoldVerdict
TalbLoadBalancer::DoHold(TalbPacketContext& /* ctx */,
                         uint32_t /* port */,
                         Ptr<Packet> /* packet */)
{
    return SEND;
}

void
TalbLoadBalancer::DoPacketIn(TalbPacketContext& /* ctx */)
{
}

void
TalbLoadBalancer::DoPacketOut(TalbPacketContext& /* ctx */, uint32_t /* port */)
{
}

bool
TalbLoadBalancer::CheckConfig()
{
    return true;
}

bool
TalbLoadBalancer::ConfigError(const std::string& message)
{
    NS_LOG_ERROR(message);
    m_configError = message;
    return false;
}

bool
TalbLoadBalancer::CanBeFallback() const
{
    return true;
}

std::vector<TalbLoadBalancer::PolicyCounter>
TalbLoadBalancer::GetPolicyCounters() const
{
    return {};
}

void
TalbLoadBalancer::InitializeParams()
{
}

const TalbLoadBalancer::Stats&
TalbLoadBalancer::GetStats() const
{
    return m_stats;
}

int64_t
TalbLoadBalancer::AssignStreams(int64_t /* stream */)
{
    return 0;
}

void
TalbLoadBalancer::NotifyReroute(const TalbPacketContext& ctx, uint32_t oldPort, uint32_t newPort)
{
    NS_LOG_FUNCTION(this << ctx.flowHash << oldPort << newPort);
    ++m_stats.nReroutes;
    m_rerouteTrace(ctx.flowHash, ctx.hasLabel ? ctx.label.tensor_id : 0, oldPort, newPort);
}

const TalbPortState&
TalbLoadBalancer::GetPort(uint32_t port) const
{
    NS_ASSERT(m_ports && port < m_ports->size());
    return (*m_ports)[port];
}

uint32_t
TalbLoadBalancer::GetNPorts() const
{
    return m_ports ? m_ports->size() : 0;
}

const TalbSwitchInfo&
TalbLoadBalancer::GetSwitchInfo() const
{
    return m_info;
}

bool
TalbLoadBalancer::IsAttached() const
{
    return m_ports != nullptr;
}

const std::vector<TalbPortState>*
TalbLoadBalancer::GetPortTable() const
{
    return m_ports;
}

uint32_t
TalbLoadBalancer::DelegateSelect(Ptr<TalbLoadBalancer> delegate,
                                 TalbPacketContext& ctx,
                                 const TalbCandidates& candidates)
{
    return delegate->DoSelectPath(ctx, candidates);
}

} // namespace ns3
