#include "talb-comm-scheduler.h"

#include "talb-asc-wfbp-scheduler.h"
#include "talb-byte-scheduler.h"
#include "talb-fusion-scheduler.h"
#include "talb-sparse-scheduler.h"
#include "talb-us-byte-scheduler.h"
#include "talb-wfbp-scheduler.h"

#include "ns3/abort.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCommScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbCommScheduler);

namespace
{

struct SchedulerName
{
    const char* name;
    TypeId (*tid)();
};

const SchedulerName SCHEDULERS[] = {
    {"wfbp", &TalbWfbpScheduler::GetTypeId},
    {"fusion", &TalbFusionScheduler::GetTypeId},
    {"bytescheduler", &TalbByteScheduler::GetTypeId},
    {"usbyte", &TalbUsByteScheduler::GetTypeId},
    {"ascwfbp", &TalbAscWfbpScheduler::GetTypeId},
    {"sparse", &TalbSparseScheduler::GetTypeId},
};

} // namespace

TypeId
TalbCommScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbCommScheduler")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddTraceSource("OpLaunched",
                            "A collective operation was launched on every worker",
                            MakeTraceSourceAccessor(&TalbCommScheduler::m_opLaunched),
                            "ns3::TalbCommScheduler::OpTracedCallback");
    return tid;
}

TalbCommScheduler::TalbCommScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbCommScheduler::~TalbCommScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCommScheduler::DoDispose()
{
    m_launch = LaunchCallback();
    m_queue.clear();
    Object::DoDispose();
}

TypeId
TalbCommScheduler::LookupByName(const std::string& name)
{
    for (const auto& s : SCHEDULERS)
    {
        if (name == s.name)
        {
            return s.tid();
        }
    }
    NS_FATAL_ERROR("unknown scheduler '" << name << "'; valid names: " << GetNames());
}

std::string
TalbCommScheduler::GetNames()
{
    std::string names;
    for (const auto& s : SCHEDULERS)
    {
        names += (names.empty() ? "" : ", ") + std::string(s.name);
    }
    return names;
}

void
TalbCommScheduler::Setup(const TalbDnnModel& model,
                         uint32_t bytesPerElement,
                         uint32_t nWorkers,
                         const std::vector<Time>& forward,
                         const std::vector<Time>& backward,
                         LaunchCallback launch)
{
    NS_LOG_FUNCTION(this << model.GetName() << bytesPerElement << nWorkers);
    NS_ABORT_MSG_IF(forward.size() != model.GetNTensors() || backward.size() != model.GetNTensors(),
                    "TalbCommScheduler::Setup: one compute time per tensor expected");
    m_model = model;
    m_bytesPerElement = bytesPerElement;
    m_nWorkers = nWorkers;
    m_forward = forward;
    m_backward = backward;
    m_launch = launch;
    DoSetup();
}

void
TalbCommScheduler::DoSetup()
{
}

void
TalbCommScheduler::TensorReady(uint32_t iteration, uint32_t tensor)
{
    NS_LOG_FUNCTION(this << iteration << tensor);
    DoTensorReady(iteration, tensor);
}

void
TalbCommScheduler::OpDone(const TalbCommOp& op)
{
    NS_LOG_FUNCTION(this << op.id);
    NS_ASSERT(m_inFlightOps > 0 && m_inFlightBytes >= op.GetBytes());
    --m_inFlightOps;
    m_inFlightBytes -= op.GetBytes();
    Dispatch();
}

uint64_t
TalbCommScheduler::GetWireBytes(uint32_t tensor) const
{
    return GetDenseBytes(tensor);
}

uint8_t
TalbCommScheduler::GetPriority(uint32_t tensor) const
{
    return m_model.GetPriority(tensor);
}

uint64_t
TalbCommScheduler::GetDenseBytes(uint32_t tensor) const
{
    return m_model.GetTensor(tensor).params * m_bytesPerElement;
}

uint64_t
TalbCommScheduler::GetInFlightBytes() const
{
    return m_inFlightBytes;
}

uint32_t
TalbCommScheduler::GetInFlightOps() const
{
    return m_inFlightOps;
}

bool
TalbCommScheduler::CanLaunch(const TalbCommOp& /* next */) const
{
    return m_inFlightOps < m_maxInFlightOps;
}

TalbCommSegment
TalbCommScheduler::WholeTensor(uint32_t tensor) const
{
    TalbCommSegment s;
    s.tensor = tensor;
    s.offset = 0;
    s.bytes = GetWireBytes(tensor);
    s.priority = GetPriority(tensor);
    s.firstPart = true;
    s.lastPart = true;
    return s;
}

void
TalbCommScheduler::Enqueue(TalbCommOp&& op, uint64_t rank)
{
    NS_ABORT_MSG_IF(op.segments.empty(), "TalbCommScheduler: an operation without segments");
    op.id = m_nextOpId++;
    m_queue.emplace(std::make_pair(rank, m_arrivals++), std::move(op));
    Dispatch();
}

void
TalbCommScheduler::Dispatch()
{
    while (!m_queue.empty() && CanLaunch(m_queue.begin()->second))
    {
        TalbCommOp op = std::move(m_queue.begin()->second);
        m_queue.erase(m_queue.begin());
        ++m_inFlightOps;
        m_inFlightBytes += op.GetBytes();
        m_opLaunched(op);
        m_launch(op);
    }
}

} // namespace ns3
