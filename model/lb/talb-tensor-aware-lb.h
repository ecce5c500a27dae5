#ifndef TALB_TENSOR_AWARE_LB_H
#define TALB_TENSOR_AWARE_LB_H

#include "talb-conweave-lb.h"
#include "talb-core-policy-lb.h"
#include "talb-path-feedback.h"

#include "ns3/talb-lb-core-tensor-aware-config.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief TaLB: tensor-aware path selection (this project's specification of the TaLB abstract;
 * doc/talb-switch.rst, "TaLB -- this project's design").
 *
 * Version selects the decision:
 * - 2 (default): talb::lb::TensorAwareV2. A tensor is placed by what delays it: the other active
 *   tensor flows on each port with its priority or a more urgent one, then all of them, then
 *   the bytes queued in its band and the more urgent ones (untagged traffic there included),
 *   each scaled by the port's rate relative to the fastest candidate. A flow stays on its port
 *   on ties; any tensor moves, at a boundary or after a pause when a port is strictly less
 *   shared, mid-tensor at most once per MinMoveInterval also when its queue is worse by the
 *   class's margin (MoveMargin below HighPriorityThreshold, LowMoveMargin above), and only when
 *   the move reorders at most MaxReorder bytes -- except SafeMoves flows (RoCEv2 by default),
 *   which move only once their old path has drained, plus SafeMoveSlack (by default not while
 *   an untagged flow is active on a candidate port: SafeMoves=GoBackNUnlessUntagged). A flow
 *   counts on its port for ActiveWindow after its last packet (ActiveWindowMode=Fixed, the
 *   default) or, with ActiveWindowMode=Pace, for PaceFactor x its own gap between packets,
 *   within [ActiveWindow, MaxActiveWindow].
 * - 1: talb::lb::TensorAwareV1, the first design: a known tensor stays on its port except that
 *   a high-priority one moves when its port's cost (queued bytes + DreWeight x DRE utilisation)
 *   exceeds the best by MoveMargin; a new high tensor takes the least-cost port, a new low one
 *   the least high-priority load (quantised by LoadQuantum).
 * RemoteAwareness (v2, off by default): every switch runs CONGA's leaf-to-leaf feedback
 * (TalbPathFeedback: tag at the source leaf, max-update at the spine, learn at the destination
 * leaf, piggyback back); when the source leaf places a tensor or considers a move, an uplink
 * whose path the feedback reports saturated counts one more flow (TensorAwareV2::RemoteView).
 * In both, the tensor table (keyed by flow hash + tensor id) frees an entry on LAST or when
 * idle longer than IdleTimeout; it has TableSize slots and no allocation after install: a key
 * probes ProbeLimit consecutive slots; when all hold live entries the least recently used one is
 * evicted (TableEvict trace). Untagged packets go to the Fallback policy: a load balancer whose
 * CanBeFallback() is true, which the core reaches through a small adapter policy. Untagged RoCEv2
 * data packets (go-back-N flows: a reordering costs them a retransmission window) go to the
 * GoBackNFallback policy instead, one that keeps a flow's packets in order; it draws from this
 * selector's random stream, so it takes none of its own.
 * ReorderMoves (off by default): RoCEv2 flows' moves are hidden from the receiver by ConWeave's
 * destination-leaf reorder queue (a TalbConWeaveLb this selector owns, configured by the
 * ns3::TalbConWeaveLb attribute defaults): the source leaf tags each RoCEv2 data packet (tensor
 * flows, and untagged ones of kUntaggedMinBytes or more) with the flow's epoch and phase
 * (TalbConWeaveLb::TagChosenPath), the destination leaf holds a moved flow's packets until the
 * last one sent on its old path has arrived, then sends CLEAR; a flow that moves again before
 * its CLEAR is not hidden. With RoceGoBackN=false the core moves and sprays RoCEv2 tensor flows
 * as reorder-tolerant ones and the protocol takes only the moves it can hide, one per epoch (the
 * packet stays on the flow's path otherwise), for untagged flows' flowlet moves too. Every switch
 * must run it.
 * GoBackNFallback=conweave (opt-in): the same owned TalbConWeaveLb places the untagged RoCEv2
 * data packets with its whole protocol (an RTT probe per epoch, a move at a late reply or a
 * NOTIFY, hidden by the destination's reorder queue), as the conweave balancer places every flow;
 * tensor flows stay this selector's (hidden too with ReorderMoves).
 * RttMoves (Never by default): once this selector has placed a RoCEv2 tensor flow, the same
 * TalbConWeaveLb moves it with its whole protocol (Always), or does so only while untagged data
 * is active on a candidate port (WithUntagged; otherwise this selector's moves, hidden as with
 * ReorderMoves); the core follows each such move (talb::lb::Policy::Follow), so its flow counts
 * stay where the flows are.
 */
class TalbTensorAwareLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbTensorAwareLb();
    ~TalbTensorAwareLb() override;

    int64_t AssignStreams(int64_t stream) override;
    bool CanBeFallback() const override;
    /// The tensor table's statistics (TableStats::ForEach names) and "held" (GetHeldEntries()).
    std::vector<PolicyCounter> GetPolicyCounters() const override;

    /**
     * Tensor table statistics. Identity: inserted = freedOnLast + agedOut + evicted + held,
     * where held entries are still in the table (live, or idle and not yet reclaimed).
     */
    using TableStats = talb::lb::TensorTableStats;

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

    /// Who moves a RoCEv2 tensor flow once it is placed (RttMoves).
    enum RttMoves
    {
        RTT_NEVER,        //!< this selector's rules alone
        RTT_ALWAYS,       //!< ConWeave's RTT protocol, hidden by its reorder queue
        RTT_WITH_UNTAGGED //!< ConWeave's while untagged data is active on a candidate port
    };

    /// Where a late RTT reply moves a tensor flow (RttMoveTarget).
    enum RttMoveTarget
    {
        RTT_TARGET_CONWEAVE, //!< ConWeave's pick among the paths not paused
        RTT_TARGET_TALB      //!< this selector's placement among them
    };

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    /// DoSelectPath() for RoCEv2 tensor data this source leaf sends, with RttMoves
    uint32_t SelectRttMoved(TalbPacketContext& ctx, const TalbCandidates& candidates);
    /// Where a late RTT reply moves the flow of \p ctx (RttMoveTarget=Talb): the core's target
    uint32_t RttTarget(TalbPacketContext& ctx, const TalbCandidates& candidates);
    void DoPacketIn(TalbPacketContext& ctx) override;
    void DoPacketOut(TalbPacketContext& ctx, uint32_t port) override;
    bool CheckConfig() override;
    void InitializeParams() override;
    void DoCoreEvicted(uint32_t flowHash, uint32_t tensorId) override;
    HoldVerdict DoHold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet) override;

    /// The core's view of a fallback balancer: chooses through DelegateSelect().
    class Fallback : public talb::lb::Policy
    {
      public:
        /// \param balancer the owner's member that holds the balancer
        Fallback(TalbTensorAwareLb* owner, const Ptr<TalbLoadBalancer>* balancer);

      private:
        uint32_t DoSelect(const talb::lb::PacketInfo& packet,
                          const talb::lb::Candidates& candidates) override;

        TalbTensorAwareLb* m_owner;
        const Ptr<TalbLoadBalancer>* m_balancer;
    };

    /// v2's view of the feedback: the remote utilisation of the path behind an uplink.
    class Remote : public talb::lb::TensorAwareV2::RemoteView
    {
      public:
        explicit Remote(const TalbTensorAwareLb* owner);
        double Congestion(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const override;
        int64_t QueueDelayNs(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const override;
        bool DestinationShared(uint32_t dstLeaf, int64_t nowNs) const override;

      private:
        const TalbTensorAwareLb* m_owner;
    };

    /// \return the installed version's policy (v2's before install)
    const talb::lb::TensorPolicy& Installed() const;
    /// \return the fallback balancer named \p name, or null with ConfigError() called for
    /// \p attribute
    Ptr<TalbLoadBalancer> MakeFallback(const std::string& attribute, const std::string& name);
    /// \return v1's Config from the attributes
    talb::lb::TensorAwareV1::Config MakeV1Config() const;
    /// \return v2's Config from the attributes
    talb::lb::TensorAwareV2::Config MakeV2Config() const;
    /// \return what is wrong with the attributes for the chosen version, or nullptr
    const char* CheckCore() const;
    /// After an attribute changed: a running policy takes the new values (those it can take).
    void Retune();

    talb::lb::TensorAwareConfig m_config; //!< the core's attributes (the table's rows)
    uint32_t m_version;                   //!< Version attribute
    uint32_t m_installedVersion;          //!< the Version the installed policy runs (0: none yet)
    std::string m_fallbackName;           //!< Fallback attribute
    std::string m_goBackNName;            //!< GoBackNFallback attribute
    bool m_remoteAwareness;               //!< RemoteAwareness attribute
    bool m_installedRemote;               //!< the installed policy runs the feedback
    Time m_remoteAging;                   //!< RemoteAgingTime attribute
    uint8_t m_remoteBits;                 //!< RemoteQuantizationBits attribute

    talb::lb::TensorAwareV1 m_v1; //!< the decision, Version 1
    talb::lb::TensorAwareV2 m_v2; //!< the decision, Version 2
    Fallback m_fallbackPolicy;    //!< m_fallback as the core sees it
    Fallback m_goBackNPolicy;     //!< m_goBackNFallback as the core sees it
    TalbPathFeedback m_feedback;  //!< leaf-to-leaf congestion (RemoteAwareness)
    Remote m_remote;              //!< m_feedback as v2 sees it
    Ptr<TalbLoadBalancer> m_fallback;
    /// null: m_fallback chooses for go-back-N data; m_reorder with GoBackNFallback=conweave
    Ptr<TalbLoadBalancer> m_goBackNFallback;
    bool m_reorderMoves{false};                         //!< ReorderMoves attribute
    RttMoves m_rttMoves{RTT_NEVER};                     //!< RttMoves attribute
    RttMoveTarget m_rttMoveTarget{RTT_TARGET_CONWEAVE}; //!< RttMoveTarget attribute
    /// RttTarget() with RttMoveTarget=Talb, else null (ConWeave picks)
    TalbConWeaveLb::TargetCallback m_rttTarget;
    /// the reorder protocol (ReorderMoves, GoBackNFallback=conweave), else null
    Ptr<TalbConWeaveLb> m_reorder;
    /// per TalbConWeaveLb::ChosenPath: how often the reorder protocol did it (ReorderMoves)
    uint64_t m_chosenPaths[TalbConWeaveLb::KEPT_PATH + 1]{};
    TracedCallback<uint32_t, uint32_t> m_evictTrace;
};

} // namespace ns3

#endif /* TALB_TENSOR_AWARE_LB_H */
