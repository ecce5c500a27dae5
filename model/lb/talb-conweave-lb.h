#ifndef TALB_CONWEAVE_LB_H
#define TALB_CONWEAVE_LB_H

#include "talb-conweave-tag.h"
#include "talb-load-balancer.h"

#include "ns3/event-id.h"
#include "ns3/random-variable-stream.h"

#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief ConWeave (Song et al., SIGCOMM 2023) at the leaves: rerouting at the source leaf that
 * moves a flow off a congested path at most once per epoch, and reordering at the destination
 * leaf that hides the move from the receiver, so RDMA's go-back-N sees packets in order.
 *
 * Source leaf, per flow (TableSize slots, TableProbes from its hash): each epoch starts with an
 * RTT_REQUEST (a flag on a data packet). The destination leaf answers it with an RTT_REPLY
 * control packet. A reply that has not come back within the destination leaf's base RTT (the
 * least reply RTT seen, or BaseRtt) plus ExtraReplyDeadline means the current path is congested
 * and, when another uplink that is not paused exists, the flow moves to the one with the fewest
 * flows of this leaf, then the least queued bytes (RandomPathChoice: a uniform choice; with
 * PathSamples, the first of that many uniform draws that is not paused, as ConWeave's simulator
 * does). What pauses a path for PathPauseTime (new choices avoid it) is PauseOn: the late reply
 * itself (LateReply), or ConWeave's NOTIFY (Notify: the destination leaf answers every ECN-marked
 * data packet with a NOTIFY naming its path). Its later packets are phase 1 and carry the send
 * time of the last packet on the old path (the TAIL). The next epoch starts only when the
 * destination leaf sends CLEAR, so a flow is spread over at most two paths. A new flow, or one
 * idle for IdleTimeout, starts an epoch on the best path that is not paused.
 *
 * Destination leaf, per flow: a phase-1 packet that arrives before the TAIL is held in the
 * flow's reorder queue; the TAIL's arrival releases the queue behind it, in order, and so do a
 * full queue (ReorderQueueLimit), MaxReorderWait and, without HoldUntilTail, a timeout (the
 * TAIL's expected arrival from the old path's pace, plus ExtraFlushTime; NoInfoReorderWait at
 * least while the old path has delivered nothing). Either way the leaf then sends CLEAR.
 *
 * Control packets (RTT_REPLY, CLEAR, NOTIFY) are small UDP packets the destination leaf makes,
 * sent through the switch's egress (TalbLoadBalancer::Transmit(); charged to no ingress port
 * unless ChargeControlPackets) on the uplink of the spine the data came through, and consumed by
 * the source leaf (Hold()); held data packets go back with Release(). The data header is a
 * TalbConWeaveTag that the source leaf adds and the destination leaf removes.
 *
 * Counter identity (asserted): packets held = released by TAIL + released by timeout +
 * released by overflow + held now.
 */
class TalbConWeaveLb : public TalbLoadBalancer
{
  public:
    static TypeId GetTypeId();
    TalbConWeaveLb();
    ~TalbConWeaveLb() override;

    int64_t AssignStreams(int64_t stream) override;
    bool CanBeFallback() const override;

    /// ConWeave's counters at this switch.
    struct Counters
    {
        // source leaf
        uint64_t rttRequests{0}; //!< epochs started (RTT_REQUEST sent)
        uint64_t replies{0};     //!< RTT_REPLYs received in time
        uint64_t lateReplies{0}; //!< replies missed their deadline (path judged congested)
        uint64_t reroutes{0};    //!< flows moved at an epoch's late reply
        uint64_t clears{0};      //!< CLEARs received
        uint64_t notifies{0};    //!< NOTIFYs received (each pauses its path)
        // destination leaf
        uint64_t repliesSent{0};        //!< RTT_REPLYs sent
        uint64_t clearsSent{0};         //!< CLEARs sent
        uint64_t notifiesSent{0};       //!< NOTIFYs sent (ECN-marked data packets)
        uint64_t held{0};               //!< packets held in reorder queues
        uint64_t releasedByTail{0};     //!< ... released when the TAIL arrived
        uint64_t releasedByTimeout{0};  //!< ... released by a reorder timeout
        uint64_t releasedByOverflow{0}; //!< ... released because the queue was full
        uint64_t timeouts{0};           //!< reorder queues flushed by their timeout
        uint64_t heldNow{0};            //!< packets in reorder queues now
        // both
        uint64_t txEvictions{0}; //!< source table: a flow took the slot of one active within
                                 //!< IdleTimeout (that flow starts afresh when it sends again)
        uint64_t rxEvictions{0}; //!< destination table: the same
    };

