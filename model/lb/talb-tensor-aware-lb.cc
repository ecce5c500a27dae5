#include "talb-tensor-aware-lb.h"

#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-roce-header.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTensorAwareLb");

NS_OBJECT_ENSURE_REGISTERED(TalbTensorAwareLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbTensorAwareLb, "talb");

template <class T, T TalbTensorAwareLb::*Member>
void
TalbTensorAwareLb::SetAndRetune(T value)
{
    this->*Member = value;
    Retune();
}

template <class T, T TalbTensorAwareLb::*Member>
T
TalbTensorAwareLb::GetMember() const
{
    return this->*Member;
}

/// The accessor pair of an attribute that a running policy takes (SetAndRetune).
#define TALB_RETUNED(T, member)                                                                    \
    &TalbTensorAwareLb::SetAndRetune<T, &TalbTensorAwareLb::member>,                               \
        &TalbTensorAwareLb::GetMember<T, &TalbTensorAwareLb::member>

namespace
{

using V1 = talb::lb::TensorAwareV1;
using V2 = talb::lb::TensorAwareV2;

/// The attributes' defaults are the cores' (one source for the simulator and the testbed
/// switch); v2's where both versions take an attribute, which must then agree with v1's.
constexpr V1::Config kV1Defaults{};
constexpr V2::Config kV2Defaults{};
static_assert(kV1Defaults.highThreshold == kV2Defaults.highThreshold &&
                  kV1Defaults.moveMarginBytes == kV2Defaults.highMoveMarginBytes &&
                  kV1Defaults.idleTimeoutNs == kV2Defaults.idleTimeoutNs &&
                  kV1Defaults.tableSize == kV2Defaults.tableSize &&
                  kV1Defaults.probeLimit == kV2Defaults.probeLimit,
              "an attribute both TaLB versions take has one default");

} // namespace

