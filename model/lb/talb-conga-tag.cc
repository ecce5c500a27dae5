#include "talb-conga-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbCongaTag);

TypeId
TalbCongaTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbCongaTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbCongaTag>();
    return tid;
}

TypeId
TalbCongaTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbCongaTag::TalbCongaTag()
    : m_path(0),
      m_ce(0),
      m_hasFeedback(false),
      m_fbPath(0),
      m_fbMetric(0)
{
}

uint32_t
TalbCongaTag::GetSerializedSize() const
{
    return 5;
}

void
TalbCongaTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_path);
    i.WriteU8(m_ce);
    i.WriteU8(m_hasFeedback ? 1 : 0);
    i.WriteU8(m_fbPath);
    i.WriteU8(m_fbMetric);
}

void
TalbCongaTag::Deserialize(TagBuffer i)
{
    m_path = i.ReadU8();
    m_ce = i.ReadU8();
    m_hasFeedback = i.ReadU8() != 0;
    m_fbPath = i.ReadU8();
    m_fbMetric = i.ReadU8();
}

void
TalbCongaTag::Print(std::ostream& os) const
{
    os << "path=" << +m_path << " ce=" << +m_ce;
    if (m_hasFeedback)
    {
        os << " fb=" << +m_fbPath << ":" << +m_fbMetric;
    }
}

uint8_t
TalbCongaTag::GetPath() const
{
    return m_path;
}

void
TalbCongaTag::SetPath(uint8_t path)
{
    m_path = path;
}

uint8_t
TalbCongaTag::GetCe() const
{
    return m_ce;
}

void
TalbCongaTag::SetCe(uint8_t ce)
{
    m_ce = ce;
}

bool
TalbCongaTag::HasFeedback() const
{
    return m_hasFeedback;
}

uint8_t
TalbCongaTag::GetFeedbackPath() const
{
    return m_fbPath;
}

uint8_t
TalbCongaTag::GetFeedbackMetric() const
{
    return m_fbMetric;
}

void
TalbCongaTag::SetFeedback(uint8_t path, uint8_t metric)
{
    m_hasFeedback = true;
    m_fbPath = path;
    m_fbMetric = metric;
}

} // namespace ns3
