#include "talb-graph-pipeline.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbGraphPipeline");
NS_OBJECT_ENSURE_REGISTERED(TalbGraphPipeline);
TALB_REGISTER_PLUGIN(TalbGraphAlgorithm, TalbGraphPipeline, "pipeline");

using talb::graph::CollType;

TypeId
TalbGraphPipeline::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbGraphPipeline")
            .SetParent<TalbGraphAlgorithm>()
            .SetGroupName("Talb")
            .AddConstructor<TalbGraphPipeline>()
            .AddAttribute("ChunksPerHop",
                          "Chunks per chain edge: C = ChunksPerHop x (N-1) chunks, so filling "
                          "the pipeline costs at most 1 / ChunksPerHop over S / B",
                          UintegerValue(128),
                          MakeUintegerAccessor(&TalbGraphPipeline::m_chunksPerHop),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("MinChunkBytes",
                          "Smallest chunk: fewer chunks for small buffers (each message costs "
                          "a frame header and an event per hop)",
                          UintegerValue(4096),
                          MakeUintegerAccessor(&TalbGraphPipeline::m_minChunkBytes),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

TalbGraphPipeline::TalbGraphPipeline()
    : m_chunksPerHop(128),
      m_minChunkBytes(4096)
{
    NS_LOG_FUNCTION(this);
}

TalbGraphPipeline::~TalbGraphPipeline()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbGraphPipeline::DoSupports(CollType type) const
{
    return type == CollType::kBroadcast || type == CollType::kReduce;
}

uint32_t
TalbGraphPipeline::GetChunks(uint64_t bytes, uint32_t members) const
{
    if (members <= 2)
    {
        return 1;
    }
    uint64_t wanted = uint64_t(m_chunksPerHop) * (members - 1);
    uint64_t fit = std::max<uint64_t>(1, bytes / m_minChunkBytes);
    return static_cast<uint32_t>(std::min(wanted, fit));
}

void
TalbGraphPipeline::DoPlan(const TalbCollRequest& r, TalbCollPlan* plan) const
{
    const uint32_t n = r.members;
    const uint32_t chunks = GetChunks(r.bytes, n);
    // Chain position p is member (head + p) mod n; a broadcast starts at the root, a reduce
    // ends there.
    const uint32_t head = r.type == CollType::kBroadcast ? r.root : (r.root + 1) % n;
    for (uint32_t p = 0; p < n; ++p)
    {
        TalbCollMemberPlan& member = (*plan)[(head + p) % n];
        member.receives = p == 0 ? 0 : chunks;
        if (p + 1 == n)
        {
            continue;
        }
        for (uint32_t c = 0; c < chunks; ++c)
        {
            member.sends.push_back(
                {(head + p + 1) % n, TalbPieceBytes(r.bytes, c, chunks), p == 0 ? 0 : c + 1});
        }
    }
}

} // namespace ns3