    /// \return the counters
    const Counters& GetCounters() const;
    /// The counters above by name (reorder queues: "reorder_held" etc.).
    std::vector<PolicyCounter> GetPolicyCounters() const override;

    /**
     * TracedCallback signature for reorder-queue flushes.
     * \param flowHash the flow
     * \param packets packets released
     * \param timeout true when the timeout (or a full queue), not the TAIL, released them
     */
    typedef void (*FlushTracedCallback)(uint32_t flowHash, uint32_t packets, bool timeout);

    /// What TagChosenPath() did.
    enum ChosenPath
    {
        NOT_TAGGED,    //!< not a packet this leaf sends to another leaf
        SAME_PATH,     //!< tagged; the flow stays on its path (or starts)
        HIDDEN_MOVE,   //!< tagged; the flow moved and the destination leaf holds its new path's
                       //!< packets until the old path's last one (phase 1 of its epoch)
        UNHIDDEN_MOVE, //!< tagged; the flow moved again before the destination leaf's CLEAR,
                       //!< or at an epoch's first packet: a new epoch, not reordered
        KEPT_PATH      //!< tagged; a move that could not be hidden was refused (onlyHidden)
    };

    /**
     * ConWeave's epoch protocol for a path another balancer chose (TalbTensorAwareLb's
     * ReorderMoves): at the source leaf, tag the packet of \p ctx, which leaves on \p port, so
     * that the destination leaf hides a move from the receiver as it hides ConWeave's own. No
     * RTT_REQUEST is sent: the other balancer decides the moves. A move in phase 0 of the flow's
     * epoch becomes its phase 1 (the TAIL is the flow's previous packet); a move in phase 1,
     * before the destination leaf's CLEAR, starts a new epoch in phase 0, whose reordering the
     * destination leaf cannot hide -- or, with \p onlyHidden, is refused: the packet stays on
     * the flow's path. The destination half is Hold(), as for ConWeave.
     * \param candidates the packet's candidate ports (a path no longer among them is left)
     * \param port in: the other balancer's choice; out: the port the packet leaves on
     * \return what was done
     */
    ChosenPath TagChosenPath(TalbPacketContext& ctx,
                             const TalbCandidates& candidates,
                             uint32_t& port,
                             bool onlyHidden);

    /**
     * Where another balancer moves a flow that a late RTT reply sends off its path: called with
     * the candidates that are neither the flow's path nor paused (at least one); returns one of
     * them.
     */
    typedef Callback<uint32_t, TalbPacketContext&, const TalbCandidates&> TargetCallback;

    /**
     * ConWeave's own path for the flow of \p ctx (its epochs, RTT probes and moves, as
     * DoSelectPath()), except that a flow it does not track yet, or whose path left the
     * candidates, starts on \p placed, another balancer's choice (TalbTensorAwareLb's RttMoves:
     * TaLB places each new flow, ConWeave moves it); UINT32_MAX: ConWeave picks, as its own.
     * When a late reply moves the flow, \p target (when not null) chooses where among the paths
     * that are not paused (RttMoveTarget=Talb), instead of ConWeave's own pick and its
     * flow-count guard.
     * \return the port the packet leaves on
     */
    uint32_t SelectPlaced(TalbPacketContext& ctx,
                          const TalbCandidates& candidates,
                          uint32_t placed,
                          const TargetCallback& target = TargetCallback());

    /// \return whether this switch is the source leaf of \p ctx's packet to another leaf: a
    /// packet ConWeave tags and may move
    bool IsSourceLeaf(const TalbPacketContext& ctx) const;

