#ifndef TALB_CHAKRA_GRAPH_H
#define TALB_CHAKRA_GRAPH_H

#include "talb-chakra-comm-groups.h"
#include "talb-chakra-trace.h"
#include "talb-exec-graph.h"

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * A Chakra execution trace (one file per rank: PREFIX.0.et, PREFIX.1.et, ..., or .et.gz) turned
 * into talb's execution graph, as ASTRA-sim's feeder replays it: each rank issues a node once its
 * data dependencies completed (and its control dependencies, where ChakraRun::waitForCtrlDeps).
 *
 * What each node becomes:
 *  - COMP_NODE: compute for duration_micros on the rank's GPU stream, or its host stream when
 *    is_cpu_op is true;
 *  - MEM_LOAD_NODE, MEM_STORE_NODE: timed the same way (a memory step of duration_micros on the
 *    compute stream; 0 takes no time), as ASTRA-sim's replay mode times them;
 *  - METADATA_NODE: nothing; its dependents wait for what it waited for;
 *  - COMM_COLL_NODE: a collective (comm_type, comm_size) on the group pg_name names in the
 *    communicator-group file, or on all ranks without pg_name; one without comm_type that is a
 *    CPU operation (is_cpu_op) is the host call that launches a collective kernel, as older
 *    PyTorch converters wrote it: host compute of duration_micros;
 *  - COMM_SEND_NODE / COMM_RECV_NODE: a message of comm_size bytes to comm_dst / from comm_src,
 *    matched by comm_tag (0 when absent) in issue order.
 *
 * Sizes: comm_size as ASTRA-sim reads it; ALL_GATHER's and GATHER's is each rank's part, so
 * Node::bytes (the output buffer, talb's convention) is comm_size x the group's ranks; the others'
 * is Node::bytes. REDUCE_SCATTER_BLOCK is REDUCE_SCATTER; BARRIER moves nothing (its comm_size is
 * not used). Roots: comm_src of BROADCAST and SCATTER, comm_dst of REDUCE and GATHER (a global
 * rank in the group), else the group's first rank.
 *
 * A rank's collectives on one group are issued in one order, the rank's topological order of its
 * nodes (the file's order where dependencies allow): each depends on the rank's previous one on
 * the group (NCCL runs a communicator's operations in order), and the k-th of every member must
 * agree in type, bytes (all-to-all excepted) and root. Sends (and receives) of one sender,
 * receiver and tag are ordered the same way, the k-th send matching the k-th receive in bytes.
 * Priorities: comm_priority where given,
 * else the LLM rule of CommClass kOther. Tensor ids: one per collective instance (group, k) and
 * per message, numbered in the order of the groups' first use and of the (sender, receiver, tag)
 * channels, the same in every iteration. Node::layer is 0; labels are the nodes' names.
 */

namespace talb
{
namespace graph
{

/// Every rank's file of a trace.
struct ChakraTrace
{
    std::vector<ChakraRankTrace> ranks; //!< ranks[r]: rank r's file
    std::vector<std::string> files;     //!< files[r]: its path (messages)
};

/**
 * Read PREFIX.R.et (or PREFIX.R.et.gz) for R = 0, 1, ... while they exist.
 * \param maxRanks the most ranks read (a larger trace is refused before reading more)
 * \param error set to "PREFIX: what is wrong" (no rank 0 file, a gap in the ranks, a rank with
 *        both files, more than maxRanks) or to the first file's ReadChakraRank() message
 * \return false on error (\p trace then empty)
 */
bool ReadChakraTrace(const std::string& prefix,
                     uint32_t maxRanks,
                     ChakraTrace* trace,
                     std::string* error);

/// How BuildChakraGraph() runs a trace.
struct ChakraRun
{
    /// Passes over the trace; each starts on a rank when the rank finished the one before.
    uint32_t iterations{1};
    /**
     * Whether a node also waits for its ctrl_deps. Off by default, as Chakra's feeder (and so
     * ASTRA-sim) reads only data_deps: Chakra's PyTorch converter writes into ctrl_deps the
     * operator that called the node, which encloses it rather than preceding it (and may have
     * been left out of the file). On: ctrl_deps order nodes like data_deps, and one that the
     * file does not have is an error.
     */
    bool waitForCtrlDeps{false};
};

/**
 * Build the execution graph of \p trace (see the file comment).
 * \param groups the communicator-group file, or nullptr when none was given
 * \param where how messages name the trace as a whole (its prefix)
 * \param error set to "FILE:rank R:node ID: what is wrong" for one node (a dependency the file
 *        does not have or the node itself, a cycle, a node id twice, a missing attribute, a
 *        rank out of range or not in the group, a pg_name without a group, sizes past 64 bits,
 *        a collective its group's other members issue differently), "FILE:rank R: ..." for a
 *        rank, "GROUPS: ..." for the group file, or "WHERE: ..." for the whole
 * \return false on error (\p graph then empty); a graph built satisfies Validate()
 */
bool BuildChakraGraph(const ChakraTrace& trace,
                      const ChakraCommGroups* groups,
                      const std::string& groupsWhere,
                      const ChakraRun& run,
                      const std::string& where,
                      Graph* graph,
                      std::string* error);

} // namespace graph
} // namespace talb

#endif /* TALB_CHAKRA_GRAPH_H */
