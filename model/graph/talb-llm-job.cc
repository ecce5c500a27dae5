#include "talb-llm-job.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace talb
{
namespace graph
{

namespace
{

bool
Fail(std::string* error, const std::string& message)
{
    if (error)
    {
        *error = message;
    }
    return false;
}

/// \return an error "field 'FIELD' (VALUE) must be divisible by WHAT (BY)"
std::string
NotDivisible(const char* field, uint64_t value, const char* what, uint64_t by)
{
    std::ostringstream os;
    os << "field '" << field << "' (" << value << ") must be divisible by " << what << " (" << by
       << ")";
    return os.str();
}

bool
CheckElementBytes(const char* field, uint32_t bytes, std::string* error)
{
    if (bytes == 1 || bytes == 2 || bytes == 4)
    {
        return true;
    }
    return Fail(error,
                std::string("field '") + field + "' (" + std::to_string(bytes) +
                    ") must be 1, 2 or 4");
}

/// The device, precision and efficiency fields.
bool
CheckCompute(const LlmJobConfig& c, std::string* error)
{
    std::string device = "device '" + c.device.name + "': field ";
    if (!(c.device.bf16Flops > 0))
    {
        return Fail(error,
                    device + "'bf16Flops' must be positive (pick a preset: LlmDevicePreset)");
    }
    if (!(c.device.memoryBytesPerS > 0))
    {
        return Fail(error, device + "'memoryBytesPerS' must be positive");
    }
    if (c.precision == LlmPrecision::kFp8 && !(c.device.fp8Flops > 0))
    {
        return Fail(error,
                    "field 'precision' (fp8): device '" + c.device.name +
                        "' has no FP8 rate (field 'fp8Flops')");
    }
    if (!(c.mfu > 0 && c.mfu <= 1))
    {
        return Fail(error, "field 'mfu' must be in (0, 1]");
    }
    if (!(c.optimizerBytesPerParam >= 0) || !std::isfinite(c.optimizerBytesPerParam))
    {
        return Fail(error, "field 'optimizerBytesPerParam' must be a finite number >= 0");
    }
    return CheckElementBytes("gradBytes", c.gradBytes, error) &&
           CheckElementBytes("paramBytes", c.paramBytes, error) &&
           CheckElementBytes("activationBytes", c.activationBytes, error);
}

/// The model's shapes against the parallelism (Megatron-LM's own checks).
bool
CheckSharding(const LlmJobConfig& c, std::string* error)
{
    const LlmModel& m = c.model;
    const Parallelism& p = c.parallelism;
    if (p.cp != 1)
    {
        return Fail(error,
                    "parallelism: field 'cp' (" + std::to_string(p.cp) +
                        "): context parallelism is not modelled (must be 1)");
    }
    if (m.heads % p.tp != 0)
    {
        return Fail(error, NotDivisible("heads", m.heads, "tp", p.tp));
    }
    if (m.kvHeads % p.tp != 0)
    {
        return Fail(error,
                    NotDivisible("kvHeads", m.kvHeads, "tp", p.tp) +
                        " (Megatron shards the key-value groups over tensor-parallel ranks)");
    }
    if (m.MoeLayers() < m.layers && m.ffnHidden % p.tp != 0)
    {
        return Fail(error, NotDivisible("ffnHidden", m.ffnHidden, "tp", p.tp));
    }
    if (m.layers % p.pp != 0)
    {
        return Fail(error, NotDivisible("layers", m.layers, "pp", p.pp));
    }
    if (c.sequenceParallel && p.tp > 1 && m.seqLength % p.tp != 0)
    {
        return Fail(error,
                    NotDivisible("seqLength", m.seqLength, "tp", p.tp) +
                        " (sequence parallelism splits the sequence)");
    }
    if (m.experts == 0)
    {
        if (p.ep != 1)
        {
            return Fail(error,
                        "parallelism: field 'ep' (" + std::to_string(p.ep) +
                            ") must be 1 for a dense model");
        }
        return true;
    }
    if (m.experts % p.ep != 0)
    {
        return Fail(error, NotDivisible("experts", m.experts, "ep", p.ep));
    }
    if (m.moeFfnHidden % p.tp != 0)
    {
        return Fail(error, NotDivisible("moeFfnHidden", m.moeFfnHidden, "tp", p.tp));
    }
    if (p.tp > 1 && !c.sequenceParallel)
    {
        return Fail(error,
                    "field 'sequenceParallel' must be on for a MoE model with tp > 1 (as "
                    "Megatron-LM requires)");
    }
    if (c.moePadToCapacity && m.capacityFactor <= 0)
    {
        return Fail(error,
                    "field 'moePadToCapacity' needs a capacity factor (model field "
                    "'capacityFactor' is 0: dropless)");
    }
    return true;
}

/// Batch, data-parallel options and iteration counts.
bool
CheckSchedule(const LlmJobConfig& c, std::string* error)
{
    const Parallelism& p = c.parallelism;
    if (c.microBatch < 1)
    {
        return Fail(error, "field 'microBatch' must be positive");
    }
    uint64_t perStep = uint64_t(c.microBatch) * p.dp;
    if (c.globalBatch < 1 || c.globalBatch % perStep != 0)
    {
        std::ostringstream os;
        os << "field 'globalBatch' (" << c.globalBatch
           << ") must be a positive multiple of microBatch x dp (" << perStep << ")";
        return Fail(error, os.str());
    }
    if (c.iterations < 1)
    {
        return Fail(error, "field 'iterations' must be positive");
    }
    if (c.vocabDivisibleBy < 1)
    {
        return Fail(error, "field 'vocabDivisibleBy' must be positive");
    }
    if (c.zero3 && c.distributedOptimizer)
    {
        return Fail(error,
                    "field 'zero3': ZeRO-3 shards the optimizer itself; turn "
                    "'distributedOptimizer' off");
    }
    if (c.zero3 && c.model.tiedEmbeddings && p.pp > 1)
    {
        return Fail(error,
                    "field 'zero3': tied embeddings over pipeline stages are not modelled "
                    "with ZeRO-3 (use pp 1 or an untied model)");
    }
    // Pipeline tags count (iteration, micro-batch, direction).
    uint64_t tags = uint64_t(c.iterations) * (c.globalBatch / perStep) * 2;
    if (tags > UINT32_MAX)
    {
        return Fail(error, "fields 'iterations' x micro-batches: too many for 32-bit tags");
    }
    return true;
}

} // namespace

uint32_t
LlmJobShape::Stage(uint32_t rank) const
{
    return layout.Coord(rank, Dim::kPp);
}

bool
LlmJobShape::IsMoe(const LlmJobConfig& c, uint32_t layer) const
{
    return layer >= 1 && c.model.IsMoeLayer(layer - 1);
}

bool
MakeLlmJobShape(const LlmJobConfig& config, LlmJobShape* shape, std::string* error)
{
    std::string layoutError;
    LlmJobShape s;
    if (!CheckLlmModel(config.model, error) || !CheckCompute(config, error))
    {
        return false;
    }
    if (!RankLayout::Make(config.parallelism, &s.layout, &layoutError))
    {
        return Fail(error, "parallelism: " + layoutError);
    }
    if (!CheckSharding(config, error) || !CheckSchedule(config, error))
    {
        return false;
    }
    const Parallelism& p = config.parallelism;
    s.microBatches = config.globalBatch / (config.microBatch * p.dp);
    s.layersPerStage = config.model.layers / p.pp;
    uint64_t unit = uint64_t(config.vocabDivisibleBy) * p.tp;
    uint64_t padded = (config.model.vocab + unit - 1) / unit * unit;
    if (padded > UINT32_MAX)
    {
        return Fail(error, "field 'vocabDivisibleBy': the padded vocabulary exceeds 32 bits");
    }
    s.paddedVocab = static_cast<uint32_t>(padded);
    s.expertDataSize = p.dp / p.ep;
    s.tokens = uint64_t(config.microBatch) * config.model.seqLength;
    s.routedTokens = config.sequenceParallel ? s.tokens / p.tp : s.tokens;
    if (config.overlapGradReduce)
    {
        s.bucketParams = config.bucketParams
                             ? config.bucketParams
                             : std::max<uint64_t>(40000000, 1000000 * uint64_t(p.dp));
    }
    *shape = s;
    return true;
}

bool
CheckLlmJob(const LlmJobConfig& config, std::string* error)
{
    LlmJobShape shape;
    return MakeLlmJobShape(config, &shape, error);
}

} // namespace graph
} // namespace talb
