#include "talb-model-zoo.h"

#include "talb-model-file.h"

#include "ns3/fatal-error.h"

#include <sys/stat.h>

namespace ns3
{

std::vector<std::string>
TalbModelZoo::GetNames()
{
    std::size_t n = 0;
    const Row* rows = GetRows(&n);
    std::vector<std::string> names;
    for (std::size_t i = 0; i < n; ++i)
    {
        if (names.empty() || names.back() != rows[i].model)
        {
            names.emplace_back(rows[i].model);
        }
    }
    return names;
}

bool
TalbModelZoo::Has(const std::string& name)
{
    for (const auto& n : GetNames())
    {
        if (n == name)
        {
            return true;
        }
    }
    return false;
}

TalbDnnModel
TalbModelZoo::Get(const std::string& name)
{
    std::size_t n = 0;
    const Row* rows = GetRows(&n);
    TalbDnnModel model(name);
    for (std::size_t i = 0; i < n; ++i)
    {
        if (name == rows[i].model)
        {
            TalbTensorSpec t;
            t.name = rows[i].tensor;
            t.kind = rows[i].kind;
            t.shape = rows[i].shape;
            t.params = rows[i].params;
            t.fwdFlopsPerSample = rows[i].fwdFlopsPerSample;
            t.layer = rows[i].layer;
            model.AddTensor(t);
        }
    }
    if (model.GetNTensors() == 0)
    {
        std::string names;
        for (const auto& m : GetNames())
        {
            names += (names.empty() ? "" : ", ") + m;
        }
        NS_FATAL_ERROR("no model '" << name << "' in the zoo; valid names: " << names
                                    << " (or a model file path)");
    }
    return model;
}

bool
TalbModelZoo::TryResolve(const std::string& spec, TalbDnnModel* model, std::string* error)
{
    if (Has(spec))
    {
        *model = Get(spec);
        return true;
    }
    std::string::size_type hash = spec.rfind('#');
    std::string path = spec.substr(0, hash);
    struct stat st;
    if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
    {
        std::string names;
        for (const auto& n : GetNames())
        {
            names += (names.empty() ? "" : " ") + n;
        }
        *error = "model '" + spec + "' is neither a zoo model (" + names + ") nor a model file";
        return false;
    }
    if (hash != std::string::npos)
    {
        return TalbModelFile::TryRead(path, spec.substr(hash + 1), model, error);
    }
    std::vector<TalbDnnModel> models;
    if (!TalbModelFile::TryRead(path, &models, error))
    {
        return false;
    }
    if (models.size() != 1)
    {
        *error =
            path + ": holds " + std::to_string(models.size()) + " models: name one as PATH#MODEL";
        return false;
    }
    *model = models[0];
    return true;
}

TalbDnnModel
TalbModelZoo::Resolve(const std::string& spec)
{
    TalbDnnModel model;
    std::string error;
    if (!TryResolve(spec, &model, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return model;
}

} // namespace ns3
