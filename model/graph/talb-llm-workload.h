#ifndef TALB_LLM_WORKLOAD_H
#define TALB_LLM_WORKLOAD_H

#include "talb-exec-graph.h"
#include "talb-llm-job.h"

#include <string>

/**
 * \file
 * \ingroup talb-graph
 * The built-in LLM workload generator: a Megatron-LM style training job (tensor, sequence,
 * pipeline, expert and data parallelism) as an execution graph.
 */

namespace talb
{
namespace graph
{

/**
 * Build the execution graph of \p config: per rank, \p config.iterations iterations of the
 * 1F1B pipeline schedule over its stage's layers, with the tensor-parallel, expert all-to-all,
 * pipeline send/receive and data-parallel operations Megatron-LM issues, the optimizer step
 * after the gradient synchronisation, and iteration i + 1 after iteration i's step. Groups:
 * "tp<k>", "dp<k>", "ep<k>", "edp<k>" (and "emb<k>" for tied embeddings over pipeline
 * stages) from the rank layout, those of one rank left out. doc/talb-generator.rst ("LLM
 * workloads") describes every node; LlmAnalyticBytes() gives the bytes it must add up to.
 * \return false, with \p error naming the field, when the configuration is invalid
 * (MakeLlmJobShape) or its tensor ids would not fit 24 bits; \p graph is then untouched
 */
bool BuildLlmGraph(const LlmJobConfig& config, Graph* graph, std::string* error);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_WORKLOAD_H */
