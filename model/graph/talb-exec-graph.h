#ifndef TALB_EXEC_GRAPH_H
#define TALB_EXEC_GRAPH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The execution graph of a training job: per rank, compute and communication operations with
 * their dependencies, as plain data (no ns-3 types) so that generators (data-parallel CNN
 * jobs, the LLM workload generator) and trace readers (Chakra ET, AICB) produce it, tests
 * check it without a simulation, and one engine runs it (TalbGraphJob).
 */

namespace talb
{
namespace graph
{

/// What a node does on its rank.
enum class NodeKind : uint8_t
{
    kCompute,    ///< occupies one of the rank's compute streams (Node::host) for durationNs
    kMemory,     ///< a memory load or store: durationNs on a compute stream (0: none)
    kCollective, ///< this rank's part of a collective on a communicator group
    kSend,       ///< sends bytes to rank peer (matched with the peer's kRecv by tag)
    kRecv,       ///< receives bytes from rank peer (matched with the peer's kSend by tag)
};

/// The collective a kCollective node runs (NCCL's and Chakra's set).
enum class CollType : uint8_t
{
    kAllReduce,
    kReduceScatter,
    kAllGather,
    kAllToAll,
    kBroadcast,
    kReduce,
    kGather,
    kScatter,
    kBarrier,
};

/**
 * Which parallelism a communication serves. It labels the outputs and decides the default
 * priority (talb_llm_priority() in talb-wire.h): collectives that block compute (tensor,
 * expert, pipeline) before overlappable data-parallel gradient synchronisation.
 */
enum class CommClass : uint8_t
{
    kTensor,   ///< tensor (and sequence) parallelism: blocks the layer's compute
    kExpert,   ///< expert parallelism (MoE all-to-all): blocks the layer's compute
    kPipeline, ///< pipeline activations and their gradients between stages
    kData,     ///< data-parallel gradient or parameter synchronisation (overlappable)
    kOther,    ///< anything else (a trace's unnamed groups)
};

/// A node's priority left to the rule of its class (Node::priority).
constexpr int8_t kPriorityByRule = -1;
/// No root (Node::root of collectives without one).
constexpr uint32_t kNoRoot = UINT32_MAX;

/**
 * One operation of one rank.
 *
 * Byte conventions (Node::bytes), as NCCL counts a collective's buffer, so that the analytic
 * bounds read alike for every producer: kAllReduce, kBroadcast, kReduce: the buffer each rank
 * holds (S); kReduceScatter: the input buffer S (each rank ends with S / N); kAllGather: the
 * output buffer S (each rank contributes S / N); kGather / kScatter: the root's whole buffer S
 * (S / N per rank); kAllToAll: the bytes this rank sends in all, to itself included, split by
 * destination as Graph::peerBytes[peerBytes] says (even split when peerBytes is kNone);
 * kSend / kRecv: the message; kBarrier: 0.
 */
struct Node
{
    static constexpr uint32_t kNone = UINT32_MAX;

    NodeKind kind{NodeKind::kCompute};
    CollType coll{CollType::kAllReduce}; //!< kCollective only
    CommClass cls{CommClass::kOther};    //!< communication nodes
    int8_t priority{kPriorityByRule};    //!< 0 (most urgent) .. 7, or kPriorityByRule
    uint32_t group{kNone};               //!< kCollective: index into Graph::groups
    uint32_t peer{kNone};                //!< kSend / kRecv: the other rank
    uint32_t root{kNoRoot};              //!< rooted collectives: the root's position in the group
    uint32_t tag{0};                     //!< kSend / kRecv: matching tag
    uint32_t peerBytes{kNone};           //!< kAllToAll: index into Graph::peerBytes, or kNone
    uint32_t label{kNone};               //!< index into Graph::labels (the operation's name)
    uint32_t layer{0};      //!< model layer (priority rule of kData; outputs), 0 = input side
    uint32_t tensor{0};     //!< tensor id on the wire within the job (< 2^24)
    uint32_t iteration{0};  //!< training iteration the node belongs to
    uint32_t microbatch{0}; //!< pipeline micro-batch (outputs)
    uint64_t durationNs{0}; //!< kCompute / kMemory
    /// kCompute / kMemory: runs on the rank's host (CPU) stream instead of its GPU stream (a
    /// trace's is_cpu_op); each stream runs one node at a time, the two side by side
    bool host{false};
    uint64_t bytes{0};          //!< see the class comment
    std::vector<uint32_t> deps; //!< nodes of the same rank that must finish first (indices)
};

/// A communicator: the ranks a collective runs over, in their order within the group.
struct Group
{
    std::string name; //!< e.g. "tp3", "dp0", or a trace's pg_name
    CommClass cls{CommClass::kOther};
    std::vector<uint32_t> ranks; //!< global ranks, distinct; position = rank within the group
};

/// One job's execution graph: every rank's nodes, the groups, shared tables.
struct Graph
{
    uint32_t nRanks{0};
    uint32_t iterations{1};
    std::vector<Group> groups;
    std::vector<std::string> labels;              //!< operation names, shared by ranks
    std::vector<std::vector<uint64_t>> peerBytes; //!< all-to-all splits, one entry per group rank
    std::vector<std::vector<Node>> ranks;         //!< ranks[r][i] = node i of rank r

    /**
     * \return the index of \p name in labels, appended when new (generators and readers).
     * O(1) amortised: a trace may name every node differently. Labels appended to labels
     * directly are found too; a label edited in place may be looked up wrongly.
     */
    uint32_t Label(const std::string& name);

    /// Label()'s index: name -> first index in labels, for labels[0 .. labelsIndexed)
    std::unordered_map<std::string, uint32_t> labelIndex;
    std::size_t labelsIndexed{0}; //!< how many labels labelIndex covers
};

/// \return the lower-case name of \p type ("all_reduce", "reduce_scatter", ...)
const char* CollTypeName(CollType type);
/// \return the lower-case name of \p cls ("tensor", "expert", "pipeline", "data", "other")
const char* CommClassName(CommClass cls);
/// \return the lower-case name of \p kind ("compute", "memory", "collective", "send", "recv")
const char* NodeKindName(NodeKind kind);

/**
 * Check \p graph: dependencies in range, no self-dependency, no cycle; groups with distinct
 * ranks < nRanks that contain every rank whose collective names them; roots inside the group;
 * all-to-all splits one per group rank and summing to the node's bytes; every group's members
 * issue the same number of collectives; every (sender, receiver, tag) has as many kSend as
 * kRecv of equal bytes; byte totals that fit 64 bits. Also: one node list per rank, enums,
 * priorities, labels, peers and tensor ids in range, barriers of 0 bytes.
 * Linear in nodes + dependencies + group members (expected, for the send/receive matching).
 * \param where how messages name the graph's source (a file prefix, a generator's name)
 * \param maxErrors the most messages returned (0: no limit)
 * \return one message per problem, "WHERE:rank R:node N: what is wrong" (empty: valid);
 * problems of a rank or a group as a whole read "WHERE:rank R: ..." or "WHERE:group G 'name':
 * ...", of the whole graph "WHERE: ..."; a rank's dependency cycle is reported once, at one
 * node on it
 */
std::vector<std::string> Validate(const Graph& graph,
                                  const std::string& where,
                                  std::size_t maxErrors = 20);

} // namespace graph
} // namespace talb

#endif /* TALB_EXEC_GRAPH_H */
