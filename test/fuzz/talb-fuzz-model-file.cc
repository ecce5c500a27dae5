/*
 * Fuzz target: the model-file reader (model/training/talb-model-file.h), the format of
 * --model=FILE and --jobs='model=FILE#NAME'.
 *
 * Invariants:
 *  - reading never aborts: malformed text gives an error "PATH:LINE: ..." with LINE within the
 *    file (1 for the version line);
 *  - an accepted file has at least one model, models with distinct names, each with at least
 *    one tensor of distinct non-empty name and at least one parameter, as many tensors in all
 *    as the file has data rows;
 *  - every model of an accepted file is found by name (TryRead(path, name)), and a name it does
 *    not have is refused with a message that lists the names it has;
 *  - an accepted file written back with Write() reads back equal, field by field.
 */
#include "talb-fuzz.h"

#include "ns3/talb-model-file.h"
#include "ns3/talb-parse.h"

#include <set>
#include <sstream>
#include <string>

namespace
{

/// Lines that are neither blank nor comments, less the version and header lines.
size_t
DataRows(const std::string& text)
{
    std::istringstream in(text);
    std::string line;
    size_t rows = 0;
    bool first = true;
    while (std::getline(in, line))
    {
        std::string t = ns3::TalbParse::Trim(line);
        if (!first && !t.empty() && t[0] != '#')
        {
            ++rows;
        }
        first = false;
    }
    return rows > 0 ? rows - 1 : 0; // the header
}

bool
SameTensor(const ns3::TalbTensorSpec& a, const ns3::TalbTensorSpec& b)
{
    return a.name == b.name && a.kind == b.kind && a.shape == b.shape && a.params == b.params &&
           a.fwdFlopsPerSample == b.fwdFlopsPerSample && a.layer == b.layer &&
           a.fwdTimeNs == b.fwdTimeNs && a.bwdTimeNs == b.bwdTimeNs;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static talb::fuzz::TempFile file(".csv");
    static talb::fuzz::TempFile copy(".csv");
    std::string text(reinterpret_cast<const char*>(data), size);
    file.Write(data, size);

    std::vector<ns3::TalbDnnModel> models;
    std::string error;
    if (!ns3::TalbModelFile::TryRead(file.Path(), &models, &error))
    {
        talb::fuzz::CheckErrorAt(error, file.Path(), text);
        return 0;
    }
    TALB_FUZZ_CHECK(!models.empty());
    std::set<std::string> names;
    size_t tensors = 0;
    for (const auto& m : models)
    {
        TALB_FUZZ_CHECK(!m.GetName().empty() && names.insert(m.GetName()).second);
        TALB_FUZZ_CHECK(m.GetNTensors() > 0);
        std::set<std::string> tensorNames;
        for (uint32_t i = 0; i < m.GetNTensors(); ++i)
        {
            const ns3::TalbTensorSpec& t = m.GetTensor(i);
            TALB_FUZZ_CHECK(!t.name.empty() && tensorNames.insert(t.name).second);
            TALB_FUZZ_CHECK(t.params > 0 && !t.layer.empty());
            TALB_FUZZ_CHECK(t.bwdTimeNs < 0 || t.fwdTimeNs >= 0);
        }
        tensors += m.GetNTensors();
    }
    TALB_FUZZ_CHECK(tensors == DataRows(text));

    for (const auto& m : models)
    {
        ns3::TalbDnnModel one;
        TALB_FUZZ_CHECK(ns3::TalbModelFile::TryRead(file.Path(), m.GetName(), &one, &error));
        TALB_FUZZ_CHECK(one.GetNTensors() == m.GetNTensors());
    }
    ns3::TalbDnnModel absent;
    std::string absentName = "no-such-model";
    while (names.count(absentName))
    {
        absentName += "-";
    }
    TALB_FUZZ_CHECK(!ns3::TalbModelFile::TryRead(file.Path(), absentName, &absent, &error));
    TALB_FUZZ_CHECK(error.find(models.front().GetName()) != std::string::npos);

    ns3::TalbModelFile::Write(copy.Path(), models);
    std::vector<ns3::TalbDnnModel> again;
    TALB_FUZZ_CHECK(ns3::TalbModelFile::TryRead(copy.Path(), &again, &error));
    TALB_FUZZ_CHECK(again.size() == models.size());
    for (size_t m = 0; m < models.size(); ++m)
    {
        TALB_FUZZ_CHECK(again[m].GetName() == models[m].GetName());
        TALB_FUZZ_CHECK(again[m].GetNTensors() == models[m].GetNTensors());
        TALB_FUZZ_CHECK(again[m].GetNLayers() == models[m].GetNLayers());
        for (uint32_t i = 0; i < models[m].GetNTensors(); ++i)
        {
            TALB_FUZZ_CHECK(SameTensor(again[m].GetTensor(i), models[m].GetTensor(i)));
        }
    }
    return 0;
}
