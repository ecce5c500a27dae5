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
      m_fbMetric(0),
      m_delayNs(0),
      m_fbDelayNs(0),
      m_senderShared(false)
{
}

uint32_t
TalbCongaTag::GetSerializedSize() const
{
    return 14;
}

void
TalbCongaTag::Serialize(TagBuffer i) const
{
    i.WriteU8(m_path);
    i.WriteU8(m_ce);
    i.WriteU8(m_hasFeedback ? 1 : 0);
    i.WriteU8(m_fbPath);
    i.WriteU8(m_fbMetric);
    i.WriteU32(m_delayNs);
    i.WriteU32(m_fbDelayNs);
    i.WriteU8(m_senderShared ? 1 : 0);
}

void
TalbCongaTag::Deserialize(TagBuffer i)
{
    m_path = i.ReadU8();
    m_ce = i.ReadU8();
    m_hasFeedback = i.ReadU8() != 0;
    m_fbPath = i.ReadU8();
    m_fbMetric = i.ReadU8();
    m_delayNs = i.ReadU32();
    m_fbDelayNs = i.ReadU32();
    m_senderShared = i.ReadU8() != 0;
}

void
TalbCongaTag::Print(std::ostream& os) const
{
    os << "path=" << +m_path << " ce=" << +m_ce << " delay=" << m_delayNs << "ns";
    if (m_hasFeedback)
    {
        os << " fb=" << +m_fbPath << ":" << +m_fbMetric << "/" << m_fbDelayNs << "ns";
    }
    if (m_senderShared)
    {
        os << " shared";
    }
}

bool
TalbCongaTag::GetSenderShared() const
{
    return m_senderShared;
}

void
TalbCongaTag::SetSenderShared(bool shared)
{
    m_senderShared = shared;
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
TalbCongaTag::SetFeedback(uint8_t path, uint8_t metric, uint32_t delayNs)
{
    m_hasFeedback = true;
    m_fbPath = path;
    m_fbMetric = metric;
    m_fbDelayNs = delayNs;
}

uint32_t
TalbCongaTag::GetDelayNs() const
{
    return m_delayNs;
}

void
TalbCongaTag::SetDelayNs(uint32_t delayNs)
{
    m_delayNs = delayNs;
}

uint32_t
TalbCongaTag::GetFeedbackDelayNs() const
{
    return m_fbDelayNs;
}

} // namespace ns3
