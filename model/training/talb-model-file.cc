#include "talb-model-file.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/talb-parse.h"

#include <algorithm>
#include <fstream>
#include <map>

namespace ns3
{

namespace
{

const char* const COLUMNS[] = {"model",
                               "tensor",
                               "kind",
                               "shape",
                               "params",
                               "fwd_flops_per_sample",
                               "layer_group",
                               "fwd_ns",
                               "bwd_ns"};

/// Column name -> position, from the header line.
typedef std::map<std::string, uint32_t> Columns;

/// The reader's state: the stream, the line number, and where errors go.
struct Reader
{
    std::string path;
    std::ifstream in;
    uint32_t lineNo{0};
    std::string* error;

    bool Fail(const std::string& field, const std::string& message)
    {
        *error = TalbParse::ErrorAt(path, lineNo, field, message);
        return false;
    }

    /// The next line that is neither blank nor a comment, trimmed; false at the end.
    bool NextRow(std::string* line)
    {
        while (std::getline(in, *line))
        {
            ++lineNo;
            *line = TalbParse::Trim(*line);
            if (!line->empty() && (*line)[0] != '#')
            {
                return true;
            }
        }
        return false;
    }
};

/// The version line, then the header: columns by name, any order; unknown names are errors so
/// a typo is not ignored.
bool
ReadHeader(Reader& r, Columns* columns, uint32_t* nColumns)
{
    std::string line;
    if (!std::getline(r.in, line) || TalbParse::Trim(line) != TalbModelFile::MAGIC)
    {
        r.lineNo = 1;
        std::string got = TalbParse::Trim(line);
        if (got.rfind("# talb-model-file v", 0) == 0)
        {
            return r.Fail("",
                          "unsupported version '" + got + "' (this build reads '" +
                              TalbModelFile::MAGIC + "')");
        }
        return r.Fail("", std::string("first line must be '") + TalbModelFile::MAGIC + "'");
    }
    r.lineNo = 1;
    if (!r.NextRow(&line))
    {
        return r.Fail("", "no header line");
    }
    std::vector<std::string> names = TalbParse::Split(line, ',', true);
    for (uint32_t c = 0; c < names.size(); ++c)
    {
        const std::string& n = names[c];
        if (std::find_if(std::begin(COLUMNS), std::end(COLUMNS), [&n](const char* k) {
                return n == k;
            }) == std::end(COLUMNS))
        {
            return r.Fail(n, "unknown column");
        }
        if (!columns->emplace(n, c).second)
        {
            return r.Fail(n, "column appears twice");
        }
    }
    for (const char* required : {"model", "tensor", "params", "layer_group"})
    {
        if (!columns->count(required))
        {
            return r.Fail(required, "required column missing");
        }
    }
    if (!columns->count("fwd_flops_per_sample") && !columns->count("fwd_ns"))
    {
        return r.Fail("fwd_flops_per_sample", "need fwd_flops_per_sample or fwd_ns");
    }
    *nColumns = names.size();
    return true;
}

/// The compute cost fields of one row: FLOPs and/or explicit times.
bool
ReadCost(Reader& r,
         const std::string& flops,
         const std::string& fwd,
         const std::string& bwd,
         TalbTensorSpec* t)
{
    const uint64_t maxCount = std::numeric_limits<int64_t>::max();
    uint64_t v = 0;
    if (flops.empty() && fwd.empty())
    {
        return r.Fail("fwd_flops_per_sample", "empty, and fwd_ns is empty too");
    }
    if (!flops.empty())
    {
        if (!TalbParse::ParseUint(flops, &v, 0, maxCount))
        {
            return r.Fail("fwd_flops_per_sample", "'" + flops + "' is not a non-negative integer");
        }
        t->fwdFlopsPerSample = v;
    }
    if (!fwd.empty())
    {
        if (!TalbParse::ParseUint(fwd, &v, 0, maxCount))
        {
            return r.Fail("fwd_ns", "'" + fwd + "' is not a non-negative integer");
        }
        t->fwdTimeNs = static_cast<int64_t>(v);
    }
    if (!bwd.empty())
    {
        if (fwd.empty())
        {
            return r.Fail("bwd_ns", "given without fwd_ns");
        }
        if (!TalbParse::ParseUint(bwd, &v, 0, maxCount))
        {
            return r.Fail("bwd_ns", "'" + bwd + "' is not a non-negative integer");
        }
        t->bwdTimeNs = static_cast<int64_t>(v);
    }
    return true;
}

/// One tensor row: its model's name in \p model, the tensor in \p t.
bool
ReadRow(Reader& r,
        const std::string& line,
        const Columns& columns,
        uint32_t nColumns,
        std::string* model,
        TalbTensorSpec* t)
{
    std::vector<std::string> fields = TalbParse::Split(line, ',', true);
    if (fields.size() != nColumns)
    {
        return r.Fail("",
                      std::to_string(fields.size()) + " fields, the header has " +
                          std::to_string(nColumns));
    }
    auto get = [&](const char* name) {
        auto it = columns.find(name);
        return it == columns.end() ? std::string() : fields[it->second];
    };
    for (const char* name : {"model", "tensor", "layer_group"})
    {
        std::string v = get(name);
        // A name starting with '#' would start a comment line where it is the first column.
        if (v.empty() || v.find_first_of(" \t") != std::string::npos || v[0] == '#')
        {
            return r.Fail(name, "'" + v + "' must be a non-empty word, not starting with '#'");
        }
    }
    *model = get("model");
    t->name = get("tensor");
    t->kind = get("kind");
    t->shape = get("shape");
    t->layer = get("layer_group");
    uint64_t params = 0;
    if (!TalbParse::ParseUint(get("params"), &params, 1, std::numeric_limits<int64_t>::max()))
    {
        return r.Fail("params", "'" + get("params") + "' is not a positive integer");
    }
    t->params = params;
    return ReadCost(r, get("fwd_flops_per_sample"), get("fwd_ns"), get("bwd_ns"), t);
}

} // namespace

const char* const TalbModelFile::MAGIC = "# talb-model-file v1";

bool
TalbModelFile::TryRead(const std::string& path,
                       std::vector<TalbDnnModel>* models,
                       std::string* error)
{
    Reader r{path, std::ifstream(path), 0, error};
    if (!r.in)
    {
        return r.Fail("", "cannot open the model file");
    }
    Columns columns;
    uint32_t nColumns = 0;
    if (!ReadHeader(r, &columns, &nColumns))
    {
        return false;
    }
    models->clear();
    std::map<std::string, std::size_t> byName;
    std::string line;
    while (r.NextRow(&line))
    {
        std::string model;
        TalbTensorSpec t;
        if (!ReadRow(r, line, columns, nColumns, &model, &t))
        {
            return false;
        }
        auto it = byName.find(model);
        if (it == byName.end())
        {
            it = byName.emplace(model, models->size()).first;
            models->emplace_back(model);
        }
        else if (it->second != models->size() - 1)
        {
            return r.Fail("model", "rows of model '" + model + "' are not consecutive");
        }
        TalbDnnModel& m = (*models)[it->second];
        if (m.HasTensor(t.name))
        {
            return r.Fail("tensor", "'" + t.name + "' appears twice in " + model);
        }
        m.AddTensor(t);
    }
    if (models->empty())
    {
        return r.Fail("", "no tensors");
    }
    return true;
}

std::vector<TalbDnnModel>
TalbModelFile::Read(const std::string& path)
{
    std::vector<TalbDnnModel> models;
    std::string error;
    if (!TryRead(path, &models, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return models;
}

bool
TalbModelFile::TryRead(const std::string& path,
                       const std::string& model,
                       TalbDnnModel* out,
                       std::string* error)
{
    std::vector<TalbDnnModel> models;
    if (!TryRead(path, &models, error))
    {
        return false;
    }
    std::string names;
    for (auto& m : models)
    {
        if (m.GetName() == model)
        {
            *out = m;
            return true;
        }
        names += (names.empty() ? "" : ", ") + m.GetName();
    }
    *error = path + ": no model '" + model + "' (the file has: " + names + ")";
    return false;
}

TalbDnnModel
TalbModelFile::Read(const std::string& path, const std::string& model)
{
    TalbDnnModel m;
    std::string error;
    if (!TryRead(path, model, &m, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return m;
}

void
TalbModelFile::Write(const std::string& path, const std::vector<TalbDnnModel>& models)
{
    std::ofstream out(path);
    NS_ABORT_MSG_UNLESS(out, "cannot write model file " << path);
    out << MAGIC << "\n";
    for (std::size_t c = 0; c < std::size(COLUMNS); ++c)
    {
        out << (c ? "," : "") << COLUMNS[c];
    }
    out << "\n";
    for (const auto& m : models)
    {
        for (uint32_t i = 0; i < m.GetNTensors(); ++i)
        {
            const TalbTensorSpec& t = m.GetTensor(i);
            for (const std::string* s : {&m.GetName(), &t.name, &t.kind, &t.shape, &t.layer})
            {
                NS_ABORT_MSG_IF(s->find_first_of(",\n") != std::string::npos,
                                "model file " << path << ": '" << *s << "' contains a comma");
            }
            out << m.GetName() << "," << t.name << "," << t.kind << "," << t.shape << ","
                << t.params << "," << t.fwdFlopsPerSample << "," << t.layer << ",";
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

} // namespace ns3
