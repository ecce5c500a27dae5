#ifndef TALB_AICB_WORKLOAD_H
#define TALB_AICB_WORKLOAD_H

#include "talb-exec-graph.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * The workload text files of AICB (Alibaba's AI Communication Benchmark,
 * workload_generator/SimAI_training_workload_generator.py) as SimAI's ASTRA-sim reads them
 * (astra-sim/workload/Workload.cc), and ASTRA-sim 1.0's DATA files, which share the layer lines:
 * read, written, and turned into an execution graph.
 *
 * The format, line by line:
 *  1. the parallelism word, then "key: value" pairs: HYBRID_TRANSFORMER_FWD_IN_BCKWD (or
 *     HYBRID_TRANSFORMER) model_parallel_NPU_group: TP ep: EP pp: PP vpp: V ga: GA all_gpus: N
 *     checkpoints: 0 checkpoint_initiates: 0 pp_comm: BYTES; or DATA, or MICRO, alone;
 *  2. the number of layer lines;
 *  3. one line per layer, 12 fields separated by blanks: name, a reserved integer (-1), then
 *     for the forward pass, the input gradient and the weight gradient each a compute time and a
 *     collective type and size, and last the update time.
 *
 * Units: times in nanoseconds (AICB writes AIOB's CUDA-event times, ms x 1000 x 1000; SimAI's
 * ns-3 front end counts one tick per ns); sizes in bytes, counted as talb's Node::bytes counts
 * them (all-gather: the output buffer; reduce-scatter: the input buffer; all-to-all: the bytes a
 * rank sends).
 *
 * The collective's group comes from its column and suffix: forward and input-gradient
 * collectives run over the tensor-parallel group, weight-gradient ones over the data-parallel
 * group; the suffix _EP names the expert-parallel group and _DP_EP the expert-data-parallel one
 * (talb::graph::RankLayout, Megatron's numbering: tensor ranks adjacent).
 */

namespace talb
{
namespace graph
{

/// The parallelism word of a file's first line.
enum class AicbKind : uint8_t
{
    kTransformerFwdInBckwd, ///< HYBRID_TRANSFORMER_FWD_IN_BCKWD (what AICB writes)
    kTransformer,           ///< HYBRID_TRANSFORMER (the same loop without recomputation)
    kData,                  ///< DATA: ASTRA-sim 1.0 data parallelism, all ranks one group
    kMicro,                 ///< MICRO: AICB's collective micro-benchmarks
};

/// A layer column's collective.
enum class AicbComm : uint8_t
{
    kNone,
    kAllReduce,
    kAllGather,
    kReduceScatter,
    kAllToAll,
    kBroadcast, ///< root: the group's first rank
};

/// The group a collective runs over: the column's own, or the one its suffix names.
enum class AicbGroup : uint8_t
{
    kColumn, ///< no suffix: tensor-parallel (forward, input gradient) or data-parallel (weight)
    kEp,     ///< _EP: the expert-parallel group
    kDpEp,   ///< _DP_EP: the expert-data-parallel group
};

/// One pass of a layer: its compute, then its collective.
struct AicbPass
{
    uint64_t computeNs{0};
    AicbComm comm{AicbComm::kNone};
    AicbGroup group{AicbGroup::kColumn};
    uint64_t bytes{0}; //!< 0 exactly when comm is kNone

    bool operator==(const AicbPass& o) const;
};

/// One layer line.
struct AicbLayer
{
    std::string name;
    int64_t reserved{-1}; //!< the second field (SimAI reads and ignores it)
    AicbPass fwd;         //!< forward pass
    AicbPass ig;          //!< input gradient
    AicbPass wg;          //!< weight gradient
    uint64_t updateNs{0}; //!< after each collective of the layer, before it counts as done
    uint32_t line{0};     //!< the line it was read from (messages; not compared)

    bool operator==(const AicbLayer& o) const;
};

/// A whole file.
struct AicbWorkload
{
    AicbKind kind{AicbKind::kTransformerFwdInBckwd};
    uint32_t tp{1};      //!< model_parallel_NPU_group
    uint32_t ep{1};      //!< ep (or expert_parallel_npu_group)
    uint32_t pp{1};      //!< pp
    uint32_t vpp{1};     //!< vpp (AICB writes the layer count; SimAI uses it with pp only)
    uint32_t ga{1};      //!< ga (gradient accumulation; SimAI uses it with pp only)
    uint32_t allGpus{0}; //!< all_gpus, 0 when the file does not say (older files)
    uint64_t ppComm{0};  //!< pp_comm: bytes between pipeline stages
    std::vector<AicbLayer> layers;

    bool operator==(const AicbWorkload& o) const;
};

/// The most layer lines a file may have: three tensor ids each must fit 24 bits.
constexpr uint32_t kAicbMaxLayers = (1u << 24) / 3;

/**
 * Read a workload from \p in.
 * \param where the file's name in messages
 * \param error set to "WHERE:LINE: what is wrong" (LINE counted from 1; the last line for a
 *        file that ends early; recomputation, checkpoints other than 0, is refused here)
 * \return false on any problem (\p workload then holds no layers)
 */
bool ReadAicbWorkload(std::istream& in,
                      const std::string& where,
                      AicbWorkload* workload,
                      std::string* error);

/// ReadAicbWorkload() from the file \p path (named by its path in messages).
bool ReadAicbWorkloadFile(const std::string& path, AicbWorkload* workload, std::string* error);

/// Write \p workload in the format ReadAicbWorkload() reads (tab-separated, as AICB does).
void WriteAicbWorkload(const AicbWorkload& workload, std::ostream& out);

/// How BuildAicbGraph() runs a workload.
struct AicbRun
{
    uint32_t ranks{0};      //!< the job's ranks; 0: the file's all_gpus
    uint32_t layers{0};     //!< the first layers lines only; 0: all
    uint32_t iterations{1}; //!< passes over the layers
    /// The most ranks built: a graph holds every rank's nodes, so a file's all_gpus of a
    /// production cluster is refused here rather than exhausting memory.
    uint32_t maxRanks{1u << 16};
};

/**
 * Build the execution graph of \p workload, as SimAI's loop runs it on every rank: forward
 * through the layers (each compute, then its collective, which blocks), then backward from the
 * last layer (input-gradient compute and its blocking collective, weight-gradient compute and
 * its collective, which overlaps what follows); a layer's forward waits for its weight-gradient
 * collective of the iteration before. A layer's update time, when not 0, is a compute after
 * each of its collectives. DATA files run the same loop with every rank in one data-parallel
 * group (their forward and input-gradient columns must be NONE); MICRO files run their
 * weight-gradient collectives one after another on all ranks, without compute.
 *
 * Ranks are numbered as Megatron does (RankLayout, order tp-cp-ep-dp-pp) with dp = ranks /
 * (tp x pp). Tensor ids: 3 x layer line + 0 (forward), 1 (input gradient), 2 (weight gradient);
 * Node::layer is the line's index; priorities are left to the LLM rule of the class (tensor:
 * tensor-parallel, expert: _EP, data: data-parallel and _DP_EP). A collective over a group of
 * one rank moves nothing and has no node.
 *
 * \param where the file's name in messages
 * \param error set to "WHERE: what is wrong" (pipeline parallelism, ranks that do not divide
 *        or pass maxRanks, a layer count beyond the file's, 64-bit totals passed by the
 *        iterations, ...)
 * \return false on error
 */
bool BuildAicbGraph(const AicbWorkload& workload,
                    const AicbRun& run,
                    const std::string& where,
                    Graph* graph,
                    std::string* error);

/// \return the name AICB writes for \p comm (and \p group), e.g. "ALLGATHER_DP_EP", "NONE"
std::string AicbCommName(AicbComm comm, AicbGroup group);

} // namespace graph
} // namespace talb

#endif /* TALB_AICB_WORKLOAD_H */
