#ifndef TALB_LB_CORE_TENSOR_AWARE_CONFIG_H
#define TALB_LB_CORE_TENSOR_AWARE_CONFIG_H

#include "talb-lb-core-settings.h"
#include "talb-lb-core-tensor-aware-v2.h"
#include "talb-lb-core-tensor-aware.h"

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * The settings of TaLB, both versions: the simulator's TalbTensorAwareLb and the testbed
 * switch's talb and talb-v1 take one set. A setting both versions have (the high-priority
 * threshold, the move margin, the idle timeout, the table size, the probe limit) sets both
 * Configs, so the version that runs sees it; its default is v2's, which v1's equals.
 */
struct TensorAwareConfig
{
    TensorAwareV2::Config v2; ///< TaLB v2 (talb)
    TensorAwareV1::Config v1; ///< TaLB v1 (talb-v1)

    /// \return the settings of both versions: ns-3 attributes and switch flags
    static const SettingTable<TensorAwareConfig>& Settings();
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_TENSOR_AWARE_CONFIG_H */
