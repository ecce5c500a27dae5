#include "talb-tensor-aware-lb.h"

#include "talb-core-attributes.h"

#include "ns3/boolean.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/object-factory.h"
#include "ns3/string.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTensorAwareLb");

NS_OBJECT_ENSURE_REGISTERED(TalbTensorAwareLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbTensorAwareLb, "talb");

namespace
{

using V1 = talb::lb::TensorAwareV1;
using V2 = talb::lb::TensorAwareV2;

} // namespace

TypeId
TalbTensorAwareLb::GetTypeId()
{
    // Version, the decision core's settings (both versions'), then what this class adds: the
    // fallback balancers and the leaf-to-leaf feedback.
    static TypeId tid =
        TalbCoreAttributes::Add(
            TypeId("ns3::TalbTensorAwareLb")
                .SetParent<TalbCorePolicyLb>()
                .SetGroupName("Talb")
                .AddConstructor<TalbTensorAwareLb>()
                .AddAttribute("Version",
                              "Decision: 2 places tensors by what delays them and lets every "
                              "priority move (bounded reordering); 1 is the first design (only "
                              "high-priority tensors move; low ones avoid high-priority load); "
                              "fixed at install",
                              UintegerValue(2),
                              MakeUintegerAccessor(&TalbTensorAwareLb::m_version),
                              MakeUintegerChecker<uint32_t>(1, 2)),
            talb::lb::TensorAwareConfig::Settings(),
            &TalbTensorAwareLb::m_config,
            &TalbTensorAwareLb::Retune)
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
                          "letflow, rps, drill or presto, drawing from this selector's random "
                          "stream; conweave: ConWeave's whole protocol (an RTT probe per epoch, "
                          "a move at a late reply, hidden by the destination leaf's reorder "
                          "queues; ns3::TalbConWeaveLb's attributes); empty: the Fallback "
                          "policy (as before this attribute)",
                          StringValue("letflow"),
                          MakeStringAccessor(&TalbTensorAwareLb::m_goBackNName),
                          MakeRegistryNameChecker(TalbLoadBalancer::GetRegistry(), true))
            .AddAttribute("RemoteAwareness",
                          "v2: run CONGA's leaf-to-leaf feedback; an uplink whose path the "
                          "feedback reports saturated counts one more flow when a tensor is placed "
                          "or would move onto it (every switch must run it); fixed at install",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbTensorAwareLb::m_remoteAwareness),
                          MakeBooleanChecker())
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
            .AddAttribute("ReorderMoves",
                          "v2: hide RoCEv2 flows' moves from the receivers by ConWeave's "
                          "destination-leaf reorder queue (the ns3::TalbConWeaveLb attributes "
                          "configure it; every switch must run it); with RoceGoBackN=false tensor "
                          "flows move and spray as reorder-tolerant ones and every RoCEv2 flow "
                          "moves at most once per epoch, hidden; fixed at install",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbTensorAwareLb::m_reorderMoves),
                          MakeBooleanChecker())
            .AddAttribute("RttMoves",
                          "v2: who moves a RoCEv2 tensor flow once placed. Never: this "
                          "selector's rules; Always: ConWeave's protocol (an RTT probe per "
                          "epoch, a late reply moves the flow to a path not paused, hidden by "
                          "the destination leaf's reorder queue; the ns3::TalbConWeaveLb "
                          "attributes configure it; every switch must run it); WithUntagged: "
                          "ConWeave's while untagged data is active on a candidate port, this "
                          "selector's otherwise (hidden as with ReorderMoves). Each new flow or "
                          "flowlet is placed by this selector; fixed at install",
                          EnumValue(RTT_NEVER),
                          MakeEnumAccessor(&TalbTensorAwareLb::m_rttMoves),
                          MakeEnumChecker(RTT_NEVER,
                                          "Never",
                                          RTT_ALWAYS,
                                          "Always",
                                          RTT_WITH_UNTAGGED,
                                          "WithUntagged"))
            .AddAttribute("RttMoveTarget",
                          "v2, with RttMoves: where a late RTT reply moves a tensor flow. "
                          "ConWeave: ConWeave's own pick among the paths not paused (its "
                          "attributes: random draws or the fewest of its flows); Talb: this "
                          "selector's placement among them, as if the flow were new (its flow "
                          "shares, priorities and remote congestion); ConWeave still decides "
                          "when; fixed at install",
                          EnumValue(RTT_TARGET_CONWEAVE),
                          MakeEnumAccessor(&TalbTensorAwareLb::m_rttMoveTarget),
                          MakeEnumChecker(RTT_TARGET_CONWEAVE, "ConWeave", RTT_TARGET_TALB, "Talb"))
            .AddTraceSource("TableEvict",
                            "A live tensor entry was evicted for lack of space",
                            MakeTraceSourceAccessor(&TalbTensorAwareLb::m_evictTrace),
                            "ns3::TalbTensorAwareLb::TableEvictTracedCallback");
    return tid;
}

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
        if (*fallback && *fallback != m_reorder)
        {
            (*fallback)->Dispose();
        }
        *fallback = nullptr;
    }
    if (m_reorder)
    {
        m_reorder->Dispose();
        m_reorder = nullptr;
    }
    m_rttTarget = TalbConWeaveLb::TargetCallback();
    TalbCorePolicyLb::DoDispose();
}