    /// \return whether ConWeave holds the flow of \p ctx, not idle, on one of \p candidates
    bool Tracks(const TalbPacketContext& ctx, const TalbCandidates& candidates) const;

    /// What pauses a path (PauseOn).
    enum PauseOn
    {
        LATE_REPLY, //!< an epoch's late RTT_REPLY pauses the flow's path (talb's rule)
        NOTIFY      //!< a NOTIFY from the destination leaf (ConWeave's rule: ECN marks)
    };

  protected:
    void DoDispose() override;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    HoldVerdict DoHold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// Source leaf state of a flow.
    struct TxEntry
    {
        uint32_t key{0};
        bool valid{false};
        uint32_t port{UINT32_MAX}; //!< its path (UINT32_MAX: none yet)
        uint32_t epoch{0};
        uint8_t phase{0};
        bool stabilized{true};    //!< a new epoch may start
        bool waitingReply{false}; //!< the epoch's RTT_REQUEST is unanswered
        Time requestTime;         //!< when it was sent
        Time lastTx;              //!< when the flow's last packet left
        Time tailTime;            //!< phase 1: send time of the epoch's last phase-0 packet
    };

    /// A packet in a reorder queue.
    struct Held
    {
        Ptr<Packet> packet;
        uint32_t inPort;
        uint32_t outPort;
    };

    /// Destination leaf state of a flow.
    struct RxEntry
    {
        uint32_t key{0};
        bool valid{false};
        uint32_t epoch{0};
        uint8_t phase{0};
        bool seenPhase0{false};     //!< a phase-0 packet of this epoch arrived
        uint64_t lastPhase0TxNs{0}; //!< send time of the latest one
        uint64_t tailTimeNs{0};     //!< the TAIL's send time (phase 1)
        Time delay;                 //!< source to destination leaf, last data packet
        Time lastPhase0Rx;          //!< arrival of the latest phase-0 packet
        Time lastRx;                //!< arrival of the flow's latest data packet
        double pace{1.0};           //!< old path: send-time progress per arrival time
        Time holdStart;             //!< when the reorder queue began to hold
        bool reordering{false};     //!< phase-1 packets are held until the TAIL
        std::deque<Held> queue;
        EventId flush;
        uint8_t control[28]; //!< IPv4 + UDP header of the reverse direction
        uint32_t controlInPort{0};
        uint32_t controlOutPort{0};
        bool hasReturnPath{false}; //!< control[] and the ports are set
    };

    /// Why a reorder queue is released.
    enum FlushReason
    {
        TAIL,    //!< the old path's last packet arrived
        TIMEOUT, //!< it did not arrive in time (or a new epoch began)
        OVERFLOW //!< the queue was full, or another flow took the table slot
    };

    /**
     * The slot of flow \p flowHash in \p table (m_tx or m_rx). A flow may take any of TableProbes
     * consecutive slots from its hash: the one holding it, else (with \p insert) the first that
     * is free or idle, else the one used least recently; without \p insert, UINT32_MAX when no
     * slot holds it.
     */
    template <class Entry, class IsIdle, class LastUse>
    uint32_t FindSlot(const std::vector<Entry>& table,
                      uint32_t flowHash,
                      bool insert,
                      IsIdle isIdle,
                      LastUse lastUse) const;
    /// \return the source leaf slot that holds \p flowHash, or UINT32_MAX (nothing inserted)
    uint32_t FindTx(uint32_t flowHash) const;
    TxEntry& TxLookup(uint32_t flowHash, const Time& now);
    /// Move \p e onto \p port (UINT32_MAX: none), keeping the per-port flow counts.
    void Place(TxEntry& e, uint32_t port);
    /// Uncount flows idle past IdleTimeout.
    void Sweep();
    RxEntry& RxLookup(uint32_t flowHash, const Time& now);
    /// \return the least-queued candidate that is neither \p exclude nor paused, or UINT32_MAX
    uint32_t PickPath(const TalbCandidates& candidates, uint32_t dstLeaf, uint32_t exclude);
    /// \return \p target's choice among the candidates neither \p exclude nor paused, or
    /// UINT32_MAX when there is none
    uint32_t AskTarget(TalbPacketContext& ctx,
                       const TalbCandidates& candidates,
                       uint32_t exclude,
                       const TargetCallback& target);
    bool Paused(uint32_t port, uint32_t dstLeaf, const Time& now) const;