TypeId
TalbTensorAwareLb::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTensorAwareLb")
            .SetParent<TalbCoreLb>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTensorAwareLb>()
            .AddAttribute("Version",
                          "Decision: 2 places tensors by what delays them and lets every priority "
                          "move (bounded reordering); 1 is the first design (only high-priority "
                          "tensors move; low ones avoid high-priority load); fixed at install",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_version),
                          MakeUintegerChecker<uint32_t>(1, 2))
            .AddAttribute("HighPriorityThreshold",
                          "Tensors with priority below this value are high priority",
                          UintegerValue(kV2Defaults.highThreshold),
                          MakeUintegerAccessor(TALB_RETUNED(uint8_t, m_highThreshold)),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES))
            .AddAttribute("MoveMargin",
                          "Cost excess (bytes) of a high-priority tensor's port over the best "
                          "candidate that moves the tensor mid-tensor (v2: queued bytes at or "
                          "above its priority, when the ports are equally shared)",
                          DoubleValue(kV2Defaults.highMoveMarginBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_moveMargin)),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("LowMoveMargin",
                          "v2: the same margin for low-priority tensors (larger: their moves "
                          "matter less to the next iteration and reorder more bytes)",
                          DoubleValue(kV2Defaults.lowMoveMarginBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_lowMoveMargin)),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("MoveMarginRate",
                          "v2: the port rate MoveMargin and LowMoveMargin are bytes of; at other "
                          "rates they scale with the fastest candidate port's rate, so a margin "
                          "is one queueing delay (12 us by default) at 10 and at 100 Gb/s "
                          "(0bps: the margins' bytes at every rate)",
                          DataRateValue(DataRate(kV2Defaults.marginRateBps)),
                          MakeDataRateAccessor(TALB_RETUNED(DataRate, m_moveMarginRate)),
                          MakeDataRateChecker())
            .AddAttribute("MaxReorder",
                          "v2: a move is taken only if the flow's bytes it can overtake (queued "
                          "bytes of the old port draining after the new one) are at most this "
                          "(0: only moves that cannot reorder, for go-back-N transports; the "
                          "default 1e9 bounds nothing, so TCP tensors follow bursts)",
                          DoubleValue(kV2Defaults.maxReorderBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_maxReorder)),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("Spray",
                          "v2: when tensor flows spread their packets over the ports (each packet "
                          "to the fastest path with the fewest bytes queued, as SprayQueue "
                          "counts them) instead of keeping one: Never; WithUntagged, while an "
                          "untagged data flow is active on a candidate port (pools the ports' "
                          "capacity with background bursts); Contended, while that or a tensor "
                          "flow of another job is; Always. Never RoCEv2 (go-back-N) flows nor "
                          "flows that SafeMoves covers",
                          EnumValue(int(kV2Defaults.spray)),
                          MakeEnumAccessor(TALB_RETUNED(int, m_spray)),
                          MakeEnumChecker(int(V2::Spray::kNever),
                                          "Never",
                                          int(V2::Spray::kWithUntagged),
                                          "WithUntagged",
                                          int(V2::Spray::kAlways),
                                          "Always",
                                          int(V2::Spray::kContended),
                                          "Contended"))
            .AddAttribute("SprayQueue",
                          "v2, Spray: the queue a sprayed packet's choice of port counts: "
                          "AtOrAbove, the bytes queued at or above its priority (its wait at "
                          "this port); All, every band's bytes (the load it adds to the path, as "
                          "DRILL counts); AllWhenShared, All while another job's tensor flow is "
                          "active on a candidate port (their packets share the spine downlinks "
                          "whatever their band), else AtOrAbove",
                          EnumValue(int(kV2Defaults.sprayQueue)),
                          MakeEnumAccessor(TALB_RETUNED(int, m_sprayQueue)),
                          MakeEnumChecker(int(V2::SprayQueue::kAtOrAbove),
                                          "AtOrAbove",
                                          int(V2::SprayQueue::kAll),
                                          "All",
                                          int(V2::SprayQueue::kAllWhenShared),
                                          "AllWhenShared"))
            .AddAttribute("Moves",
                          "v2: what moves a tensor flow that is active on its port: Counts, a port "
                          "with fewer other flows, or a queue shorter by the move margin; "
                          "Congestion, only being slow on a path the remote feedback reports "
                          "saturated (SlowRate, CongestionTarget, RateWindow; at most once per "
                          "MinMoveInterval; needs RemoteAwareness): the flow counts then only "
                          "place flows that have no active port; Contended, Congestion while an "
                          "untagged flow or another job's tensor flow is active on a candidate "
                          "port, Counts otherwise (needs RemoteAwareness too)",
                          EnumValue(int(kV2Defaults.moves)),
                          MakeEnumAccessor(TALB_RETUNED(int, m_moves)),
                          MakeEnumChecker(int(V2::Moves::kCounts),
                                          "Counts",
                                          int(V2::Moves::kCongestion),
                                          "Congestion",
                                          int(V2::Moves::kContended),
                                          "Contended"))
            .AddAttribute("SlowRate",
                          "v2, Moves=Congestion: a flow sending below this fraction of its port's "
                          "rate (over RateWindow) is slow and may move",
                          DoubleValue(kV2Defaults.slowRate),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_slowRate)),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("CongestionTarget",
                          "v2, Moves=Congestion: a slow flow moves to the least congested other "
                          "path only if the feedback reports it at most this utilisation (0..1)",
                          DoubleValue(kV2Defaults.congestionTarget),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_congestionTarget)),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("RateWindow",
                          "v2, Moves=Congestion: a flow's rate is measured over windows this long",
                          TimeValue(NanoSeconds(kV2Defaults.rateWindowNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_rateWindow)),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("QueueMoves",
                          "v2, Moves=Congestion or Contended: while the congestion rule governs, a "
                          "mid-tensor flow still leaves a port whose queue exceeds an equally "
                          "shared candidate's by the move margin (a local burst, e.g. heavy "
                          "background); the moves to less shared ports stay off",
                          BooleanValue(kV2Defaults.queueMoves),
                          MakeBooleanAccessor(TALB_RETUNED(bool, m_queueMoves)),
                          MakeBooleanChecker())
            .AddAttribute("SafeMoves",
                          "v2: flows that move only once their old path has drained (their last "
                          "packet left the port, plus SafeMoveSlack), in place of MaxReorder: "
                          "GoBackN (RoCEv2 packets: a reordering costs them a go-back-N window), "
                          "GoBackNUnlessUntagged (GoBackN, except while an untagged flow is "
                          "active on a candidate port: then they move as other flows do), "
                          "Always, or Never",
                          EnumValue(int(kV2Defaults.safeMoves)),
                          MakeEnumAccessor(TALB_RETUNED(int, m_safeMoves)),
                          MakeEnumChecker(int(V2::SafeMoves::kGoBackNUnlessUntagged),
                                          "GoBackNUnlessUntagged",
                                          int(V2::SafeMoves::kGoBackN),
                                          "GoBackN",
                                          int(V2::SafeMoves::kAlways),
                                          "Always",
                                          int(V2::SafeMoves::kNever),
                                          "Never"))
            .AddAttribute("SafeMoveSlack",
                          "v2: a safe-move flow moves this long after its last packet left its "
                          "old port (covers the queues beyond the port, which the leaf cannot see)",
                          TimeValue(NanoSeconds(kV2Defaults.safeSlackNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_safeSlack)),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("StallTimeout",
                          "v2: a tensor that resumes after this long silent mid-tensor (a TCP "
                          "retransmission timeout) leaves its port unless the port is strictly "
                          "less shared, whatever MaxReorder; not SafeMoves flows (0: never; else "
                          "above the longest active window)",
                          TimeValue(NanoSeconds(kV2Defaults.stallTimeoutNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_stallTimeout)),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinMoveInterval",
                          "v2: a tensor moves mid-tensor at most once per this interval",
                          TimeValue(NanoSeconds(kV2Defaults.minMoveIntervalNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_minMoveInterval)),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("ActiveWindow",
                          "v2: a tensor flow counts on a port while it sent there within this "
                          "window (Pace mode: the shortest window); a flow silent longer is "
                          "re-placed like a new tensor",
                          TimeValue(NanoSeconds(kV2Defaults.activeWindowNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_activeWindow)),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("ActiveWindowMode",
                          "v2: Fixed: every flow counts for ActiveWindow after its last packet; "
                          "Pace: a tensor flow for PaceFactor x its own gap between packets (a "
                          "decaying maximum), within [ActiveWindow, MaxActiveWindow]",
                          EnumValue(int(kV2Defaults.windowMode)),
                          MakeEnumAccessor(TALB_RETUNED(int, m_windowMode)),
                          MakeEnumChecker(int(V2::WindowMode::kFixed),
                                          "Fixed",
                                          int(V2::WindowMode::kPace),
                                          "Pace"))
            .AddAttribute("PaceFactor",
                          "v2, Pace mode: a flow's window as a multiple of its inter-packet gap",
                          DoubleValue(kV2Defaults.paceFactor),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_paceFactor)),
                          MakeDoubleChecker<double>(1, 1000))
            .AddAttribute("MaxActiveWindow",
                          "v2, Pace mode: the longest window (a flow that stops leaves its port's "
                          "count at most this long after its last packet)",
                          TimeValue(NanoSeconds(kV2Defaults.maxActiveWindowNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_maxActiveWindow)),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DreWeight",
                          "v1: bytes of cost a fully utilised port adds on top of its queued bytes",
                          DoubleValue(kV1Defaults.dreWeightBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_dreWeight)),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("LoadQuantum",
                          "v1: granularity (bytes) at which high-priority loads count as equal",
                          DoubleValue(kV1Defaults.loadQuantumBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_loadQuantum)),
                          MakeDoubleChecker<double>(1))
            .AddAttribute("IdleTimeout",
                          "A tensor entry idle for longer than this is aged out (keep it above the "
                          "largest RTT under load: a sender stalled longer re-places its tensor)",
                          TimeValue(NanoSeconds(kV2Defaults.idleTimeoutNs)),
                          MakeTimeAccessor(TALB_RETUNED(Time, m_idleTimeout)),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("TableSize",
                          "Tensor table slots (a power of two)",
                          UintegerValue(kV2Defaults.tableSize),
                          MakeUintegerAccessor(&TalbTensorAwareLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("ProbeLimit",
                          "Consecutive slots a key may occupy (open addressing window)",
                          UintegerValue(kV2Defaults.probeLimit),
                          MakeUintegerAccessor(TALB_RETUNED(uint32_t, m_probeLimit)),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("Fallback",
                          "Policy for untagged packets: a load balancer that can serve as a "
                          "fallback (ecmp, letflow, rps, drill; drill spreads background flows "
                          "per packet, letflow was v1's)",
                          StringValue("drill"),
                          MakeStringAccessor(&TalbTensorAwareLb::m_fallbackName),
                          MakeRegistryNameChecker(TalbLoadBalancer::GetRegistry()))
            .AddAttribute("GoBackNFallback",
                          "Policy for untagged RoCEv2 data packets (128 B or more; go-back-N "
                          "flows, which a reordering costs a retransmission window): ecmp, "
                          "letflow, rps or drill, drawing from this selector's random stream; "
                          "empty: the Fallback policy (as before this attribute)",
                          StringValue("letflow"),
                          MakeStringAccessor(&TalbTensorAwareLb::m_goBackNName),
                          MakeRegistryNameChecker(TalbLoadBalancer::GetRegistry(), true))
            .AddAttribute("DreInterval",
                          "v1: decay interval of the per-port high-priority load estimator",
                          TimeValue(NanoSeconds(kV1Defaults.dreIntervalNs)),
                          MakeTimeAccessor(&TalbTensorAwareLb::m_dreInterval),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DreAlpha",
                          "v1: decay factor per interval of the high-priority load estimator",
                          DoubleValue(kV1Defaults.dreAlpha),
                          MakeDoubleAccessor(&TalbTensorAwareLb::m_dreAlpha),
                          MakeDoubleChecker<double>(1e-6, 1))
            .AddAttribute("RemoteAwareness",
                          "v2: run CONGA's leaf-to-leaf feedback; an uplink whose path the "
                          "feedback reports saturated counts one more flow when a tensor is placed "
                          "or would move onto it (every switch must run it); fixed at install",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbTensorAwareLb::m_remoteAwareness),
                          MakeBooleanChecker())
            .AddAttribute("RemoteSprayBytes",
                          "v2, Spray: while another job's tensor flow is active on a candidate "
                          "port, a candidate whose path CONGA's leaf-to-leaf feedback reports "
                          "saturated counts this many more bytes of queue for a sprayed packet "
                          "(bytes at MoveMarginRate, scaled with the rate as the margins); > 0 "
                          "runs the feedback as RemoteAwareness does, without its placement rule "
                          "(every switch must run it; fixed at install); 0: off",
                          DoubleValue(kV2Defaults.remoteSprayBytes),
                          MakeDoubleAccessor(TALB_RETUNED(double, m_remoteSprayBytes)),
                          MakeDoubleChecker<double>(0))
            .AddAttribute(
                "RemoteAgingTime",
                "v2 RemoteAwareness, RemoteSprayBytes: a remote congestion metric older than "
                "this counts as 0",
                TimeValue(MilliSeconds(10)),
                MakeTimeAccessor(&TalbTensorAwareLb::m_remoteAging),
                MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute(
                "RemoteQuantizationBits",
                "v2 RemoteAwareness, RemoteSprayBytes: bits of the quantised path congestion "
                "metric",
                UintegerValue(3),
                MakeUintegerAccessor(&TalbTensorAwareLb::m_remoteBits),
                MakeUintegerChecker<uint8_t>(1, 8))
            .AddTraceSource("TableEvict",
                            "A live tensor entry was evicted for lack of space",
                            MakeTraceSourceAccessor(&TalbTensorAwareLb::m_evictTrace),
                            "ns3::TalbTensorAwareLb::TableEvictTracedCallback");
    return tid;
}

#undef TALB_RETUNED

TalbTensorAwareLb::TalbTensorAwareLb()
    : m_installedVersion(0),
      m_installedRemote(false),
      m_fallbackPolicy(this, &m_fallback),
      m_goBackNPolicy(this, &m_goBackNFallback),
      m_remote(this)
{
    NS_LOG_FUNCTION(this);
    CreateCoreRng();
}

TalbTensorAwareLb::~TalbTensorAwareLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTensorAwareLb::DoDispose()
{
    for (Ptr<TalbLoadBalancer>* fallback : {&m_fallback, &m_goBackNFallback})
    {
        if (*fallback)
        {
            (*fallback)->Dispose();
        }
        *fallback = nullptr;
    }
    TalbCoreLb::DoDispose();
}

int64_t
TalbTensorAwareLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    // The fallback exists only once attached; the helper assigns streams after Install. The
    // go-back-N fallback draws from GetCoreRng().
    return 1 + (m_fallback ? m_fallback->AssignStreams(stream + 1) : 0);
}

V1::Config
TalbTensorAwareLb::MakeV1Config() const
{
    V1::Config c;
    c.highThreshold = m_highThreshold;
    c.moveMarginBytes = m_moveMargin;
    c.dreWeightBytes = m_dreWeight;
    c.loadQuantumBytes = m_loadQuantum;
    c.idleTimeoutNs = TalbCoreNs(m_idleTimeout);
    c.tableSize = m_tableSize;
    c.probeLimit = m_probeLimit;
    c.dreIntervalNs = TalbCoreNs(m_dreInterval);
    c.dreAlpha = m_dreAlpha;
    return c;
}

V2::Config
TalbTensorAwareLb::MakeV2Config() const
{
    V2::Config c;
    c.highThreshold = m_highThreshold;
    c.highMoveMarginBytes = m_moveMargin;
    c.lowMoveMarginBytes = m_lowMoveMargin;
    c.marginRateBps = m_moveMarginRate.GetBitRate();
    c.maxReorderBytes = m_maxReorder;
    c.safeMoves = static_cast<V2::SafeMoves>(m_safeMoves);
    c.safeSlackNs = TalbCoreNs(m_safeSlack);
    c.spray = static_cast<V2::Spray>(m_spray);
    c.sprayQueue = static_cast<V2::SprayQueue>(m_sprayQueue);
    c.moves = static_cast<V2::Moves>(m_moves);
    c.slowRate = m_slowRate;
    c.congestionTarget = m_congestionTarget;
    c.rateWindowNs = TalbCoreNs(m_rateWindow);
    c.queueMoves = m_queueMoves;
    c.remotePlacement = m_remoteAwareness;
    c.remoteSprayBytes = m_remoteSprayBytes;
    c.stallTimeoutNs = TalbCoreNs(m_stallTimeout);
    c.minMoveIntervalNs = TalbCoreNs(m_minMoveInterval);
    c.activeWindowNs = TalbCoreNs(m_activeWindow);
    c.windowMode = static_cast<V2::WindowMode>(m_windowMode);
    c.paceFactor = m_paceFactor;
    c.maxActiveWindowNs = TalbCoreNs(m_maxActiveWindow);
    c.idleTimeoutNs = TalbCoreNs(m_idleTimeout);
    c.tableSize = m_tableSize;
    c.probeLimit = m_probeLimit;
    // Untagged traffic counts at the band the switch's port queues put it in.
    c.untaggedPriority = 0;
    if (IsAttached() && GetNPorts() > 0)
    {
        if (Ptr<TalbPriorityQueue> q = DynamicCast<TalbPriorityQueue>(GetPort(0).queue))
        {
            c.untaggedPriority = q->GetUntaggedBand();
        }
    }
    return c;
}

const char*
TalbTensorAwareLb::CheckCore() const
{
    return m_version == 1 ? V1::Check(MakeV1Config()) : V2::Check(MakeV2Config());
}

void
TalbTensorAwareLb::Retune()
{
    if (!IsAttached())
    {
        return;
    }
    bool taken =
        m_installedVersion == 1 ? m_v1.Retune(MakeV1Config()) : m_v2.Retune(MakeV2Config());
    if (!taken)
    {
        const char* why = CheckCore();
        NS_LOG_WARN("attribute change not taken: "
                    << (why ? why : "table size and DRE parameters are fixed at install"));
    }
}

bool
TalbTensorAwareLb::CheckConfig()
{
    if ((m_tableSize & (m_tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(m_tableSize) + " is not a power of two");
    }
    if (m_probeLimit > m_tableSize)
    {
        return ConfigError("ProbeLimit " + std::to_string(m_probeLimit) + " exceeds TableSize " +
                           std::to_string(m_tableSize));
    }
    if (const char* error = CheckCore())
    {
        return ConfigError(error);
    }
    if (m_version == 2 && m_moves != int(V2::Moves::kCounts) && !m_remoteAwareness)
    {
        return ConfigError("Moves=Congestion and Moves=Contended need RemoteAwareness=true (the "
                           "remote feedback is what tells a congested path)");
    }
    if ((m_remoteAwareness || m_remoteSprayBytes > 0) && GetSwitchInfo().nSpines > 256)
    {
        return ConfigError("RemoteAwareness and RemoteSprayBytes: the feedback's path field holds "
                           "at most 256 spines");
    }
    m_fallback = MakeFallback("Fallback", m_fallbackName);
    if (!m_fallback)
    {
        return false;
    }
    m_goBackNFallback = nullptr;
    if (!m_goBackNName.empty())
    {
        m_goBackNFallback = MakeFallback("GoBackNFallback", m_goBackNName);
        if (!m_goBackNFallback)
        {
            return false;
        }
        Ptr<TalbCoreLb> core = DynamicCast<TalbCoreLb>(m_goBackNFallback);
        if (!core)
        {
            m_goBackNFallback = nullptr;
            return ConfigError("GoBackNFallback '" + m_goBackNName +
                               "' keeps its own random state; use ecmp, letflow, rps or drill");
        }
        core->ShareCoreRng(*this);
    }
    return true;
}

Ptr<TalbLoadBalancer>
TalbTensorAwareLb::MakeFallback(const std::string& attribute, const std::string& name)
{
    TypeId tid;
    std::string error;
    if (!GetRegistry().Lookup(name, &tid, &error))
    {
        ConfigError(attribute + ": " + error);
        return nullptr;
    }
    ObjectFactory factory;
    factory.SetTypeId(tid);
    Ptr<TalbLoadBalancer> fallback = factory.Create<TalbLoadBalancer>();
    if (!fallback->CanBeFallback())
    {
        ConfigError(attribute + " '" + name +
                    "' cannot choose for another balancer (it has per-packet hooks or "
                    "per-tensor state)");
        return nullptr;
    }
    return fallback;
}

bool
TalbTensorAwareLb::CanBeFallback() const
{
    return false;
}

void
TalbTensorAwareLb::InitializeParams()
{
    m_installedVersion = m_version;
    if (m_version == 1)
    {
        m_v1.Configure(MakeV1Config(), GetNPorts());
    }
    else
    {
        m_v2.Configure(MakeV2Config(), GetNPorts());
        m_installedRemote = m_remoteAwareness || m_remoteSprayBytes > 0;
        if (m_installedRemote)
        {
            m_feedback.Configure(GetSwitchInfo(), *GetPortTable(), m_remoteBits, m_remoteAging);
        }
        m_v2.SetRemote(m_installedRemote ? &m_remote : nullptr);
    }
    talb::lb::TensorPolicy& core =
        m_version == 1 ? static_cast<talb::lb::TensorPolicy&>(m_v1) : m_v2;
    core.SetFallback(&m_fallbackPolicy, m_goBackNFallback ? &m_goBackNPolicy : nullptr);
    BindCore(core);
    m_fallback->Attach(GetSwitchInfo(), GetPortTable());
    if (m_goBackNFallback)
    {
        m_goBackNFallback->Attach(GetSwitchInfo(), GetPortTable());
    }
}

const talb::lb::TensorPolicy&
TalbTensorAwareLb::Installed() const
{
    return m_installedVersion == 1 ? static_cast<const talb::lb::TensorPolicy&>(m_v1) : m_v2;
}

const TalbTensorAwareLb::TableStats&
TalbTensorAwareLb::GetTableStats() const
{
    return Installed().GetTableStats();
}

uint32_t
TalbTensorAwareLb::GetLiveEntries(Time now) const
{
    return Installed().LiveEntries(TalbCoreNs(now));
}

uint32_t
TalbTensorAwareLb::GetHeldEntries() const
{
    return Installed().HeldEntries();
}

std::vector<TalbLoadBalancer::PolicyCounter>
TalbTensorAwareLb::GetPolicyCounters() const
{
    std::vector<PolicyCounter> counters;
    GetTableStats().ForEach([&counters](const char* name, uint64_t value) {
        counters.push_back({name, value});
    });
    counters.push_back({"held", GetHeldEntries()});
    return counters;
}

uint32_t
TalbTensorAwareLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    bool v1 = m_installedVersion == 1;
    // Only where it is read: RoCEv2's untagged data goes to GoBackNFallback; v2 says for tagged.
    if ((m_goBackNFallback && !ctx.hasLabel) || (!v1 && m_v2.ReadsGoBackN()))
    {
        ctx.goBackN = IsRoceV2(ctx.packet);
    }
    return v1 ? CoreSelect(m_v1, ctx, candidates) : CoreSelect(m_v2, ctx, candidates);
}

void
TalbTensorAwareLb::DoPacketIn(TalbPacketContext& ctx)
{
    if (m_installedRemote)
    {
        m_feedback.PacketIn(ctx);
    }
}

void
TalbTensorAwareLb::DoPacketOut(TalbPacketContext& ctx, uint32_t port)
{
    if (m_installedRemote)
    {
        m_feedback.PacketOut(ctx, port);
    }
}

TalbTensorAwareLb::Remote::Remote(const TalbTensorAwareLb* owner)
    : m_owner(owner)
{
}

double
TalbTensorAwareLb::Remote::Congestion(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    const TalbPathFeedback& fb = m_owner->m_feedback;
    return static_cast<double>(fb.RemoteMetric(port, dstLeaf, NanoSeconds(nowNs))) / fb.MaxMetric();
}

bool
TalbTensorAwareLb::IsRoceV2(const Packet* packet)
{
    // IPv4 (no options on RoCEv2) + UDP to port 4791: the first 24 bytes say it.
    uint8_t b[24];
    if (!packet || packet->CopyData(b, sizeof(b)) < sizeof(b) || (b[0] >> 4) != 4)
    {
        return false;
    }
    uint32_t ihl = (b[0] & 0x0Fu) * 4u;
    return b[9] == 17 && ihl + 4 <= sizeof(b) &&
           ((uint32_t(b[ihl + 2]) << 8) | b[ihl + 3]) == TalbRoceHeader::UDP_PORT;
}

void
TalbTensorAwareLb::DoCoreEvicted(uint32_t flowHash, uint32_t tensorId)
{
    m_evictTrace(flowHash, tensorId);
}

TalbTensorAwareLb::Fallback::Fallback(TalbTensorAwareLb* owner,
                                      const Ptr<TalbLoadBalancer>* balancer)
    : m_owner(owner),
      m_balancer(balancer)
{
}

uint32_t
TalbTensorAwareLb::Fallback::DoSelect(const talb::lb::PacketInfo& /* packet */,
                                      const talb::lb::Candidates& candidates)
{
    // The fallback chooses for the packet the core is deciding on, without its own traces.
    return DelegateSelect(*m_balancer,
                          m_owner->CurrentPacket(),
                          TalbCandidates{candidates.ports, candidates.count});
}

} // namespace ns3
