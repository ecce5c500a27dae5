#include "talb-graph-direct.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphDirect");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphDirect);
TALB_REGISTER_PLUGIN(TalbGraphAlgorithm, TalbGraphDirect, "direct");

using talb::graph::CollType;

TypeId
TalbGraphDirect::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbGraphDirect")
                            .SetParent<TalbGraphAlgorithm>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbGraphDirect>();
    return tid;
}

TalbGraphDirect::TalbGraphDirect()
{
    NS_LOG_FUNCTION(this);
}

TalbGraphDirect::~TalbGraphDirect()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbGraphDirect::DoSupports(CollType type) const
{
    return type == CollType::kAllToAll || type == CollType::kGather || type == CollType::kScatter ||
           type == CollType::kBroadcast || type == CollType::kReduce || type == CollType::kBarrier;
}

void
TalbGraphDirect::DoPlan(const TalbCollRequest& r, TalbCollPlan* plan) const
{
    const uint32_t n = r.members;
    const uint32_t root = r.root;
    for (uint32_t i = 0; i < n; ++i)
    {
        TalbCollMemberPlan& member = (*plan)[i];
        const bool isRoot = i == root;
        switch (r.type)
        {
        case CollType::kAllToAll:
            NS_ABORT_MSG_IF(!r.sent.empty() && r.sent.size() != uint64_t(n) * n,
                            "TalbGraphDirect: an all-to-all split of the wrong size");
            // Step k sends to i + k and receives from i - k: each step is a permutation.
            for (uint32_t k = 1; k < n; ++k)
            {
                uint32_t j = (i + k) % n;
                uint64_t bytes =
                    r.sent.empty() ? TalbPieceBytes(r.bytes, j, n) : r.sent[uint64_t(i) * n + j];
                member.sends.push_back({j, bytes, k - 1});
            }
            member.receives = n - 1;
            break;
        case CollType::kGather:
            // The root clears one sender at a time (root + 1, root + 2, ...), the next once the
            // previous piece is in: its NIC receives one piece at a time, at line rate.
            if (isRoot)
            {
                member.receives = n - 1;
                for (uint32_t k = 1; k < n; ++k)
                {
                    member.sends.push_back({(root + k) % n, 0, k - 1});
                }
            }
            else
            {
                member.sends.push_back({root, TalbPieceBytes(r.bytes, i, n), 1});
                member.receives = 1;
            }
            break;
        case CollType::kReduce:
            if (isRoot)
            {
                member.receives = n - 1;
            }
            else
            {
                member.sends.push_back({root, r.bytes, 0});
            }
            break;
        case CollType::kScatter:
        case CollType::kBroadcast:
            if (isRoot)
            {
                for (uint32_t j = 0; j < n; ++j)
                {
                    if (j != root)
                    {
                        uint64_t bytes =
                            r.type == CollType::kScatter ? TalbPieceBytes(r.bytes, j, n) : r.bytes;
                        member.sends.push_back({j, bytes, 0});
                    }
                }
            }
            else
            {
                member.receives = 1;
            }
            break;
        case CollType::kBarrier:
            if (isRoot)
            {
                member.receives = n - 1;
                for (uint32_t j = 0; j < n; ++j)
                {
                    if (j != root)
                    {
                        member.sends.push_back({j, 0, n - 1});
                    }
                }
            }
            else
            {
                member.sends.push_back({root, 0, 0});
                member.receives = 1;
            }
            break;
        default:
            NS_ABORT_MSG("TalbGraphDirect: unsupported type");
        }
    }
}

} // namespace ns3
