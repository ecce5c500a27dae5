#ifndef TALB_LB_CORE_TENSOR_AWARE_V2_H
#define TALB_LB_CORE_TENSOR_AWARE_V2_H

#include "talb-lb-core-tensor-policy.h"

#include <vector>

namespace talb
{
namespace lb
{

/**
 * \ingroup talb-lb
 * TaLB v2: tensor-aware path selection that places a tensor by what delays it (doc/talb-switch.rst,
 * "TaLB v2").
 *
 * Each port remembers the tensor flows (flow hashes, with the priority of their current tensor)
 * that sent on it within their active window (below), in flowSlots slots. The cost of port q for a
 * packet of priority p from flow f towards leaf d, compared lexicographically, with R = the fastest
 * candidate path's bottleneck rate / the bottleneck rate of q's path to d (PortView::PathRateBps)
 * and r the same ratio of local port rates (both 1 on a symmetric fabric):
 *   1. R x (1 + other active flows on q with priority <= p): the share of the path the tensor
 *      would get; lower-priority tensors do not delay it under strict priority;
 *   2. R x (1 + all other active flows on q): among equals, do not sit on lower-priority tensors;
 *   3. r x bytes queued on q in bands 0..p (untagged traffic queued there included).
 * f itself is never counted against its own port (that made v1's choice a coin toss).
 *
 * Remote awareness (SetRemote(), off when none is set): the leaf sees only its own ports, so an
 * uplink looks free even when the path behind it is congested (a spine-to-leaf link that traffic
 * from other leaves fills). With a RemoteView, a port other than the flow's current one whose
 * path the leaf-to-leaf feedback reports saturated (utilisation 1 at the metric's resolution)
 * counts as shared with one more flow: keys 1-2 become R x max(1 + flows, 2). The maximum, not
 * the sum: the flows this leaf already sends on q towards d are part of the report. Partial
 * utilisation is left to the local keys: the metric is coarse, lags, and counts every priority
 * and this leaf's own traffic. The current port is not charged (its report includes the flow's
 * own load, which would make the flow flee itself at every boundary), nor the port a paused
 * flow last sent on (its slot there, active or not; the DRE and the feedback lag by hundreds of
 * microseconds). So the remote metric steers placements (new tensors, or after a pause) and holds
 * moves onto congested paths, never forces one.
 *
 * A flow is placed (least cost, ties at random) when it has no active port. A flow that is active
 * on port c keeps c when c ties the best on keys 1-2 ("stay on ties"); it moves
 * - at a tensor boundary (a tensor the table does not hold) or after a pause longer than its
 *   active window, when a port has strictly lower keys 1-2;
 * - mid-tensor, whatever the priority, at most once per minMoveIntervalNs, when a port has
 *   strictly lower keys 1-2, or equal ones and key 3 lower by more than the class's margin
 *   (highMoveMarginBytes below highThreshold, lowMoveMarginBytes otherwise, both bytes at
 *   marginRateBps: at 100 Gb/s the default 15000 bytes at 10 Gb/s is 150000; not by the
 *   margins without marginMoves);
 * and only when the move reorders at most maxReorderBytes: the bytes ahead of the flow on c that
 * drain after a packet sent now on the new port (key 3 of c minus that of the new port, at c's
 * rate).
 *
 * Safe moves (safeMoves; by default for go-back-N flows, PacketInfo::goBackN, i.e. RoCEv2): a
 * reordered packet costs such a flow a retransmission window, so it moves only once its old path
 * has drained -- ConWeave's condition without its reorder buffer. For each flow on a port the
 * selector keeps when its last packet there leaves the port (the bytes queued in bands 0..p
 * ahead of it, and itself, at the port's rate); a move, at a boundary or mid-tensor, is taken
 * only safeSlackNs after that (the slack covers the queues after the port, which the leaf does
 * not see), and until then the flow counts as on its old port however long it was silent. Such
 * flows skip the maxReorderBytes test, which the drain condition replaces -- except, with
 * kGoBackNUnlessUntagged (the default), while an untagged flow is active on a candidate port:
 * a background burst holds the flow longer than a go-back-N window costs, so it moves as others.
 * Stalls (stallTimeoutNs > 0, 2 ms by default; not safe-move flows): a tensor the table holds that
 * resumes after a silence of at least stallTimeoutNs (a TCP retransmission timeout: its packets
 * met a queue it could not get through, e.g. a spine downlink held by a higher-priority band,
 * which the leaf does not see) leaves its port for the least-cost other one unless its port is
 * strictly less shared (keys 1-2); the move skips maxReorderBytes (what is still queued behind
 * the stall is being retransmitted).
 * Active windows (windowMode): kFixed, every flow's window is activeWindowNs; kPace, a tagged
 * flow's window is paceFactor x its pace, within [activeWindowNs, maxActiveWindowNs]. The pace is
 * a maximum of the flow's gaps between packets that decays by 1/kPaceDecay per packet (a gap
 * longer than maxActiveWindowNs is a pause and is left out). It is kept in the flow's tensor
 * entry (seeded from its slot at a new tensor) and copied into its slot at every packet: kept
 * only in the slot, it was lost when a port held more flows than slots, the evicted flows came
 * back with the shortest window, and the most loaded port looked the least shared. A flow that
 * stops leaves its port's count at most maxActiveWindowNs after its last packet. Untagged flows
 * keep activeWindowNs (the fallback sprays them: their gaps on a port are no pace). With
 * lastEndsWindow a flow stops counting on a port as soon as its tensor's LAST packet passes
 * there. Without it an all-to-all's finished messages fill the slots for a window, the counts
 * tie at the cap, and simultaneous flow starts are placed by the instantaneous queue alone,
 * herding onto whichever port is momentarily the emptiest. But between its tensors a flow then
 * counts nowhere: a go-back-N flow that drained is placed afresh at its next tensor, on counts that
 * miss every other flow between tensors too, and two flows of a ring swap onto one port (a flapping
 * uplink at 2:1: one leaf's two flows shared a spine for half an iteration). endedTie: what then
 * breaks a tie of the flow counts -- the queue (kQueue, as before), the port where fewer other
 * flows' tensors ended within their windows (kSpread: their next tensors are due there), or that
 * and then the port the flow's own tensor ended on (kKeep; the port alone held two flows together
 * that a failed uplink had put on one port).
 * Spray (spray; kContended by default; never safe-move flows): while the candidates are contended
 * -- an untagged data flow is active on one of them (kWithUntagged), or that or a tensor flow of
 * another job (kContended), or always (kAlways), or while the RemoteView reports that the
 * packet's destination leaf receives two jobs' tensor traffic (kSharedDestination: collisions at
 * spine downlinks the leaf does not see; a job alone keeps whole flows) -- a tensor flow does
 * not keep a port (kCrowded: also while the candidates hold more active tensor flows than
 * crowdFlowsPerPort x their number, so that whole flows cannot each have a port -- an
 * all-to-all's 32 flows a leaf over four uplinks, or eight ring flows over four 2:1 uplinks,
 * whose slow starts overflow whichever port they share; a sprayed flow counts on every port it
 * is active on, so a crowd stays sprayed until its flows pause): each
 * packet takes the port with the fewest bytes queued (in time at the port's rate; which bytes,
 * sprayQueue says; over paths of different rates, sprayPaths below), as DRILL does. With N tensor
 * flows on N uplinks and background bursts taking a share of whichever uplink they hit, no
 * placement of whole flows helps (moving a flow puts it beside another, and a ring runs at its
 * slowest flow); spreading pools the uplinks' leftover capacity. Jobs that share a fabric also meet
 * at spine downlinks the leaf cannot see; spread, each flow's halves meet different flows. One job
 * alone on an idle fabric keeps whole-flow placement, which the flow counts get right, unless
 * it has more flows than ports (kCrowded). Sprayed packets are not reroutes (nSprayed;
 * nCrowdSprayed of them by the crowd test alone). sprayQueue (kAllWhenShared by default): the
 * bytes at or above the packet's priority (its own wait at the port) or every band's (the load it
 * adds downstream); kAllWhenShared counts every band while another job's tensor flow is active on a
 * candidate -- every band's packets share the spine downlinks, so a split by each packet's wait
 * leaves them unbalanced -- and the packet's wait otherwise (with background alone, DWRR serves the
 * training class its share). sprayPaths (kRate by default): over paths of different rates to the
 * packet's leaf (an asymmetric fabric), sprayed packets go by weighted round robin by path rate (a
 * clock per port and destination leaf, advanced by each packet's time on the path's slowest link,
 * plus the queue here), so the paths carry the leaf's bytes in proportion to their rates. Not
 * work-conserving on purpose: the senders' congestion control holds a flow to what the path it
 * is given carries, so with the fastest path first (kFastest, the rule before) a fast path never
 * queues here and slower ones carry nothing. On paths of one rate both rules are the same
 * choice, draw for draw.
 * Remote spraying (remoteSprayBytes > 0, with a RemoteView): while another job's tensor flow is
 * active on a candidate, a candidate whose path the view reports saturated counts
 * remoteSprayBytes more queue (scaled as the margins): other jobs' flows fill spine downlinks
 * the leaf cannot see (with background alone the local queue decides, as before).
 * remotePlacement (on by default) is what charges placements and moves the remote congestion
 * ("Remote awareness" above); off, the view serves spraying only.
 * Congestion moves (moves = kCongestion; needs a RemoteView): the flow counts still place a flow
 * that has no active port, but a flow active on its port keeps it at tensor boundaries and
 * mid-tensor, whatever the counts and queues say; it leaves only after a stall, a failure, or
 * when it is slow on a congested path, as Hermes moves flows: its rate over the last
 * rateWindowNs is below slowRate x its port's rate, the RemoteView reports its port's path
 * saturated (and, with congestionDelayNs, its queueing delay at least that: a path one full-rate
 * flow keeps busy is saturated with empty queues, and moving off it gains nothing), and another
 * candidate's path reports at most congestionTarget (the least congested one is taken), at most
 * once per minMoveIntervalNs. Such a move is taken at once, without the drain rule or the
 * reordering bound: a go-back-N flow pays a retransmission window, which a flow held on a
 * congested path for a whole tensor costs more than. With several jobs, moves by
 * counts chase flows the leaf sees while the collisions that delay them are at spine downlinks it
 * does not see, and each such move is a go-back-N window on RoCEv2 (doc/talb-switch.rst).
 * kContended applies this only while the candidates are contended (Spray's test: an untagged
 * flow or another job's tensor flow active on one of them) and the counts' rules otherwise: a
 * job alone keeps what the counts do well, jobs that share the fabric get the congestion rule.
 * queueMoves keeps one of the counts' moves under the congestion rule: a mid-tensor flow leaves
 * a port whose queue exceeds an equally shared candidate's by the move margin (a local burst,
 * such as heavy background, which the path feedback does not tell from a collision); the moves
 * to less shared ports stay off.
 * The rate is kept per flow (not per tensor) in a direct-mapped table of tableSize slots.
 * A port that left the candidate set (failure) is left whatever the bound. Entries are freed on
 * LAST or when idle longer than idleTimeoutNs. Unlabelled packets go to the fallback policy; a
 * flow of untagged data packets (kUntaggedMinBytes or more) counts on the port the fallback chose
 * as a flow of priority untaggedPriority (the band the switch queues it in), so tensors see
 * background traffic that strict priority serves before them.
 *
 * Per packet: a table lookup (probeLimit slots), a flowSlots scan of the chosen port and, on a
 * decision, flowSlots x candidates. No allocation after Configure().
 */
class TensorAwareV2 : public TensorPolicy
{
  public:
    /// The most flows a port may remember (Config::flowSlots).
    static constexpr uint32_t kMaxFlowSlots = 64;
    /// Pace mode: a flow's pace estimate loses 1/kPaceDecay per packet.
    static constexpr int64_t kPaceDecay = 8;

