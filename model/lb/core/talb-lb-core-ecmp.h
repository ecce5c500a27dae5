#ifndef TALB_LB_CORE_ECMP_H
#define TALB_LB_CORE_ECMP_H

#include "talb-lb-core-settings.h"
#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

/// ECMP: a flow's hash, salted per switch, picks its port; load never moves it.
class Ecmp : public Policy
{
  public:
    struct Config
    {
        uint32_t salt{0};     ///< per-switch hash salt; 0 derives one from switchId and run
        uint32_t switchId{0}; ///< the switch's id, for the derived salt
        /// The experiment's random run, for the derived salt: runs differ in which flows
        /// collide, as hardware switches differ in their hash seeds. 0: switchId alone.
        uint32_t run{0};
    };

    void Configure(const Config& config);

    /// \return the settings of Config: its ns-3 attributes and the switch's flags
    static const SettingTable<Config>& Settings();

    /// \return the salt in use
    uint32_t Salt() const
    {
        return m_salt;
    }

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    uint32_t m_salt{0};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_ECMP_H */
