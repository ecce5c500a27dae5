#ifndef TALB_LLM_DEVICE_H
#define TALB_LLM_DEVICE_H

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * Accelerator presets of the LLM workload generator and its compute-time model: a node's time is
 * its FLOPs over the device's peak dense tensor rate times a model-FLOPs-utilisation factor.
 */

namespace talb
{
namespace graph
{

/// The arithmetic the linear layers run in.
enum class LlmPrecision : uint8_t
{
    kBf16,
    kFp8, ///< linear layers in FP8 (Transformer Engine); attention scores stay in BF16
};

/// \return "bf16" or "fp8"
const char* LlmPrecisionName(LlmPrecision precision);

/// \return false, with \p error listing the valid names, unless \p name is "bf16" or "fp8"
bool LlmPrecisionFromName(const std::string& name, LlmPrecision* precision, std::string* error);

/**
 * An accelerator: its peak dense (not 2:4-sparse) tensor-core rates and memory bandwidth, as
 * the vendor's datasheet gives them (doc/talb-generator.rst lists the sources).
 */
struct LlmDevice
{
    std::string name;
    double bf16Flops{0};       ///< FLOP/s, dense BF16 tensor core
    double fp8Flops{0};        ///< FLOP/s, dense FP8 tensor core; 0: none
    double memoryBytesPerS{0}; ///< HBM bandwidth, bytes/s (the optimizer step's time)
};

/// \return the preset names: a100-sxm, h100-sxm, h200-sxm, b200
std::vector<std::string> LlmDevicePresetNames();

/// \return false, with \p error listing the valid names, unless \p name is a preset
bool LlmDevicePreset(const std::string& name, LlmDevice* device, std::string* error);

/// \return the device's peak rate for linear layers in \p precision (FLOP/s)
double LlmPeakFlops(const LlmDevice& device, LlmPrecision precision);

/**
 * \return the time in ns of \p gemmFlops of linear layers in \p precision and \p bf16Flops
 * of BF16-only work (attention scores), at \p mfu of the peak rates, rounded to the nearest ns
 */
uint64_t LlmComputeNs(const LlmDevice& device,
                      LlmPrecision precision,
                      double mfu,
                      uint64_t gemmFlops,
                      uint64_t bf16Flops);

/// \return the time in ns to move \p bytes through the device's memory at its peak bandwidth
uint64_t LlmMemoryNs(const LlmDevice& device, uint64_t bytes);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_DEVICE_H */