    /// Which flows move only once their old path has drained.
    enum class SafeMoves : uint8_t
    {
        kNever,   ///< none: every flow moves under maxReorderBytes
        kGoBackN, ///< flows whose packets say PacketInfo::goBackN (RoCEv2)
        kAlways,  ///< every flow
        /// kGoBackN, except while an untagged flow is active on a candidate port: then a
        /// go-back-N flow moves under maxReorderBytes (a background burst holds it longer than
        /// the go-back-N window a move may cost)
        kGoBackNUnlessUntagged,
    };

    /// What Moves=Congestion measures the rate of, against its port's.
    enum class RateKey : uint8_t
    {
        kFlow, ///< each flow (5-tuple) alone
        /// the flows of one source and destination host together: a connection spread over
        /// queue pairs with their own source ports (QP scaling) is as slow as all of them
        kHostPair,
    };

    /// Which path, of those the RemoteView reports at most congestionTarget, a slow flow
    /// moves to.
    enum class CongestionPick : uint8_t
    {
        /// the least utilised: flows judged slow together all take it (the feedback lags the
        /// moves by a round trip or more)
        kLeastCongested,
        /// the fewest active flows at or above the flow's priority, then of all, then the least
        /// utilised: the flow counts see each move at once, so flows leaving together spread
        kLeastShared,
    };

