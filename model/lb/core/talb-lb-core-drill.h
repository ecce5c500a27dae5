#ifndef TALB_LB_CORE_DRILL_H
#define TALB_LB_CORE_DRILL_H

#include "talb-lb-core-settings.h"
#include "talb-lb-core.h"

#include <array>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * DRILL: per packet, sample `samples` random candidates plus the `memory` least-loaded ports
 * remembered from the previous decision, and send on the one with the fewest queued bytes.
 *
 * One memory per switch, as DRILL keeps one per forwarding engine; a remembered port that is not
 * a candidate for the current packet (other destination, failed link) is skipped. Among equal
 * queues the earliest considered wins: remembered ports first, then samples in draw order.
 */
class Drill : public Policy
{
  public:
    static constexpr uint32_t kMaxSamples = 16; ///< bound of Config::samples
    static constexpr uint32_t kMaxMemory = 8;   ///< bound of Config::memory

    struct Config
    {
        uint32_t samples{2}; ///< random candidates per packet (d), 1..kMaxSamples
        uint32_t memory{1};  ///< least-loaded ports remembered (m), 0..kMaxMemory
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /// \return the settings of Config: its ns-3 attributes and the switch's flags
    static const SettingTable<Config>& Settings();

    /// \return false when Check() fails
    bool Configure(const Config& config);

    /**
     * Changes samples and memory of a running policy; the ports remembered so far stay until
     * the next decision.
     * \return false (and no change) when \p config fails Check()
     */
    bool Retune(const Config& config);

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    Config m_config;
    std::array<uint32_t, kMaxMemory> m_remembered{}; ///< remembered port ids
    uint32_t m_nRemembered{0};                       ///< valid entries of m_remembered
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_DRILL_H */
