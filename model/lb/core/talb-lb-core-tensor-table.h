#ifndef TALB_LB_CORE_TENSOR_TABLE_H
#define TALB_LB_CORE_TENSOR_TABLE_H

#include <cstdint>
#include <vector>

namespace talb
{
namespace lb
{

/**
 * Tensor table statistics of the TaLB policies. Identity: inserted = freedOnLast + agedOut +
 * evicted + held, where held entries are still in the table (live, or idle and not yet
 * reclaimed).
 */
struct TensorTableStats
{
    uint64_t nInserted{0};          ///< entries created
    uint64_t nFreedOnLast{0};       ///< entries freed by a LAST packet
    uint64_t nAgedOut{0};           ///< idle entries reclaimed
    uint64_t nEvicted{0};           ///< live entries evicted for lack of space
    uint64_t nMidTensorMoves{0};    ///< tensors moved mid-tensor (v1: high priority only)
    uint64_t nCongestionMoves{0};   ///< v2: of those, by the congestion rule (slow, saturated)
    uint64_t nFallback{0};          ///< unlabelled packets handed to the fallback
    uint64_t nGoBackNFallback{0};   ///< of which go-back-N data, to the go-back-N fallback
    uint64_t nBoundaryMoves{0};     ///< v2: flows moved at a tensor boundary or after a pause
    uint64_t nReorderHeld{0};       ///< v2: moves not taken because they could reorder too much
    uint64_t nUndrainedHeld{0};     ///< v2: moves of safe-move flows held until the old path drains
    uint64_t nStallMoves{0};        ///< v2: tensors that left their port after a stall
    uint64_t nSprayed{0};           ///< v2: tagged packets spread over the ports (Spray)
    uint64_t nCrowdSprayed{0};      ///< v2: of those, by Spray=Crowded's crowd test alone
    uint64_t nSlotOverflows{0};     ///< v2: a flow took the port slot of another live flow
    uint64_t nRetransmitsSpread{0}; ///< v2: TCP retransmissions sent to the least queued port

    /**
     * Calls \p f(name, value) for every counter, always in this order. The names (snake_case)
     * are the testbed switch's stats line and run.json's "lb_counters" keys, defined here once.
     */
    template <typename F>
    void ForEach(F&& f) const
    {
        f("inserted", nInserted);
        f("freed_on_last", nFreedOnLast);
        f("aged_out", nAgedOut);
        f("evicted", nEvicted);
        f("mid_tensor_moves", nMidTensorMoves);
        f("congestion_moves", nCongestionMoves);
        f("boundary_moves", nBoundaryMoves);
        f("reorder_held", nReorderHeld);
        f("undrained_held", nUndrainedHeld);
        f("stall_moves", nStallMoves);
        f("sprayed", nSprayed);
        f("crowd_sprayed", nCrowdSprayed);
        f("fallback", nFallback);
        f("gobackn_fallback", nGoBackNFallback);
        f("slot_overflows", nSlotOverflows);
        f("retransmits_spread", nRetransmitsSpread);
    }
};

/**
 * \ingroup talb-lb
 * The TaLB policies' tensor table: one entry per (flow hash, tensor id) holding the tensor's
 * port, in tableSize slots allocated once. A key probes probeLimit consecutive slots; when all
 * hold live entries the least recently used one is evicted. An entry idle longer than
 * idleTimeoutNs is no longer live and its slot is reclaimed when a key needs it.
 */
class TensorTable
{
  public:
    /// One tensor.
    struct Entry
    {
        uint32_t flowHash{0};
        uint32_t tensorId{0};
        uint32_t port{0};
        int64_t lastSeenNs{0};
        int64_t lastMoveNs{0};  ///< when the tensor last took a port (v2's move interval)
        int64_t paceNs{0};      ///< v2's pace windows: the flow's inter-packet gap estimate
        uint32_t tcpHighEnd{0}; ///< v2: the highest TCP sequence end seen (0: none yet)
        bool valid{false};
    };

    /// \return nullptr when the sizes are usable, else what is wrong with them
    static const char* Check(uint32_t tableSize, uint32_t probeLimit, int64_t idleTimeoutNs);

    /// Sizes the table (the only allocation), all slots free.
    void Configure(uint32_t tableSize, uint32_t probeLimit, int64_t idleTimeoutNs);

    /// Changes the probe limit and idle timeout of a running table (size fixed).
    void Retune(uint32_t probeLimit, int64_t idleTimeoutNs);

    uint32_t Size() const
    {
        return static_cast<uint32_t>(m_slots.size());
    }

    bool IsLive(const Entry& e, int64_t nowNs) const
    {
        return e.valid && nowNs - e.lastSeenNs <= m_idleTimeoutNs;
    }

    /// \return the live entry of the key, or nullptr; \p freeSlot gets a slot to insert into
    Entry* Lookup(uint32_t flowHash, uint32_t tensorId, int64_t nowNs, Entry** freeSlot);

    /**
     * Takes \p slot (from Lookup()) for the key, counting the insertion and what it reclaims.
     * \return true when a live entry was evicted; \p evicted then holds it as it was
     */
    bool Insert(Entry* slot,
                uint32_t flowHash,
                uint32_t tensorId,
                int64_t nowNs,
                TensorTableStats& stats,
                Entry* evicted);

    /// \return the number of live entries at \p nowNs (O(tableSize): for tests and reports)
    uint32_t LiveEntries(int64_t nowNs) const;
    /// \return the number of entries held, live or idle (O(tableSize))
    uint32_t HeldEntries() const;

  private:
    std::vector<Entry> m_slots;
    uint32_t m_probeLimit{0};   ///< set by Configure()
    int64_t m_idleTimeoutNs{0}; ///< set by Configure()
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_TENSOR_TABLE_H */
