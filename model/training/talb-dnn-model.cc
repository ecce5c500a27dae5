#include "talb-dnn-model.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/talb-wire.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace ns3
{

namespace
{

struct Preset
{
    const char* name;
    double rate;
};

// Effective training rates (FLOP/s), calibrated from published ResNet50 v1.5 single-GPU
// throughput x 3 x 8.18 GFLOP per image (data/README.md).
const Preset PRESETS[] = {
    {"V100-FP32", 9e12},
    {"V100-AMP", 29e12},
    {"A100-TF32", 23e12},
    {"A100-AMP", 61e12},
};

std::vector<std::string>
SplitCsv(const std::string& line)
{
    std::vector<std::string> fields;
    std::string::size_type start = 0;
    while (true)
    {
        std::string::size_type comma = line.find(',', start);
        fields.push_back(line.substr(start, comma - start));
        if (comma == std::string::npos)
        {
            return fields;
        }
        start = comma + 1;
    }
}

std::string
Strip(const std::string& s)
{
    std::string::size_type b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos)
    {
        return "";
    }
    std::string::size_type e = s.find_last_not_of(" \t\r");
    return s.substr(b, e - b + 1);
}

/// Parses a non-negative decimal integer that fits in int64; false on anything else.
bool
ParseCount(const std::string& s, int64_t* value)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 18)
    {
        return false;
    }
    *value = std::strtoll(s.c_str(), nullptr, 10);
    return true;
}

/// Builds "file:line: field 'x': message" errors.
class ErrorAt
{
  public:
    ErrorAt(const std::string& path, std::string* error)
        : m_path(path),
          m_error(error)
    {
    }

    bool operator()(uint32_t line, const std::string& field, const std::string& message)
    {
        std::ostringstream os;
        os << m_path << ":" << line << ": ";
        if (!field.empty())
        {
            os << "field '" << field << "': ";
        }
        os << message;
        *m_error = os.str();
        return false;
    }

  private:
    std::string m_path;
    std::string* m_error;
};

const char* const FILE_COLUMNS[] = {"model",
                                    "tensor",
                                    "kind",
                                    "shape",
                                    "params",
                                    "fwd_flops_per_sample",
                                    "layer_group",
                                    "fwd_ns",
                                    "bwd_ns"};

} // namespace

double
TalbComputeModel::PresetRate(const std::string& preset)
{
    for (const auto& p : PRESETS)
    {
        if (preset == p.name)
        {
            return p.rate;
        }
    }
    NS_FATAL_ERROR("unknown device preset '" << preset << "'; valid presets: " << PresetNames());
}

std::string
TalbComputeModel::PresetNames()
{
    std::string names;
    for (const auto& p : PRESETS)
    {
        names += (names.empty() ? "" : ", ") + std::string(p.name);
    }
    return names;
}

const char* const TalbDnnModel::FILE_MAGIC = "# talb-model-file v1";

TalbDnnModel::TalbDnnModel(const std::string& name)
    : m_name(name)
{
}

void
TalbDnnModel::AddTensor(const TalbTensorSpec& tensor)
{
    NS_ABORT_MSG_IF(tensor.name.empty(), "TalbDnnModel " << m_name << ": tensor without a name");
    NS_ABORT_MSG_IF(tensor.params == 0,
                    "TalbDnnModel " << m_name << ": tensor " << tensor.name
                                    << " has no parameters");
    NS_ABORT_MSG_IF(m_tensors.size() >= TALB_TENSOR_INDEX_MASK,
                    "TalbDnnModel " << m_name << ": too many tensors for a 24-bit tensor index");
    if (m_tensors.empty() || m_tensors.back().layer != tensor.layer)
    {
        ++m_nLayers;
    }
    m_tensors.push_back(tensor);
    m_layerIndex.push_back(m_nLayers - 1);
}

const std::string&
TalbDnnModel::GetName() const
{
    return m_name;
}

uint32_t
TalbDnnModel::GetNTensors() const
{
    return m_tensors.size();
}

const TalbTensorSpec&
TalbDnnModel::GetTensor(uint32_t i) const
{
    NS_ABORT_MSG_IF(i >= m_tensors.size(), "TalbDnnModel " << m_name << ": no tensor " << i);
    return m_tensors[i];
}

uint64_t
TalbDnnModel::GetTotalParams() const
{
    uint64_t total = 0;
    for (const auto& t : m_tensors)
    {
        total += t.params;
    }
    return total;
}

uint32_t
TalbDnnModel::GetNLayers() const
{
    return m_nLayers;
}

uint32_t
TalbDnnModel::GetLayerIndex(uint32_t i) const
{
    NS_ABORT_MSG_IF(i >= m_tensors.size(), "TalbDnnModel " << m_name << ": no tensor " << i);
    return m_layerIndex[i];
}

