#include "talb-graph-ring.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphRing");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphRing);
TALB_REGISTER_PLUGIN(TalbGraphAlgorithm, TalbGraphRing, "ring");

using talb::graph::CollType;

TypeId
TalbGraphRing::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbGraphRing")
                            .SetParent<TalbGraphAlgorithm>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbGraphRing>();
    return tid;
}

TalbGraphRing::TalbGraphRing()
{
    NS_LOG_FUNCTION(this);
}

TalbGraphRing::~TalbGraphRing()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbGraphRing::DoSupports(CollType type) const
{
    return type == CollType::kReduceScatter || type == CollType::kAllGather ||
           type == CollType::kAllReduce;
}

void
TalbGraphRing::DoPlan(const TalbCollRequest& r, TalbCollPlan* plan) const
{
    const uint32_t n = r.members;
    const bool reduceScatter = r.type != CollType::kAllGather;
    const bool allGather = r.type != CollType::kReduceScatter;
    for (uint32_t i = 0; i < n; ++i)
    {
        TalbCollMemberPlan& member = (*plan)[i];
        uint32_t step = 0;
        if (reduceScatter)
        {
            for (uint32_t k = 0; k + 1 < n; ++k, ++step)
            {
                uint32_t chunk = (i + n - k) % n;
                member.sends.push_back({(i + 1) % n, TalbPieceBytes(r.bytes, chunk, n), step});
            }
        }
        if (allGather)
        {
            for (uint32_t k = 0; k + 1 < n; ++k, ++step)
            {
                uint32_t chunk = (i + 1 + n - k) % n;
                member.sends.push_back({(i + 1) % n, TalbPieceBytes(r.bytes, chunk, n), step});
            }
        }
        member.receives = step;
    }
}

} // namespace ns3
