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

namespace
{
constexpr uint32_t HOP_BYTES = 4 + 4 + 8 + 8 + 8 + 4;
} // namespace

uint32_t
TalbIntTag::GetSerializedSize() const
{
    // Always room for every hop: a switch replaces the tag in place (Packet::ReplacePacketTag
    // keeps the size the tag was added with).
    return 2 + MAX_HOPS * HOP_BYTES;
}

void
TalbIntTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_nHops);
    i.WriteU8(m_droppedHops);
    for (uint32_t h = 0; h < MAX_HOPS; ++h)
    {
        const Hop& hop = m_hops[h];
        i.WriteU32(hop.node);
        i.WriteU32(hop.port);
        i.WriteU64(hop.timeNs);
        i.WriteU64(hop.txBytes);
        i.WriteU64(hop.rateBps);
        i.WriteU32(hop.queueBytes);
    }
}

void
TalbIntTag::Deserialize(TagBuffer i)
{
    m_nHops = std::min<uint8_t>(i.ReadU8(), MAX_HOPS);
    m_droppedHops = i.ReadU8();
    for (uint32_t h = 0; h < MAX_HOPS; ++h)
    {
        Hop& hop = m_hops[h];
        hop.node = i.ReadU32();
        hop.port = i.ReadU32();
        hop.timeNs = i.ReadU64();
        hop.txBytes = i.ReadU64();
        hop.rateBps = i.ReadU64();
        hop.queueBytes = i.ReadU32();
    }
}

void
TalbIntTag::Print(std::ostream& os) const
{
    os << "hops=" << unsigned(m_nHops);
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

} // namespace ns3
