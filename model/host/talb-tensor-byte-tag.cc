#include "talb-tensor-byte-tag.h"

#include "ns3/abort.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbTensorByteTag);

TypeId
TalbTensorByteTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTensorByteTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbTensorByteTag>();
    return tid;
}

TypeId
TalbTensorByteTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

TalbTensorByteTag::TalbTensorByteTag()
    : m_label{0, TALB_NUM_PRIORITIES - 1, 0}
{
}

TalbTensorByteTag::TalbTensorByteTag(uint32_t tensorId, uint8_t priority, uint8_t flags)
    : m_label{tensorId, priority, flags}
{
    NS_ABORT_MSG_UNLESS(talb_label_valid(&m_label),
                        "TalbTensorByteTag: priority " << +priority << " or flags " << +flags
                                                       << " out of range");
}

uint32_t
TalbTensorByteTag::GetSerializedSize() const
{
    return 6;
}

void
TalbTensorByteTag::Serialize(TagBuffer i) const
{
    i.WriteU32(m_label.tensor_id);
    i.WriteU8(m_label.priority);
    i.WriteU8(m_label.flags);
}

void
TalbTensorByteTag::Deserialize(TagBuffer i)
{
    m_label.tensor_id = i.ReadU32();
    m_label.priority = i.ReadU8();
    m_label.flags = i.ReadU8();
}

void
TalbTensorByteTag::Print(std::ostream& os) const
{
    os << "tensor=" << m_label.tensor_id << " prio=" << +m_label.priority
       << ((m_label.flags & TALB_FLAG_FIRST) ? " FIRST" : "")
       << ((m_label.flags & TALB_FLAG_LAST) ? " LAST" : "");
}

uint32_t
TalbTensorByteTag::GetTensorId() const
{
    return m_label.tensor_id;
}

uint8_t
TalbTensorByteTag::GetPriority() const
{
    return m_label.priority;
}

uint8_t
TalbTensorByteTag::GetFlags() const
{
    return m_label.flags;
}

void
TalbTensorByteTag::TagMessage(Ptr<Packet> message,
                              uint32_t tensorId,
                              uint8_t priority,
                              bool firstOfTensor,
                              bool lastOfTensor)
{
    uint32_t size = message->GetSize();
    NS_ABORT_MSG_IF(size == 0, "TalbTensorByteTag::TagMessage: empty message");
    message->AddByteTag(TalbTensorByteTag(tensorId, priority, 0));
    if (firstOfTensor)
    {
        message->AddByteTag(TalbTensorByteTag(tensorId, priority, TALB_FLAG_FIRST), 0, 1);
    }
    if (lastOfTensor)
    {
        message->AddByteTag(TalbTensorByteTag(tensorId, priority, TALB_FLAG_LAST), size - 1, size);
    }
}

bool
TalbTensorByteTag::LabelSegment(Ptr<const Packet> segment,
                                struct talb_label* label,
                                uint32_t payloadOffset)
{
    static const TypeId tid = GetTypeId();
    bool found = false;
    TalbTensorByteTag tag;
    // Byte tags iterate in insertion order and TagMessage() adds a tensor's markers after its
    // body tag, so the owner (the body tag covering byte 0; ranges are clipped to the segment)
    // is always seen before its own markers.
    ByteTagIterator it = segment->GetByteTagIterator();
    while (it.HasNext())
    {
        ByteTagIterator::Item item = it.Next();
        if (item.GetTypeId() != tid)
        {
            continue;
        }
        item.GetTag(tag);
        if (!found)
        {
            if (item.GetStart() == payloadOffset && tag.m_label.flags == 0)
            {
                *label = tag.m_label;
                found = true;
            }
            continue;
        }
        if (tag.m_label.tensor_id != label->tensor_id)
        {
            continue;
        }
        if ((tag.m_label.flags & TALB_FLAG_FIRST) && item.GetStart() == payloadOffset)
        {
            label->flags |= TALB_FLAG_FIRST;
        }
        label->flags |= tag.m_label.flags & TALB_FLAG_LAST;
    }
    return found;
}

} // namespace ns3
