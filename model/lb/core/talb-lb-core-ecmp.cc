#include "talb-lb-core-ecmp.h"

namespace talb
{
namespace lb
{

const SettingTable<Ecmp::Config>&
Ecmp::Settings()
{
    // The switch derives its salt from --switch-id (no flag).
    static constexpr Setting<Config> kRows[] = {
        {"Salt",
         nullptr,
         UnsignedField<&Config::salt>(),
         0,
         UINT32_MAX,
         "Per-switch hash salt; 0 derives one from the switch's node id and the RNG seed and "
         "run"},
    };
    static const SettingTable<Config> kTable("ecmp", kRows);
    return kTable;
}

void
Ecmp::Configure(const Config& config)
{
    // Two switches with the same salt would map a flow to the same port index at every hop
    // (hash polarisation); the switch id decorrelates them. The run varies the collisions from
    // one experiment to the next (Mix32(0) = 0: run 0 keeps the switch-id salt).
    m_salt = config.salt ? config.salt
                         : Mix32(config.switchId + 0x9e3779b9u) ^ Mix32(config.run * 0x27d4eb2fu);
}

uint32_t
Ecmp::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    return candidates.ports[Mix32(packet.flowHash ^ m_salt) % candidates.count];
}

} // namespace lb
} // namespace talb
