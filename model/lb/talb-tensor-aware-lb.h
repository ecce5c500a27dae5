#ifndef TALB_TENSOR_AWARE_LB_H
#define TALB_TENSOR_AWARE_LB_H

#include "talb-core-lb.h"

#include "ns3/talb-lb-core-tensor-aware.h"

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
 *
 * The decision is the core's talb::lb::TensorAwareV1; the Fallback is an ns-3 balancer of its
 * own, which the core reaches through a small adapter policy.
 */
class TalbTensorAwareLb : public TalbCoreLb
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
    using TableStats = talb::lb::TensorAwareV1::TableStats;

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
    void DoCoreEvicted(uint32_t flowHash, uint32_t tensorId) override;

    /// The core's view of the Fallback balancer: chooses through DelegateSelect().
    class Fallback : public talb::lb::Policy
    {
      public:
        explicit Fallback(TalbTensorAwareLb* owner);

      private:
        uint32_t DoSelect(const talb::lb::PacketInfo& packet,
                          const talb::lb::Candidates& candidates) override;

        TalbTensorAwareLb* m_owner;
    };

    /// \return the core's Config from the attributes
    talb::lb::TensorAwareV1::Config MakeConfig() const;
    /// After an attribute changed: a running policy takes the new values (those it can take).
    void Retune();

    // Setters of the attributes that take effect at once, also after install.
    void SetHighThreshold(uint8_t threshold);
    uint8_t GetHighThreshold() const;
    void SetMoveMargin(double bytes);
    double GetMoveMargin() const;
    void SetDreWeight(double bytes);
    double GetDreWeight() const;
    void SetLoadQuantum(double bytes);
    double GetLoadQuantum() const;
    void SetIdleTimeout(Time timeout);
    Time GetIdleTimeout() const;
    void SetProbeLimit(uint32_t limit);
    uint32_t GetProbeLimit() const;

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

    talb::lb::TensorAwareV1 m_core; //!< the decision
    Fallback m_fallbackPolicy;      //!< m_fallback as the core sees it
    Ptr<TalbLoadBalancer> m_fallback;
    TracedCallback<uint32_t, uint32_t> m_evictTrace;
};

} // namespace ns3

#endif /* TALB_TENSOR_AWARE_LB_H */
