#ifndef TALB_LB_CORE_PRESTO_H
#define TALB_LB_CORE_PRESTO_H

#include "talb-lb-core-settings.h"
#include "talb-lb-core.h"

#include <cstdint>
#include <vector>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * Presto (He et al., SIGCOMM 2015): a flow is cut into flowcells of at most `flowcellBytes`
 * bytes at the network edge, and successive flowcells go round-robin over the candidate paths.
 *
 * A packet joins the flow's current flowcell when the cell still has room for it, else it
 * starts the next cell (packets are never split: a cell holds at least one packet). Cell k of
 * a flow goes to candidate (offset + k) mod count, where the offset is a salted hash of the
 * flow, so that flows do not move over the paths in lockstep. Presto is oblivious to load: it
 * never reads the port view and never draws a random number.
 *
 * Flow state lives in a fixed-size, direct-mapped table (one slot per hash bucket, owner
 * checked, as the flowlet table): a colliding flow evicts the slot's owner, and an evicted flow
 * restarts at cell 0 when it returns. A flow whose table entry has been idle for longer than
 * `idleNs` restarts at cell 0 too, so its next message starts with a full cell.
 */
class Presto : public Policy
{
  public:
    struct Config
    {
        uint32_t flowcellBytes{65536}; ///< bytes per flowcell, >= 1
        uint32_t tableSize{4096};      ///< flow slots, a power of two in 1..2^24
        int64_t idleNs{10000000};      ///< idle time after which a flow restarts, >= 1
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /// \return the settings of Config: its ns-3 attributes and the switch's flags
    static const SettingTable<Config>& Settings();

    /// Sizes the table (the only allocation). \return false when Check() fails
    bool Configure(const Config& config);

    /// \return the flowcell index the flow \p flowHash is in (0 when unknown)
    uint32_t CellOf(uint32_t flowHash) const;

    /// \return the per-flow round-robin start offset of \p flowHash (before "mod count")
    static uint32_t Offset(uint32_t flowHash)
    {
        return Mix32(flowHash ^ 0x9e3779b9u);
    }

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;

    /// One flow's position in its flowcell sequence.
    struct Entry
    {
        uint32_t flowHash{0};  ///< owner flow
        uint32_t cell{0};      ///< index of the current flowcell
        uint32_t cellBytes{0}; ///< bytes already in the current flowcell
        uint32_t port{0};      ///< port of the current flowcell
        int64_t lastSeenNs{0}; ///< time of the flow's last packet
        bool valid{false};     ///< the slot holds a flow
    };

    Entry& Slot(uint32_t flowHash)
    {
        return m_entries[Mix32(flowHash ^ 0x27d4eb2fu) & m_mask];
    }

    Config m_config;
    std::vector<Entry> m_entries;
    uint32_t m_mask{0};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_PRESTO_H */
