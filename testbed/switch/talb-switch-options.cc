#include "talb-switch-options.h"

#include "talb-text.h"

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>

namespace talb
{

namespace
{

using SafeMoves = lb::TensorAwareV2::SafeMoves;
using WindowMode = lb::TensorAwareV2::WindowMode;
using Spray = lb::TensorAwareV2::Spray;
using SprayQueue = lb::TensorAwareV2::SprayQueue;

/// A spelling of an enumerated option's value.
template <class E>
struct Spelling
{
    const char* name;
    E value;
};

constexpr Spelling<SafeMoves> kSafeMoves[] = {
    {"gobackn-unless-untagged", SafeMoves::kGoBackNUnlessUntagged},
    {"gobackn", SafeMoves::kGoBackN},
    {"always", SafeMoves::kAlways},
    {"never", SafeMoves::kNever}};
constexpr Spelling<WindowMode> kWindowModes[] = {{"fixed", WindowMode::kFixed},
                                                 {"pace", WindowMode::kPace}};
constexpr Spelling<Spray> kSprays[] = {{"contended", Spray::kContended},
                                       {"withuntagged", Spray::kWithUntagged},
                                       {"always", Spray::kAlways},
                                       {"never", Spray::kNever}};
constexpr Spelling<SprayQueue> kSprayQueues[] = {{"allwhenshared", SprayQueue::kAllWhenShared},
                                                 {"all", SprayQueue::kAll},
                                                 {"atorabove", SprayQueue::kAtOrAbove}};
constexpr Spelling<LabelSource> kLabelSources[] = {{"option", LabelSource::kOption},
                                                   {"dscp", LabelSource::kDscp}};

/// \return the spelling of \p value in \p spellings
template <class E, size_t N>
const char*
NameOf(const Spelling<E> (&spellings)[N], E value)
{
    for (const Spelling<E>& s : spellings)
    {
        if (s.value == value)
        {
            return s.name;
        }
    }
    return "?";
}

/// \return the value spelt \p text (any case: the simulator's spellings, GoBackN, Pace, ...)
template <class E, size_t N>
bool
ParseSpelling(const Spelling<E> (&spellings)[N], const std::string& text, E* value)
{
    std::string v = text;
    std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    for (const Spelling<E>& s : spellings)
    {
        if (v == s.name)
        {
            *value = s.value;
            return true;
        }
    }
    return false;
}

/// Parses option \p name's \p text into \p value; else \p error names the option, the text and
/// every accepted spelling (from the same table, so a new value cannot be left out of it).
template <class E, size_t N>
bool
ParseEnumOption(const std::string& name,
                const Spelling<E> (&spellings)[N],
                const std::string& text,
                E* value,
                std::string* error)
{
    if (ParseSpelling(spellings, text, value))
    {
        return true;
    }
    *error = name + ": '" + text + "' is not ";
    for (size_t i = 0; i < N; ++i)
    {
        *error += std::string(i == 0 ? "" : i + 1 == N ? " or " : ", ") + spellings[i].name;
    }
    return false;
}

/// \return \p ns in whole microseconds (the options' unit)
int64_t
Us(int64_t ns)
{
    return ns / 1000;
}

/// \return a byte count held in a double, printed as an integer (1e9 as 1000000000)
uint64_t
Whole(double bytes)
{
    return static_cast<uint64_t>(bytes);
}

/// \return \p bps as --line-rate spells it, in the largest unit that divides it
std::string
RateText(uint64_t bps)
{
    const struct
    {
        const char* unit;
        uint64_t scale;
    } units[] = {{"Gbps", 1000000000}, {"Mbps", 1000000}, {"kbps", 1000}};

    for (const auto& u : units)
    {
        if (bps > 0 && bps % u.scale == 0)
        {
            return std::to_string(bps / u.scale) + u.unit;
        }
    }
    return std::to_string(bps) + "bps";
}

/// \return --talb-move-margin-rate's value as it is spelt (0 for none)
std::string
MarginRateText(uint64_t bps)
{
    return bps == 0 ? "0" : RateText(bps);
}

} // namespace

std::string
SwitchUsage(const std::string& prog)
{
    // The defaults are those of the options' structs, the decision core's Configs included.
    const SwitchOptions d;
    const PolicyOptions& p = d.policy;
    const lb::TensorAwareV2::Config& t = p.talb;
    std::ostringstream os;
    os << "usage: " << prog << " [EAL args] -- --config=FILE [options]\n"
       << "A software leaf or spine switch: forwards IPv4 by destination prefix; where a route\n"
       << "has several ports the load balancer chooses per packet (the simulator's decision\n"
       << "code); each port queues in 8 strict-priority bands by TaLB priority or DSCP, marks\n"
       << "ECN, and may be shaped to a rate. Frames are forwarded unchanged (no MAC rewrite).\n"
       << "  --config=FILE            ports and routes: 'port <id> <device> [rate=R] [ecn=B]\n"
       << "                           [buffer=B]', 'route <a.b.c.d>/<len> <port>[,<port>..]\n"
       << "                           [leaf=N]' ('#' comments)\n"
       << "  --lb=NAME                load balancer: " << PolicyNames() << "\n"
       << "                           (default " << p.name
       << "; talb is TaLB v2, talb-v1 the first design)\n"
       << "  --labels=option|dscp     label source: the TaLB IPv4 option (tensor, priority,\n"
       << "                           FIRST/LAST), or the DSCP alone (priority; the flow stands\n"
       << "                           for its tensor) (default "
       << NameOf(kLabelSources, d.pipeline.labels) << ")\n"
       << "  --fallback=NAME          the TaLB versions' policy for unlabelled packets\n"
       << "                           (default " << p.fallback << "): " << PolicyNames(true) << "\n"
       << "  --gobackn-fallback=NAME  their policy for unlabelled RoCEv2 data (UDP to 4791,\n"
       << "                           128 B or more: a reordering costs it a go-back-N window),\n"
       << "                           or 'none' (then --fallback's) (default " << p.goBackNFallback
       << ")\n"
       << "  --seed=N                 seed of the load balancer's random source (default " << p.seed
       << ")\n"
       << "  --switch-id=N            decorrelates ECMP hashing between switches (default "
       << p.switchId << ")\n"
       << "  --flowlet-timeout-us=N   LetFlow's flowlet gap, 1..10000000 (default "
       << Us(p.letflow.timeoutNs) << ")\n"
       << "  --drill-samples=N        DRILL's random samples, 1..16 (default " << p.drill.samples
       << ")\n"
       << "  --drill-memory=N         DRILL's remembered ports, 0..8 (default " << p.drill.memory
       << ")\n"
       << "  --presto-flowcell-bytes=B  Presto: bytes of a flowcell, 1..2^30 (default "
       << p.presto.flowcellBytes << ")\n"
       << "  --presto-idle-timeout-us=N Presto: a flow idle longer restarts at flowcell 0,\n"
       << "                           1..10000000 (default " << Us(p.presto.idleNs) << ")\n"
       << "Hermes (the simulator's TalbHermesLb attributes; it senses this switch's own\n"
       << "uplinks: queue delay, and the share of packets it marked CE for routes with leaf=):\n"
       << "  --hermes-idle-timeout-us=N  a flow idle longer is placed afresh, 1..10000000\n"
       << "                           (default " << Us(p.hermes.idleNs) << ")\n"
       << "  --hermes-ecn-threshold=F ECN fraction at or above which (with the high delay) a\n"
       << "                           path is congested, below which it may be good, 0..1\n"
       << "                           (default " << p.hermes.ecnThreshold << ")\n"
       << "  --hermes-delay-low-us=N  queueing delay below which a path may be good (default "
       << Us(p.hermes.delayLowNs) << ")\n"
       << "  --hermes-delay-high-us=N queueing delay at or above which a path may be congested\n"
       << "                           (default " << Us(p.hermes.delayHighNs)
       << "; at least the low delay)\n"
       << "  --hermes-delta-ecn=F     a notably better path has an ECN fraction lower by F ...\n"
       << "                           0..1 (default " << p.hermes.deltaEcn << ")\n"
       << "  --hermes-delta-delay-us=N  ... and a delay lower by N us (default "
       << Us(p.hermes.deltaDelayNs) << ")\n"
       << "  --hermes-size-threshold=B  bytes a flow must have sent to be rerouted (default\n"
       << "                           " << p.hermes.sizeThresholdBytes << ")\n"
       << "  --hermes-rate-threshold=F  a flow faster than F x its uplink's rate stays, 0..1000\n"
       << "                           (default " << p.hermes.rateThreshold << ")\n"
       << "  --hermes-rate-window-us=N  window of a flow's rate and of the ECN fraction; a flow\n"
       << "                           moves at most once per window (default "
       << Us(p.hermes.rateWindowNs) << ")\n"
       << "TaLB (talb and talb-v1; the simulator's TalbTensorAwareLb attributes):\n"
       << "  --talb-high-threshold=N  priorities below N are high, 0..8 (default "
       << unsigned(t.highThreshold) << ")\n"
       << "  --talb-move-margin=B     cost excess in bytes that moves a high-priority tensor\n"
       << "                           mid-tensor (v2: queued bytes at or above its priority,\n"
       << "                           when the ports are equally shared), 0..2^30 (default "
       << Whole(t.highMoveMarginBytes) << ")\n"
       << "  --talb-idle-timeout-us=N tensor entry idle timeout, 1..10000000 (default "
       << Us(t.idleTimeoutNs) << ")\n"
       << "  --talb-table-size=N      tensor table slots, a power of two, 1..2^24 (default "
       << t.tableSize << ")\n"
       << "  --talb-probe-limit=N     slots a key may occupy, 1..64, at most the table size\n"
       << "                           (default " << t.probeLimit << ")\n"
       << "TaLB v2 only (talb):\n"
       << "  --talb-low-move-margin=B the move margin of low-priority tensors, 0..2^30\n"
       << "                           (default " << Whole(t.lowMoveMarginBytes) << ")\n"
       << "  --talb-move-margin-rate=R  the port rate both move margins are bytes of; at other\n"
       << "                           rates they scale with the fastest candidate's (one\n"
       << "                           queueing delay at any rate); 0: bytes at every rate\n"
       << "                           (default " << MarginRateText(t.marginRateBps) << ")\n"
       << "  --talb-max-reorder=B     a move is taken only if the bytes it can overtake (queued\n"
       << "                           on the old port, draining after the new one) are at most\n"
       << "                           B, 0..2^30 (default " << Whole(t.maxReorderBytes)
       << ": no bound, TCP tensors\n"
       << "                           follow bursts)\n"
       << "  --talb-safe-moves=MODE   flows that move only once their old path has drained,\n"
       << "                           instead of --talb-max-reorder: gobackn (RoCEv2, UDP port\n"
       << "                           4791), gobackn-unless-untagged (gobackn, except while an\n"
       << "                           untagged flow is active on a candidate port: then they\n"
       << "                           move as other flows do), always or never (default\n"
       << "                           " << NameOf(kSafeMoves, t.safeMoves) << ")\n"
       << "  --talb-spray=MODE        when TCP tensor flows spread their packets over the\n"
       << "                           ports (each to the least queued, as\n"
       << "                           --talb-spray-queue counts) instead of keeping one:\n"
       << "                           contended (untagged traffic or another job's tensor\n"
       << "                           flow on the ports), withuntagged, always or never\n"
       << "                           (default " << NameOf(kSprays, t.spray) << ")\n"
       << "  --talb-spray-queue=MODE  what a sprayed packet counts: atorabove (bytes queued\n"
       << "                           at or above its priority), all (every band's bytes),\n"
       << "                           allwhenshared (all while another job's tensor flow is\n"
       << "                           on a candidate port, else atorabove) (default "
       << NameOf(kSprayQueues, t.sprayQueue) << ")\n"
       << "  --talb-safe-move-slack-us=N  a safe-move flow moves this long after its last\n"
       << "                           packet left its old port, 0..10000000 (default "
       << Us(t.safeSlackNs) << ")\n"
       << "  --talb-min-move-interval-us=N  a tensor moves mid-tensor at most once per N us,\n"
       << "                           0..10000000 (default " << Us(t.minMoveIntervalNs) << ")\n"
       << "  --talb-active-window-us=N  a tensor flow counts on a port while it sent there\n"
       << "                           within N us, 1..10000000 (default " << Us(t.activeWindowNs)
       << ")\n"
       << "  --talb-active-window-mode=MODE  fixed: every flow counts for\n"
       << "                           --talb-active-window-us; pace: for --talb-pace-factor x\n"
       << "                           its own inter-packet gap, between --talb-active-window-us\n"
       << "                           and --talb-max-active-window-us (default "
       << NameOf(kWindowModes, t.windowMode) << ")\n"
       << "  --talb-pace-factor=X     pace mode: a flow's window over its gap, 1..1000\n"
       << "                           (default " << t.paceFactor << ")\n"
       << "  --talb-max-active-window-us=N  pace mode: the longest window (a flow that stops\n"
       << "                           leaves its port's count at most N us after its last\n"
       << "                           packet; a longer gap is a pause), 1..10000000 (default\n"
       << "                           " << Us(t.maxActiveWindowNs)
       << "), at least --talb-active-window-us\n"
       << "  --talb-stall-timeout-us=N  a TCP tensor that resumes after N us silent mid-tensor\n"
       << "                           (a retransmission timeout) leaves its port unless it is\n"
       << "                           strictly less shared; 0 = off, else above\n"
       << "                           the longest active window, at most 10000000 (default "
       << Us(t.stallTimeoutNs) << ")\n"
       << "Ports:\n"
       << "  --ecn-threshold=B        marking threshold in bytes for ports without ecn=\n"
       << "                           (default " << d.pipeline.egress.ecnThresholdBytes << ": "
       << d.pipeline.egress.ecnThresholdBytes / d.mtu << " full-size packets)\n"
       << "  --no-ecn                 never mark\n"
       << "  --buffer=B               egress buffer in bytes for ports without buffer=\n"
       << "                           (default " << d.pipeline.egress.bufferBytes << ")\n"
       << "  --line-rate=R            DRE capacity of unshaped ports (default "
       << RateText(d.pipeline.lineRateBps) << ")\n"
       << "  --burst-us=N             a shaped port's bucket depth in microseconds of its rate\n"
       << "                           (at least 4 frames), 1..1000000 (default "
       << d.pipeline.shaperBurstUs << ")\n"
       << "  --mtu=N                  ports' MTU, 68..9600 (default " << d.mtu << ")\n"
       << "  --stats-interval=SEC     seconds between stats lines, 0 = none (default "
       << d.statsInterval << ")\n"
       << "  --idle-sleep-us=N        when a pass over the ports moved nothing, sleep up to N\n"
       << "                           us (less when a shaped packet may leave sooner); 0 =\n"
       << "                           busy-poll, the default; 1..10000\n"
       << "  --help                   this text\n"
       << "SIGINT/SIGTERM stop it; it prints final counters, last line:\n"
       << "  talb-switch final: rx=.. tx=.. queued=.. labelled=.. unlabelled=.. malformed=..\n"
       << "                     not_ipv4=.. no_route=.. queue_drops=.. discarded=.. marked=..\n"
       << "                     selections=.. reroutes=.. evictions=.. missed=..\n"
       << "  (rx = tx + not_ipv4 + no_route + queue_drops + discarded)\n";
    return os.str();
}

bool
ParseSwitchOptions(int argc, char** argv, SwitchOptions* o, std::string* error)
{
    // Numeric options: name -> (lo, hi, where the value goes).
    struct Number
    {
        uint64_t lo;
        uint64_t hi;
        std::function<void(uint64_t)> set;
    };

    std::map<std::string, Number> numbers = {
        {"--seed", {0, UINT64_MAX >> 1, [o](uint64_t v) { o->policy.seed = v; }}},
        {"--switch-id", {0, UINT32_MAX, [o](uint64_t v) { o->policy.switchId = uint32_t(v); }}},
        {"--flowlet-timeout-us",
         {1, 10000000, [o](uint64_t v) { o->policy.letflow.timeoutNs = int64_t(v) * 1000; }}},
        {"--drill-samples", {1, 16, [o](uint64_t v) { o->policy.drill.samples = uint32_t(v); }}},
        {"--drill-memory", {0, 8, [o](uint64_t v) { o->policy.drill.memory = uint32_t(v); }}},
        {"--presto-flowcell-bytes",
         {1, 1u << 30, [o](uint64_t v) { o->policy.presto.flowcellBytes = uint32_t(v); }}},
        {"--presto-idle-timeout-us",
         {1, 10000000, [o](uint64_t v) { o->policy.presto.idleNs = int64_t(v) * 1000; }}},
        {"--hermes-idle-timeout-us",
         {1, 10000000, [o](uint64_t v) { o->policy.hermes.idleNs = int64_t(v) * 1000; }}},
        {"--hermes-delay-low-us",
         {0, 10000000, [o](uint64_t v) { o->policy.hermes.delayLowNs = int64_t(v) * 1000; }}},
        {"--hermes-delay-high-us",
         {0, 10000000, [o](uint64_t v) { o->policy.hermes.delayHighNs = int64_t(v) * 1000; }}},
        {"--hermes-delta-delay-us",
         {0, 10000000, [o](uint64_t v) { o->policy.hermes.deltaDelayNs = int64_t(v) * 1000; }}},
        {"--hermes-size-threshold",
         {0, 1ull << 40, [o](uint64_t v) { o->policy.hermes.sizeThresholdBytes = v; }}},
        {"--hermes-rate-window-us",
         {1, 10000000, [o](uint64_t v) { o->policy.hermes.rateWindowNs = int64_t(v) * 1000; }}},
        // Shared by both TaLB versions, as the simulator's attributes are.
        {"--talb-high-threshold",
         {0,
          TALB_NUM_PRIORITIES,
          [o](uint64_t v) {
              o->policy.talb.highThreshold = o->policy.talbV1.highThreshold = uint8_t(v);
          }}},
        {"--talb-move-margin",
         {0,
          1u << 30,
          [o](uint64_t v) {
              o->policy.talb.highMoveMarginBytes = o->policy.talbV1.moveMarginBytes = double(v);
          }}},
        {"--talb-idle-timeout-us",
         {1,
          10000000,
          [o](uint64_t v) {
              o->policy.talb.idleTimeoutNs = o->policy.talbV1.idleTimeoutNs = int64_t(v) * 1000;
          }}},
        {"--talb-table-size",
         {1,
          1u << 24,
          [o](uint64_t v) {
              o->policy.talb.tableSize = o->policy.talbV1.tableSize = uint32_t(v);
          }}},
        {"--talb-probe-limit",
         {1,
          64,
          [o](uint64_t v) {
              o->policy.talb.probeLimit = o->policy.talbV1.probeLimit = uint32_t(v);
          }}},
        // TaLB v2's own.
        {"--talb-low-move-margin",
         {0, 1u << 30, [o](uint64_t v) { o->policy.talb.lowMoveMarginBytes = double(v); }}},
        {"--talb-max-reorder",
         {0, 1u << 30, [o](uint64_t v) { o->policy.talb.maxReorderBytes = double(v); }}},
        {"--talb-safe-move-slack-us",
         {0, 10000000, [o](uint64_t v) { o->policy.talb.safeSlackNs = int64_t(v) * 1000; }}},
        {"--talb-min-move-interval-us",
         {0, 10000000, [o](uint64_t v) { o->policy.talb.minMoveIntervalNs = int64_t(v) * 1000; }}},
        {"--talb-active-window-us",
         {1, 10000000, [o](uint64_t v) { o->policy.talb.activeWindowNs = int64_t(v) * 1000; }}},
        {"--talb-max-active-window-us",
         {1, 10000000, [o](uint64_t v) { o->policy.talb.maxActiveWindowNs = int64_t(v) * 1000; }}},
        {"--talb-stall-timeout-us",
         {0, 10000000, [o](uint64_t v) { o->policy.talb.stallTimeoutNs = int64_t(v) * 1000; }}},
        {"--ecn-threshold",
         {0, 1ull << 32, [o](uint64_t v) { o->pipeline.egress.ecnThresholdBytes = v; }}},
        {"--buffer", {2048, 1ull << 32, [o](uint64_t v) { o->pipeline.egress.bufferBytes = v; }}},
        {"--burst-us", {1, 1000000, [o](uint64_t v) { o->pipeline.shaperBurstUs = uint32_t(v); }}},
        {"--mtu", {68, 9600, [o](uint64_t v) { o->mtu = uint32_t(v); }}},
        {"--stats-interval", {0, 3600, [o](uint64_t v) { o->statsInterval = uint32_t(v); }}},
        {"--idle-sleep-us", {0, 10000, [o](uint64_t v) { o->idleSleepUs = uint32_t(v); }}},
    };

    // Real options: name -> (lo, hi, where the value goes).
    struct Real
    {
        double lo;
        double hi;
        std::function<void(double)> set;
    };

    std::map<std::string, Real> reals = {
        {"--hermes-ecn-threshold", {0, 1, [o](double v) { o->policy.hermes.ecnThreshold = v; }}},
        {"--hermes-delta-ecn", {0, 1, [o](double v) { o->policy.hermes.deltaEcn = v; }}},
        {"--hermes-rate-threshold",
         {0, 1000, [o](double v) { o->policy.hermes.rateThreshold = v; }}},
        {"--talb-pace-factor", {1, 1000, [o](double v) { o->policy.talb.paceFactor = v; }}},
    };
    // Options with a word or a rate: name -> parse-and-store (false, *error set: refused).
    using Setter = std::function<bool(const std::string& name, const std::string& value)>;
    // A balancer's name: any (--lb), or one that can be a fallback, "none" too where allowed.
    auto policyName = [error](std::string* field, bool fallback, bool noneAllowed) -> Setter {
        return [=](const std::string& name, const std::string& value) {
            const PolicyKind* kind = FindPolicyKind(value);
            if (!(noneAllowed && value == "none") && (!kind || (fallback && !kind->canBeFallback)))
            {
                *error = name + ": '" + value + "' is not one of " + (noneAllowed ? "none, " : "") +
                         PolicyNames(fallback);
                return false;
            }
            *field = value;
            return true;
        };
    };
    // A value spelt as one of \p table's words.
    auto enumOption = [error](const auto& table, auto* field) -> Setter {
        return [error, &table, field](const std::string& name, const std::string& value) {
            return ParseEnumOption(name, table, value, field, error);
        };
    };
    std::map<std::string, Setter> words = {
        {"--config",
         [o, error](const std::string&, const std::string& value) {
             if (value.empty())
             {
                 *error = "--config: empty file name";
                 return false;
             }
             o->config = value;
             return true;
         }},
        {"--lb", policyName(&o->policy.name, false, false)},
        {"--fallback", policyName(&o->policy.fallback, true, false)},
        {"--gobackn-fallback", policyName(&o->policy.goBackNFallback, true, true)},
        {"--talb-safe-moves", enumOption(kSafeMoves, &o->policy.talb.safeMoves)},
        {"--talb-spray", enumOption(kSprays, &o->policy.talb.spray)},
        {"--talb-spray-queue", enumOption(kSprayQueues, &o->policy.talb.sprayQueue)},
        {"--talb-active-window-mode", enumOption(kWindowModes, &o->policy.talb.windowMode)},
        {"--labels", enumOption(kLabelSources, &o->pipeline.labels)},
        {"--talb-move-margin-rate",
         [o, error](const std::string& name, const std::string& value) {
             if (value == "0")
             {
                 o->policy.talb.marginRateBps = 0;
                 return true;
             }
             if (!ParseRate(value, &o->policy.talb.marginRateBps))
             {
                 *error = name + ": '" + value + "' is not 0 or a rate such as 10Gbps";
                 return false;
             }
             return true;
         }},
        {"--line-rate",
         [o, error](const std::string& name, const std::string& value) {
             if (!ParseRate(value, &o->pipeline.lineRateBps))
             {
                 *error = name + ": '" + value + "' is not a rate such as 10Gbps";
                 return false;
             }
             return true;
         }},
    };
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        std::string name = arg.substr(0, eq);
        bool hasValue = eq != std::string::npos;
        std::string value = hasValue ? arg.substr(eq + 1) : "";
        auto number = numbers.find(name);
        auto real = reals.find(name);
        auto word = words.find(name);
        if (name == "--help" && !hasValue)
        {
            o->help = true;
        }
        else if (name == "--no-ecn" && !hasValue)
        {
            o->pipeline.egress.ecn = false;
        }
        else if (!hasValue)
        {
            bool known = number != numbers.end() || real != reals.end() || word != words.end();
            *error = known ? name + ": needs a value (" + name + "=...)"
                           : "unknown argument '" + arg + "'";
            return false;
        }
        else if (number != numbers.end())
        {
            uint64_t v;
            if (!ParseUnsigned(value, number->second.lo, number->second.hi, &v))
            {
                *error = name + ": '" + value + "' is not a number in " +
                         std::to_string(number->second.lo) + ".." +
                         std::to_string(number->second.hi);
                return false;
            }
            number->second.set(v);
        }
        else if (real != reals.end())
        {
            double v;
            if (!ParseReal(value, real->second.lo, real->second.hi, &v))
            {
                std::ostringstream range;
                range << real->second.lo << ".." << real->second.hi;
                *error = name + ": '" + value + "' is not a number in " + range.str();
                return false;
            }
            real->second.set(v);
        }
        else if (word != words.end())
        {
            if (!word->second(name, value))
            {
                return false;
            }
        }
        else
        {
            *error = "unknown argument '" + arg + "'";
            return false;
        }
    }
    if (!o->help && o->config.empty())
    {
        *error = "--config is required";
        return false;
    }
    if (o->policy.hermes.delayLowNs > o->policy.hermes.delayHighNs)
    {
        *error = "--hermes-delay-low-us: " + std::to_string(o->policy.hermes.delayLowNs / 1000) +
                 " exceeds --hermes-delay-high-us " +
                 std::to_string(o->policy.hermes.delayHighNs / 1000);
        return false;
    }
    const lb::TensorAwareV2::Config& t = o->policy.talb;
    if ((t.tableSize & (t.tableSize - 1)) != 0)
    {
        *error = "--talb-table-size: " + std::to_string(t.tableSize) + " is not a power of two";
        return false;
    }
    if (t.probeLimit > t.tableSize)
    {
        *error = "--talb-probe-limit: " + std::to_string(t.probeLimit) +
                 " exceeds the table size " + std::to_string(t.tableSize);
        return false;
    }
    const bool pace = t.windowMode == WindowMode::kPace;
    if (pace && t.maxActiveWindowNs < t.activeWindowNs)
    {
        *error = "--talb-max-active-window-us: " + std::to_string(t.maxActiveWindowNs / 1000) +
                 " is below --talb-active-window-us " + std::to_string(t.activeWindowNs / 1000);
        return false;
    }
    const int64_t longest = pace ? t.maxActiveWindowNs : t.activeWindowNs;
    if (t.stallTimeoutNs > 0 && t.stallTimeoutNs <= longest)
    {
        *error = "--talb-stall-timeout-us: " + std::to_string(t.stallTimeoutNs / 1000) +
                 " is not above " +
                 (pace ? "--talb-max-active-window-us " : "--talb-active-window-us ") +
                 std::to_string(longest / 1000);
        return false;
    }
    o->pipeline.maxFrameBytes = o->mtu + 22;
    return true;
}

} // namespace talb
