#include "talb-dnn-model.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/talb-wire.h"

#include <cmath>

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

} // namespace

bool
TalbComputeModel::HasPreset(const std::string& preset)
{
    for (const auto& p : PRESETS)
    {
        if (preset == p.name)
        {
            return true;
        }
    }
    return false;
}

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

bool
TalbDnnModel::HasTensor(const std::string& name) const
{
    for (const auto& t : m_tensors)
    {
        if (t.name == name)
        {
            return true;
        }
    }
    return false;
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

} // namespace ns3
