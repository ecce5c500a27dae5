#include "talb-message-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbMessageTag);

TypeId
TalbMessageTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbMessageTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbMessageTag>();
    return tid;
}

TypeId
TalbMessageTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
TalbMessageTag::GetSerializedSize() const
{
    return 4 + 2 + 4 + 8;
}

void
TalbMessageTag::Serialize(TagBuffer i) const
{
    i.WriteU32(opId);
    i.WriteU16(step);
    i.WriteU32(iteration);
    i.WriteU64(uint64_t(start.GetTimeStep()));
}

void
TalbMessageTag::Deserialize(TagBuffer i)
{
    opId = i.ReadU32();
    step = i.ReadU16();
    iteration = i.ReadU32();
    start = TimeStep(i.ReadU64());
}

void
TalbMessageTag::Print(std::ostream& os) const
{
    os << "op=" << opId << " step=" << step << " iteration=" << iteration << " start=" << start;
}

} // namespace ns3
