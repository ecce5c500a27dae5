#include "talb-hermes-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbHermesTag);

TypeId
TalbHermesTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbHermesTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbHermesTag>();
    return tid;
}

TypeId
TalbHermesTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbHermesTag::TalbHermesTag() = default;

uint32_t
TalbHermesTag::GetSerializedSize() const
{
    return 1 + 1 + 4 + 1 + 1 + 2 + 4;
}

void
TalbHermesTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_fields.path);
    i.WriteU8(m_fields.marked ? 1 : 0);
    i.WriteU32(m_fields.delayNs);
    i.WriteU8(m_fields.hasFeedback ? 1 : 0);
    i.WriteU8(m_fields.fbPath);
    i.WriteU16(m_fields.fbEcnFraction);
    i.WriteU32(m_fields.fbDelayNs);
}

void
TalbHermesTag::Deserialize(TagBuffer i)
{
    m_fields.path = i.ReadU8();
    m_fields.marked = i.ReadU8() != 0;
    m_fields.delayNs = i.ReadU32();
    m_fields.hasFeedback = i.ReadU8() != 0;
    m_fields.fbPath = i.ReadU8();
    m_fields.fbEcnFraction = i.ReadU16();
    m_fields.fbDelayNs = i.ReadU32();
}

void
TalbHermesTag::Print(std::ostream& os) const
{
    os << "path=" << +m_fields.path << " marked=" << m_fields.marked
       << " delay=" << m_fields.delayNs << "ns";
    if (m_fields.hasFeedback)
    {
        os << " fb=" << +m_fields.fbPath << ":" << m_fields.fbEcnFraction / 65535.0 << ","
           << m_fields.fbDelayNs << "ns";
    }
}

const TalbHermesTag::Fields&
TalbHermesTag::Get() const
{
    return m_fields;
}

TalbHermesTag::Fields&
TalbHermesTag::Set()
{
    return m_fields;
}

} // namespace ns3
