#include "talb-graph-algorithm.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphAlgorithm");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphAlgorithm);

TypeId
TalbGraphAlgorithm::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbGraphAlgorithm").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbRegistry&
TalbGraphAlgorithm::GetRegistry()
{
    static TalbRegistry registry("graph collective algorithm", GetTypeId());
    return registry;
}

TalbGraphAlgorithm::TalbGraphAlgorithm()
{
    NS_LOG_FUNCTION(this);
}

TalbGraphAlgorithm::~TalbGraphAlgorithm()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbGraphAlgorithm::Supports(talb::graph::CollType type) const
{
    return DoSupports(type);
}

TalbCollPlan
TalbGraphAlgorithm::Plan(const TalbCollRequest& request) const
{
    const uint32_t n = request.members;
    NS_ABORT_MSG_IF(n == 0, "TalbGraphAlgorithm: a collective of no members");
    NS_ABORT_MSG_UNLESS(Supports(request.type),
                        GetInstanceTypeId().GetName()
                            << " does not run " << talb::graph::CollTypeName(request.type));
    NS_ABORT_MSG_IF(request.root >= n, "TalbGraphAlgorithm: root outside the group");
    TalbCollPlan plan(n);
    if (n == 1)
    {
        return plan;
    }
    DoPlan(request, &plan);
    NS_ABORT_MSG_IF(plan.size() != n, "TalbGraphAlgorithm: one member plan per member");
    // Every send reaches another member, in issue order; each member expects what it is sent.
    std::vector<uint32_t> addressed(n, 0);
    for (uint32_t m = 0; m < n; ++m)
    {
        uint32_t after = 0;
        for (const TalbCollSend& s : plan[m].sends)
        {
            NS_ABORT_MSG_IF(s.to >= n || s.to == m,
                            "TalbGraphAlgorithm: member " << m << " sends to " << s.to);
            NS_ABORT_MSG_IF(s.after < after, "TalbGraphAlgorithm: sends out of order");
            after = s.after;
            ++addressed[s.to];
        }
    }
    for (uint32_t m = 0; m < n; ++m)
    {
        NS_ABORT_MSG_IF(addressed[m] != plan[m].receives,
                        "TalbGraphAlgorithm: member " << m << " expects " << plan[m].receives
                                                      << " messages but is sent " << addressed[m]);
    }
    return plan;
}

uint64_t
TalbPieceBytes(uint64_t bytes, uint64_t k, uint64_t n)
{
    // 128-bit products: bytes x n may exceed 64 bits for large buffers.
    auto at = [bytes, n](uint64_t i) {
        return static_cast<uint64_t>(static_cast<unsigned __int128>(bytes) * i / n);
    };
    return at(k + 1) - at(k);
}

} // namespace ns3
