#include "talb-graph-job-spec.h"

#include "ns3/talb-llm-device.h"
#include "ns3/talb-llm-model.h"
#include "ns3/talb-llm-workload.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-wire.h"

#include <algorithm>

namespace ns3
{

namespace
{

/// How a key's value is read.
enum class KeyType
{
    UINT,
    REAL,
    FLAG,
    TEXT,
    BYTES,
};

/// One graph-job key: the one table SetKey(), Check() and --help read.
struct KeyInfo
{
    const char* name;
    KeyType type;
    bool bench; //!< a benchmark key (else an LLM key)
    const char* help;
};

const KeyInfo KEYS[] = {
    {"tp", KeyType::UINT, false, "tensor-parallel size (1)"},
    {"pp", KeyType::UINT, false, "pipeline stages (1)"},
    {"dp", KeyType::UINT, false, "data-parallel size (1); ranks = tp x pp x dp"},
    {"ep", KeyType::UINT, false, "expert-parallel size, dividing dp (1)"},
    {"order", KeyType::TEXT, false, "rank order, fastest first (tp-cp-ep-dp-pp)"},
    {"microBatch", KeyType::UINT, false, "samples per micro-batch (1)"},
    {"globalBatch", KeyType::UINT, false, "samples per iteration (microBatch x dp x 2 pp)"},
    {"layers",
     KeyType::UINT,
     false,
     "transformer layers (the preset's), or a workload file's first K layer lines (all)"},
    {"hidden", KeyType::UINT, false, "hidden size (the preset's)"},
    {"ffn", KeyType::UINT, false, "MLP inner size (the preset's)"},
    {"heads", KeyType::UINT, false, "attention heads (the preset's)"},
    {"kvHeads", KeyType::UINT, false, "key-value heads (the preset's)"},
    {"seq", KeyType::UINT, false, "sequence length (the preset's)"},
    {"vocab", KeyType::UINT, false, "vocabulary (the preset's)"},
    {"experts", KeyType::UINT, false, "MoE experts, 0 dense (the preset's)"},
    {"topK", KeyType::UINT, false, "experts per token (the preset's)"},
    {"moeFfn", KeyType::UINT, false, "each expert's inner size (the preset's)"},
    {"moeLayerFreq", KeyType::UINT, false, "every k-th layer is MoE (the preset's)"},
    {"capacityFactor", KeyType::REAL, false, "MoE capacity factor, 0 dropless (the preset's)"},
    {"routingSkew", KeyType::REAL, false, "Zipf exponent of expert popularity (the preset's)"},
    {"routingSeed", KeyType::UINT, false, "picks the popular experts (1)"},
    {"mfu", KeyType::REAL, false, "fraction of the device's peak rate, (0, 1] (0.5)"},
    {"sp", KeyType::FLAG, false, "sequence parallelism (true)"},
    {"distOpt", KeyType::FLAG, false, "distributed optimizer (true)"},
    {"zero3", KeyType::FLAG, false, "ZeRO-3 per-layer gathers, needs distOpt=false (false)"},
    {"overlapGrad", KeyType::FLAG, false, "gradient buckets overlap the backward pass (true)"},
    {"bucketParams", KeyType::UINT, false, "parameters per gradient bucket, 0 Megatron's (0)"},
    {"coll", KeyType::TEXT, true, "benchmark one collective on all workers (" /* names below */},
    {"bytes", KeyType::BYTES, true, "benchmark buffer per rank: 25MB, 4MiB, 1000 (B)"},
    {"root", KeyType::UINT, true, "benchmark root of broadcast, reduce, gather, scatter (0)"},
    {"workload",
     KeyType::TEXT,
     false,
     "run a workload file: AICB/SimAI (HYBRID_TRANSFORMER_FWD_IN_BCKWD ...), MICRO or "
     "ASTRA-sim 1.0 DATA, ranks from its all_gpus (else workers), with the keys layers, "
     "iterations, workers"},
    {"trace",
     KeyType::TEXT,
     false,
     "run a Chakra execution trace PREFIX (PREFIX.0.et, PREFIX.1.et, ... or .et.gz, one file "
     "per rank: as many ranks), with the keys commGroups, ctrlDeps, iterations, workers"},
    {"commGroups",
     KeyType::TEXT,
     false,
     "a Chakra trace's communicator-group JSON file ({\"name\": [ranks], ...}: the groups "
     "its pg_name attributes name)"},
    {"ctrlDeps",
     KeyType::TEXT,
     false,
     "a Chakra trace's ctrl_deps: ignore (default: as Chakra's feeder and ASTRA-sim, which read "
     "only data_deps; PyTorch-converted traces put the calling operator there) or wait (a node "
     "also waits for them; one the file does not have is an error)"},
};

const KeyInfo*
FindKey(const std::string& name)
{
    for (const KeyInfo& k : KEYS)
    {
        if (name == k.name)
        {
            return &k;
        }
    }
    return nullptr;
}

/// Parse "25MB", "4MiB", "1000": a byte count with an optional decimal or binary unit.
bool
ParseBytes(const std::string& text, uint64_t* out)
{
    static const std::pair<const char*, uint64_t> units[] = {{"KiB", 1ull << 10},
                                                             {"MiB", 1ull << 20},
                                                             {"GiB", 1ull << 30},
                                                             {"KB", 1000},
                                                             {"MB", 1000000},
                                                             {"GB", 1000000000},
                                                             {"B", 1}};
    for (const auto& [unit, scale] : units)
    {
        std::size_t n = std::char_traits<char>::length(unit);
        if (text.size() > n && text.compare(text.size() - n, n, unit) == 0)
        {
            uint64_t v = 0;
            if (!TalbParse::ParseUint(text.substr(0, text.size() - n), &v, 0, UINT64_MAX / scale))
            {
                return false;
            }
            *out = v * scale;
            return true;
        }
    }
    return TalbParse::ParseUint(text, out);
}

} // namespace

bool
TalbGraphJobSpec::IsKey(const std::string& key)
{
    return FindKey(key) != nullptr;
}

std::string
TalbGraphJobSpec::KeysHelp()
{
    std::string text;
    for (const KeyInfo& k : KEYS)
    {
        text += std::string(text.empty() ? "" : "; ") + k.name + ": " + k.help;
        if (std::string(k.name) == "coll")
        {
            text += talb::graph::CollectiveBenchTypeNames() + ")";
        }
    }
    return text;
}

bool
TalbGraphJobSpec::IsLlmModel(const std::string& model)
{
    auto names = talb::graph::LlmModelPresetNames();
    return std::find(names.begin(), names.end(), model) != names.end();
}

std::string
TalbGraphJobSpec::SetKey(const std::string& key, const std::string& value)
{
    const KeyInfo* k = FindKey(key);
    if (!k)
    {
        return "unknown key '" + key + "'";
    }
    bool ok = true;
    std::string why;
    uint64_t n = 0;
    double x = 0;
    bool flag = false;
    switch (k->type)
    {
    case KeyType::UINT:
        ok = TalbParse::ParseUint(value, &n, 0, UINT32_MAX);
        why = "not an integer in [0, 4294967295]";
        break;
    case KeyType::REAL:
        ok = TalbParse::ParseDouble(value, &x) && x >= 0;
        why = "not a finite number >= 0";
        break;
    case KeyType::FLAG:
        ok = TalbParse::ParseBool(value, &flag);
        why = "not true or false";
        break;
    case KeyType::TEXT:
        ok = !value.empty();
        why = "empty";
        break;
    case KeyType::BYTES:
        ok = ParseBytes(value, &n);
        why = "not a byte count (25MB, 4MiB, 1000)";
        break;
    }
    if (!ok)
    {
        return "bad value " + key + "=" + value + ": " + why;
    }
    keys.emplace_back(key, value);
    return "";
}

namespace
{

/**
 * Applies the LLM keys to \p c (values were checked by SetKey()). One flat branch per key of
 * KEYS (longer than most functions here, read as a table). \return an error, or empty
 */
std::string
ApplyLlmKey(const std::string& key, const std::string& value, talb::graph::LlmJobConfig* c)
{
    uint64_t n = 0;
    double x = 0;
    bool flag = false;
    TalbParse::ParseUint(value, &n);
    TalbParse::ParseDouble(value, &x);
    TalbParse::ParseBool(value, &flag);
    const uint32_t u = static_cast<uint32_t>(n);
    talb::graph::LlmModel& m = c->model;
    talb::graph::Parallelism& p = c->parallelism;
    if (key == "tp" || key == "pp" || key == "dp" || key == "ep" || key == "microBatch" ||
        key == "layers" || key == "hidden" || key == "heads" || key == "seq" || key == "vocab" ||
        key == "moeLayerFreq")
    {
        if (u == 0)
        {
            return "bad value " + key + "=" + value + ": must be at least 1";
        }
    }
    if (key == "tp")
    {
        p.tp = u;
    }
    else if (key == "pp")
    {
        p.pp = u;
    }
    else if (key == "dp")
    {
        p.dp = u;
    }
    else if (key == "ep")
    {
        p.ep = u;
    }
    else if (key == "order")
    {
        p.order = value;
    }
    else if (key == "microBatch")
    {
        c->microBatch = u;
    }
    else if (key == "globalBatch")
    {
        c->globalBatch = u;
    }
    else if (key == "layers")
    {
        m.layers = u;
    }
    else if (key == "hidden")
    {
        m.hidden = u;
    }
    else if (key == "ffn")
    {
        m.ffnHidden = u;
    }
    else if (key == "heads")
    {
        m.heads = u;
    }
    else if (key == "kvHeads")
    {
        m.kvHeads = u;
    }
    else if (key == "seq")
    {
        m.seqLength = u;
    }
    else if (key == "vocab")
    {
        m.vocab = u;
    }
    else if (key == "experts")
    {
        m.experts = u;
    }
    else if (key == "topK")
    {
        m.topK = u;
    }
    else if (key == "moeFfn")
    {
        m.moeFfnHidden = u;
    }
    else if (key == "moeLayerFreq")
    {
        m.moeLayerFreq = u;
    }
    else if (key == "capacityFactor")
    {
        m.capacityFactor = x;
    }
    else if (key == "routingSkew")
    {
        m.routingSkew = x;
    }
    else if (key == "routingSeed")
    {
        c->seed = n;
    }
    else if (key == "mfu")
    {
        c->mfu = x;
    }
    else if (key == "sp")
    {
        c->sequenceParallel = flag;
    }
    else if (key == "distOpt")
    {
        c->distributedOptimizer = flag;
    }
    else if (key == "zero3")
    {
        c->zero3 = flag;
    }
    else if (key == "overlapGrad")
    {
        c->overlapGradReduce = flag;
    }
    else if (key == "bucketParams")
    {
        c->bucketParams = n;
    }
    return "";
}

/// Refuses the keys that time an LLM job's compute (device, precision) on a \p kind whose
/// compute times come from \p source.
void
RefuseComputeKeys(const std::string& where,
                  const std::string& kind,
                  const std::string& source,
                  const std::string& device,
                  const std::string& precision,
                  std::vector<std::string>* errors)
{
    for (const auto& [key, value] : {std::pair{"device", device}, {"precision", precision}})
    {
        if (!value.empty())
        {
            errors->push_back(where + "key '" + key + "' does not apply to " + kind +
                              " (its compute times come from " + source + ")");
        }
    }
}

} // namespace

/// Three straight branches (benchmark, LLM job, neither), each parse then build then validate:
/// kept in one function so that the order of the checks, and of their messages, reads at once.
void
TalbGraphJobSpec::Check(const std::string& where,
                        const std::string& model,
                        const std::string& device,
                        const std::string& precision,
                        uint32_t iterations,
                        uint32_t workers,
                        uint32_t benchRanks,
                        std::vector<std::string>* errors)
{
    std::string firstLlmKey;
    bool benchKeys = false;
    for (const auto& kv : keys)
    {
        if (FindKey(kv.first)->bench)
        {
            benchKeys = true;
        }
        else if (firstLlmKey.empty())
        {
            firstLlmKey = kv.first;
        }
    }
    const std::size_t before = errors->size();
    std::string error;
    auto graph_ = std::make_shared<talb::graph::Graph>();
    const bool workloadJob = std::any_of(keys.begin(), keys.end(), [](const auto& kv) {
        return kv.first == "workload";
    });
    const bool traceJob = std::any_of(keys.begin(), keys.end(), [](const auto& kv) {
        return kv.first == "trace" || kv.first == "commGroups" || kv.first == "ctrlDeps";
    });
    if (traceJob)
    {
        kind = TRACE;
        CheckTrace(where, device, precision, iterations, workers, graph_.get(), errors);
        if (errors->size() > before)
        {
            return;
        }
    }
    else if (workloadJob)
    {
        kind = WORKLOAD;
        CheckWorkload(where, device, precision, iterations, workers, graph_.get(), errors);
        if (errors->size() > before)
        {
            return;
        }
    }
    else if (benchKeys)
    {
        kind = BENCH;
        if (!firstLlmKey.empty())
        {
            errors->push_back(where + "key '" + firstLlmKey +
                              "' is an LLM key: a benchmark (coll) takes coll, bytes, root, "
                              "workers, iterations");
            return;
        }
        bool named = false;
        for (const auto& [key, value] : keys)
        {
            uint64_t n = 0;
            if (key == "coll")
            {
                named = true;
                if (!talb::graph::CollectiveBenchTypeFromName(value, &bench, &error))
                {
                    errors->push_back(where + "bad value coll=" + value + ": " + error);
                    return;
                }
            }
            else if (key == "bytes")
            {
                ParseBytes(value, &n);
                bench.bytes = n;
            }
            else if (key == "root")
            {
                TalbParse::ParseUint(value, &n);
                bench.root = static_cast<uint32_t>(n);
            }
        }
        if (!named)
        {
            errors->push_back(where + "bytes and root need coll=<collective>");
            return;
        }
        bench.ranks = benchRanks;
        bench.iterations = iterations;
        if (!talb::graph::BuildCollectiveBenchGraph(bench, graph_.get(), &error))
        {
            errors->push_back(where + error);
            return;
        }
    }
    else if (!firstLlmKey.empty() || IsLlmModel(model))
    {
        kind = LLM;
        if (!talb::graph::LlmModelPreset(model, &llm.model, &error))
        {
            errors->push_back(where + "bad value model=" + model + ": " + error);
            return;
        }
        std::string dev = device.empty() ? "h100-sxm" : device;
        if (!talb::graph::LlmDevicePreset(dev, &llm.device, &error))
        {
            errors->push_back(where + "bad value device=" + dev + ": " + error);
        }
        std::string prec = precision.empty() ? "bf16" : precision;
        if (!talb::graph::LlmPrecisionFromName(prec, &llm.precision, &error))
        {
            errors->push_back(where + "bad value precision=" + prec + ": " + error);
        }
        for (const auto& [key, value] : keys)
        {
            error = ApplyLlmKey(key, value, &llm);
            if (!error.empty())
            {
                errors->push_back(where + error);
            }
        }
        if (errors->size() > before)
        {
            return;
        }
        llm.iterations = iterations;
        if (llm.globalBatch == 0)
        {
            llm.globalBatch = llm.microBatch * llm.parallelism.dp * 2 * llm.parallelism.pp;
        }
        if (!talb::graph::BuildLlmGraph(llm, graph_.get(), &error))
        {
            errors->push_back(where + error);
            return;
        }
        if (workers != 0 && workers != graph_->nRanks)
        {
            errors->push_back(where + "workers=" + std::to_string(workers) +
                              " but tp x pp x dp = " + std::to_string(graph_->nRanks) +
                              " ranks (leave workers out of LLM jobs)");
            return;
        }
    }
    else
    {
        kind = NONE;
        return;
    }
    for (const auto& message : talb::graph::Validate(*graph_, where + "graph", 3))
    {
        errors->push_back(message);
    }
    graph = graph_;
}

void
TalbGraphJobSpec::CheckWorkload(const std::string& where,
                                const std::string& device,
                                const std::string& precision,
                                uint32_t iterations,
                                uint32_t workers,
                                talb::graph::Graph* graph_,
                                std::vector<std::string>* errors)
{
    std::string path;
    workloadRun = talb::graph::AicbRun();
    for (const auto& [key, value] : keys)
    {
        uint64_t n = 0;
        if (key == "workload")
        {
            path = value;
        }
        else if (key == "layers")
        {
            TalbParse::ParseUint(value, &n); // checked by SetKey()
            workloadRun.layers = static_cast<uint32_t>(n);
            if (n == 0)
            {
                errors->push_back(where + "bad value layers=0: must be at least 1");
            }
        }
        else
        {
            errors->push_back(where + "key '" + key + "=" + value +
                              "' does not apply to a workload job (workload, layers, iterations, "
                              "workers: the file gives the parallelism and times)");
        }
    }
    RefuseComputeKeys(where, "a workload job", "the file", device, precision, errors);
    talb::graph::AicbWorkload w;
    std::string error;
    if (!talb::graph::ReadAicbWorkloadFile(path, &w, &error))
    {
        errors->push_back(where + "bad value workload=" + path + ": " + error);
        return;
    }
    workloadRun.ranks = workers;
    workloadRun.iterations = iterations;
    if (!talb::graph::BuildAicbGraph(w, workloadRun, path, graph_, &error))
    {
        errors->push_back(where + "bad value workload=" + path + ": " + error);
    }
}

void
TalbGraphJobSpec::CheckTrace(const std::string& where,
                             const std::string& device,
                             const std::string& precision,
                             uint32_t iterations,
                             uint32_t workers,
                             talb::graph::Graph* graph_,
                             std::vector<std::string>* errors)
{
    std::string prefix;
    std::string groupsPath;
    talb::graph::ChakraRun run;
    run.iterations = iterations;
    for (const auto& [key, value] : keys)
    {
        if (key == "trace")
        {
            prefix = value;
        }
        else if (key == "commGroups")
        {
            groupsPath = value;
        }
        else if (key == "ctrlDeps")
        {
            if (value != "ignore" && value != "wait")
            {
                errors->push_back(where + "bad value ctrlDeps=" + value + " (ignore or wait)");
            }
            run.waitForCtrlDeps = value == "wait";
        }
        else
        {
            errors->push_back(where + "key '" + key + "=" + value +
                              "' does not apply to a trace job (trace, commGroups, ctrlDeps, "
                              "iterations, workers: the trace gives the ranks, times and sizes)");
        }
    }
    RefuseComputeKeys(where, "a trace job", "the trace", device, precision, errors);
    if (prefix.empty())
    {
        errors->push_back(where + (groupsPath.empty() ? "ctrlDeps" : "commGroups") +
                          " needs trace=PREFIX");
        return;
    }
    talb::graph::ChakraCommGroups groups;
    std::string error;
    if (!groupsPath.empty() && !talb::graph::ReadChakraCommGroupsFile(groupsPath, &groups, &error))
    {
        errors->push_back(where + "bad value commGroups=" + groupsPath + ": " + error);
        return;
    }
    talb::graph::ChakraTrace trace;
    // The runner's own bound on a job's ranks: the wire's tensor index (as the workers key).
    if (!talb::graph::ReadChakraTrace(prefix, TALB_TENSOR_INDEX_MASK, &trace, &error))
    {
        errors->push_back(where + "bad value trace=" + prefix + ": " + error);
        return;
    }
    if (workers != 0 && workers != trace.ranks.size())
    {
        errors->push_back(where + "workers=" + std::to_string(workers) + " but the trace has " +
                          std::to_string(trace.ranks.size()) +
                          " ranks (a trace runs on as many ranks as it has files)");
        return;
    }
    if (!talb::graph::BuildChakraGraph(trace,
                                       groupsPath.empty() ? nullptr : &groups,
                                       groupsPath,
                                       run,
                                       prefix,
                                       graph_,
                                       &error))
    {
        errors->push_back(where + "bad value trace=" + prefix + ": " + error);
    }
}

uint32_t
TalbGraphJobSpec::GetRanks() const
{
    return graph ? graph->nRanks : 0;
}

} // namespace ns3
