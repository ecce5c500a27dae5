#ifndef TALB_LB_CORE_EECMP_H
#define TALB_LB_CORE_EECMP_H

#include "talb-lb-core-ecmp.h"

namespace talb
{
namespace lb
{

/**
 * Enhanced ECMP (Meta, "RDMA over Ethernet for Distributed AI Training at Meta Scale", SIGCOMM
 * 2024): ECMP whose hash also covers a RoCEv2 packet's BTH destination queue pair, so the queue
 * pairs of one connection (same 5-tuple when the NIC's source port is per connection) take
 * different ports. On any other packet it is Ecmp: same salt, same port.
 */
class EEcmp : public Ecmp
{
  public:
    /// \return the settings of Config (Ecmp's, under this policy's name)
    static const SettingTable<Config>& Settings();

    /// \return the hash EEcmp salts: \p packet's flow hash, with its destination QP on RoCEv2
    static uint32_t Hash(const PacketInfo& packet);

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_EECMP_H */
