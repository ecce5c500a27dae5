#include "talb-collective-bench.h"

namespace talb
{
namespace graph
{

namespace
{
constexpr uint8_t kTypes = static_cast<uint8_t>(CollType::kBarrier) + 1;
constexpr const char* kSendRecv = "send_recv";
} // namespace

std::string
CollectiveBenchTypeNames()
{
    std::string names;
    for (uint8_t t = 0; t < kTypes; ++t)
    {
        names += std::string(CollTypeName(static_cast<CollType>(t))) + ",";
    }
    return names + kSendRecv;
}

bool
CollectiveBenchTypeFromName(const std::string& name, CollectiveBench* bench, std::string* error)
{
    if (name == kSendRecv)
    {
        bench->sendRecv = true;
        return true;
    }
    for (uint8_t t = 0; t < kTypes; ++t)
    {
        if (name == CollTypeName(static_cast<CollType>(t)))
        {
            bench->sendRecv = false;
            bench->type = static_cast<CollType>(t);
            return true;
        }
    }
    *error = "unknown collective '" + name + "' (valid: " + CollectiveBenchTypeNames() + ")";
    return false;
}

bool
BuildCollectiveBenchGraph(const CollectiveBench& bench, Graph* graph, std::string* error)
{
    const uint32_t n = bench.ranks;
    if (n < 2)
    {
        *error = "field 'ranks' (" + std::to_string(n) + ") must be at least 2";
        return false;
    }
    if (bench.iterations == 0)
    {
        *error = "field 'iterations' must be at least 1";
        return false;
    }
    const bool rooted =
        !bench.sendRecv && (bench.type == CollType::kBroadcast || bench.type == CollType::kReduce ||
                            bench.type == CollType::kGather || bench.type == CollType::kScatter);
    if (rooted && bench.root >= n)
    {
        *error = "field 'root' (" + std::to_string(bench.root) + ") must be below the ranks (" +
                 std::to_string(n) + ")";
        return false;
    }
    if (!bench.sendRecv && bench.type == CollType::kBarrier && bench.bytes != 0)
    {
        *error = "field 'bytes' must be 0 for a barrier";
        return false;
    }
    Graph g;
    g.nRanks = n;
    g.iterations = bench.iterations;
    g.ranks.resize(n);
    Group all;
    all.name = "all";
    all.cls = CommClass::kTensor;
    for (uint32_t r = 0; r < n; ++r)
    {
        all.ranks.push_back(r);
    }
    g.groups.push_back(all);
    const uint32_t label = g.Label(bench.sendRecv ? kSendRecv : CollTypeName(bench.type));
    for (uint32_t r = 0; r < n; ++r)
    {
        std::vector<Node>& nodes = g.ranks[r];
        for (uint32_t it = 0; it < bench.iterations; ++it)
        {
            std::vector<uint32_t> previous;
            for (uint32_t i = 0; i < nodes.size(); ++i)
            {
                if (nodes[i].iteration + 1 == it)
                {
                    previous.push_back(i);
                }
            }
            Node node;
            node.cls = CommClass::kTensor;
            node.label = label;
            node.iteration = it;
            node.bytes = bench.bytes;
            node.deps = previous;
            if (bench.sendRecv)
            {
                node.kind = NodeKind::kSend;
                node.peer = (r + 1) % n;
                nodes.push_back(node);
                node.kind = NodeKind::kRecv;
                node.peer = (r + n - 1) % n;
                nodes.push_back(node);
            }
            else
            {
                node.kind = NodeKind::kCollective;
                node.coll = bench.type;
                node.group = 0;
                node.root = rooted ? bench.root : kNoRoot;
                nodes.push_back(node);
            }
        }
    }
    *graph = std::move(g);
    return true;
}

} // namespace graph
} // namespace talb
