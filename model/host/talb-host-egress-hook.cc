#include "talb-host-egress-hook.h"

#include "talb-tensor-byte-tag.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/socket.h"
#include "ns3/talb-tag.h"
#include "ns3/tcp-l4-protocol.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/udp-l4-protocol.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbHostEgressHook");

NS_OBJECT_ENSURE_REGISTERED(TalbHostEgressHook);

namespace
{
constexpr uint32_t UDP_HEADER_LEN = 8;
} // namespace

TypeId
TalbHostEgressHook::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbHostEgressHook")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbHostEgressHook>()
            .AddAttribute("AddTag",
                          "Attach a TalbTag (the TaLB IPv4 option) to labelled segments",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbHostEgressHook::m_addTag),
                          MakeBooleanChecker())
            .AddAttribute("SetDscp",
                          "Set the DSCP of labelled segments from their priority",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbHostEgressHook::m_setDscp),
                          MakeBooleanChecker())
            .AddTraceSource("Label",
                            "A segment was labelled: segment, tensor id, priority, flags",
                            MakeTraceSourceAccessor(&TalbHostEgressHook::m_labelTrace),
                            "ns3::TalbHostEgressHook::LabelTracedCallback");
    return tid;
}

TalbHostEgressHook::TalbHostEgressHook()
    : m_addTag(true),
      m_setDscp(true)
{
    NS_LOG_FUNCTION(this);
}

TalbHostEgressHook::~TalbHostEgressHook()
{
    NS_LOG_FUNCTION(this);
}

void
TalbHostEgressHook::DoDispose()
{
    m_tcpTarget.Nullify();
    m_udpTarget.Nullify();
    Object::DoDispose();
}

void
TalbHostEgressHook::Install(Ptr<Node> node)
{
    NS_LOG_FUNCTION(this << node);
    NS_ABORT_MSG_UNLESS(m_tcpTarget.IsNull() && m_udpTarget.IsNull(),
                        "TalbHostEgressHook::Install: already installed");
    Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
    Ptr<UdpL4Protocol> udp = node->GetObject<UdpL4Protocol>();
    NS_ABORT_MSG_UNLESS(tcp || udp,
                        "TalbHostEgressHook::Install: node " << node->GetId()
                                                             << " has no TCP or UDP stack");
    if (tcp)
    {
        m_tcpTarget = tcp->GetDownTarget();
        tcp->SetDownTarget(MakeCallback(&TalbHostEgressHook::Send, this));
    }
    if (udp)
    {
        m_udpTarget = udp->GetDownTarget();
        udp->SetDownTarget(MakeCallback(&TalbHostEgressHook::Send, this));
    }
}

const TalbHostEgressHook::Stats&
TalbHostEgressHook::GetStats() const
{
    return m_stats;
}

void
TalbHostEgressHook::Send(Ptr<Packet> packet,
                         Ipv4Address source,
                         Ipv4Address destination,
                         uint8_t protocol,
                         Ptr<Ipv4Route> route)
{
    ++m_stats.nSegments;
    bool tcp = protocol == TcpL4Protocol::PROT_NUMBER;
    uint32_t offset = UDP_HEADER_LEN;
    if (tcp)
    {
        // TCP data offset: high nibble of byte 12, in 32-bit words.
        uint8_t hdr[13];
        offset = packet->CopyData(hdr, sizeof(hdr)) == sizeof(hdr) ? (hdr[12] >> 4) * 4u : 0;
    }
    struct talb_label label;
    if (offset > 0 && packet->GetSize() > offset &&
        TalbTensorByteTag::LabelSegment(packet, &label, offset))
    {
        ++m_stats.nLabelled;
        if (m_addTag)
        {
            packet->AddPacketTag(TalbTag(label.tensor_id, label.priority, label.flags));
        }
        if (m_setDscp)
        {
            SocketIpTosTag tos;
            uint8_t ecn = packet->RemovePacketTag(tos) ? (tos.GetTos() & 0x3) : 0;
            tos.SetTos(static_cast<uint8_t>(talb_dscp_from_priority(label.priority) << 2) | ecn);
            packet->AddPacketTag(tos);
        }
        m_labelTrace(packet, label.tensor_id, label.priority, label.flags);
    }
    IpL4Protocol::DownTargetCallback& target = tcp ? m_tcpTarget : m_udpTarget;
    NS_ASSERT_MSG(!target.IsNull(), "no down target for protocol " << +protocol);
    target(packet, source, destination, protocol, route);
}

} // namespace ns3
