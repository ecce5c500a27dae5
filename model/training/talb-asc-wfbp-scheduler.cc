#include "talb-asc-wfbp-scheduler.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbAscWfbpScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbAscWfbpScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbAscWfbpScheduler, "ascwfbp");

TypeId
TalbAscWfbpScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbAscWfbpScheduler")
            .SetParent<TalbCommScheduler>()
            .SetGroupName("Talb")
            .AddConstructor<TalbAscWfbpScheduler>()
            .AddAttribute("MergeGap",
                          "A tensor ready less than this after its group's latest tensor joins "
                          "the group (about one collective's startup cost)",
                          TimeValue(MicroSeconds(100)),
                          MakeTimeAccessor(&TalbAscWfbpScheduler::m_mergeGap),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxGroupSize",
                          "Largest group (bytes) the merge rule builds",
                          UintegerValue(64 * 1024 * 1024),
                          MakeUintegerAccessor(&TalbAscWfbpScheduler::m_maxGroupSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Simultaneous",
                          "Groups all-reduced at the same time",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TalbAscWfbpScheduler::m_simultaneous),
                          MakeUintegerChecker<uint32_t>(1));
    return tid;
}

TalbAscWfbpScheduler::TalbAscWfbpScheduler()
    : m_simultaneous(2)
{
    NS_LOG_FUNCTION(this);
}

TalbAscWfbpScheduler::~TalbAscWfbpScheduler()
{
    NS_LOG_FUNCTION(this);
}

const std::vector<std::vector<uint32_t>>&
TalbAscWfbpScheduler::GetGroups() const
{
    return m_groups;
}

bool
TalbAscWfbpScheduler::DoCanLaunch(const TalbCommOp& /* next */) const
{
    return GetInFlightOps() < m_simultaneous;
}

void
TalbAscWfbpScheduler::InitializeParams()
{
    uint32_t n = GetModel().GetNTensors();
    m_groups.clear();
    m_groupClosedBy.assign(n, -1);
    Time ready(0);     // modelled ready time, from the start of backward
    Time lastReady(0); // of the current group's latest tensor
    uint64_t bytes = 0;
    for (uint32_t t = n; t-- > 0;)
    {
        ready += GetBackwardTimes()[t];
        uint64_t b = GetWireBytes(t);
        if (m_groups.empty() || ready - lastReady >= m_mergeGap || bytes + b > m_maxGroupSize)
        {
            m_groups.emplace_back();
            bytes = 0;
        }
        m_groups.back().push_back(t);
        bytes += b;
        lastReady = ready;
    }
    for (uint32_t g = 0; g < m_groups.size(); ++g)
    {
        m_groupClosedBy[m_groups[g].back()] = g;
    }
}

void
TalbAscWfbpScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    // Gradients become ready in backward order, so a group is complete when its last
    // (lowest-index) tensor is.
    int32_t g = m_groupClosedBy[tensor];
    if (g < 0)
    {
        return;
    }
    TalbCommOp op;
    op.iteration = iteration;
    for (uint32_t t : m_groups[g])
    {
        op.segments.push_back(WholeTensor(t));
    }
    Enqueue(std::move(op), 0);
}

} // namespace ns3
