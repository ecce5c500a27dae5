#include "talb-presto-lb.h"

#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPrestoLb");

NS_OBJECT_ENSURE_REGISTERED(TalbPrestoLb);
TALB_REGISTER_PLUGIN(TalbLoadBalancer, TalbPrestoLb, "presto");

TypeId
TalbPrestoLb::GetTypeId()
{
    constexpr talb::lb::Presto::Config defaults{}; // the attributes' defaults: the core's
    static TypeId tid =
        TypeId("ns3::TalbPrestoLb")
            .SetParent<TalbLoadBalancer>()
            .SetGroupName("Talb")
            .AddConstructor<TalbPrestoLb>()
            .AddAttribute("FlowcellBytes",
                          "Bytes of a flowcell: a flow moves to its next path every this many",
                          UintegerValue(defaults.flowcellBytes),
                          MakeUintegerAccessor(&TalbPrestoLb::m_flowcellBytes),
                          MakeUintegerChecker<uint32_t>(1, 1u << 30))
            .AddAttribute("TableSize",
                          "Flow table slots (a power of two)",
                          UintegerValue(defaults.tableSize),
                          MakeUintegerAccessor(&TalbPrestoLb::m_tableSize),
                          MakeUintegerChecker<uint32_t>(1, 1u << 24))
            .AddAttribute("IdleTimeout",
                          "A flow idle for longer restarts at flowcell 0",
                          TimeValue(NanoSeconds(defaults.idleNs)),
                          MakeTimeAccessor(&TalbPrestoLb::m_idleTimeout),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

TalbPrestoLb::TalbPrestoLb()
    : m_events(MakeCallback(&TalbPrestoLb::CoreRerouted, this)),
      m_current(nullptr)
{
    NS_LOG_FUNCTION(this);
}

TalbPrestoLb::~TalbPrestoLb()
{
    NS_LOG_FUNCTION(this);
}

void
TalbPrestoLb::CoreRerouted(uint32_t from, uint32_t to)
{
    NotifyReroute(*m_current, from, to);
}

talb::lb::Presto::Config
TalbPrestoLb::Config() const
{
    talb::lb::Presto::Config c;
    c.flowcellBytes = m_flowcellBytes;
    c.tableSize = m_tableSize;
    c.idleNs = TalbCoreNs(m_idleTimeout);
    return c;
}

bool
TalbPrestoLb::CheckConfig()
{
    if (const char* error = talb::lb::Presto::Check(Config()))
    {
        NS_LOG_ERROR(error);
        return false;
    }
    return true;
}

void
TalbPrestoLb::InitializeParams()
{
    m_core.Configure(Config());
    m_view.SetPorts(GetPortTable());
    m_core.Bind(&m_view, nullptr, &m_events);
}

uint32_t
TalbPrestoLb::GetCell(uint32_t flowHash) const
{
    return m_core.CellOf(flowHash);
}

uint32_t
TalbPrestoLb::DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates)
{
    m_current = &ctx;
    return m_core.Select(TalbCorePacket(ctx), TalbCoreCandidates(candidates));
}

} // namespace ns3
