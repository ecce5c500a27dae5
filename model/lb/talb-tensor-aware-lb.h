#ifndef TALB_TENSOR_AWARE_LB_H
#define TALB_TENSOR_AWARE_LB_H

#include "talb-load-balancer.h"

#include "ns3/random-variable-stream.h"
#include "ns3/talb-dre.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief TaLB: tensor-aware path selection (this project's specification of the TaLB abstract;
 * doc/talb-switch.rst, "TaLB -- this project's design").
 *
 * For a tagged packet, the tensor table (keyed by flow hash + tensor id) holds the tensor's port:
 * - known tensor: it stays on its port (tensor integrity), except that a high-priority tensor
 *   (priority < HighPriorityThreshold) moves mid-tensor when its port's cost exceeds the best
 *   candidate's by more than MoveMargin; low-priority tensors never move mid-tensor (unless
 *   their port left the candidate set after a failure);
 * - first packet (or aged-out entry): high priority takes the least-cost port; low priority
 *   takes the port with the least high-priority load (quantised by LoadQuantum), ties by cost,
 *   then at random.
 * Cost = queued bytes of the port + DreWeight x its DRE utilisation. High-priority load is a DRE
 * of the high-priority bytes this switch sent on each port. An entry is freed by the LAST flag or
 * when idle longer than IdleTimeout. Untagged packets go to the Fallback policy: a load balancer
 * whose CanBeFallback() is true.
 *
 * The table has TableSize slots and no allocation after install: a key probes ProbeLimit
 * consecutive slots; when all hold live entries the least recently used one is evicted
 * (TableEvict trace).
 */
class TalbTensorAwareLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbTensorAwareLb();
    ~TalbTensorAwareLb() override;

    int64_t AssignStreams(int64_t stream) override;
    bool CanBeFallback() const override;

    /**
     * Tensor table statistics. Identity: inserted = freedOnLast + agedOut + evicted + held,
     * where held entries are still in the table (live, or idle and not yet reclaimed).
     */
    struct TableStats
    {
        uint64_t nInserted{0};       //!< entries created
        uint64_t nFreedOnLast{0};    //!< entries freed by a LAST packet
        uint64_t nAgedOut{0};        //!< idle entries reclaimed
        uint64_t nEvicted{0};        //!< live entries evicted for lack of space
        uint64_t nMidTensorMoves{0}; //!< high-priority tensors moved mid-tensor
        uint64_t nFallback{0};       //!< untagged packets handed to the fallback
    };

    const TableStats& GetTableStats() const;

    /// \return the number of live entries at \p now (O(TableSize): for tests and reports)
    uint32_t GetLiveEntries(Time now) const;
    /// \return the number of entries held, live or idle (O(TableSize))
    uint32_t GetHeldEntries() const;

    /**
     * TracedCallback signature for evictions.
     * \param flowHash the evicted entry's flow hash
     * \param tensorId its tensor id
     */
    typedef void (*TableEvictTracedCallback)(uint32_t flowHash, uint32_t tensorId);

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// One tensor.
    struct Entry
    {
        uint32_t flowHash{0};
        uint32_t tensorId{0};
        uint32_t port{0};
        Time lastSeen;
        bool valid{false};
    };

    bool IsLive(const Entry& e, Time now) const;
    /// \return the live entry of the key, or nullptr; \p freeSlot gets a slot to insert into
    Entry* Lookup(uint32_t flowHash, uint32_t tensorId, Time now, Entry** freeSlot);
    uint32_t LeastCostPort(const TalbCandidates& candidates, Time now);
    uint32_t LeastHighPriorityLoadPort(const TalbCandidates& candidates, Time now);

    uint8_t m_highThreshold;    //!< HighPriorityThreshold attribute
    double m_moveMargin;        //!< MoveMargin attribute (bytes)
    double m_dreWeight;         //!< DreWeight attribute (bytes)
    double m_loadQuantum;       //!< LoadQuantum attribute (bytes)
    Time m_idleTimeout;         //!< IdleTimeout attribute
    uint32_t m_tableSize;       //!< TableSize attribute
    uint32_t m_probeLimit;      //!< ProbeLimit attribute
    std::string m_fallbackName; //!< Fallback attribute
    Time m_dreInterval;         //!< DreInterval attribute
    double m_dreAlpha;          //!< DreAlpha attribute

    std::vector<Entry> m_table;
    std::vector<TalbDre> m_highLoad; //!< per port: high-priority bytes sent, decayed
    Ptr<TalbLoadBalancer> m_fallback;
    Ptr<UniformRandomVariable> m_rng;
    TableStats m_tableStats;
    TracedCallback<uint32_t, uint32_t> m_evictTrace;
};

} // namespace ns3

#endif /* TALB_TENSOR_AWARE_LB_H */