uint8_t
TalbDnnModel::GetPriority(uint32_t i) const
{
    return talb_layer_priority(GetLayerIndex(i), m_nLayers);
}

Time
TalbDnnModel::GetForwardTime(uint32_t i, const TalbComputeModel& compute) const
{
    const TalbTensorSpec& t = GetTensor(i);
    if (t.fwdTimeNs >= 0)
    {
        return NanoSeconds(t.fwdTimeNs);
    }
    double seconds = double(t.fwdFlopsPerSample) * compute.batchSize / compute.flopsPerSecond;
    return NanoSeconds(std::llround(seconds * 1e9));
}

Time
TalbDnnModel::GetBackwardTime(uint32_t i, const TalbComputeModel& compute) const
{
    const TalbTensorSpec& t = GetTensor(i);
    if (t.bwdTimeNs >= 0)
    {
        return NanoSeconds(t.bwdTimeNs);
    }
    if (t.fwdTimeNs >= 0)
    {
        return NanoSeconds(std::llround(t.fwdTimeNs * compute.backwardFactor));
    }
    double seconds = double(t.fwdFlopsPerSample) * compute.batchSize / compute.flopsPerSecond;
    return NanoSeconds(std::llround(seconds * compute.backwardFactor * 1e9));
}

bool
TalbDnnModel::TryLoadFile(const std::string& path,
                          std::vector<TalbDnnModel>* models,
                          std::string* error)
{
    ErrorAt fail(path, error);
    std::ifstream in(path);
    if (!in)
    {
        return fail(0, "", "cannot open the model file");
    }
    std::string line;
    uint32_t lineNo = 1;
    if (!std::getline(in, line) || Strip(line) != FILE_MAGIC)
    {
        std::string got = Strip(line);
        if (got.rfind("# talb-model-file v", 0) == 0)
        {
            return fail(1,
                        "",
                        "unsupported version '" + got + "' (this build reads '" + FILE_MAGIC +
                            "')");
        }
        return fail(1, "", std::string("first line must be '") + FILE_MAGIC + "'");
    }
    // Header: columns by name, any order; unknown names are errors so a typo is not ignored.
    std::map<std::string, uint32_t> column;
    std::vector<std::string> names;
    while (std::getline(in, line))
    {
        ++lineNo;
        line = Strip(line);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        names = SplitCsv(line);
        break;
    }
    if (names.empty())
    {
        return fail(lineNo, "", "no header line");
    }
    for (uint32_t c = 0; c < names.size(); ++c)
    {
        std::string n = Strip(names[c]);
        if (std::find_if(std::begin(FILE_COLUMNS), std::end(FILE_COLUMNS), [&n](const char* k) {
                return n == k;
            }) == std::end(FILE_COLUMNS))
        {
            return fail(lineNo, n, "unknown column");
        }
        if (!column.emplace(n, c).second)
        {
            return fail(lineNo, n, "column appears twice");
        }
    }
    for (const char* required : {"model", "tensor", "params", "layer_group"})
    {
        if (!column.count(required))
        {
            return fail(lineNo, required, "required column missing");
        }
    }
    if (!column.count("fwd_flops_per_sample") && !column.count("fwd_ns"))
    {
        return fail(lineNo, "fwd_flops_per_sample", "need fwd_flops_per_sample or fwd_ns");
    }

    models->clear();
    std::map<std::string, std::size_t> byName;
    while (std::getline(in, line))
    {
        ++lineNo;
        line = Strip(line);
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::vector<std::string> fields = SplitCsv(line);
        if (fields.size() != names.size())
        {
            std::ostringstream os;
            os << fields.size() << " fields, the header has " << names.size();
            return fail(lineNo, "", os.str());
        }
        auto get = [&](const char* name) {
            auto it = column.find(name);
            return it == column.end() ? std::string() : Strip(fields[it->second]);
        };
        TalbTensorSpec t;
        std::string model = get("model");
        t.name = get("tensor");
        t.kind = get("kind");
        t.shape = get("shape");
        t.layer = get("layer_group");
        for (const char* name : {"model", "tensor", "layer_group"})
        {
            std::string v = get(name);
            if (v.empty() || v.find_first_of(" \t") != std::string::npos)
            {
                return fail(lineNo, name, "'" + v + "' must be a non-empty word");
            }
        }
        int64_t v = 0;
        if (!ParseCount(get("params"), &v) || v == 0)
        {
            return fail(lineNo, "params", "'" + get("params") + "' is not a positive integer");
        }
        t.params = v;
        std::string flops = get("fwd_flops_per_sample");
        std::string fwd = get("fwd_ns");
        std::string bwd = get("bwd_ns");
        if (flops.empty() && fwd.empty())
        {
            return fail(lineNo, "fwd_flops_per_sample", "empty, and fwd_ns is empty too");
        }
        if (!flops.empty())
        {
            if (!ParseCount(flops, &v))
            {
                return fail(lineNo,
                            "fwd_flops_per_sample",
                            "'" + flops + "' is not a non-negative integer");
            }
            t.fwdFlopsPerSample = v;
        }
        if (!fwd.empty())
        {
            if (!ParseCount(fwd, &t.fwdTimeNs))
            {
                return fail(lineNo, "fwd_ns", "'" + fwd + "' is not a non-negative integer");
            }
        }
        if (!bwd.empty())
        {
            if (fwd.empty())
            {
                return fail(lineNo, "bwd_ns", "given without fwd_ns");
            }
            if (!ParseCount(bwd, &t.bwdTimeNs))
            {
                return fail(lineNo, "bwd_ns", "'" + bwd + "' is not a non-negative integer");
            }
        }
        auto it = byName.find(model);
        if (it == byName.end())
        {
            it = byName.emplace(model, models->size()).first;
            models->emplace_back(model);
        }
        else if (it->second != models->size() - 1)
        {
            return fail(lineNo, "model", "rows of model '" + model + "' are not consecutive");
        }
        TalbDnnModel& m = (*models)[it->second];
        for (const auto& other : m.m_tensors)
        {
            if (other.name == t.name)
            {
                return fail(lineNo, "tensor", "'" + t.name + "' appears twice in " + model);
            }
        }
        m.AddTensor(t);
    }
    if (models->empty())
    {
        return fail(lineNo, "", "no tensors");
    }
    return true;
}

