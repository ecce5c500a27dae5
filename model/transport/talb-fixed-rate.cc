#include "talb-fixed-rate.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(TalbFixedRate);
TALB_REGISTER_PLUGIN(TalbRdmaRateControl, TalbFixedRate, "none");

TypeId
TalbFixedRate::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbFixedRate")
                            .SetParent<TalbRdmaRateControl>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbFixedRate>();
    return tid;
}

Ptr<TalbRdmaRateControl>
TalbFixedRate::DoFork() const
{
    return CopyObject<TalbFixedRate>(this);
}

} // namespace ns3
