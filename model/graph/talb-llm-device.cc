#include "talb-llm-device.h"

#include <cmath>

namespace talb
{
namespace graph
{

namespace
{

/**
 * Dense rates: NVIDIA's datasheets quote tensor-core rates "with sparsity", twice the dense
 * ones. A100 SXM4 80GB (A100 datasheet); H100 SXM5 (H100 datasheet and Hopper architecture
 * whitepaper: 989.4 / 1978.9 dense TFLOPS at the boost clock); H200 SXM (H200 datasheet: the
 * same GH100 rates, faster HBM3e); B200 as in an HGX B200 at 1,000 W (HGX B200 datasheet:
 * 4.5 / 9 PFLOPS BF16 / FP8 with sparsity per GPU, 7.7 TB/s).
 */
const LlmDevice kDevices[] = {
    {"a100-sxm", 312e12, 0, 2.039e12},
    {"h100-sxm", 989.4e12, 1978.9e12, 3.35e12},
    {"h200-sxm", 989.4e12, 1978.9e12, 4.8e12},
    {"b200", 2250e12, 4500e12, 7.7e12},
};

std::string
ValidDeviceNames()
{
    std::string valid;
    for (const LlmDevice& d : kDevices)
    {
        valid += (valid.empty() ? "" : ", ") + d.name;
    }
    return valid;
}

uint64_t
RoundNs(double seconds)
{
    return static_cast<uint64_t>(std::llround(seconds * 1e9));
}

} // namespace

const char*
LlmPrecisionName(LlmPrecision precision)
{
    return precision == LlmPrecision::kFp8 ? "fp8" : "bf16";
}

bool
LlmPrecisionFromName(const std::string& name, LlmPrecision* precision, std::string* error)
{
    if (name == "bf16" || name == "fp8")
    {
        *precision = name == "fp8" ? LlmPrecision::kFp8 : LlmPrecision::kBf16;
        return true;
    }
    if (error)
    {
        *error = "unknown precision '" + name + "' (valid: bf16, fp8)";
    }
    return false;
}

std::vector<std::string>
LlmDevicePresetNames()
{
    std::vector<std::string> names;
    for (const LlmDevice& d : kDevices)
    {
        names.push_back(d.name);
    }
    return names;
}

bool
LlmDevicePreset(const std::string& name, LlmDevice* device, std::string* error)
{
    for (const LlmDevice& d : kDevices)
    {
        if (d.name == name)
        {
            *device = d;
            return true;
        }
    }
    if (error)
    {
        *error = "unknown device '" + name + "' (valid: " + ValidDeviceNames() + ")";
    }
    return false;
}

double
LlmPeakFlops(const LlmDevice& device, LlmPrecision precision)
{
    return precision == LlmPrecision::kFp8 ? device.fp8Flops : device.bf16Flops;
}

uint64_t
LlmComputeNs(const LlmDevice& device,
             LlmPrecision precision,
             double mfu,
             uint64_t gemmFlops,
             uint64_t bf16Flops)
{
    double seconds = double(gemmFlops) / (LlmPeakFlops(device, precision) * mfu) +
                     double(bf16Flops) / (device.bf16Flops * mfu);
    return RoundNs(seconds);
}

uint64_t
LlmMemoryNs(const LlmDevice& device, uint64_t bytes)
{
    return RoundNs(double(bytes) / device.memoryBytesPerS);
}

} // namespace graph
} // namespace talb
