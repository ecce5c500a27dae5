#include "talb-collective.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbCollective");
NS_OBJECT_ENSURE_REGISTERED(TalbCollective);

TypeId
TalbCollective::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbCollective").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbRegistry&
TalbCollective::GetRegistry()
{
    static TalbRegistry registry("collective", GetTypeId());
    return registry;
}

TalbCollective::TalbCollective()
{
    NS_LOG_FUNCTION(this);
}

TalbCollective::~TalbCollective()
{
    NS_LOG_FUNCTION(this);
}

void
TalbCollective::DoDispose()
{
    m_workers.clear();
    m_transport = nullptr;
    m_workerDone = WorkerDoneCallback();
    m_opDone = OpDoneCallback();
    m_flow = FlowCallback();
    Object::DoDispose();
}

void
TalbCollective::Setup(uint32_t jobId,
                      const std::vector<Ptr<Node>>& workers,
                      Ptr<TalbTransport> transport,
                      WorkerDoneCallback workerDone,
                      OpDoneCallback opDone,
                      FlowCallback flow)
{
    NS_LOG_FUNCTION(this << jobId << workers.size());
    NS_ABORT_MSG_IF(workers.empty(), "TalbCollective: no workers");
    NS_ABORT_MSG_IF(!transport, "TalbCollective: no transport");
    NS_ABORT_MSG_IF(IsSetUp(), "TalbCollective::Setup called twice");
    m_jobId = jobId;
    m_workers = workers;
    m_transport = transport;
    m_workerDone = workerDone;
    m_opDone = opDone;
    m_flow = flow;
    m_nLocal = 0;
    for (const auto& w : workers)
    {
        m_nLocal += w->GetSystemId() == Simulator::GetSystemId() ? 1 : 0;
    }
    NS_ABORT_MSG_UNLESS(CheckConfig(),
                        GetInstanceTypeId().GetName()
                            << ": invalid configuration: " << m_configError);
    DoSetup();
}

bool
TalbCollective::CheckConfig()
{
    return true;
}

bool
TalbCollective::ConfigError(const std::string& message)
{
    NS_LOG_ERROR(message);
    m_configError = message;
    return false;
}

void
TalbCollective::Start(const TalbCommOp& op)
{
    NS_LOG_FUNCTION(this << op.id);
    NS_ASSERT_MSG(IsSetUp(), "TalbCollective::Start before Setup");
    NS_ABORT_MSG_IF(op.segments.empty(), "TalbCollective: op " << op.id << " has no segments");
    ++m_stats.nStarted;
    DoStart(op);
}

Time
TalbCollective::GetIdealOpTime(uint64_t bytes, uint32_t nWorkers, DataRate rate) const
{
    NS_ABORT_MSG_IF(rate.GetBitRate() == 0, "TalbCollective::GetIdealOpTime: zero rate");
    if (nWorkers < 2 || bytes == 0)
    {
        return Time(0);
    }
    return DoGetIdealOpTime(bytes, nWorkers, rate);
}

Time
TalbCollective::DoGetIdealOpTime(uint64_t /* bytes */,
                                 uint32_t /* nWorkers */,
                                 DataRate /* rate */) const
{
    return Time(-1);
}

const TalbCollective::Stats&
TalbCollective::GetStats() const
{
    return m_stats;
}

Ptr<TalbMessageChannel>
TalbCollective::Connect(Ptr<Node> from, uint32_t fromIndex, Ptr<Node> to, uint32_t toIndex)
{
    Ptr<TalbMessageChannel> channel =
        m_transport->Connect(from,
                             fromIndex,
                             to,
                             toIndex,
                             MakeCallback(&TalbCollective::OnDelivered, this));
    // A message's record is complete when its sender sees the last byte acknowledged.
    channel->SetCompletedCallback(m_flow);
    return channel;
}

void
TalbCollective::NotifyWorkerDone(const TalbCommOp& op, uint32_t worker)
{
    ++m_stats.nWorkerDone;
    NS_ASSERT(m_stats.nWorkerDone <= m_stats.nStarted * m_workers.size());
    m_workerDone(op, worker);
}

void
TalbCollective::NotifyOpDone(const TalbCommOp& op)
{
    ++m_stats.nDone;
    NS_ASSERT(m_stats.nDone <= m_stats.nStarted);
    m_opDone(op);
}

uint32_t
TalbCollective::GetJobId() const
{
    return m_jobId;
}

const std::vector<Ptr<Node>>&
TalbCollective::GetWorkers() const
{
    return m_workers;
}

uint32_t
TalbCollective::GetNWorkers() const
{
    return m_workers.size();
}

uint32_t
TalbCollective::GetNLocalWorkers() const
{
    return m_nLocal;
}

bool
TalbCollective::IsSetUp() const
{
    return !m_workers.empty();
}

void
TalbCollective::OnDelivered(Ptr<TalbMessageChannel> channel,
                            const TalbMessage& message,
                            const TalbFlowRecord& /* record */)
{
    DoDelivered(channel, message);
}

std::vector<uint64_t>
TalbCollective::SegmentStarts(const TalbCommOp& op)
{
    std::vector<uint64_t> starts(op.segments.size() + 1, 0);
    for (std::size_t j = 0; j < op.segments.size(); ++j)
    {
        NS_ABORT_MSG_IF(op.segments[j].bytes == 0, "TalbCollective: empty segment in op " << op.id);
        starts[j + 1] = starts[j] + op.segments[j].bytes;
    }
    return starts;
}

} // namespace ns3
