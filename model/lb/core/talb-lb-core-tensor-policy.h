#ifndef TALB_LB_CORE_TENSOR_POLICY_H
#define TALB_LB_CORE_TENSOR_POLICY_H

#include "talb-lb-core-tensor-table.h"
#include "talb-lb-core.h"

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * What the TaLB versions (TensorAwareV1, TensorAwareV2) share around their decisions: the
 * tensor table with its statistics, and the fallback policies that choose for unlabelled
 * packets. A version sizes m_table in its Configure() and counts in m_stats.
 *
 * Unlabelled data packets of go-back-N flows (PacketInfo::goBackN, kUntaggedMinBytes or more)
 * can have a fallback of their own: a policy that keeps a flow's packets in order (flowlets, per
 * flow), because a packet that overtakes another costs such a flow a retransmission window,
 * where a TCP flow only sees a duplicate ACK. Their ACKs, NAKs and CNPs (smaller) stay with the
 * other fallback: reordering them costs nothing.
 */
class TensorPolicy : public Policy
{
  public:
    /// Tensor table statistics (TensorTableStats: the identity it keeps).
    using TableStats = TensorTableStats;

    /// Untagged packets smaller than this (ACKs, NAKs, CNPs, handshakes) carry no data.
    static constexpr uint32_t kUntaggedMinBytes = 128;

    /**
     * \param fallback the policy for unlabelled packets (outlives this one), bound by its owner
     * \param goBackNData the policy for unlabelled go-back-N data packets (kUntaggedMinBytes or
     *        more); nullptr: \p fallback chooses for them too
     */
    void SetFallback(Policy* fallback, Policy* goBackNData = nullptr);

    const TableStats& GetTableStats() const
    {
        return m_stats;
    }

    /// \return the number of live entries at \p nowNs (O(tableSize): for tests and reports)
    uint32_t LiveEntries(int64_t nowNs) const;
    /// \return the number of entries held, live or idle (O(tableSize))
    uint32_t HeldEntries() const;

  protected:
    /// \return the choice of the unlabelled \p packet's fallback (counted: nFallback and, for
    /// go-back-N data, nGoBackNFallback)
    /// \param goBackN the packet's flow recovers by go-back-N (the version's reading of
    ///        PacketInfo::goBackN)
    uint32_t SelectFallback(const PacketInfo& packet, const Candidates& candidates, bool goBackN);
    /// \return \p e, or, when there is none and \p packet is not its tensor's LAST, a new entry
    /// in \p slot (the slot TensorTable::Lookup returned; an evicted live entry is notified)
    TensorTable::Entry* Admit(TensorTable::Entry* e,
                              TensorTable::Entry* slot,
                              const PacketInfo& packet);
    /// Records that \p packet's tensor (entry \p e, may be null) now uses \p port; frees the
    /// entry on the tensor's LAST packet.
    void Remember(TensorTable::Entry* e, const PacketInfo& packet, uint32_t port);

    TensorTable m_table;
    TableStats m_stats;

  private:
    Policy* m_fallback{nullptr};
    Policy* m_goBackNFallback{nullptr};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_TENSOR_POLICY_H */