    /// Source leaf: an RTT_REPLY or CLEAR for one of its flows, or a NOTIFY for a path.
    void ReceiveControl(const TalbConWeaveTag::Fields& f, uint32_t fromLeaf, const Time& now);
    /// Destination leaf: a data packet. \return KEPT when it was held (or released in order)
    /// Begin \p e's next epoch, in phase 0 on its current path.
    void StartEpoch(TxEntry& e);
    /// Add ConWeave's data header for \p e's current state to \p ctx's packet.
    void TagData(TalbPacketContext& ctx, TxEntry& e, bool rttRequest);
    HoldVerdict ReceiveData(TalbPacketContext& ctx,
                            uint32_t port,
                            Ptr<Packet> packet,
                            const TalbConWeaveTag::Fields& f);
    /// Release \p e's reorder queue in order; then send CLEAR.
    void Flush(RxEntry& e, uint32_t flowHash, FlushReason reason);
    /// Remember how to reach the flow's source leaf (from data packet \p packet via \p path).
    void SetReturnPath(RxEntry& e, const TalbPacketContext& ctx, uint8_t path, Ptr<Packet> packet);
    void FlushTimeout(uint32_t slot);
    /// (Re)arm \p e's flush timer at the TAIL's expected arrival.
    void ScheduleFlush(RxEntry& e, uint32_t flowHash, const Time& now);
    /// Send an RTT_REPLY, CLEAR or NOTIFY (about \p path) for flow \p flowHash towards its
    /// source leaf.
    void SendControl(const RxEntry& e,
                     uint8_t kind,
                     uint32_t flowHash,
                     uint32_t epoch,
                     uint8_t path = 0);

    uint32_t m_tableSize;          //!< TableSize attribute
    uint32_t m_tableProbes;        //!< TableProbes attribute
    Time m_idleTimeout;            //!< IdleTimeout attribute
    Time m_baseRtt;                //!< BaseRtt attribute (0: learned)
    Time m_extraReplyDeadline;     //!< ExtraReplyDeadline attribute
    Time m_pathPauseTime;          //!< PathPauseTime attribute
    Time m_extraFlushTime;         //!< ExtraFlushTime attribute
    Time m_noInfoWait;             //!< NoInfoReorderWait attribute
    bool m_holdUntilTail{true};    //!< HoldUntilTail attribute
    Time m_maxReorderWait;         //!< MaxReorderWait attribute
    uint32_t m_queueLimit;         //!< ReorderQueueLimit attribute
    bool m_randomChoice{false};    //!< RandomPathChoice attribute
    uint32_t m_pathSamples{0};     //!< PathSamples attribute
    PauseOn m_pauseOn{LATE_REPLY}; //!< PauseOn attribute
    bool m_chargeControl{true};    //!< ChargeControlPackets attribute

    Ptr<UniformRandomVariable> m_rng;
    std::vector<TxEntry> m_tx;
    std::vector<RxEntry> m_rx;
    std::vector<Time> m_minRtt;        //!< per destination leaf: least reply RTT seen (0: none)
    std::vector<Time> m_pausedUntil;   //!< [leaf * nSpines + spine]
    std::vector<uint32_t> m_uplinkOf;  //!< spine -> uplink port (UINT32_MAX: none)
    std::vector<uint32_t> m_portFlows; //!< per port: flows of this leaf placed on it
    std::vector<uint32_t> m_targets;   //!< AskTarget()'s candidates (sized once, per port)
    uint32_t m_activeFlows{0};         //!< flows counted in m_portFlows
    EventId m_sweep;
    Counters m_counters;

    TracedCallback<uint32_t, uint32_t, bool> m_flushTrace;
};

} // namespace ns3

#endif /* TALB_CONWEAVE_LB_H */
