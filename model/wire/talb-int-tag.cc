#include "talb-int-tag.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbIntTag);

TypeId
TalbIntTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbIntTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbIntTag>();
    return tid;
}

TypeId
TalbIntTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
TalbIntTag::GetSerializedSize() const
{
    // Always room for every hop: a switch replaces the tag in place (Packet::ReplacePacketTag
    // keeps the size the tag was added with).
    return 3 + MAX_HOPS * sizeof(Hop);
}

void
TalbIntTag::Serialize(TagBuffer i) const
{
    // The records as they lie in memory (a tag never leaves the process's architecture), and
    // only those in use: a switch per hop and the responder copy them, so this is per packet.
    i.WriteU8(m_nHops);
    i.WriteU8(m_droppedHops);
    i.WriteU8(m_echo ? 1 : 0);
    i.Write(reinterpret_cast<const uint8_t*>(m_hops.data()), m_nHops * sizeof(Hop));
}

void
TalbIntTag::Deserialize(TagBuffer i)
{
    m_nHops = std::min<uint8_t>(i.ReadU8(), MAX_HOPS);
    m_droppedHops = i.ReadU8();
    m_echo = i.ReadU8() != 0;
    i.Read(reinterpret_cast<uint8_t*>(m_hops.data()), m_nHops * sizeof(Hop));
}

void
TalbIntTag::Print(std::ostream& os) const
{
    os << (m_echo ? "echo " : "") << "hops=" << unsigned(m_nHops);
    for (uint32_t h = 0; h < m_nHops; ++h)
    {
        const Hop& hop = m_hops[h];
        os << " [node " << hop.node << " port " << hop.port << " t=" << hop.timeNs
           << "ns tx=" << hop.txBytes << " q=" << hop.queueBytes << " rate=" << hop.rateBps << "]";
    }
    if (m_droppedHops > 0)
    {
        os << " +" << unsigned(m_droppedHops) << " unrecorded";
    }
}

void
TalbIntTag::PushHop(const Hop& hop)
{
    if (m_nHops < MAX_HOPS)
    {
        m_hops[m_nHops++] = hop;
    }
    else if (m_droppedHops < 255)
    {
        ++m_droppedHops;
    }
}

uint32_t
TalbIntTag::GetNHops() const
{
    return m_nHops;
}

const TalbIntTag::Hop&
TalbIntTag::GetHop(uint32_t i) const
{
    NS_ABORT_MSG_UNLESS(i < m_nHops, "TalbIntTag::GetHop(" << i << ") of " << unsigned(m_nHops));
    return m_hops[i];
}

uint32_t
TalbIntTag::GetDroppedHops() const
{
    return m_droppedHops;
}

void
TalbIntTag::SetEcho()
{
    m_echo = true;
}

bool
TalbIntTag::IsEcho() const
{
    return m_echo;
}

} // namespace ns3
