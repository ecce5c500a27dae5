#include "talb-flow-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbFlowTag);

TypeId
TalbFlowTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbFlowTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbFlowTag>();
    return tid;
}

TypeId
TalbFlowTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
TalbFlowTag::GetSerializedSize() const
{
    return 8 + 8;
}

void
TalbFlowTag::Serialize(TagBuffer i) const
{
    i.WriteU64(sizeBytes);
    i.WriteU64(uint64_t(start.GetTimeStep()));
}

void
TalbFlowTag::Deserialize(TagBuffer i)
{
    sizeBytes = i.ReadU64();
    start = TimeStep(i.ReadU64());
}

void
TalbFlowTag::Print(std::ostream& os) const
{
    os << "size=" << sizeBytes << " start=" << start;
}

} // namespace ns3
