#include "talb-lb-core-eecmp.h"

namespace talb
{
namespace lb
{

const SettingTable<Ecmp::Config>&
EEcmp::Settings()
{
    static const SettingTable<Config> kTable("eecmp", Ecmp::Settings());
    return kTable;
}

uint32_t
EEcmp::Hash(const PacketInfo& packet)
{
    // Mixed in before the salt, as a switch ASIC adds the field to the hash key.
    return packet.goBackN ? Mix32(packet.flowHash ^ Mix32(packet.roceDstQp + 0x7f4a7c15u))
                          : packet.flowHash;
}

uint32_t
EEcmp::DoSelect(const PacketInfo& packet, const Candidates& candidates)
{
    return candidates.ports[Mix32(Hash(packet) ^ Salt()) % candidates.count];
}

} // namespace lb
} // namespace talb
