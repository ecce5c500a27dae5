#ifndef TALB_LB_CORE_TENSOR_AWARE_H
#define TALB_LB_CORE_TENSOR_AWARE_H

#include "talb-lb-core-dre.h"
#include "talb-lb-core-tensor-policy.h"

#include <vector>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * TaLB v1: tensor-aware path selection (this project's specification of the TaLB abstract).
 *
 * For a labelled packet, the tensor table (keyed by flow hash + tensor id) holds the tensor's
 * port:
 * - known tensor: it stays on its port (tensor integrity), except that a high-priority tensor
 *   (priority < highThreshold) moves mid-tensor when its port's cost exceeds the best
 *   candidate's by more than moveMarginBytes; low-priority tensors never move mid-tensor (unless
 *   their port left the candidate set after a failure);
 * - first packet (or aged-out entry): high priority takes the least-cost port; low priority
 *   takes the port with the least high-priority load (quantised by loadQuantumBytes), ties by
 *   cost, then at random.
 * Cost = queued bytes + dreWeightBytes x DRE utilisation (PortView::Cost). High-priority load is
 * a DRE of the high-priority bytes this switch sent on each port. An entry is freed by the LAST
 * flag or when idle longer than idleTimeoutNs. Unlabelled packets go to the fallback policy.
 *
 * The table has tableSize slots and no allocation after Configure(): a key probes probeLimit
 * consecutive slots; when all hold live entries the least recently used one is evicted.
 */
class TensorAwareV1 : public TensorPolicy
{
  public:
    struct Config
    {
        uint8_t highThreshold{4};        ///< priorities below it are high, 0..8
        double moveMarginBytes{15000};   ///< cost excess that moves a high tensor, >= 0
        double dreWeightBytes{15000};    ///< cost of a fully utilised port, >= 0
        double loadQuantumBytes{1500};   ///< high-priority loads this close are equal, >= 1
        int64_t idleTimeoutNs{10000000}; ///< an entry idle longer is aged out, >= 1
        uint32_t tableSize{4096};        ///< tensor table slots, a power of two
        uint32_t probeLimit{8};          ///< slots a key may occupy, 1..64, <= tableSize
        int64_t dreIntervalNs{20000};    ///< decay interval of the high-priority load DRE
        double dreAlpha{0.1};            ///< its decay factor per interval, (0, 1]
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /**
     * Sizes the tensor table and the per-port high-priority load (the only allocations).
     * \param nPorts the switch's port count (port ids are below it)
     * \return false when Check() fails
     */
    bool Configure(const Config& config, uint32_t nPorts);

    /**
     * Changes the parameters a running policy can take -- threshold, margin, DRE weight, load
     * quantum, idle timeout, probe limit -- keeping its tables.
     * \return false (and no change) when \p config fails Check() or changes the table size or
     * the high-priority DRE's interval or alpha
     */
    bool Retune(const Config& config);

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    uint32_t LeastCostPort(const Candidates& candidates, int64_t nowNs);
    uint32_t LeastHighPriorityLoadPort(const Candidates& candidates, int64_t nowNs);

    double Cost(uint32_t port, int64_t nowNs) const
    {
        return Ports().Cost(port, nowNs, m_config.dreWeightBytes);
    }

    Config m_config;
    std::vector<Dre> m_highLoad; ///< per port: high-priority bytes sent, decayed
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_TENSOR_AWARE_H */
