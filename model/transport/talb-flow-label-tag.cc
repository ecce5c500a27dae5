#include "talb-flow-label-tag.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbFlowLabelTag);

namespace
{
bool g_inUse = false;
} // namespace

TypeId
TalbFlowLabelTag::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbFlowLabelTag")
                            .SetParent<Tag>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbFlowLabelTag>();
    return tid;
}

TypeId
TalbFlowLabelTag::GetInstanceTypeId() const
{
    return GetTypeId();
}

uint32_t
TalbFlowLabelTag::GetSerializedSize() const
{
    return 4;
}

void
TalbFlowLabelTag::Serialize(TagBuffer i) const
{
    i.WriteU32(label);
}

void
TalbFlowLabelTag::Deserialize(TagBuffer i)
{
    label = i.ReadU32();
}

void
TalbFlowLabelTag::Print(std::ostream& os) const
{
    os << "flowLabel=" << label;
}

bool
TalbFlowLabelTag::IsInUse()
{
    return g_inUse;
}

void
TalbFlowLabelTag::SetInUse()
{
    g_inUse = true;
}

} // namespace ns3
