#include "talb-collective-bounds.h"

#include <algorithm>

namespace talb
{
namespace graph
{

namespace
{

/// \return the time (ns) of \p bytes at \p bps
double
TransferNs(double bytes, double bps)
{
    return bytes * 8.0 * 1e9 / bps;
}

/// \return the rate of the link from a GPU on server \p a to one on server \p b
double
EdgeBps(uint32_t a, uint32_t b, const LinkRates& rates)
{
    return a == b ? rates.intraBps : rates.nicBps;
}

/**
 * \return the slowest of the ring edges i -> i+1 (mod N) for i = first, ..., first + count - 1:
 * the whole ring (first 0, count N) or the pipelined chain of a rooted collective
 */
double
SlowestEdgeBps(const std::vector<uint32_t>& servers,
               std::size_t first,
               std::size_t count,
               const LinkRates& rates)
{
    const std::size_t n = servers.size();
    double slowest = std::max(rates.nicBps, rates.intraBps);
    for (std::size_t k = 0; k < count; ++k)
    {
        std::size_t i = (first + k) % n;
        slowest = std::min(slowest, EdgeBps(servers[i], servers[(i + 1) % n], rates));
    }
    return slowest;
}

/**
 * \return the latency-aware time of \p steps ring steps of \p chunk bytes each over the ring
 * edges i -> i+1 (mod N), i = first, ..., first + count - 1: every step waits for the slowest
 * edge, an intra-server one taking its chunk plus the intra-server latency
 * \param noLatencyNs the same steps without latency (what the caller computed at the slowest
 *        edge): returned unchanged when the latency is 0, so latency-free bounds stay exact
 */
double
RingStepsNs(double noLatencyNs,
            double steps,
            double chunk,
            const std::vector<uint32_t>& servers,
            std::size_t first,
            std::size_t count,
            const LinkRates& rates)
{
    const std::size_t n = servers.size();
    bool intraEdge = false;
    for (std::size_t k = 0; k < count && !intraEdge; ++k)
    {
        std::size_t i = (first + k) % n;
        intraEdge = servers[i] == servers[(i + 1) % n];
    }
    if (!(rates.intraLatencyNs > 0) || !intraEdge)
    {
        return noLatencyNs;
    }
    return std::max(noLatencyNs,
                    steps * (TransferNs(chunk, rates.intraBps) + rates.intraLatencyNs));
}

/// \return the intra-server latency times the intra-server edges of the chain (see RingStepsNs)
double
ChainLatencyNs(const std::vector<uint32_t>& servers,
               std::size_t first,
               std::size_t count,
               const LinkRates& rates)
{
    const std::size_t n = servers.size();
    double total = 0;
    for (std::size_t k = 0; k < count; ++k)
    {
        std::size_t i = (first + k) % n;
        total += servers[i] == servers[(i + 1) % n] ? rates.intraLatencyNs : 0;
    }
    return total;
}

/// \return \p intraNs plus the intra-server latency when bytes move inside a server
double
WithIntraLatency(double intraNs, double intraBytes, const LinkRates& rates)
{
    return intraBytes > 0 ? intraNs + rates.intraLatencyNs : intraNs;
}

} // namespace

double
CollectiveBoundNs(CollType type,
                  uint64_t bytes,
                  const std::vector<uint32_t>& servers,
                  uint32_t root,
                  const LinkRates& rates)
{
    const std::size_t n = servers.size();
    if (n <= 1 || bytes == 0)
    {
        return 0;
    }
    const double s = static_cast<double>(bytes);
    const double share = double(n - 1) / double(n); // of S, that each rank sends or receives
    switch (type)
    {
    case CollType::kAllReduce:
        return RingStepsNs(2 * share * TransferNs(s, SlowestEdgeBps(servers, 0, n, rates)),
                           2.0 * double(n - 1),
                           s / double(n),
                           servers,
                           0,
                           n,
                           rates);
    case CollType::kReduceScatter:
    case CollType::kAllGather:
        return RingStepsNs(share * TransferNs(s, SlowestEdgeBps(servers, 0, n, rates)),
                           double(n - 1),
                           s / double(n),
                           servers,
                           0,
                           n,
                           rates);
    case CollType::kBroadcast: // root -> root+1 -> ... -> root-1
        return TransferNs(s, SlowestEdgeBps(servers, root, n - 1, rates)) +
               ChainLatencyNs(servers, root, n - 1, rates);
    case CollType::kReduce: // root+1 -> ... -> root-1 -> root
        return TransferNs(s, SlowestEdgeBps(servers, root + 1, n - 1, rates)) +
               ChainLatencyNs(servers, root + 1, n - 1, rates);
    case CollType::kGather:
    case CollType::kScatter: {
        std::size_t local = 0; // other members on the root's server
        for (std::size_t i = 0; i < n; ++i)
        {
            local += i != root && servers[i] == servers[root];
        }
        const double piece = s / double(n);
        const double intraBytes = double(local) * piece;
        return std::max(
            TransferNs(double(n - 1 - local) * piece, rates.nicBps),
            WithIntraLatency(TransferNs(intraBytes, rates.intraBps), intraBytes, rates));
    }
    case CollType::kAllToAll: {
        std::vector<double> sent(n * n, s / double(n));
        return AllToAllBoundNs(sent, servers, rates);
    }
    case CollType::kBarrier:
        return 0;
    }
    return 0;
}

double
AllToAllBoundNs(const std::vector<double>& sent,
                const std::vector<uint32_t>& servers,
                const LinkRates& rates)
{
    const std::size_t n = servers.size();
    double busiestNic = 0;   // bytes through the busiest NIC direction
    double busiestIntra = 0; // and the busiest intra-server link direction
    for (std::size_t i = 0; i < n; ++i)
    {
        double nicOut = 0;
        double nicIn = 0;
        double intraOut = 0;
        double intraIn = 0;
        for (std::size_t j = 0; j < n; ++j)
        {
            if (j == i)
            {
                continue;
            }
            const bool local = servers[i] == servers[j];
            (local ? intraOut : nicOut) += sent[i * n + j];
            (local ? intraIn : nicIn) += sent[j * n + i];
        }
        busiestNic = std::max({busiestNic, nicOut, nicIn});
        busiestIntra = std::max({busiestIntra, intraOut, intraIn});
    }
    return std::max(
        TransferNs(busiestNic, rates.nicBps),
        WithIntraLatency(TransferNs(busiestIntra, rates.intraBps), busiestIntra, rates));
}

double
SendRecvBoundNs(uint64_t bytes, uint32_t fromServer, uint32_t toServer, const LinkRates& rates)
{
    const double ns = TransferNs(static_cast<double>(bytes), EdgeBps(fromServer, toServer, rates));
    return fromServer == toServer ? WithIntraLatency(ns, double(bytes), rates) : ns;
}

double
InstanceBoundNs(const Graph& graph,
                uint32_t group,
                const std::vector<uint32_t>& nodes,
                const std::vector<uint32_t>& servers,
                const LinkRates& rates,
                std::vector<double>* scratch)
{
    const auto& ranks = graph.groups[group].ranks;
    const Node& first = graph.ranks[ranks[0]][nodes[0]];
    if (first.coll != CollType::kAllToAll)
    {
        return CollectiveBoundNs(first.coll, first.bytes, servers, first.root, rates);
    }
    std::vector<double> local;
    std::vector<double>& sent = scratch ? *scratch : local;
    const std::size_t n = ranks.size();
    sent.assign(n * n, 0);
    for (std::size_t i = 0; i < n; ++i)
    {
        const Node& node = graph.ranks[ranks[i]][nodes[i]];
        for (std::size_t j = 0; j < n; ++j)
        {
            sent[i * n + j] = node.peerBytes == Node::kNone
                                  ? double(node.bytes) / double(n)
                                  : double(graph.peerBytes[node.peerBytes][j]);
        }
    }
    return AllToAllBoundNs(sent, servers, rates);
}

} // namespace graph
} // namespace talb
