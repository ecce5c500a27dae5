#include "talb-tag.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbTag);

TypeId
TalbTag::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTag").SetParent<Tag>().SetGroupName("Talb").AddConstructor<TalbTag>();
    return tid;
}

TypeId
TalbTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbTag::TalbTag()
    : m_label{0, TALB_NUM_PRIORITIES - 1, 0}
{
}

TalbTag::TalbTag(uint32_t tensorId, uint8_t priority, uint8_t flags)
    : m_label{tensorId, priority, flags}
{
    NS_ABORT_MSG_UNLESS(talb_label_valid(&m_label),
                        "TalbTag: priority " << +priority << " or flags " << +flags
                                             << " out of range");
}

uint32_t
TalbTag::GetSerializedSize() const
{
    return TALB_OPT_LEN;
}

void
TalbTag::Serialize(TagBuffer i) const
{
    uint8_t buf[TALB_OPT_LEN];
    talb_option_encode(&m_label, buf, sizeof(buf));
    i.Write(buf, sizeof(buf));
}

void
TalbTag::Deserialize(TagBuffer i)
{
    uint8_t buf[TALB_OPT_LEN];
    i.Read(buf, sizeof(buf));
    // Tags are only ever written by Serialize() above, so a decode error is a bug, not bad input.
    int rc = talb_option_decode(buf, sizeof(buf), &m_label);
    NS_ABORT_MSG_IF(rc < 0, "TalbTag: corrupt tag buffer: " << talb_wire_strerror(rc));
}

void
TalbTag::Print(std::ostream& os) const
{
    os << "tensor=" << m_label.tensor_id << " job=" << +GetJobId() << " prio=" << +m_label.priority
       << (IsFirst() ? " FIRST" : "") << (IsLast() ? " LAST" : "");
}

uint32_t
TalbTag::GetTensorId() const
{
    return m_label.tensor_id;
}

uint8_t
TalbTag::GetJobId() const
{
    return static_cast<uint8_t>(talb_job_of(m_label.tensor_id));
}

uint8_t
TalbTag::GetPriority() const
{
    return m_label.priority;
}

uint8_t
TalbTag::GetFlags() const
{
    return m_label.flags;
}

bool
TalbTag::IsFirst() const
{
    return m_label.flags & TALB_FLAG_FIRST;
}

bool
TalbTag::IsLast() const
{
    return m_label.flags & TALB_FLAG_LAST;
}

struct talb_label
TalbTag::GetLabel() const
{
    return m_label;
}

void
TalbTag::SetLabel(const struct talb_label& label)
{
    NS_ABORT_MSG_UNLESS(talb_label_valid(&label), "TalbTag: label out of range");
    m_label = label;
}

} // namespace ns3