int64_t
TalbTensorAwareLb::AssignStreams(int64_t stream)
{
    GetCoreRng()->SetStream(stream);
    // The fallback exists only once attached; the helper assigns streams after Install. The
    // go-back-N fallback draws from GetCoreRng().
    int64_t used = 1 + (m_fallback ? m_fallback->AssignStreams(stream + 1) : 0);
    return used + (m_reorder ? m_reorder->AssignStreams(stream + used) : 0);
}

V1::Config
TalbTensorAwareLb::MakeV1Config() const
{
    return m_config.v1;
}

V2::Config
TalbTensorAwareLb::MakeV2Config() const
{
    V2::Config c = m_config.v2;
    c.remotePlacement = m_remoteAwareness;
    // Untagged traffic counts at the band the switch's port queues put it in.
    c.untaggedPriority = 0;
    if (IsAttached() && GetNPorts() > 0)
    {
        if (const auto* q = dynamic_cast<const TalbBandedQueue*>(PeekPointer(GetPort(0).queue)))
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
        NS_LOG_WARN(
            "attribute change not taken: "
            << (why ? why : "table size, flow slots and DRE parameters are fixed at install"));
    }
}

bool
TalbTensorAwareLb::CheckConfig()
{
    const uint32_t tableSize = m_config.v2.tableSize;
    const uint32_t probeLimit = m_config.v2.probeLimit;
    if ((tableSize & (tableSize - 1)) != 0)
    {
        return ConfigError("TableSize " + std::to_string(tableSize) + " is not a power of two");
    }
    if (probeLimit > tableSize)
    {
        return ConfigError("ProbeLimit " + std::to_string(probeLimit) + " exceeds TableSize " +
                           std::to_string(tableSize));
    }
    if (const char* error = CheckCore())
    {
        return ConfigError(error);
    }
    if (m_version == 2 && m_config.v2.spray == V2::Spray::kSharedDestination && !m_remoteAwareness)
    {
        return ConfigError("Spray=SharedDestination needs RemoteAwareness=true (the remote "
                           "feedback is what reports a destination leaf's jobs)");
    }
    if (m_version == 2 && m_config.v2.moves != V2::Moves::kCounts && !m_remoteAwareness)
    {
        return ConfigError("Moves=Congestion and Moves=Contended need RemoteAwareness=true (the "
                           "remote feedback is what tells a congested path)");
    }
    if ((m_remoteAwareness || m_config.v2.remoteSprayBytes > 0) && GetSwitchInfo().nSpines > 256)
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
    // ConWeave cannot choose for another balancer (it has per-packet hooks); here it need not:
    // the reorder protocol's instance below is ConWeave, and this balancer runs its hooks.
    TypeId goBackNType;
    std::string unknown; // MakeFallback() below reports it
    const bool untaggedConWeave = !m_goBackNName.empty() &&
                                  GetRegistry().Lookup(m_goBackNName, &goBackNType, &unknown) &&
                                  goBackNType == TalbConWeaveLb::GetTypeId();
    if (!m_goBackNName.empty() && !untaggedConWeave)
    {
        m_goBackNFallback = MakeFallback("GoBackNFallback", m_goBackNName);
        if (!m_goBackNFallback)
        {
            return false;
        }
        Ptr<TalbCorePolicyLb> core = DynamicCast<TalbCorePolicyLb>(m_goBackNFallback);
        if (!core)
        {
            m_goBackNFallback = nullptr;
            return ConfigError("GoBackNFallback '" + m_goBackNName +
                               "' keeps its own random state (it runs no decision-core policy); "
                               "use ecmp, letflow, rps, drill, presto or conweave");
        }
        core->ShareCoreRng(*this);
    }
    m_reorder = nullptr;
    m_rttTarget = TalbConWeaveLb::TargetCallback();
    if (m_rttMoveTarget != RTT_TARGET_CONWEAVE)
    {
        if (m_rttMoves == RTT_NEVER)
        {
            return ConfigError("RttMoveTarget=Talb needs RttMoves=Always or WithUntagged "
                               "(without RttMoves no late reply moves a tensor flow)");
        }
        m_rttTarget = MakeCallback(&TalbTensorAwareLb::RttTarget, this);
    }
    if ((m_reorderMoves || m_rttMoves != RTT_NEVER) && m_version != 2)
    {
        return ConfigError(std::string(m_reorderMoves ? "ReorderMoves" : "RttMoves") +
                           " needs Version=2");
    }
    if (m_reorderMoves || m_rttMoves != RTT_NEVER || untaggedConWeave)
    {
        Ptr<TalbConWeaveLb> reorder = CreateObject<TalbConWeaveLb>();
        reorder->SetTransmitCallback(GetTransmitCallback());
        std::string error = reorder->CheckConfiguration(GetSwitchInfo());
        if (!error.empty())
        {
            return ConfigError(std::string(m_reorderMoves            ? "ReorderMoves"
                                           : m_rttMoves != RTT_NEVER ? "RttMoves"
                                                                     : "GoBackNFallback") +
                               ": the ns3::TalbConWeaveLb attributes: " + error);
        }
        m_reorder = reorder;
    }
    if (untaggedConWeave)
    {
        m_goBackNFallback = m_reorder; // attached and disposed as m_reorder
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
        m_installedRemote = m_remoteAwareness || m_config.v2.remoteSprayBytes > 0;
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
    if (m_goBackNFallback && m_goBackNFallback != m_reorder)
    {
        m_goBackNFallback->Attach(GetSwitchInfo(), GetPortTable());
    }
    if (m_reorder)
    {
        m_reorder->Attach(GetSwitchInfo(), GetPortTable());
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
    if (m_reorder)
    {
        const TalbConWeaveLb::Counters& c = m_reorder->GetCounters();
        counters.insert(counters.end(),
                        {{"hidden_moves", m_chosenPaths[TalbConWeaveLb::HIDDEN_MOVE]},
                         {"unhidden_moves", m_chosenPaths[TalbConWeaveLb::UNHIDDEN_MOVE]},
                         {"kept_paths", m_chosenPaths[TalbConWeaveLb::KEPT_PATH]},
                         {"clears_sent", c.clearsSent},
                         {"move_reorder_held", c.held},
                         {"move_released_by_tail", c.releasedByTail},
                         {"move_released_by_timeout", c.releasedByTimeout},
                         {"move_released_by_overflow", c.releasedByOverflow},
                         {"move_reorder_timeouts", c.timeouts},
                         {"move_tx_table_evictions", c.txEvictions},
                         {"move_rx_table_evictions", c.rxEvictions}});
        if (m_rttMoves != RTT_NEVER)
        {
            // ConWeave's epochs and moves of the tensor flows (and, with
            // GoBackNFallback=conweave, of the untagged ones too).
            counters.insert(counters.end(),
                            {{"rtt_requests", c.rttRequests},
                             {"rtt_late_replies", c.lateReplies},
                             {"rtt_reroutes", c.reroutes},
                             {"rtt_notifies", c.notifies}});
        }
        else if (m_goBackNFallback == m_reorder)
        {
            // ConWeave's own epochs and moves of the untagged flows.
            counters.insert(counters.end(),
                            {{"untagged_rtt_requests", c.rttRequests},
                             {"untagged_late_replies", c.lateReplies},
                             {"untagged_reroutes", c.reroutes},
                             {"untagged_notifies", c.notifies}});
        }
    }
    return counters;
}

uint32_t
TalbTensorAwareLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    if (m_rttMoves != RTT_NEVER && ctx.goBackN && ctx.hasLabel && m_reorder->IsSourceLeaf(ctx))
    {
        return SelectRttMoved(ctx, candidates);
    }
    uint32_t port = m_installedVersion == 1 ? CoreSelect(m_v1, ctx, candidates)
                                            : CoreSelect(m_v2, ctx, candidates);
    // RoCEv2 data (tensor flows, and untagged flows that the go-back-N fallback moves between
    // flowlets); not the acknowledgements, which the fallback sprays and which tolerate order.
    // Untagged data that ConWeave itself placed (GoBackNFallback=conweave) is tagged already.
    const bool untaggedData =
        !ctx.hasLabel && ctx.size >= talb::lb::TensorPolicy::kUntaggedMinBytes;
    if (m_reorderMoves && ctx.goBackN &&
        (ctx.hasLabel || (untaggedData && m_goBackNFallback != m_reorder)))
    {
        // Without RoceGoBackN the core moves and sprays RoCEv2 tensor flows as reorder-tolerant
        // ones; the reorder protocol then takes only the moves it can hide, one per epoch, and
        // holds the fallback's flowlet moves of untagged flows to the same pace.
        bool onlyHidden = !m_config.v2.roceGoBackN;
        ++m_chosenPaths[m_reorder->TagChosenPath(ctx, candidates, port, onlyHidden)];
    }
    return port;
}

uint32_t
TalbTensorAwareLb::SelectRttMoved(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    // A late RTT reply tells of congestion this selector cannot count (the untagged flows'
    // bursts); with WithUntagged, ConWeave moves only while such flows share the candidates.
    const bool conweave = m_rttMoves == RTT_ALWAYS ||
                          m_v2.UntaggedActive(TalbCoreCandidates(candidates), TalbCoreNs(ctx.now));
    if (conweave && m_reorder->Tracks(ctx, candidates))
    {
        uint32_t port = m_reorder->SelectPlaced(ctx, candidates, UINT32_MAX, m_rttTarget);
        CoreFollow(m_v2, ctx, candidates, port);
        return port;
    }
    uint32_t port = CoreSelect(m_v2, ctx, candidates);
    if (conweave)
    {
        return m_reorder->SelectPlaced(ctx, candidates, port); // a new flow starts on port
    }
    ++m_chosenPaths[m_reorder->TagChosenPath(ctx, candidates, port, false)];
    return port;
}

uint32_t
TalbTensorAwareLb::RttTarget(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    return CoreTarget(m_v2, ctx, candidates);
}

TalbLoadBalancer::HoldVerdict
TalbTensorAwareLb::DoHold(TalbPacketContext& ctx, uint32_t port, Ptr<Packet> packet)
{
    return m_reorder ? m_reorder->Hold(ctx, port, packet) : SEND;
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

int64_t
TalbTensorAwareLb::Remote::QueueDelayNs(uint32_t port, uint32_t dstLeaf, int64_t nowNs) const
{
    return m_owner->m_feedback.RemoteDelayNs(port, dstLeaf, NanoSeconds(nowNs));
}

bool
TalbTensorAwareLb::Remote::DestinationShared(uint32_t dstLeaf, int64_t nowNs) const
{
    return m_owner->m_feedback.DestinationShared(dstLeaf, NanoSeconds(nowNs));
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
