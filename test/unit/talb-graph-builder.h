// Small execution graphs written by hand, for the executor's and the ideal replay's tests.
#ifndef TALB_GRAPH_BUILDER_H
#define TALB_GRAPH_BUILDER_H

#include "ns3/talb-exec-graph.h"

#include <string>
#include <vector>

namespace talb
{
namespace graph
{
namespace test
{

/// Appends nodes to a Graph of a fixed number of ranks; each call returns the node's index.
class Builder
{
  public:
    explicit Builder(uint32_t ranks)
    {
        g.nRanks = ranks;
        g.ranks.resize(ranks);
    }

    uint32_t Group(const std::string& name, const std::vector<uint32_t>& ranks)
    {
        g.groups.push_back({name, CommClass::kOther, ranks});
        return static_cast<uint32_t>(g.groups.size() - 1);
    }

    uint32_t Compute(uint32_t rank, uint64_t ns, const std::vector<uint32_t>& deps = {})
    {
        Node n;
        n.durationNs = ns;
        return Add(rank, n, deps);
    }

    uint32_t Coll(uint32_t rank,
                  uint32_t group,
                  CollType type,
                  uint64_t bytes,
                  const std::vector<uint32_t>& deps = {},
                  uint32_t root = kNoRoot,
                  uint32_t split = Node::kNone)
    {
        Node n;
        n.kind = NodeKind::kCollective;
        n.coll = type;
        n.group = group;
        n.bytes = bytes;
        n.root = root;
        n.peerBytes = split;
        return Add(rank, n, deps);
    }

    uint32_t AllReduce(uint32_t rank,
                       uint32_t group,
                       uint64_t bytes,
                       const std::vector<uint32_t>& deps = {})
    {
        return Coll(rank, group, CollType::kAllReduce, bytes, deps);
    }

    uint32_t Send(uint32_t rank,
                  uint32_t peer,
                  uint64_t bytes,
                  uint32_t tag,
                  const std::vector<uint32_t>& deps = {})
    {
        return P2p(NodeKind::kSend, rank, peer, bytes, tag, deps);
    }

    uint32_t Recv(uint32_t rank,
                  uint32_t peer,
                  uint64_t bytes,
                  uint32_t tag,
                  const std::vector<uint32_t>& deps = {})
    {
        return P2p(NodeKind::kRecv, rank, peer, bytes, tag, deps);
    }

    /// Sets the iteration of rank \p rank's nodes from \p first on.
    void Iteration(uint32_t rank, uint32_t first, uint32_t iteration)
    {
        for (std::size_t i = first; i < g.ranks[rank].size(); ++i)
        {
            g.ranks[rank][i].iteration = iteration;
        }
    }

    Graph g;

  private:
    uint32_t P2p(NodeKind kind,
                 uint32_t rank,
                 uint32_t peer,
                 uint64_t bytes,
                 uint32_t tag,
                 const std::vector<uint32_t>& deps)
    {
        Node n;
        n.kind = kind;
        n.peer = peer;
        n.bytes = bytes;
        n.tag = tag;
        return Add(rank, n, deps);
    }

    uint32_t Add(uint32_t rank, Node n, const std::vector<uint32_t>& deps)
    {
        n.deps = deps;
        g.ranks[rank].push_back(std::move(n));
        return static_cast<uint32_t>(g.ranks[rank].size() - 1);
    }
};

} // namespace test
} // namespace graph
} // namespace talb

#endif /* TALB_GRAPH_BUILDER_H */