    /// What breaks a tie of the flow counts when a flow whose tensor ended (lastEndsWindow)
    /// is placed for its next tensor.
    enum class EndedTie : uint8_t
    {
        kQueue,  ///< the shorter queue, as for any placement
        kSpread, ///< the port where fewer other flows' tensors ended within their windows
        kKeep,   ///< that, then the port the flow's own tensor ended on
    };

    /// How long a flow counts on its port after its last packet there.
    enum class WindowMode : uint8_t
    {
        kFixed, ///< activeWindowNs for every flow
        kPace,  ///< paceFactor x the flow's pace, within [activeWindowNs, maxActiveWindowNs]
    };

    /// What moves a flow that is active on its port.
    enum class Moves : uint8_t
    {
        kCounts,     ///< fewer other flows (keys 1-2), or a queue shorter by the margin
        kCongestion, ///< being slow on a path the RemoteView reports saturated
        /// kCongestion while the candidates are contended (Spray's kContended test: an
        /// untagged flow or another job's tensor flow is active on one), kCounts otherwise
        kContended,
    };

    /// Which tensor flows spread their packets over the ports instead of keeping one.
    enum class Spray : uint8_t
    {
        kNever,        ///< none: every tensor flow keeps one port (moves by the rules above)
        kWithUntagged, ///< reordering-tolerant flows while untagged traffic shares the ports
        kAlways,       ///< every reordering-tolerant flow
        kContended,    ///< kWithUntagged, and while another job's tensor flow shares the ports
        /// every reordering-tolerant flow whose destination leaf receives tensor traffic of two
        /// jobs, as the RemoteView reports (the spine downlinks towards it are shared; a job
        /// alone keeps whole-flow placement); needs a RemoteView
        kSharedDestination,
        /// kContended, and while the candidates hold more active tensor flows than
        /// crowdFlowsPerPort x their number (whole flows cannot each have a port)
        kCrowded,
    };

