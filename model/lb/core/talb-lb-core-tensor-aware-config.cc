#include "talb-lb-core-tensor-aware-config.h"

namespace talb
{
namespace lb
{

namespace
{

using V1 = TensorAwareV1::Config;
using V2 = TensorAwareV2::Config;
using K = SettingKind;

constexpr V1 kV1Defaults{};
constexpr V2 kV2Defaults{};
static_assert(kV1Defaults.highThreshold == kV2Defaults.highThreshold &&
                  kV1Defaults.moveMarginBytes == kV2Defaults.highMoveMarginBytes &&
                  kV1Defaults.idleTimeoutNs == kV2Defaults.idleTimeoutNs &&
                  kV1Defaults.tableSize == kV2Defaults.tableSize &&
                  kV1Defaults.probeLimit == kV2Defaults.probeLimit,
              "a setting both TaLB versions take has one default");

/// A setting of v2 only.
template <K Kind, auto Member>
constexpr SettingField<TensorAwareConfig>
OfV2()
{
    return MakeField<Kind, TensorAwareConfig, Path<&TensorAwareConfig::v2, Member>>();
}

/// A setting of v1 only.
template <K Kind, auto Member>
constexpr SettingField<TensorAwareConfig>
OfV1()
{
    return MakeField<Kind, TensorAwareConfig, Path<&TensorAwareConfig::v1, Member>>();
}

/// A setting of both versions (read from v2's field).
template <K Kind, auto V2Member, auto V1Member>
constexpr SettingField<TensorAwareConfig>
OfBoth()
{
    return MakeField<Kind,
                     TensorAwareConfig,
                     Path<&TensorAwareConfig::v2, V2Member>,
                     Path<&TensorAwareConfig::v1, V1Member>>();
}

constexpr SettingSpelling kSpray[] = {
    {int(TensorAwareV2::Spray::kContended), "Contended", "contended"},
    {int(TensorAwareV2::Spray::kWithUntagged), "WithUntagged", "withuntagged"},
    {int(TensorAwareV2::Spray::kAlways), "Always", "always"},
    {int(TensorAwareV2::Spray::kNever), "Never", "never"},
    {int(TensorAwareV2::Spray::kSharedDestination), "SharedDestination", "shareddestination"},
    {int(TensorAwareV2::Spray::kCrowded), "Crowded", "crowded"},
};

constexpr SettingSpelling kSprayQueue[] = {
    {int(TensorAwareV2::SprayQueue::kAllWhenShared), "AllWhenShared", "allwhenshared"},
    {int(TensorAwareV2::SprayQueue::kAll), "All", "all"},
    {int(TensorAwareV2::SprayQueue::kAtOrAbove), "AtOrAbove", "atorabove"},
    {int(TensorAwareV2::SprayQueue::kAtOrAboveThenAll), "AtOrAboveThenAll", "atorabovethenall"},
    {int(TensorAwareV2::SprayQueue::kAtOrAboveWithRoom), "AtOrAboveWithRoom", "atorabovewithroom"},
};

constexpr SettingSpelling kSprayPaths[] = {
    {int(TensorAwareV2::SprayPaths::kRate), "Rate", "rate"},
    {int(TensorAwareV2::SprayPaths::kFastest), "Fastest", "fastest"},
};

constexpr SettingSpelling kMoves[] = {
    {int(TensorAwareV2::Moves::kCounts), "Counts", "counts"},
    {int(TensorAwareV2::Moves::kCongestion), "Congestion", "congestion"},
    {int(TensorAwareV2::Moves::kContended), "Contended", "contended"},
};

constexpr SettingSpelling kRateKey[] = {
    {int(TensorAwareV2::RateKey::kFlow), "Flow", "flow"},
    {int(TensorAwareV2::RateKey::kHostPair), "HostPair", "host-pair"},
};

constexpr SettingSpelling kCongestionPick[] = {
    {int(TensorAwareV2::CongestionPick::kLeastCongested), "LeastCongested", "least-congested"},
    {int(TensorAwareV2::CongestionPick::kLeastShared), "LeastShared", "least-shared"},
};

constexpr SettingSpelling kSafeMoves[] = {
    {int(TensorAwareV2::SafeMoves::kGoBackNUnlessUntagged),
     "GoBackNUnlessUntagged",
     "gobackn-unless-untagged"},
    {int(TensorAwareV2::SafeMoves::kGoBackN), "GoBackN", "gobackn"},
    {int(TensorAwareV2::SafeMoves::kAlways), "Always", "always"},
    {int(TensorAwareV2::SafeMoves::kNever), "Never", "never"},
};

constexpr SettingSpelling kEndedTie[] = {
    {int(TensorAwareV2::EndedTie::kQueue), "Queue", "queue"},
    {int(TensorAwareV2::EndedTie::kSpread), "Spread", "spread"},
    {int(TensorAwareV2::EndedTie::kKeep), "Keep", "keep"},
};

constexpr SettingSpelling kWindowMode[] = {
    {int(TensorAwareV2::WindowMode::kFixed), "Fixed", "fixed"},
    {int(TensorAwareV2::WindowMode::kPace), "Pace", "pace"},
};

/// The bytes of a margin or a reordering bound: at most 1 GiB.
constexpr double kMaxBytes = 1u << 30;

// The switch has no flag for what needs the leaf-to-leaf feedback (Moves and its parameters,
// RemoteSprayBytes: only the simulator runs it), nor for v1's cost parameters and load
// estimator (it keeps their defaults).
constexpr Setting<TensorAwareConfig> kRows[] = {
    {"HighPriorityThreshold",
     "high-threshold",
     OfBoth<K::kUnsigned, &V2::highThreshold, &V1::highThreshold>(),
     0,
     TALB_NUM_PRIORITIES,
     "Tensors with priority below this value are high priority"},
    {"MoveMargin",
     "move-margin",
     OfBoth<K::kReal, &V2::highMoveMarginBytes, &V1::moveMarginBytes>(),
     0,
     kMaxBytes,
     "Cost excess (bytes) of a high-priority tensor's port over the best candidate that moves "
     "the tensor mid-tensor (v2: queued bytes at or above its priority, when the ports are "
     "equally shared)"},
    {"LowMoveMargin",
     "low-move-margin",
     OfV2<K::kReal, &V2::lowMoveMarginBytes>(),
     0,
     kMaxBytes,
     "v2: the same margin for low-priority tensors (larger: their moves matter less to the next "
     "iteration and reorder more bytes)"},
    {"MarginMoves",
     "margin-moves",
     OfV2<K::kBool, &V2::marginMoves>(),
     0,
     1,
     "v2: a mid-tensor flow leaves a port whose queue exceeds an equally shared candidate's by "
     "{MoveMargin} or {LowMoveMargin} (false: only less shared ports, congestion and stalls "
     "move it mid-tensor; TCP's lbProfile, where each such move reorders the flow)"},
    {"MoveMarginRate",
     "move-margin-rate",
     OfV2<K::kRateBps, &V2::marginRateBps>(),
     0,
     kNoMax,
     "v2: the port rate {MoveMargin} and {LowMoveMargin} are bytes of; at other rates they "
     "scale with the fastest candidate port's rate, so a margin is one queueing delay (12 us by "
     "default) at 10 and at 100 Gb/s (0: the margins' bytes at every rate)"},
    {"MaxReorder",
     "max-reorder",
     OfV2<K::kReal, &V2::maxReorderBytes>(),
     0,
     kMaxBytes,
     "v2: a move is taken only if the flow's bytes it can overtake (queued bytes of the old port "
     "draining after the new one) are at most this (0: only moves that cannot reorder, for "
     "go-back-N transports; the default 1e9 bounds nothing, so TCP tensors follow bursts)"},
    {"Spray",
     "spray",
     OfV2<K::kEnum, &V2::spray>(),
     0,
     0,
     "v2: when tensor flows spread their packets over the ports (each packet to the port with "
     "the fewest bytes queued, as {SprayQueue} counts them; over paths of different rates as "
     "{SprayPaths} says) instead of keeping one: Never; "
     "WithUntagged, while an untagged data flow is active on a candidate port (pools the ports' "
     "capacity with background bursts); Contended, while that or a tensor flow of another job "
     "is; Always; SharedDestination, while the flow's destination leaf receives tensor traffic "
     "of two jobs (the leaf-to-leaf feedback's report: the simulator's RemoteAwareness); "
     "Crowded, while Contended's test holds or the candidate ports hold more active tensor flows "
     "than {CrowdFlowsPerPort} x their number (whole flows cannot each have a port: an "
     "all-to-all). Never RoCEv2 flows ({RoceGoBackN}) nor flows that {SafeMoves} covers",
     kSpray},
    {"CrowdFlowsPerPort",
     "crowd-flows-per-port",
     OfV2<K::kReal, &V2::crowdFlowsPerPort>(),
     0,
     TensorAwareV2::kMaxFlowSlots,
     "v2, Spray=Crowded: the candidate ports are crowded while they hold more active tensor "
     "flows than this x their number (a sprayed flow counts on each port it is active on, so a "
     "crowd stays sprayed until its flows pause; at most {FlowSlots})"},
    {"SprayQueue",
     "spray-queue",
     OfV2<K::kEnum, &V2::sprayQueue>(),
     0,
     0,
     "v2, {Spray}: the queue a sprayed packet's choice of port counts: AtOrAbove, the bytes "
     "queued at or above its priority (its wait at this port); All, every band's bytes (the "
     "load it adds to the path, as DRILL counts); AllWhenShared, All while another job's tensor "
     "flow is active on a candidate port (their packets share the spine downlinks whatever "
     "their band), else AtOrAbove; AtOrAboveThenAll, AtOrAbove with ties broken by every "
     "band's bytes (a port's buffer is shared by its bands: where lower bands fill it an "
     "urgent packet is dropped as any); AtOrAboveWithRoom, AtOrAbove among the ports whose "
     "buffer can take the packet now (every port when none can; a port that does not report "
     "its buffer's room counts as one that can)",
     kSprayQueue},
    {"SprayPaths",
     "spray-paths",
     OfV2<K::kEnum, &V2::sprayPaths>(),
     0,
     0,
     "v2, {Spray}: how a sprayed packet weighs paths of different rates (asymmetric links): "
     "Rate, weighted round robin by path rate: a clock per port and destination leaf advances "
     "by the packet's time on the path's slowest link, and the packet takes the path whose "
     "clock, plus the queue here, would read least (the paths share the leaf's bytes by their "
     "rates, even where the slow link is beyond the port and the senders' congestion control "
     "keeps the queues here short); Fastest, the fastest path first, then the fewest bytes "
     "queued (slower paths carry nothing while a faster one is a candidate; the rule before "
     "2026-11-30); on paths of one rate both are the same choice",
     kSprayPaths},
    {"SpreadRetransmits",
     "spread-retransmits",
     OfV2<K::kBool, &V2::spreadRetransmits>(),
     0,
     1,
     "v2: a TCP segment that resends bytes its tensor flow sent before (sequence not past the "
     "highest the switch saw) goes to the port with the fewest bytes queued, as a sprayed "
     "packet does, and the flow keeps its port (a retransmission fills a hole, so it cannot be "
     "reordered, and one lost again costs a retransmission timeout)"},
    {"Moves",
     nullptr,
     OfV2<K::kEnum, &V2::moves>(),
     0,
     0,
     "v2: what moves a tensor flow that is active on its port: Counts, a port with fewer other "
     "flows, or a queue shorter by the move margin; Congestion, only being slow on a path the "
     "remote feedback reports saturated ({SlowRate}, {CongestionTarget}, {RateWindow}; at most "
     "once per {MinMoveInterval}; needs RemoteAwareness): the flow counts then only place flows "
     "that have no active port; Contended, Congestion while an untagged flow or another job's "
     "tensor flow is active on a candidate port, Counts otherwise (needs RemoteAwareness too)",
     kMoves},
    {"CongestionWaitBelow",
     nullptr,
     OfV2<K::kUnsigned, &V2::congestionWaitBelow>(),
     0,
     TALB_NUM_PRIORITIES,
     "v2, Moves=Congestion or Contended: a safe-move flow (see {SafeMoves}) with priority below "
     "this takes a congestion move only once its old port has drained and {SafeMoveSlack} "
     "passed, as a safe move does: between messages, not mid-message (a go-back-N window is "
     "most of a short urgent message); 0: every congestion move at once"},
    {"SlowRate",
     nullptr,
     OfV2<K::kReal, &V2::slowRate>(),
     0,
     1,
     "v2, Moves=Congestion: a flow sending below this fraction of its port's rate (over "
     "{RateWindow}) is slow and may move"},
    {"RateKey",
     nullptr,
     OfV2<K::kEnum, &V2::rateKey>(),
     0,
     0,
     "v2, Moves=Congestion: whose rate {SlowRate} judges: Flow, each 5-tuple; HostPair, a "
     "source and destination host's flows together (hosts that spread a connection over "
     "queue pairs with their own source ports: each carries a share of the connection and "
     "would look slow alone; doc/talb-evaluation.rst, family qp)",
     kRateKey},
    {"CongestionTarget",
     nullptr,
     OfV2<K::kReal, &V2::congestionTarget>(),
     0,
     1,
     "v2, Moves=Congestion: a slow flow moves to the least congested other path only if the "
     "feedback reports it at most this utilisation (0..1)"},
    {"CongestionPick",
     nullptr,
     OfV2<K::kEnum, &V2::congestionPick>(),
     0,
     0,
     "v2, Moves=Congestion: which of the paths the feedback reports at most {CongestionTarget} "
     "a slow flow moves to: LeastCongested, the least utilised (flows judged slow together all "
     "take it: the feedback lags the moves); LeastShared, the one with the fewest active flows "
     "at or above the flow's priority, then of all, then the least utilised (the flow counts "
     "see each move at once, so flows that leave together spread)",
     kCongestionPick},
    {"CongestionDelay",
     nullptr,
     OfV2<K::kTimeNs, &V2::congestionDelayNs>(),
     0,
     kMaxTimeNs,
     "v2, Moves=Congestion: a path the feedback reports saturated counts as congested only when "
     "its queueing delay is at least this: the delay along the path fed back by the destination "
     "leaf, or the uplink's own queue now, whichever is longer (a path that one full-rate flow "
     "keeps busy reads saturated with empty queues); 0: the utilisation alone decides"},
    {"RateWindow",
     nullptr,
     OfV2<K::kTimeNs, &V2::rateWindowNs>(),
     1,
     kMaxTimeNs,
     "v2, Moves=Congestion: a flow's rate is measured over windows this long"},
    {"QueueMoves",
     nullptr,
     OfV2<K::kBool, &V2::queueMoves>(),
     0,
     1,
     "v2, Moves=Congestion or Contended: while the congestion rule governs, a mid-tensor flow "
     "still leaves a port whose queue exceeds an equally shared candidate's by the move margin "
     "(a local burst, e.g. heavy background); the moves to less shared ports stay off"},
    {"SafeMoves",
     "safe-moves",
     OfV2<K::kEnum, &V2::safeMoves>(),
     0,
     0,
     "v2: flows that move only once their old path has drained (their last packet left the "
     "port, plus {SafeMoveSlack}), in place of {MaxReorder}: GoBackN (RoCEv2 packets, UDP to "
     "port 4791: a reordering costs them a go-back-N window), GoBackNUnlessUntagged (GoBackN, "
     "except while an untagged flow is active on a candidate port: then they move as other "
     "flows do), Always, or Never",
     kSafeMoves},
    {"RoceGoBackN",
     "roce-gobackn",
     OfV2<K::kBool, &V2::roceGoBackN>(),
     0,
     1,
     "v2: the RoCEv2 NICs recover by go-back-N, so their flows move as {SafeMoves} says, are "
     "never sprayed and, untagged, take the go-back-N fallback; false where they recover by "
     "selective repeat (the runner's rdmaRecovery sr, or its spray transport): a reordered packet "
     "then costs them no more than a TCP flow, and they are moved and sprayed as TCP's"},
    {"SafeMoveSlack",
     "safe-move-slack-us",
     OfV2<K::kTimeNs, &V2::safeSlackNs>(),
     0,
     kMaxTimeNs,
     "v2: a safe-move flow moves this long after its last packet left its old port (covers the "
     "queues beyond the port, which the leaf cannot see)"},
    {"StallTimeout",
     "stall-timeout-us",
     OfV2<K::kTimeNs, &V2::stallTimeoutNs>(),
     0,
     kMaxTimeNs,
     "v2: a tensor that resumes after this long silent mid-tensor (a TCP retransmission "
     "timeout) leaves its port unless the port is strictly less shared, whatever {MaxReorder}; "
     "not {SafeMoves} flows (0: never; else above the longest active window)"},
    {"MinMoveInterval",
     "min-move-interval-us",
     OfV2<K::kTimeNs, &V2::minMoveIntervalNs>(),
     0,
     kMaxTimeNs,
     "v2: a tensor moves mid-tensor at most once per this interval"},
    {"ActiveWindow",
     "active-window-us",
     OfV2<K::kTimeNs, &V2::activeWindowNs>(),
     1,
     kMaxTimeNs,
     "v2: a tensor flow counts on a port while it sent there within this window (Pace mode: the "
     "shortest window); a flow silent longer is re-placed like a new tensor"},
    {"LastEndsWindow",
     "last-ends-window",
     OfV2<K::kBool, &V2::lastEndsWindow>(),
     0,
     1,
     "v2: a flow stops counting on its port once its tensor's LAST packet passes there (false: "
     "for {ActiveWindow} after it, as after a pause; finished all-to-all messages then fill the "
     "port's {FlowSlots} and simultaneous new flows are placed by the queue alone; RoCEv2's "
     "lbProfile over go-back-N NICs sets it)"},
    {"EndedTie",
     "ended-tie",
     OfV2<K::kEnum, &V2::endedTie>(),
     0,
     0,
     "v2, with {LastEndsWindow}: what breaks a tie of the ports' flow counts when a flow whose "
     "tensor ended is placed for its next one (between tensors flows count nowhere, and two "
     "flows' next tensors can land on one port): Queue: the shorter queue, as any placement; "
     "Spread: the port where fewer other flows' tensors ended within their active windows; "
     "Keep: that, then the port the flow's own tensor ended on (RoCEv2's lbProfile over "
     "go-back-N NICs sets Keep)",
     kEndedTie},
    {"ActiveWindowMode",
     "active-window-mode",
     OfV2<K::kEnum, &V2::windowMode>(),
     0,
     0,
     "v2: Fixed: every flow counts for {ActiveWindow} after its last packet; Pace: a tensor flow "
     "for {PaceFactor} x its own gap between packets (a decaying maximum), within "
     "[{ActiveWindow}, {MaxActiveWindow}]",
     kWindowMode},
    {"PaceFactor",
     "pace-factor",
     OfV2<K::kReal, &V2::paceFactor>(),
     1,
     1000,
     "v2, Pace mode: a flow's window as a multiple of its inter-packet gap"},
    {"MaxActiveWindow",
     "max-active-window-us",
     OfV2<K::kTimeNs, &V2::maxActiveWindowNs>(),
     1,
     kMaxTimeNs,
     "v2, Pace mode: the longest window (a flow that stops leaves its port's count at most this "
     "long after its last packet; at least {ActiveWindow})"},
    {"DreWeight",
     nullptr,
     OfV1<K::kReal, &V1::dreWeightBytes>(),
     0,
     kNoMax,
     "v1: bytes of cost a fully utilised port adds on top of its queued bytes"},
    {"LoadQuantum",
     nullptr,
     OfV1<K::kReal, &V1::loadQuantumBytes>(),
     1,
     kNoMax,
     "v1: granularity (bytes) at which high-priority loads count as equal"},
    {"IdleTimeout",
     "idle-timeout-us",
     OfBoth<K::kTimeNs, &V2::idleTimeoutNs, &V1::idleTimeoutNs>(),
     1,
     kMaxTimeNs,
     "A tensor entry idle for longer than this is aged out (keep it above the largest RTT under "
     "load: a sender stalled longer re-places its tensor)"},
    {"TableSize",
     "table-size",
     OfBoth<K::kUnsigned, &V2::tableSize, &V1::tableSize>(),
     1,
     1u << 24,
     "Tensor table slots (a power of two)"},
    {"ProbeLimit",
     "probe-limit",
     OfBoth<K::kUnsigned, &V2::probeLimit, &V1::probeLimit>(),
     1,
     64,
     "Consecutive slots a key may occupy (open addressing window; at most {TableSize})"},
    {"FlowSlots",
     "flow-slots",
     OfV2<K::kUnsigned, &V2::flowSlots>(),
     1,
     TensorAwareV2::kMaxFlowSlots,
     "v2: tensor flows each port remembers; more active flows than this count as this many, so "
     "a port's flow count saturates (an all-to-all puts more flows than 8 on an uplink); a "
     "decision scans this many slots per candidate port (the slot_overflows counter counts "
     "flows that found every slot of their port held); fixed at install"},
    {"DreInterval",
     nullptr,
     OfV1<K::kTimeNs, &V1::dreIntervalNs>(),
     1,
     kMaxTimeNs,
     "v1: decay interval of the per-port high-priority load estimator"},
    {"DreAlpha",
     nullptr,
     OfV1<K::kReal, &V1::dreAlpha>(),
     1e-6,
     1,
     "v1: decay factor per interval of the high-priority load estimator"},
    {"RemoteSprayBytes",
     nullptr,
     OfV2<K::kReal, &V2::remoteSprayBytes>(),
     0,
     kNoMax,
     "v2, {Spray}: while another job's tensor flow is active on a candidate port, a candidate "
     "whose path CONGA's leaf-to-leaf feedback reports saturated counts this many more bytes of "
     "queue for a sprayed packet (bytes at {MoveMarginRate}, scaled with the rate as the "
     "margins); > 0 runs the feedback as RemoteAwareness does, without its placement rule (every "
     "switch must run it; fixed at install); 0: off"},
};

} // namespace

const SettingTable<TensorAwareConfig>&
TensorAwareConfig::Settings()
{
    static const SettingTable<TensorAwareConfig> kTable("talb", kRows);
    return kTable;
}

} // namespace lb
} // namespace talb
