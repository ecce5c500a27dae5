#include "talb-model-zoo.h"

#include "ns3/fatal-error.h"

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

TalbDnnModel
TalbModelZoo::Resolve(const std::string& spec)
{
    if (Has(spec))
    {
        return Get(spec);
    }
    std::string::size_type hash = spec.rfind('#');
    if (hash != std::string::npos)
    {
        return TalbDnnModel::LoadFile(spec.substr(0, hash), spec.substr(hash + 1));
    }
    if (spec.find('/') == std::string::npos && spec.find('.') == std::string::npos)
    {
        Get(spec); // not a path either: abort with the list of zoo names
    }
    std::vector<TalbDnnModel> models = TalbDnnModel::LoadFile(spec);
    if (models.size() != 1)
    {
        NS_FATAL_ERROR(spec << " holds " << models.size() << " models: name one as PATH#MODEL");
    }
    return models[0];
}

} // namespace ns3