    /// The queue a sprayed packet's port choice counts.
    enum class SprayQueue : uint8_t
    {
        kAtOrAbove, ///< bytes queued at or above its priority: its wait at this port
        kAll,       ///< every band's bytes: the load the packet adds to the path (as DRILL)
        /// kAll while another job's tensor flow is active on a candidate (their packets share
        /// the spine downlinks downstream, whatever their band), else kAtOrAbove
        kAllWhenShared,
        /// kAtOrAbove, ties broken by every band's bytes: a port's buffer is shared by its
        /// bands, so an urgent packet that would pass the lower bands is dropped all the same
        /// where they fill it, and with no urgent bytes queued every port ties
        kAtOrAboveThenAll,
        /// kAtOrAbove among the ports whose buffer can take the packet (PortView::RoomBytes):
        /// an urgent packet passes the lower bands in the scheduler but is refused as any where
        /// they filled the buffer; every port when none can
        kAtOrAboveWithRoom,
    };

    /// How a sprayed packet weighs paths of different rates (asymmetric links).
    enum class SprayPaths : uint8_t
    {
        /// the fastest path first, then the fewest bytes queued: slower paths carry nothing
        /// while a faster one is a candidate
        kFastest,
        /// where the candidates' paths differ in rate, weighted round robin by path rate: a
        /// clock per (port, destination leaf) advances by the packet's time on the path's
        /// slowest link, and the packet takes the path whose clock (plus the queue here) would
        /// read least, so the paths share this leaf's bytes by their rates however fast the
        /// senders send (their congestion control holds a flow to what its paths carry)
        kRate,
    };

    /// Destination leaves a port keeps a kRate clock for (others share them, modulo).
    static constexpr uint32_t kClockLeaves = 64;

    struct Config
    {
        uint8_t highThreshold{4};          ///< priorities below it are high, 0..8
        double highMoveMarginBytes{15000}; ///< key-3 excess that moves a high tensor, >= 0
        double lowMoveMarginBytes{15000};  ///< key-3 excess that moves a low tensor, >= 0
        /// false: no mid-tensor move by the margins (TCP's profile: each reorders the flow)
        bool marginMoves{true};
        /// the rate the margins are bytes of: they scale with the fastest candidate's rate (a
        /// margin is a queueing delay, 12 us by default); 0: bytes at every rate
        uint64_t marginRateBps{10000000000};
        /// bytes a move may reorder, >= 0 (the default bounds nothing: TCP flows follow bursts)
        double maxReorderBytes{1e9};
        int64_t minMoveIntervalNs{100000}; ///< a tensor moves at most once per interval, >= 0
        int64_t activeWindowNs{100000};    ///< a flow silent longer is no longer on its port
        /// a flow stops counting on a port once its tensor's LAST packet passes there (false:
        /// for its active window after it, as after a pause)
        bool lastEndsWindow{false};
        /// with lastEndsWindow: what breaks a tie of the flow counts at a flow's next tensor
        EndedTie endedTie{EndedTie::kQueue};
        WindowMode windowMode{WindowMode::kFixed}; ///< fixed window, or one per flow's pace
        double paceFactor{2};                      ///< kPace: window / pace, >= 1
        int64_t maxActiveWindowNs{1000000};        ///< kPace: the longest window, >= activeWindowNs
        int64_t idleTimeoutNs{10000000};           ///< an entry idle longer is aged out, >= 1
        uint32_t tableSize{4096};                  ///< tensor table slots, a power of two
        uint32_t probeLimit{8};                    ///< slots a key may occupy, 1..64, <= tableSize
        /// flows a port remembers, 1..kMaxFlowSlots: more active flows than this count as this
        /// many (an all-to-all puts more on an uplink; doc/talb-evaluation.rst, "FlowSlots")
        uint32_t flowSlots{8};
        uint8_t untaggedPriority{0}; ///< the band untagged traffic is queued in, 0..7
        SafeMoves safeMoves{
            SafeMoves::kGoBackNUnlessUntagged}; ///< flows that move only once drained
        int64_t safeSlackNs{1000000};           ///< wait after the old port drained, >= 0
        /// a tensor silent this long mid-tensor leaves its port on ties when it resumes; 0: never,
        /// else > activeWindowNs
        int64_t stallTimeoutNs{2000000};
        Spray spray{Spray::kContended}; ///< flows that spread their packets (not safe-move or
                                        ///< go-back-N ones)
        /// kCrowded: the candidates are crowded while they hold more active tensor flows than
        /// this x their number (a flow counts on each port it is active on), in [0, flowSlots]
        double crowdFlowsPerPort{1};
        SprayQueue sprayQueue{SprayQueue::kAllWhenShared}; ///< what a sprayed packet counts
        SprayPaths sprayPaths{SprayPaths::kRate};          ///< how it weighs slower paths
        Moves moves{Moves::kCounts};                       ///< what moves an active flow
        double slowRate{0.3};            ///< kCongestion: slow below this x port rate, (0, 1]
        RateKey rateKey{RateKey::kFlow}; ///< kCongestion: whose rate slowRate judges
        double congestionTarget{0.75};   ///< kCongestion: a target reports at most this, [0, 1)
        /// kCongestion: which of the paths at most congestionTarget a slow flow takes
        CongestionPick congestionPick{CongestionPick::kLeastCongested};
        /// kCongestion: a saturated path counts as congested only when its queueing delay (the
        /// reported one or the port's queue now, the larger) is at least this, >= 0; 0: the
        /// utilisation alone decides
        int64_t congestionDelayNs{0};
        int64_t rateWindowNs{100000}; ///< kCongestion: a flow's rate is over this, >= 1
        bool queueMoves{false};       ///< kCongestion/kContended: queue-margin moves stay
        /// kCongestion/kContended: a safe-move flow of priority below this takes a congestion
        /// move only as a safe move does, once its old port has drained and safeSlackNs passed
        /// (between messages, not mid-message: a go-back-N window is most of a short urgent
        /// message; under kGoBackNUnlessUntagged at once while untagged traffic is active on a
        /// candidate), 0..8; 0: every congestion move at once
        uint8_t congestionWaitBelow{0};
        /// with a RemoteView: placements and moves pay the remote congestion (keys 1-2)
        bool remotePlacement{true};
        /// with a RemoteView, while another job's tensor flow is active on a candidate: the
        /// queue (bytes at marginRateBps) a path reported saturated adds to a sprayed packet's
        /// choice, >= 0; 0: sprayed packets read only the local queues
        double remoteSprayBytes{0};
        /// RoCEv2 packets (PacketInfo::goBackN) come from go-back-N NICs: their flows move only
        /// as safeMoves says and are never sprayed; false where the NICs recover by selective
        /// repeat: they are moved and sprayed as TCP's
        bool roceGoBackN{true};
        /// TCP segments of a placed flow that resend bytes it sent before go to the port with
        /// the fewest bytes queued (a retransmission fills a hole: it cannot be reordered)
        bool spreadRetransmits{false};
    };

