#include "talb-conweave-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbConWeaveTag);

TypeId
TalbConWeaveTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbConWeaveTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbConWeaveTag>();
    return tid;
}

TypeId
TalbConWeaveTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbConWeaveTag::TalbConWeaveTag() = default;

uint32_t
TalbConWeaveTag::GetSerializedSize() const
{
    return 1 + 1 + 1 + 1 + 4 + 4 + 8 + 8;
}

void
TalbConWeaveTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_fields.kind);
    i.WriteU8(m_fields.rttRequest ? 1 : 0);
    i.WriteU8(m_fields.phase);
    i.WriteU8(m_fields.path);
    i.WriteU32(m_fields.epoch);
    i.WriteU32(m_fields.flowHash);
    i.WriteU64(m_fields.txTimeNs);
    i.WriteU64(m_fields.tailTimeNs);
}

void
TalbConWeaveTag::Deserialize(TagBuffer i)
{
    m_fields.kind = i.ReadU8();
    m_fields.rttRequest = i.ReadU8() != 0;
    m_fields.phase = i.ReadU8();
    m_fields.path = i.ReadU8();
    m_fields.epoch = i.ReadU32();
    m_fields.flowHash = i.ReadU32();
    m_fields.txTimeNs = i.ReadU64();
    m_fields.tailTimeNs = i.ReadU64();
}

void
TalbConWeaveTag::Print(std::ostream& os) const
{
    static const char* kinds[] = {"DATA", "REPLY", "CLEAR", "NOTIFY"};
    os << (m_fields.kind <= NOTIFY ? kinds[m_fields.kind] : "?") << " epoch=" << m_fields.epoch;
    if (m_fields.kind == DATA)
    {
        os << " phase=" << +m_fields.phase << " path=" << +m_fields.path
           << " tx=" << m_fields.txTimeNs << "ns";
        if (m_fields.rttRequest)
        {
            os << " RTT_REQUEST";
        }
        if (m_fields.phase == 1)
        {
            os << " tail=" << m_fields.tailTimeNs << "ns";
        }
    }
    else
    {
        os << " flow=" << m_fields.flowHash;
        if (m_fields.kind == NOTIFY)
        {
            os << " path=" << +m_fields.path;
        }
    }
}

const TalbConWeaveTag::Fields&
TalbConWeaveTag::Get() const
{
    return m_fields;
}

TalbConWeaveTag::Fields&
TalbConWeaveTag::Set()
{
    return m_fields;
}

} // namespace ns3
