#include "talb-comm-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/talb-wire.h"
#include "ns3/trace-source-accessor.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCommScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbCommScheduler);

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

TalbRegistry&
TalbCommScheduler::GetRegistry()
{
    static TalbRegistry registry("scheduler", GetTypeId());
    return registry;
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
    NS_ABORT_MSG_IF(nWorkers == 0, "TalbCommScheduler::Setup: no workers");
    m_model = model;
    m_bytesPerElement = bytesPerElement;
    m_nWorkers = nWorkers;
    m_forward = forward;
    m_backward = backward;
    m_launch = launch;
    NS_ABORT_MSG_UNLESS(CheckConfig(),
                        GetInstanceTypeId().GetName()
                            << ": invalid configuration: " << m_configError);
    InitializeParams();
}

bool
TalbCommScheduler::CheckAttributes(std::string* error)
{
    bool ok = CheckConfig();
    *error = ok ? "" : GetInstanceTypeId().GetName() + ": " + m_configError;
    return ok;
}

bool
TalbCommScheduler::CheckConfig()
{
    return true;
}

void
TalbCommScheduler::InitializeParams()
{
}

bool
TalbCommScheduler::ConfigError(const std::string& message)
{
    NS_LOG_ERROR(message);
    m_configError = message;
    return false;
}

void
TalbCommScheduler::TensorReady(uint32_t iteration, uint32_t tensor)
{
    NS_LOG_FUNCTION(this << iteration << tensor);
    NS_ASSERT_MSG(!m_launch.IsNull(), "TensorReady before Setup");
    NS_ASSERT_MSG(tensor < m_model.GetNTensors(), "no tensor " << tensor);
    DoTensorReady(iteration, tensor);
}

void
TalbCommScheduler::OpDone(const TalbCommOp& op)
{
    NS_LOG_FUNCTION(this << op.id);
    NS_ASSERT(m_inFlightOps > 0 && m_inFlightBytes >= op.GetBytes());
    --m_inFlightOps;
    m_inFlightBytes -= op.GetBytes();
    ++m_stats.nDone;
    NS_ASSERT(m_inFlightOps == m_stats.nLaunched - m_stats.nDone);
    Dispatch();
}

uint64_t
TalbCommScheduler::GetWireBytes(uint32_t tensor) const
{
    return DoGetWireBytes(tensor);
}

uint64_t
TalbCommScheduler::DoGetWireBytes(uint32_t tensor) const
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
    return talb_gradient_bytes(m_model.GetTensor(tensor).params, m_bytesPerElement);
}

const TalbDnnModel&
TalbCommScheduler::GetModel() const
{
    return m_model;
}

uint32_t
TalbCommScheduler::GetBytesPerElement() const
{
    return m_bytesPerElement;
}

uint32_t
TalbCommScheduler::GetNWorkers() const
{
    return m_nWorkers;
}

const std::vector<Time>&
TalbCommScheduler::GetForwardTimes() const
{
    return m_forward;
}

const std::vector<Time>&
TalbCommScheduler::GetBackwardTimes() const
{
    return m_backward;
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

const TalbCommScheduler::Stats&
TalbCommScheduler::GetStats() const
{
    return m_stats;
}

bool
TalbCommScheduler::DoCanLaunch(const TalbCommOp& /* next */) const
{
    return m_inFlightOps < 1;
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
    ++m_stats.nEnqueued;
    Dispatch();
}

void
TalbCommScheduler::Dispatch()
{
    while (!m_queue.empty() && DoCanLaunch(m_queue.begin()->second))
    {
        TalbCommOp op = std::move(m_queue.begin()->second);
        m_queue.erase(m_queue.begin());
        ++m_inFlightOps;
        m_inFlightBytes += op.GetBytes();
        ++m_stats.nLaunched;
        NS_ASSERT(m_stats.nLaunched <= m_stats.nEnqueued);
        m_opLaunched(op);
        m_launch(op);
    }
}

} // namespace ns3