    /// \return nullptr when \p config is usable, else what is wrong with it
    static const char* Check(const Config& config);

    /// \return whether an untagged data flow is active on one of \p candidates at \p nowNs
    bool UntaggedActive(const Candidates& candidates, int64_t nowNs) const
    {
        return Contended(candidates, nowNs, true, false, 0);
    }

    /**
     * Sizes the tensor table and the per-port flow slots (the only allocations).
     * \param nPorts the switch's port count (port ids are below it)
     * \return false when Check() fails
     */
    bool Configure(const Config& config, uint32_t nPorts);

    /// Changes every parameter but the table size and the flow slots, keeping the tables.
    /// \return false (and no change) when \p config fails Check() or changes either
    bool Retune(const Config& config);

    /// The congestion of the path behind a port, beyond this switch (the leaf-to-leaf feedback).
    class RemoteView
    {
      public:
        virtual ~RemoteView() = default;
        /// \return the utilisation (0..1) of the path through \p port to leaf \p dstLeaf at
        /// \p nowNs, as last reported; 0 when unknown, aged, or not an uplink to another leaf
        virtual double Congestion(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const = 0;
        /// \return the queueing delay (ns) along that path as last reported; 0 when unknown,
        /// aged, or not an uplink to another leaf
        virtual int64_t QueueDelayNs(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const = 0;
        /// \return whether leaf \p dstLeaf receives tensor traffic of two jobs at \p nowNs, as
        /// last reported (Spray::kSharedDestination); false when unknown or aged
        virtual bool DestinationShared(uint32_t dstLeaf, int64_t nowNs) const = 0;
    };

    /// \param remote the remote view (outlives this one), or nullptr: local costs only
    void SetRemote(const RemoteView* remote)
    {
        m_remote = remote;
    }

    /// \return tensor flows active on \p port at \p nowNs (O(flowSlots))
    uint32_t ActiveFlows(uint32_t port, int64_t nowNs) const;

  private:
    uint32_t DoSelect(const PacketInfo& packet, const Candidates& candidates) override;
    /// A tagged flow's entry and slots move with it (counted a reroute, not a decision's move).
    void DoFollow(const PacketInfo& packet, const Candidates& candidates, uint32_t port) override;
    /// The port Place() would give the flow if it were new: the least cost, its last port
    /// (where its own load still shows in the remote metric) not charged.
    uint32_t DoTarget(const PacketInfo& packet, const Candidates& candidates) override;

    /// kCongestion: a flow's rate, measured over windows of rateWindowNs.
    struct FlowRate
    {
        uint32_t flowHash{0};
        bool valid{false};
        int64_t windowStartNs{0};
        uint64_t windowBytes{0};
        double rateBps{-1}; ///< the last window's rate; < 0: not measured yet

        /// \return a slot for \p flowHash whose first window starts at \p nowNs
        static FlowRate Start(uint32_t flowHash, int64_t nowNs)
        {
            FlowRate r;
            r.flowHash = flowHash;
            r.valid = true;
            r.windowStartNs = nowNs;
            return r;
        }
    };

    /// \return \p key's rate slot (direct-mapped: another key's is taken over, its first
    /// window starting at \p nowNs)
    FlowRate& RateOf(uint32_t key, int64_t nowNs);

    /// \return the key of \p packet's rate slot (Config::rateKey)
    uint32_t RateKeyOf(const PacketInfo& packet) const
    {
        return m_config.rateKey == RateKey::kHostPair
                   ? FlowHash(packet.srcHost, packet.dstHost, 0, 0)
                   : packet.flowHash;
    }

    struct Fastest;

    /// \return the candidate other than \p current a slow flow moves to, or kNoPort: \p current's
    /// path reported saturated and another at most congestionTarget (congestionPick chooses)
    uint32_t CongestionTarget(const PacketInfo& packet,
                              const Candidates& candidates,
                              uint32_t current,
                              const Fastest& fastest) const;

    /// A tensor flow recently seen on a port.
    struct FlowSlot
    {
        uint32_t flowHash{0};
        uint8_t priority{0};
        int64_t lastSeenNs{0};
        int64_t paceNs{0};    ///< kPace: the flow's inter-packet gap estimate (0: unknown)
        int64_t drainedNs{0}; ///< safe-move flows: when its last packet leaves the port
        bool safe{false};     ///< a safe-move flow's slot (drainedNs is set)
        bool untagged{false}; ///< an untagged flow's slot
        bool ended{false};    ///< lastEndsWindow: its tensor's LAST passed (no longer active)
        uint8_t job{0};       ///< a tensor flow's job (talb_job_of its tensor id)
        bool valid{false};
    };

    /// Keys 1-3 of a port for one packet, lexicographic.
    struct Cost
    {
        double share{0};      ///< key 1
        double crowd{0};      ///< key 2
        double ended{0};      ///< EndedTie::kSpread: other flows whose tensor ended here lately
        double drainBytes{0}; ///< key 3

        bool SharesLess(const Cost& o) const
        {
            return share < o.share || (share == o.share && crowd < o.crowd);
        }

        bool SharesEqual(const Cost& o) const
        {
            return share == o.share && crowd == o.crowd;
        }
    };

    /// \return how long a flow of pace \p paceNs counts after its last packet
    int64_t WindowFor(int64_t paceNs) const
    {
        if (m_config.windowMode == WindowMode::kFixed)
        {
            return m_config.activeWindowNs;
        }
        int64_t w = static_cast<int64_t>(m_config.paceFactor * static_cast<double>(paceNs));
        return w < m_config.activeWindowNs
                   ? m_config.activeWindowNs
                   : (w > m_config.maxActiveWindowNs ? m_config.maxActiveWindowNs : w);
    }

    int64_t Window(const FlowSlot& s) const
    {
        return WindowFor(s.paceNs);
    }

    /// \return the pace \p paceNs after a gap of \p gapNs: a maximum that decays by
    /// 1/kPaceDecay per packet; a gap longer than the longest window is a pause, not a pace
    int64_t NextPace(int64_t paceNs, int64_t gapNs) const
    {
        if (gapNs > m_config.maxActiveWindowNs)
        {
            return paceNs;
        }
        const int64_t decayed = paceNs - paceNs / kPaceDecay;
        return gapNs > decayed ? gapNs : decayed;
    }

    bool IsActive(const FlowSlot& s, int64_t nowNs) const
    {
        return s.valid && !s.ended && nowNs - s.lastSeenNs <= Window(s);
    }

    FlowSlot* Slots(uint32_t port)
    {
        return &m_slots[port * m_config.flowSlots];
    }

    const FlowSlot* Slots(uint32_t port) const
    {
        return &m_slots[port * m_config.flowSlots];
    }

    /// \return true when \p packet's flow recovers by go-back-N (a packet that overtakes
    /// another costs it a retransmission window)
    bool GoBackN(const PacketInfo& packet) const
    {
        return packet.goBackN && m_config.roceGoBackN;
    }

    /// \return true when \p packet's flow moves only once its old path has drained
    bool SafeMovesFor(const PacketInfo& packet) const
    {
        return m_config.safeMoves == SafeMoves::kAlways || (SafeMovesGoBackN() && GoBackN(packet));
    }

    /// \return true when the safe-move flows are the go-back-N ones
    bool SafeMovesGoBackN() const
    {
        return m_config.safeMoves == SafeMoves::kGoBackN ||
               m_config.safeMoves == SafeMoves::kGoBackNUnlessUntagged;
    }

    /// \return true when a safe-move flow's packets on \p s may still be on the path
    bool Undrained(const FlowSlot& s, int64_t nowNs) const
    {
        return s.valid && s.safe && nowNs < s.drainedNs + m_config.safeSlackNs;
    }

    /// \return true when \p s still counts: active, or a safe-move flow not yet drained
    bool Held(const FlowSlot& s, int64_t nowNs) const
    {
        return IsActive(s, nowNs) || Undrained(s, nowNs);
    }

    /// \return the candidate \p flowHash is active on (\p safe: or not yet drained from), or
    /// kNoPort; \p slot gets its slot there
    uint32_t ActivePort(uint32_t flowHash,
                        const Candidates& candidates,
                        int64_t nowNs,
                        bool safe,
                        const FlowSlot** slot) const;
    /// \return the candidate where \p flowHash has a slot, active or not (its last port), or
    /// kNoPort
    uint32_t LastPort(uint32_t flowHash, const Candidates& candidates) const;
    /// \return the candidate of \p flowHash's most recent slot, or kNoPort; \p slot gets it
    uint32_t LatestPort(uint32_t flowHash,
                        const Candidates& candidates,
                        const FlowSlot** slot) const;
    /// \return the slot of \p flowHash on \p port, or null
    const FlowSlot* SlotOf(uint32_t port, uint32_t flowHash) const;
    /// \return \p packet's flow as a port's slot records it: \p priority, seen now, ended at its
    /// tensor's LAST under lastEndsWindow (a caller sets what its kind of flow adds: safe and
    /// drainedNs, paceNs, untagged, job)
    FlowSlot Seen(const PacketInfo& packet, uint8_t priority) const;
    /// Records \p seen on \p port: in its flow's slot, else in the first slot neither active nor
    /// undrained, else in the least recently seen one (counted in slot_overflows).
    void Touch(uint32_t port, const FlowSlot& seen);
    /// \return true when an untagged flow (with \p untagged) or a tensor flow of a job other
    /// than \p job (with \p otherJobs) is active on one of \p candidates
    bool Contended(const Candidates& candidates,
                   int64_t nowNs,
                   bool untagged,
                   bool otherJobs,
                   uint8_t job) const;
    /// What Spray=Crowded sees on the candidates' slots.
    enum class Crowd : uint8_t
    {
        kNone,     ///< only \p job's tensor flows, no more than crowdFlowsPerPort a port
        kCrowded,  ///< only \p job's, more than crowdFlowsPerPort x the candidates
        kContended ///< an untagged flow or another job's is active (Contended(.., true, true))
    };
    /// \return what \p candidates hold for a flow of \p job, in one scan of their slots (a flow
    /// counts on each port it is active on)
    Crowd CrowdOf(const Candidates& candidates, int64_t nowNs, uint8_t job) const;
    /// \return the candidate a spread packet of job \p job takes: the fastest path, then the
    /// fewest bytes queued, as sprayQueue counts them (in time at the port's rate; plus
    /// remoteSprayBytes where the RemoteView reports the path saturated while another job's
    /// tensor flow is active on a candidate), ties at random; SprayPaths says how paths of
    /// different rates count
    uint32_t SprayPort(const PacketInfo& packet, const Candidates& candidates, uint8_t job);
    /// \return when a packet of \p packet's priority enqueued now on \p port leaves it
    int64_t DrainTime(uint32_t port, const PacketInfo& packet) const;
    /// Counts a move in the statistics.
    void CountMove(bool midTensor, bool stalled);
    /// Forgets \p flowHash on \p port (it moved away).
    void Forget(uint32_t port, uint32_t flowHash);

    /// The fastest candidate's local and path rates (bit/s; 0 when unknown), and the slowest
    /// candidate's path rate.
    struct Fastest
    {
        double local{0};
        double path{0};
        double slowestPath{0}; ///< the slowest candidate's path rate
    };

    Fastest FastestRates(const PacketInfo& packet, const Candidates& candidates) const;

    /// \return \p fastest / \p rate, 1 when either is unknown
    static double Ratio(double fastest, uint64_t rate)
    {
        return (rate > 0 && fastest > 0) ? fastest / static_cast<double>(rate) : 1.0;
    }

    /// \return R of \p port: the fastest candidate path's rate over its path's to the packet's leaf
    double PathRatio(uint32_t port, const PacketInfo& packet, const Fastest& fastest) const;
    /// \return key 3 of \p port: bytes queued in bands 0..priority (every band's with \p
    /// allBands), in the fastest port's time
    double DrainBytes(uint32_t port,
                      const PacketInfo& packet,
                      const Fastest& fastest,
                      bool allBands = false) const;
    /// \return the bytes queued at \p port in bands 0..priority (every band's with \p allBands)
    double QueuedBytes(uint32_t port, const PacketInfo& packet, bool allBands) const;
    /// \return the port a sprayed packet takes under SprayPaths::kRate over paths of different
    /// rates (and advances its clock); \p penaltyNs is added where the path is reported
    /// saturated (remoteSprayBytes at the fastest local rate; 0: none); \p allOnTies breaks
    /// ties by every band's bytes (SprayQueue::kAtOrAboveThenAll); \p withRoom puts the ports
    /// whose buffer can take the packet first (SprayQueue::kAtOrAboveWithRoom)
    uint32_t RateSharedPort(const PacketInfo& packet,
                            const Candidates& candidates,
                            bool allBands,
                            bool allOnTies,
                            bool withRoom,
                            int64_t penaltyNs);

    /// \return true when \p port's buffer cannot take \p packet now (PortView::RoomBytes)
    bool Full(uint32_t port, const PacketInfo& packet) const
    {
        return Ports().RoomBytes(port, packet.label.priority) < packet.size;
    }

    /// \return true when the RemoteView (set) reports the path behind \p port to \p packet's
    /// leaf saturated: the top level of the metric
    bool Saturated(uint32_t port, const PacketInfo& packet) const
    {
        return m_remote->Congestion(port, packet.dstLeaf, packet.nowNs) >= 1.0;
    }

    /// \return true when the path behind \p port is saturated (Saturated()) and, with
    /// congestionDelayNs, queues at least that long: the reported delay along the path or the
    /// port's own queue now, whichever is longer
    bool Congested(uint32_t port, const PacketInfo& packet) const;

    /// \return \p bytes at marginRateBps as bytes at the fastest candidate's rate
    double AtFastest(double bytes, const Fastest& fastest) const
    {
        return (m_config.marginRateBps > 0 && fastest.local > 0)
                   ? bytes * (fastest.local / static_cast<double>(m_config.marginRateBps))
                   : bytes;
    }

    /// \param remote charge the port its path's remote congestion (when a RemoteView is set)
    /// \param ended count the other flows whose tensor ended on the port within their window
    Cost PortCost(uint32_t port,
                  const PacketInfo& packet,
                  const Fastest& fastest,
                  bool remote,
                  bool ended = false) const;
    /// \return the candidate with the least cost (ties at random; \p avoid loses ties on keys
    /// 1-2; then, with \p ended, fewer other flows' ended tensors and \p prefer win; every port but
    /// \p uncharged pays its remote congestion); \p currentCost gets the cost of \p current
    /// when it is a candidate
    uint32_t Best(const PacketInfo& packet,
                  const Candidates& candidates,
                  uint32_t current,
                  const Fastest& fastest,
                  Cost* bestCost,
                  Cost* currentCost,
                  uint32_t avoid,
                  uint32_t uncharged,
                  uint32_t prefer = kNoPort,
                  bool ended = false);

    /// What DoSelect() knows of a tagged packet's flow before it decides.
    struct Flow
    {
        TensorTable::Entry* entry{nullptr}; ///< its tensor's entry (null: a new tensor)
        TensorTable::Entry* slot{nullptr};  ///< where a new entry would go (Lookup)
        FlowRate* rate{nullptr};            ///< Moves other than Counts: its rate slot
        const FlowSlot* onCurrent{nullptr}; ///< its slot on its current port, if any
        uint32_t current{kNoPort};          ///< its current port, or kNoPort
        bool failed{false};                 ///< its tensor's port left the candidates
        bool safe{false};                   ///< it moves only once its old path drained
        bool midTensor{false};              ///< its tensor is held and kept sending
        bool stalled{false};                ///< ... after a silence of stallTimeoutNs
        int64_t pace{0};                    ///< its pace after this packet (kPace)
        uint8_t job{0};                     ///< its tensor's job
    };

    /// An unlabelled packet: the fallback's choice; a data flow counts on its port.
    uint32_t SelectUntagged(const PacketInfo& packet, const Candidates& candidates);
    /// \return true when \p packet is a TCP segment resending bytes its tensor's entry \p e saw
    bool Retransmits(const PacketInfo& packet, const TensorTable::Entry* e) const;
    /// \return true when \p f spreads its packets now (Spray; counts the crowd's own sprays)
    bool Sprays(const PacketInfo& packet, const Candidates& candidates, const Flow& f);
    /// A packet of a spreading flow: SprayPort(), not a reroute.
    uint32_t SelectSprayed(const PacketInfo& packet, const Candidates& candidates, const Flow& f);
    /// \return what the table and config say of tagged \p packet's flow (entry, safe, job)
    Flow FlowOf(const PacketInfo& packet);
    /// Fills what \p f says beyond its entry: its current port, pace, window, stall.
    void Locate(const PacketInfo& packet, const Candidates& candidates, Flow* f);
    /// \return the port of a flow without one: the least cost
    uint32_t Place(const PacketInfo& packet, const Candidates& candidates);
    /// \return the port of a flow on f.current: it, or the one it moves to (\p moved set)
    uint32_t Reconsider(const PacketInfo& packet,
                        const Candidates& candidates,
                        const Flow& f,
                        bool* moved);
    /// \return true when the best port beats f.current (\p byQueue: by the margin alone)
    bool Better(const PacketInfo& packet,
                const Flow& f,
                const Fastest& fastest,
                const Cost& bestCost,
                const Cost& currentCost,
                bool* byQueue) const;
    /// \return the port a slow flow on a congested path moves to (counted), or kNoPort;
    /// \p queueMove: a queue move is taken already
    uint32_t CongestionMove(const PacketInfo& packet,
                            const Candidates& candidates,
                            const Flow& f,
                            const Fastest& fastest,
                            bool queueMove);
    /// \return true when \p f moves only once drained: a safe-move flow, unless an untagged
    /// flow is active on a candidate under kGoBackNUnlessUntagged
    bool MovesOnlyDrained(const PacketInfo& packet,
                          const Candidates& candidates,
                          const Flow& f) const;
    /// \return true when \p f's old port has drained and safeSlackNs passed since
    bool Drained(const PacketInfo& packet, const Flow& f) const;
    /// \return true (counted) when a better port may be taken now: the drain rule of safe
    /// moves, else the reordering bound; false counts what held it
    bool TakesMove(const PacketInfo& packet,
                   const Candidates& candidates,
                   const Flow& f,
                   const Fastest& fastest,
                   const Cost& bestCost,
                   const Cost& currentCost);
    /// Records the decision: the reroute, the tensor's entry, the rate, the port's slot.
    void Record(const PacketInfo& packet, const Flow& f, uint32_t port, bool moved);

    Config m_config;
    std::vector<FlowSlot> m_slots; ///< flowSlots per port
    std::vector<FlowRate> m_rates; ///< kCongestion: tableSize slots, else empty
    /// SprayPaths::kRate: the weighted round robin's clock (ns) per port and destination leaf
    /// (kClockLeaves of them); else empty
    std::vector<int64_t> m_pathClocks;
    uint32_t m_nPorts{0};
    const RemoteView* m_remote{nullptr};
};

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_TENSOR_AWARE_V2_H */