std::vector<TalbDnnModel>
TalbDnnModel::LoadFile(const std::string& path)
{
    std::vector<TalbDnnModel> models;
    std::string error;
    if (!TryLoadFile(path, &models, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return models;
}

TalbDnnModel
TalbDnnModel::LoadFile(const std::string& path, const std::string& model)
{
    std::string names;
    for (auto& m : LoadFile(path))
    {
        if (m.GetName() == model)
        {
            return m;
        }
        names += (names.empty() ? "" : ", ") + m.GetName();
    }
    NS_FATAL_ERROR(path << ": no model '" << model << "' (the file has: " << names << ")");
}

void
TalbDnnModel::WriteFile(const std::string& path, const std::vector<TalbDnnModel>& models)
{
    std::ofstream out(path);
    NS_ABORT_MSG_UNLESS(out, "cannot write model file " << path);
    out << FILE_MAGIC << "\n";
    for (std::size_t c = 0; c < std::size(FILE_COLUMNS); ++c)
    {
        out << (c ? "," : "") << FILE_COLUMNS[c];
    }
    out << "\n";
    for (const auto& m : models)
    {
        for (const auto& t : m.m_tensors)
        {
            for (const std::string* s : {&m.m_name, &t.name, &t.kind, &t.shape, &t.layer})
            {
                NS_ABORT_MSG_IF(s->find_first_of(",\n") != std::string::npos,
                                "model file " << path << ": '" << *s << "' contains a comma");
            }
            out << m.m_name << "," << t.name << "," << t.kind << "," << t.shape << "," << t.params
                << "," << t.fwdFlopsPerSample << "," << t.layer << ",";
            if (t.fwdTimeNs >= 0)
            {
                out << t.fwdTimeNs;
            }
            out << ",";
            if (t.bwdTimeNs >= 0)
            {
                out << t.bwdTimeNs;
            }
            out << "\n";
        }
    }
    NS_ABORT_MSG_UNLESS(out.flush(), "error writing model file " << path);
}

bool
TalbDnnModel::TryLoadAstraSim(const std::string& path,
                              Time cycle,
                              uint32_t bytesPerElement,
                              const std::string& name,
                              TalbDnnModel* model,
                              std::string* error)
{
    ErrorAt fail(path, error);
    if (!cycle.IsStrictlyPositive() || bytesPerElement == 0)
    {
        return fail(0, "", "cycle time and bytes per element must be positive");
    }
    std::ifstream in(path);
    if (!in)
    {
        return fail(0, "", "cannot open the ASTRA-sim workload file");
    }
    // Tokens by line, blank lines skipped: ASTRA-sim 1.0 reads the file as whitespace-separated
    // words, but a layer is always one line, which lets errors name it.
    std::string line;
    uint32_t lineNo = 0;
    auto nextLine = [&](std::vector<std::string>* words) {
        while (std::getline(in, line))
        {
            ++lineNo;
            std::istringstream ls(line);
            words->clear();
            std::string w;
            while (ls >> w)
            {
                words->push_back(w);
            }
            if (!words->empty())
            {
                return true;
            }
        }
        return false;
    };
    std::vector<std::string> words;
    if (!nextLine(&words))
    {
        return fail(lineNo, "parallelism", "empty file");
    }
    if (words.size() != 1 || words[0] != "DATA")
    {
        return fail(lineNo,
                    "parallelism",
                    "'" + line + "': only DATA (pure data parallelism) is supported");
    }
    if (!nextLine(&words))
    {
        return fail(lineNo, "layers", "missing layer count");
    }
    int64_t nLayers = 0;
    if (words.size() != 1 || !ParseCount(words[0], &nLayers) || nLayers == 0)
    {
        return fail(lineNo, "layers", "'" + line + "' is not a positive integer");
    }
    // The 12 fields of an ASTRA-sim 1.0 layer line.
    static const char* const FIELDS[] = {"layer name",
                                         "reserved",
                                         "forward compute time",
                                         "forward communication type",
                                         "forward communication size",
                                         "input grad compute time",
                                         "input grad communication type",
                                         "input grad communication size",
                                         "weight grad compute time",
                                         "weight grad communication type",
                                         "weight grad communication size",
                                         "update delay"};
    TalbDnnModel m(name);
    for (int64_t l = 0; l < nLayers; ++l)
    {
        if (!nextLine(&words))
        {
            std::ostringstream os;
            os << "the file declares " << nLayers << " layers but has " << l;
            return fail(lineNo, "layers", os.str());
        }
        if (words.size() != std::size(FIELDS))
        {
            std::ostringstream os;
            os << words.size() << " fields, a layer line has " << std::size(FIELDS);
            return fail(lineNo, "", os.str());
        }
        int64_t value[12] = {0};
        for (uint32_t f : {2u, 4u, 5u, 7u, 8u, 10u, 11u})
        {
            if (!ParseCount(words[f], &value[f]))
            {
                return fail(lineNo, FIELDS[f], "'" + words[f] + "' is not a non-negative integer");
            }
        }
        for (uint32_t f : {3u, 6u})
        {
            if (words[f] != "NONE")
            {
                return fail(lineNo,
                            FIELDS[f],
                            "'" + words[f] +
                                "': DATA parallelism communicates weight gradients "
                                "only (expected NONE)");
            }
        }
        if (words[9] != "ALLREDUCE")
        {
            return fail(lineNo, FIELDS[9], "'" + words[9] + "': expected ALLREDUCE");
        }
        if (value[10] == 0 || value[10] % bytesPerElement != 0)
        {
            std::ostringstream os;
            os << "'" << words[10] << "' is not a positive multiple of " << bytesPerElement
               << " bytes per element";
            return fail(lineNo, FIELDS[10], os.str());
        }
        TalbTensorSpec t;
        t.name = words[0];
        t.layer = words[0];
        t.kind = "astra";
        t.params = value[10] / bytesPerElement;
        t.fwdTimeNs = (cycle * value[2]).GetNanoSeconds();
        t.bwdTimeNs = (cycle * (value[5] + value[8])).GetNanoSeconds();
        for (const auto& other : m.m_tensors)
        {
            if (other.name == t.name)
            {
                return fail(lineNo, FIELDS[0], "'" + t.name + "' appears twice");
            }
        }
        m.AddTensor(t);
    }
    if (nextLine(&words))
    {
        return fail(lineNo, "layers", "more layer lines than the declared count");
    }
    *model = m;
    return true;
}

TalbDnnModel
TalbDnnModel::LoadAstraSim(const std::string& path,
                           Time cycle,
                           uint32_t bytesPerElement,
                           const std::string& name)
{
    TalbDnnModel model;
    std::string error;
    if (!TryLoadAstraSim(path, cycle, bytesPerElement, name, &model, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return model;
}

void
TalbDnnModel::WriteAstraSim(const std::string& path,
                            Time cycle,
                            uint32_t bytesPerElement,
                            const TalbComputeModel& compute) const
{
    NS_ABORT_MSG_UNLESS(cycle.IsStrictlyPositive(), "WriteAstraSim: cycle must be positive");
    std::ofstream out(path);
    NS_ABORT_MSG_UNLESS(out, "cannot write ASTRA-sim workload " << path);
    out << "DATA\n" << m_tensors.size() << "\n";
    for (uint32_t i = 0; i < m_tensors.size(); ++i)
    {
        int64_t fwd = std::llround(GetForwardTime(i, compute).GetSeconds() / cycle.GetSeconds());
        int64_t bwd = std::llround(GetBackwardTime(i, compute).GetSeconds() / cycle.GetSeconds());
        out << m_tensors[i].name << " -1 " << fwd << " NONE 0 " << (bwd - bwd / 2) << " NONE 0 "
            << bwd / 2 << " ALLREDUCE " << m_tensors[i].params * bytesPerElement << " 0\n";
    }
    NS_ABORT_MSG_UNLESS(out.flush(), "error writing ASTRA-sim workload " << path);
}

} // namespace ns3
