#ifndef TALB_LB_CORE_LETFLOW_H
#define TALB_LB_CORE_LETFLOW_H

#include "talb-lb-core-flowlet-table.h"
#include "talb-lb-core-settings.h"
#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * LetFlow: a flow keeps its port while its packets are closer than the flowlet timeout; after a
 * longer gap the next packet starts a new flowlet on a uniformly random candidate (one draw), or,
 * with Pick::kLeastQueued, on the candidate with the fewest queued bytes (ties at random): a
 * load-aware placement that still never reorders within a flowlet.
 */
class LetFlow : public Policy
{
  public:
    /// Where a new flowlet goes.
    enum class Pick : uint8_t
    {
        kRandom,      ///< a uniformly random candidate (LetFlow)
        kLeastQueued, ///< the candidate with the fewest bytes queued at this switch
    };

    struct Config
    {
        int64_t timeoutNs{500000}; ///< gap that starts a new flowlet, >= 1
        uint32_t tableSize{4096};  ///< flowlet slots, a power of two
        Pick pick{Pick::kRandom};  ///< where a new flowlet goes
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /// \return the settings of Config: its ns-3 attributes and the switch's flags
    static const SettingTable<Config>& Settings();

    /// Sizes the table (the only allocation). \return false when Check() fails
    bool Configure(const Config& config);

    /**
     * Changes the flowlet timeout of a running policy, keeping its table.
     * \return false (and no change) when \p config fails Check() or changes the table size
     */
    bool Retune(const Config& config);

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    Config m_config;
    FlowletTable m_table;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_LETFLOW_H */
