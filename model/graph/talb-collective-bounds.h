#ifndef TALB_COLLECTIVE_BOUNDS_H
#define TALB_COLLECTIVE_BOUNDS_H

#include "talb-exec-graph.h"

#include <cstdint>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The analytic lower bound of one collective (or message) on an idle non-blocking fabric, for
 * the algorithms the simulator implements, as plain C++: the ideal replay (IdealReplay) and the
 * ns-3 job engine's collective-level output share it.
 *
 * The fabric: every GPU (rank) has one NIC of rate nicBps towards the fabric and one link of
 * rate intraBps into its server's interconnect (NVLink-class), each full duplex; the fabric and
 * the interconnect never congest. Rank i of a group sits on server servers[i]. The time of a
 * transfer of b bytes at rate R is 8 b / R; a message between two GPUs of one server arrives
 * intraLatencyNs after its last byte left (the NVLink port's Latency). Not counted: headers,
 * the fabric's latency, reduction arithmetic, so a simulated collective can never be faster
 * (up to its headers and the fabric's latency).
 *
 * With S = bytes (Node's byte conventions), N = the group's size:
 *
 * =================================  ======================================================
 * Collective (algorithm)             Bound
 * =================================  ======================================================
 * all-reduce (ring)                  2 (N-1)/N x S / B_ring
 * reduce-scatter, all-gather (ring)  (N-1)/N x S / B_ring
 * broadcast, reduce (pipelined ring) S / B_chain
 * gather, scatter (direct)           max((N-1 - n_root) S/N / nic, n_root S/N / intra),
 *                                    n_root = other members on the root's server
 * all-to-all (direct)                max over members of max(fabric bytes sent, fabric
 *                                    bytes received) / nic and max(server-local bytes
 *                                    sent, received) / intra (self excluded)
 * send / recv                        S / intra on one server, S / nic across servers
 * barrier; any group of one rank     0
 * =================================  ======================================================
 *
 * The intra-server latency L (intraLatencyNs, 0: none) adds to the bounds above as the
 * algorithms pay it: a ring step waits for its slowest edge, an intra-server edge taking its
 * chunk's time plus L, so a ring collective of k steps of S/N bytes is bounded by k x the
 * slowest edge's (S/N / B_e + L_e) (k = 2(N-1) for all-reduce, N-1 for reduce-scatter and
 * all-gather); the pipelined chain adds L once per intra-server edge of the chain (its last
 * byte crosses every edge); a direct algorithm or a message that moves bytes inside a server
 * adds L to its intra-server time. With L = 0 every bound is the table's.
 *
 * Rates of mixed groups (some members share a server, some do not):
 * - ring algorithms go round the group in its order (member i sends to member i+1 mod N) and
 *   every step waits for the slowest edge, so B_ring is the slowest ring edge: the intra rate
 *   for an edge inside a server, the NIC rate for one that crosses servers. A group spanning
 *   servers has at least one crossing edge, so B_ring is the NIC rate whenever the NIC is the
 *   slower link (a flat ring: no hierarchical algorithm is assumed). The pipelined broadcast
 *   (reduce) runs the chain root, root+1, ..., root-1 (the reverse chain, ending at the
 *   root): B_chain is its slowest edge, the ring minus the edge into (out of) the root.
 * - direct algorithms (gather, scatter, all-to-all, send/recv) move each piece over the link
 *   it needs, and a GPU's NIC and intra-server link work in parallel: the bound is the busier
 *   of the two, per rank.
 */

namespace talb
{
namespace graph
{

/// The links a bound assumes: rates in bit/s (both > 0) and the intra-server latency.
struct LinkRates
{
    double nicBps{0};         //!< one GPU's NIC towards the fabric
    double intraBps{0};       //!< one GPU's link into its server's interconnect (NVLink-class)
    double intraLatencyNs{0}; //!< a message inside a server arrives this long after its last byte
};

/**
 * \return the bound (ns) of a collective other than all-to-all (for all-to-all it is that of an
 * even split of \p bytes by every member: use AllToAllBoundNs for uneven ones)
 * \param type the collective
 * \param bytes S, as Node::bytes counts it
 * \param servers the server of each group member, in group order (N = its size, >= 1)
 * \param root the root's position in the group (rooted collectives, < N; ignored otherwise)
 * \param rates the link rates
 */
double CollectiveBoundNs(CollType type,
                         uint64_t bytes,
                         const std::vector<uint32_t>& servers,
                         uint32_t root,
                         const LinkRates& rates);

/**
 * \return the bound (ns) of an all-to-all whose member i sends sent[i * N + j] bytes to member
 * j (row-major N x N, the diagonal being what a member keeps: not moved)
 * \param sent the byte matrix (N x N entries)
 * \param servers the server of each member, in group order (N = its size, >= 1)
 * \param rates the link rates
 */
double AllToAllBoundNs(const std::vector<double>& sent,
                       const std::vector<uint32_t>& servers,
                       const LinkRates& rates);

/// \return the bound (ns) of a message of \p bytes from server \p fromServer to \p toServer
double SendRecvBoundNs(uint64_t bytes,
                       uint32_t fromServer,
                       uint32_t toServer,
                       const LinkRates& rates);

/**
 * \return the bound (ns) of one collective instance of \p graph: group \p group, whose member
 * i runs node \p nodes[i] of rank group.ranks[i] (all of one type, bytes and root; an
 * all-to-all's members each send their node's bytes, split as Graph::peerBytes says)
 * \param graph the graph (validated)
 * \param group the group's index
 * \param nodes one node per member, in group order
 * \param servers the server of each member, in group order
 * \param rates the link rates
 * \param scratch reused for an all-to-all's byte matrix (nullptr: a temporary)
 */
double InstanceBoundNs(const Graph& graph,
                       uint32_t group,
                       const std::vector<uint32_t>& nodes,
                       const std::vector<uint32_t>& servers,
                       const LinkRates& rates,
                       std::vector<double>* scratch = nullptr);

} // namespace graph
} // namespace talb

#endif /* TALB_COLLECTIVE_BOUNDS_H */
