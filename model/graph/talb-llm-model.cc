#include "talb-llm-model.h"

#include <cmath>
#include <sstream>

namespace talb
{
namespace graph
{

namespace
{

/// \return the multiplier of an MLP's h x f matrices: gate, up and down, or up and down
uint64_t
MlpMatrices(const LlmModel& m)
{
    return m.gatedMlp ? 3 : 2;
}

/// \return an MLP of inner size \p f: its matrices and, with biases, fc1's and fc2's
uint64_t
MlpParams(const LlmModel& m, uint64_t f)
{
    uint64_t h = m.hidden;
    uint64_t params = MlpMatrices(m) * h * f;
    if (m.linearBias)
    {
        params += (m.gatedMlp ? 2 * f : f) + h;
    }
    return params;
}

LlmModel
Gpt3(const std::string& name, uint32_t layers, uint32_t hidden, uint32_t heads)
{
    LlmModel m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.ffnHidden = 4 * hidden;
    m.heads = heads;
    m.kvHeads = heads;
    m.seqLength = 2048;
    m.vocab = 50257;
    m.linearBias = true;
    m.norm = LlmNorm::kLayerNorm;
    m.learnedPositions = true;
    m.tiedEmbeddings = true;
    return m;
}

LlmModel
Llama3(const std::string& name, uint32_t layers, uint32_t hidden, uint32_t ffn, uint32_t heads)
{
    LlmModel m;
    m.name = name;
    m.layers = layers;
    m.hidden = hidden;
    m.ffnHidden = ffn;
    m.heads = heads;
    m.kvHeads = 8;
    m.seqLength = 8192;
    m.vocab = 128256;
    m.gatedMlp = true;
    m.norm = LlmNorm::kRmsNorm;
    return m;
}

LlmModel
Mixtral8x7b()
{
    LlmModel m = Llama3("mixtral-8x7b", 32, 4096, 14336, 32);
    m.seqLength = 32768;
    m.vocab = 32000;
    m.experts = 8;
    m.topK = 2;
    m.moeFfnHidden = 14336;
    return m;
}

/// The presets, in the order the names are listed. Sources: doc/talb-generator.rst.
std::vector<LlmModel>
Presets()
{
    // GPT-3 (Brown et al. 2020, Table 2.1) with the head counts that make q = h, as Megatron-LM's
    // GPT-3 configurations do: the table's 1.3B (24 heads of 128) and 13B (d_model 5140) rows
    // do not multiply out.
    return {
        Gpt3("gpt3-1.3b", 24, 2048, 16),
        Gpt3("gpt3-13b", 40, 5120, 40),
        Gpt3("gpt3-175b", 96, 12288, 96),
        Llama3("llama3-8b", 32, 4096, 14336, 32),
        Llama3("llama3-70b", 80, 8192, 28672, 64),
        Llama3("llama3-405b", 126, 16384, 53248, 128),
        Mixtral8x7b(),
    };
}

bool
Fail(std::string* error, const std::string& message)
{
    if (error)
    {
        *error = message;
    }
    return false;
}

} // namespace

uint32_t
LlmModel::HeadDim() const
{
    return heads ? hidden / heads : 0;
}

bool
LlmModel::IsMoeLayer(uint32_t layer) const
{
    return experts > 0 && moeLayerFreq > 0 && layer % moeLayerFreq == 0;
}

uint32_t
LlmModel::MoeLayers() const
{
    if (experts == 0 || moeLayerFreq == 0)
    {
        return 0;
    }
    return (layers + moeLayerFreq - 1) / moeLayerFreq;
}

uint64_t
LlmAttentionParams(const LlmModel& m)
{
    uint64_t h = m.hidden;
    uint64_t q = uint64_t(m.heads) * m.HeadDim();
    uint64_t k = uint64_t(m.kvHeads) * m.HeadDim();
    uint64_t params = h * (q + 2 * k) + q * h;
    if (m.linearBias)
    {
        params += (q + 2 * k) + h;
    }
    return params;
}

uint64_t
LlmDenseMlpParams(const LlmModel& m)
{
    return MlpParams(m, m.ffnHidden);
}

uint64_t
LlmExpertParams(const LlmModel& m)
{
    return MlpParams(m, m.moeFfnHidden);
}

uint64_t
LlmRouterParams(const LlmModel& m)
{
    return uint64_t(m.experts) * m.hidden;
}

uint64_t
LlmNormParams(const LlmModel& m)
{
    return m.norm == LlmNorm::kLayerNorm ? 2 * uint64_t(m.hidden) : m.hidden;
}

uint64_t
LlmParamCounts::Total() const
{
    return embedding + attention + mlp + router + experts + norms + output;
}

LlmParamCounts
LlmCountParams(const LlmModel& m, uint32_t vocab)
{
    uint64_t v = vocab ? vocab : m.vocab;
    uint64_t h = m.hidden;
    uint64_t moe = m.MoeLayers();
    uint64_t dense = m.layers - moe;
    LlmParamCounts c;
    c.embedding = v * h + (m.learnedPositions ? uint64_t(m.seqLength) * h : 0);
    c.attention = m.layers * LlmAttentionParams(m);
    c.mlp = dense * LlmDenseMlpParams(m);
    c.router = moe * LlmRouterParams(m);
    c.experts = moe * m.experts * LlmExpertParams(m);
    c.norms = (2 * uint64_t(m.layers) + 1) * LlmNormParams(m);
    c.output = m.tiedEmbeddings ? 0 : v * h;
    return c;
}

uint64_t
LlmFlops::Total() const
{
    return linear + bf16;
}

LlmFlops
LlmForwardFlopsPerToken(const LlmModel& m, uint32_t vocab)
{
    uint64_t v = vocab ? vocab : m.vocab;
    uint64_t h = m.hidden;
    uint64_t q = uint64_t(m.heads) * m.HeadDim();
    uint64_t k = uint64_t(m.kvHeads) * m.HeadDim();
    uint64_t moe = m.MoeLayers();
    uint64_t dense = m.layers - moe;
    LlmFlops f;
    f.linear = m.layers * (2 * h * (q + 2 * k) + 2 * q * h);
    f.linear += dense * 2 * MlpMatrices(m) * h * m.ffnHidden;
    f.linear += moe * m.topK * 2 * MlpMatrices(m) * h * m.moeFfnHidden;
    f.bf16 = m.layers * 2 * uint64_t(m.seqLength) * q + moe * 2 * h * m.experts + 2 * h * v;
    return f;
}

bool
CheckLlmModel(const LlmModel& m, std::string* error)
{
    std::string where = "model '" + m.name + "': field ";
    auto positive = [&](const char* field, uint64_t value) {
        return value > 0 || Fail(error, where + "'" + field + "' must be positive");
    };
    if (!positive("layers", m.layers) || !positive("hidden", m.hidden) ||
        !positive("heads", m.heads) || !positive("kvHeads", m.kvHeads) ||
        !positive("seqLength", m.seqLength) || !positive("vocab", m.vocab))
    {
        return false;
    }
    std::ostringstream os;
    if (m.hidden % m.heads != 0)
    {
        os << where << "'heads' (" << m.heads << ") must divide hidden (" << m.hidden << ")";
        return Fail(error, os.str());
    }
    if (m.heads % m.kvHeads != 0)
    {
        os << where << "'kvHeads' (" << m.kvHeads << ") must divide heads (" << m.heads << ")";
        return Fail(error, os.str());
    }
    if (m.MoeLayers() < m.layers && !positive("ffnHidden", m.ffnHidden))
    {
        return false;
    }
    if (m.experts == 0)
    {
        return true;
    }
    if (!positive("moeFfnHidden", m.moeFfnHidden) || !positive("moeLayerFreq", m.moeLayerFreq))
    {
        return false;
    }
    if (m.topK < 1 || m.topK > m.experts)
    {
        os << where << "'topK' (" << m.topK << ") must be in [1, experts = " << m.experts << "]";
        return Fail(error, os.str());
    }
    if (!(m.capacityFactor >= 0) || !std::isfinite(m.capacityFactor))
    {
        return Fail(error, where + "'capacityFactor' must be >= 0 (0: dropless)");
    }
    if (!(m.routingSkew >= 0) || !std::isfinite(m.routingSkew))
    {
        return Fail(error, where + "'routingSkew' must be a finite number >= 0");
    }
    return true;
}

std::vector<std::string>
LlmModelPresetNames()
{
    std::vector<std::string> names;
    for (const LlmModel& m : Presets())
    {
        names.push_back(m.name);
    }
    return names;
}

bool
LlmModelPreset(const std::string& name, LlmModel* model, std::string* error)
{
    for (const LlmModel& m : Presets())
    {
        if (m.name == name)
        {
            *model = m;
            return true;
        }
    }
    std::string valid;
    for (const std::string& n : LlmModelPresetNames())
    {
        valid += (valid.empty() ? "" : ", ") + n;
    }
    return Fail(error, "unknown LLM model '" + name + "' (valid: " + valid + ")");
}

} // namespace graph
} // namespace talb
