#ifndef TALB_GRAPH_JOB_SPEC_H
#define TALB_GRAPH_JOB_SPEC_H

#include "ns3/talb-aicb-workload.h"
#include "ns3/talb-chakra-graph.h"
#include "ns3/talb-collective-bench.h"
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-llm-job.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The graph-job part of one job of the runner's "jobs" parameter: an LLM training job
 * (the workload generator of model/graph), a collective benchmark, a workload file (AICB,
 * SimAI, ASTRA-sim 1.0 DATA: talb-aicb-workload.h) or a Chakra execution trace
 * (talb-chakra-graph.h), with its graph built and validated by Check().
 *
 * A job is an LLM job when its model is an LLM preset (LlmModelPresetNames()) or it sets an
 * LLM key; a benchmark when it sets "coll". Keys (Keys() lists them with their meaning):
 * parallelism tp, pp, dp, ep, order; batch microBatch, globalBatch; model knobs layers,
 * hidden, ffn, heads, kvHeads, seq, vocab, experts, topK, moeFfn, moeLayerFreq,
 * capacityFactor, routingSkew; options mfu, sp, distOpt, zero3, overlapGrad, bucketParams,
 * routingSeed; benchmark coll, bytes, root; workload file workload, with layers meaning its
 * first layer lines; Chakra trace trace (a file prefix) and commGroups (its group file). The
 * job keys "model", "device", "precision", "iterations" and "workers" are shared with data-parallel
 * jobs (see TalbJobSpec).
 */
struct TalbGraphJobSpec
{
    /// What kind of graph job, once Check() decided.
    enum Kind
    {
        NONE,     //!< not a graph job (a data-parallel CNN job)
        LLM,      //!< the LLM workload generator
        BENCH,    //!< a collective benchmark
        WORKLOAD, //!< a workload file (key "workload")
        TRACE,    //!< a Chakra execution trace (key "trace")
    };

    Kind kind{NONE};
    std::vector<std::pair<std::string, std::string>> keys; //!< graph keys, as given
    talb::graph::LlmJobConfig llm;                         //!< LLM: the checked job
    talb::graph::CollectiveBench bench;                    //!< BENCH: the checked benchmark
    talb::graph::AicbRun workloadRun;                      //!< WORKLOAD: ranks, layers, iterations
    std::shared_ptr<const talb::graph::Graph> graph;       //!< built by Check()

    /// \return whether \p key is a graph-job key (parsed by SetKey())
    static bool IsKey(const std::string& key);
    /// \return every graph-job key with a one-line meaning, for --help
    static std::string KeysHelp();
    /// \return whether \p model names an LLM preset
    static bool IsLlmModel(const std::string& model);

    /**
     * Record \p key = \p value after a syntax check of the value.
     * \return an error ("bad value KEY=VALUE: why"), or empty
     */
    std::string SetKey(const std::string& key, const std::string& value);

    /**
     * Decide the kind, apply the keys to the model preset \p model (or a benchmark), and build
     * and validate the graph. Each problem is one message in \p errors, prefixed with \p where.
     * \param device the job's device key, empty when the job set none (LLM default h100-sxm)
     * \param precision the job's precision key, empty when the job set none (LLM default bf16)
     * \param iterations the job's iterations
     * \param workers the job's workers key, 0 when the job set none (else it must equal the
     * ranks)
     * \param benchRanks the ranks of a benchmark (the job's workers)
     * A workload job (key "workload") takes its ranks from the file, or from workers where the
     * file does not say (older AICB files); its device and precision must be left unset.
     */
    void Check(const std::string& where,
               const std::string& model,
               const std::string& device,
               const std::string& precision,
               uint32_t iterations,
               uint32_t workers,
               uint32_t benchRanks,
               std::vector<std::string>* errors);

    /// \return the ranks of the graph (valid after a successful Check())
    uint32_t GetRanks() const;

  private:
    /// Check() of a workload job: read the file, apply layers, build the graph.
    void CheckWorkload(const std::string& where,
                       const std::string& device,
                       const std::string& precision,
                       uint32_t iterations,
                       uint32_t workers,
                       talb::graph::Graph* graph,
                       std::vector<std::string>* errors);
    /// Check() of a trace job: read the group file and every rank's file, build the graph.
    void CheckTrace(const std::string& where,
                    const std::string& device,
                    const std::string& precision,
                    uint32_t iterations,
                    uint32_t workers,
                    talb::graph::Graph* graph,
                    std::vector<std::string>* errors);
};

} // namespace ns3

#endif /* TALB_GRAPH_JOB_SPEC_H */
