#include "talb-astra-sim-workload.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-wire.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

namespace ns3
{

namespace
{

// The 12 fields of an ASTRA-sim 1.0 layer line.
const char* const FIELDS[] = {"layer name",
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

/**
 * Tokens by line, blank lines skipped: ASTRA-sim 1.0 reads the file as whitespace-separated
 * words, but a layer is always one line, which lets errors name it.
 */
struct Reader
{
    std::string path;
    std::ifstream in;
    std::string line;
    uint32_t lineNo{0};
    std::string* error;

    bool Fail(const std::string& field, const std::string& message)
    {
        *error = TalbParse::ErrorAt(path, lineNo, field, message);
        return false;
    }

    bool NextLine(std::vector<std::string>* words)
    {
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
    }
};

/// One layer line: one tensor of DATA parallelism.
bool
ReadLayer(Reader& r,
          const std::vector<std::string>& words,
          Time cycle,
          uint32_t bytesPerElement,
          TalbTensorSpec* t)
{
    if (words.size() != std::size(FIELDS))
    {
        return r.Fail("",
                      std::to_string(words.size()) + " fields, a layer line has " +
                          std::to_string(std::size(FIELDS)));
    }
    uint64_t value[12] = {0};
    for (uint32_t f : {2u, 4u, 5u, 7u, 8u, 10u, 11u})
    {
        if (!TalbParse::ParseUint(words[f], &value[f], 0, std::numeric_limits<int64_t>::max()))
        {
            return r.Fail(FIELDS[f], "'" + words[f] + "' is not a non-negative integer");
        }
    }
    // Times must fit ns-3's 64-bit time: compute-time fields (and the backward sum) in cycles.
    const uint64_t maxCycles = std::numeric_limits<int64_t>::max() / cycle.GetTimeStep();
    for (uint32_t f : {2u, 5u, 8u})
    {
        if (value[f] > maxCycles || (f == 8 && value[5] + value[8] > maxCycles))
        {
            return r.Fail(FIELDS[f],
                          "'" + words[f] + "' cycles of " + std::to_string(cycle.GetNanoSeconds()) +
                              " ns: the compute time (" + (f == 2 ? "forward" : "backward") +
                              ") exceeds ns-3's largest time, " + std::to_string(maxCycles) +
                              " cycles");
        }
    }
    for (uint32_t f : {3u, 6u})
    {
        if (words[f] != "NONE")
        {
            return r.Fail(FIELDS[f],
                          "'" + words[f] +
                              "': DATA parallelism communicates weight gradients only (expected "
                              "NONE)");
        }
    }
    if (words[9] != "ALLREDUCE")
    {
        return r.Fail(FIELDS[9], "'" + words[9] + "': expected ALLREDUCE");
    }
    if (value[10] == 0 || value[10] % bytesPerElement != 0)
    {
        return r.Fail(FIELDS[10],
                      "'" + words[10] + "' is not a positive multiple of " +
                          std::to_string(bytesPerElement) + " bytes per element");
    }
    t->name = words[0];
    t->layer = words[0];
    t->kind = "astra";
    t->params = value[10] / bytesPerElement;
    t->fwdTimeNs = (cycle * int64_t(value[2])).GetNanoSeconds();
    t->bwdTimeNs = (cycle * int64_t(value[5] + value[8])).GetNanoSeconds();
    return true;
}

/// \p t in whole cycles, rounded to the nearest (in integers: exact for any time).
int64_t
InCycles(Time t, Time cycle)
{
    int64_t ticks = t.GetTimeStep();
    int64_t step = cycle.GetTimeStep();
    return ticks / step + (ticks % step >= step - step / 2 ? 1 : 0);
}

} // namespace

bool
TalbAstraSimWorkload::TryRead(const std::string& path,
                              Time cycle,
                              uint32_t bytesPerElement,
                              const std::string& name,
                              TalbDnnModel* model,
                              std::string* error)
{
    Reader r{path, std::ifstream(path), "", 0, error};
    if (!cycle.IsStrictlyPositive() || bytesPerElement == 0)
    {
        return r.Fail("", "cycle time and bytes per element must be positive");
    }
    if (!r.in)
    {
        return r.Fail("", "cannot open the ASTRA-sim workload file");
    }
    std::vector<std::string> words;
    if (!r.NextLine(&words))
    {
        r.lineNo = std::max<uint32_t>(r.lineNo, 1); // an empty file's error names its line 1
        return r.Fail("parallelism", "empty file");
    }
    if (words.size() != 1 || words[0] != "DATA")
    {
        return r.Fail("parallelism",
                      "'" + r.line + "': only DATA (pure data parallelism) is supported");
    }
    if (!r.NextLine(&words))
    {
        return r.Fail("layers", "missing layer count");
    }
    uint64_t nLayers = 0;
    if (words.size() != 1 || !TalbParse::ParseUint(words[0], &nLayers, 1, TALB_TENSOR_INDEX_MASK))
    {
        return r.Fail("layers", "'" + r.line + "' is not a positive integer");
    }
    TalbDnnModel m(name);
    for (uint64_t l = 0; l < nLayers; ++l)
    {
        if (!r.NextLine(&words))
        {
            return r.Fail("layers",
                          "the file declares " + std::to_string(nLayers) + " layers but has " +
                              std::to_string(l));
        }
        TalbTensorSpec t;
        if (!ReadLayer(r, words, cycle, bytesPerElement, &t))
        {
            return false;
        }
        if (m.HasTensor(t.name))
        {
            return r.Fail(FIELDS[0], "'" + t.name + "' appears twice");
        }
        m.AddTensor(t);
    }
    if (r.NextLine(&words))
    {
        return r.Fail("layers", "more layer lines than the declared count");
    }
    *model = m;
    return true;
}

TalbDnnModel
TalbAstraSimWorkload::Read(const std::string& path,
                           Time cycle,
                           uint32_t bytesPerElement,
                           const std::string& name)
{
    TalbDnnModel model;
    std::string error;
    if (!TryRead(path, cycle, bytesPerElement, name, &model, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return model;
}

void
TalbAstraSimWorkload::Write(const TalbDnnModel& model,
                            const std::string& path,
                            Time cycle,
                            uint32_t bytesPerElement,
                            const TalbComputeModel& compute)
{
    NS_ABORT_MSG_UNLESS(cycle.IsStrictlyPositive(),
                        "TalbAstraSimWorkload::Write: cycle must be positive");
    std::ofstream out(path);
    NS_ABORT_MSG_UNLESS(out, "cannot write ASTRA-sim workload " << path);
    out << "DATA\n" << model.GetNTensors() << "\n";
    for (uint32_t i = 0; i < model.GetNTensors(); ++i)
    {
        const TalbTensorSpec& t = model.GetTensor(i);
        int64_t fwd = InCycles(model.GetForwardTime(i, compute), cycle);
        int64_t bwd = InCycles(model.GetBackwardTime(i, compute), cycle);
        out << t.name << " -1 " << fwd << " NONE 0 " << (bwd - bwd / 2) << " NONE 0 " << bwd / 2
            << " ALLREDUCE " << talb_gradient_bytes(t.params, bytesPerElement) << " 0\n";
    }
    NS_ABORT_MSG_UNLESS(out.flush(), "error writing ASTRA-sim workload " << path);
}

} // namespace ns3
