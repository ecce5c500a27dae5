#include "talb-training-job.h"

#include "talb-dnn-worker.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-wire.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTrainingJob");
NS_OBJECT_ENSURE_REGISTERED(TalbTrainingJob);

TypeId
TalbTrainingJob::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbTrainingJob")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbTrainingJob>()
            .AddAttribute("JobId",
                          "Job id: the top 8 bits of its tensor ids on the wire",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbTrainingJob::m_jobId),
                          MakeUintegerChecker<uint32_t>(0, TALB_MAX_JOBS - 1))
            .AddAttribute("Iterations",
                          "Training iterations to run",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TalbTrainingJob::m_iterations),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("BatchSize",
                          "Samples per worker per iteration",
                          UintegerValue(32),
                          MakeUintegerAccessor(&TalbTrainingJob::m_batchSize),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("Device",
                          "Device preset giving the effective compute rate: V100-FP32, "
                          "V100-AMP, A100-TF32, A100-AMP",
                          StringValue("V100-FP32"),
                          MakeStringAccessor(&TalbTrainingJob::m_device),
                          MakeStringChecker())
            .AddAttribute("DeviceRate",
                          "Effective compute rate in FLOP/s; 0 uses the Device preset",
                          DoubleValue(0),
                          MakeDoubleAccessor(&TalbTrainingJob::m_deviceRate),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("BackwardFactor",
                          "Backward compute time / forward compute time",
                          DoubleValue(2.0),
                          MakeDoubleAccessor(&TalbTrainingJob::m_backwardFactor),
                          MakeDoubleChecker<double>(0))
            .AddAttribute(
                "Precision",
                "Gradient precision: fp32 (4 bytes per element) or fp16 (2)",
                EnumValue(TalbTrainingJob::FP32),
                MakeEnumAccessor(&TalbTrainingJob::m_precision),
                MakeEnumChecker(TalbTrainingJob::FP32, "fp32", TalbTrainingJob::FP16, "fp16"))
            .AddAttribute("BasePort",
                          "Receivers of job j listen on BasePort + j",
                          UintegerValue(20000),
                          MakeUintegerAccessor(&TalbTrainingJob::m_basePort),
                          MakeUintegerChecker<uint16_t>(1, 65535 - TALB_MAX_JOBS))
            .AddAttribute("ControlDelay",
                          "Latency of the workers' agreement: a tensor's collective starts this "
                          "long after its gradient is ready on the last worker, and the scheduler "
                          "learns an operation finished this long after its last worker; 0 = "
                          "instantaneous (one shared view). Workers on several simulation ranks "
                          "need at least the ranks' lookahead",
                          TimeValue(Time(0)),
                          MakeTimeAccessor(&TalbTrainingJob::m_controlDelay),
                          MakeTimeChecker(Time(0), Seconds(1)))
            .AddTraceSource("FlowDone",
                            "A message of the job's collectives was delivered",
                            MakeTraceSourceAccessor(&TalbTrainingJob::m_flowTrace),
                            "ns3::TalbTrainingJob::FlowTracedCallback")
            .AddTraceSource("TensorDone",
                            "A tensor's collective of one iteration finished on every worker",
                            MakeTraceSourceAccessor(&TalbTrainingJob::m_tensorTrace),
                            "ns3::TalbTrainingJob::TensorTracedCallback")
            .AddTraceSource("IterationDone",
                            "A worker finished an iteration",
                            MakeTraceSourceAccessor(&TalbTrainingJob::m_iterationTrace),
                            "ns3::TalbTrainingJob::IterationTracedCallback");
    return tid;
}

TalbTrainingJob::TalbTrainingJob()
{
    NS_LOG_FUNCTION(this);
}

TalbTrainingJob::~TalbTrainingJob()
{
    NS_LOG_FUNCTION(this);
}

void
TalbTrainingJob::DoDispose()
{
    if (m_scheduler)
    {
        m_scheduler->Dispose();
    }
    if (m_collective)
    {
        m_collective->Dispose();
    }
    if (m_transport)
    {
        m_transport->Dispose();
    }
    m_scheduler = nullptr;
    m_collective = nullptr;
    m_transport = nullptr;
    m_workers.clear();
    m_hosts = NodeContainer();
    m_ops.clear();
    m_report = ReportCallback();
    Object::DoDispose();
}

void
TalbTrainingJob::SetModel(const TalbDnnModel& model)
{
    NS_ABORT_MSG_IF(model.GetNTensors() == 0, "TalbTrainingJob: the model has no tensors");
    m_model = model;
}

const TalbDnnModel&
TalbTrainingJob::GetModel() const
{
    return m_model;
}

void
TalbTrainingJob::SetScheduler(Ptr<TalbCommScheduler> scheduler)
{
    m_scheduler = scheduler;
}

Ptr<TalbCommScheduler>
TalbTrainingJob::GetScheduler() const
{
    return m_scheduler;
}

void
TalbTrainingJob::SetCollective(Ptr<TalbCollective> collective)
{
    m_collective = collective;
}

Ptr<TalbCollective>
TalbTrainingJob::GetCollective() const
{
    return m_collective;
}

void
TalbTrainingJob::SetTransport(Ptr<TalbTransport> transport)
{
    m_transport = transport;
}

Ptr<TalbTransport>
TalbTrainingJob::GetTransport() const
{
    return m_transport;
}

void
TalbTrainingJob::SetWorkers(const NodeContainer& hosts,
                            const std::vector<Ptr<TalbDnnWorker>>& workers)
{
    NS_ABORT_MSG_IF(hosts.GetN() != workers.size() || hosts.GetN() == 0,
                    "TalbTrainingJob: one worker per host expected");
    m_hosts = hosts;
    m_workers = workers;
}

uint32_t
TalbTrainingJob::GetJobId() const
{
    return m_jobId;
}

uint32_t
TalbTrainingJob::GetIterations() const
{
    return m_iterations;
}

uint32_t
TalbTrainingJob::GetNWorkers() const
{
    return m_workers.size();
}

uint32_t
TalbTrainingJob::GetBytesPerElement() const
{
    return m_precision == FP16 ? 2 : 4;
}

TalbComputeModel
TalbTrainingJob::GetComputeModel() const
{
    TalbComputeModel c;
    c.batchSize = m_batchSize;
    c.flopsPerSecond = m_deviceRate > 0 ? m_deviceRate : TalbComputeModel::PresetRate(m_device);
    c.backwardFactor = m_backwardFactor;
    return c;
}

Time
TalbTrainingJob::GetForwardTime(uint32_t tensor) const
{
    return m_forward[tensor];
}

Time
TalbTrainingJob::GetBackwardTime(uint32_t tensor) const
{
    return m_backward[tensor];
}

Time
TalbTrainingJob::GetIterationComputeTime() const
{
    Time total(0);
    for (uint32_t t = 0; t < m_forward.size(); ++t)
    {
        total += m_forward[t] + m_backward[t];
    }
    return total;
}

bool
TalbTrainingJob::IsFinished() const
{
    return m_prepared && m_workersFinished == m_nLocal;
}

Time
TalbTrainingJob::GetFinishTime() const
{
    return m_finishTime;
}

Time
TalbTrainingJob::GetControlDelay() const
{
    return m_controlDelay;
}

bool
TalbTrainingJob::IsLocalWorker(uint32_t worker) const
{
    return m_local.at(worker);
}

void
TalbTrainingJob::SetReportCallback(ReportCallback cb)
{
    m_report = cb;
}

void
TalbTrainingJob::WorkerStarted(uint32_t /* worker */)
{
    if (!m_prepared)
    {
        Prepare();
    }
}

void
TalbTrainingJob::Prepare()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_model.GetNTensors() == 0, "TalbTrainingJob " << m_jobId << ": no model");
    NS_ABORT_MSG_IF(!m_scheduler || !m_collective || !m_transport || m_workers.empty(),
                    "TalbTrainingJob " << m_jobId
                                       << ": scheduler, collective, transport and workers needed");
    m_prepared = true;
    uint32_t n = m_model.GetNTensors();
    uint32_t w = m_workers.size();
    m_local.assign(w, false);
    m_nLocal = 0;
    for (uint32_t i = 0; i < w; ++i)
    {
        m_local[i] = m_hosts.Get(i)->GetSystemId() == Simulator::GetSystemId();
        m_nLocal += m_local[i] ? 1 : 0;
    }
    TalbComputeModel compute = GetComputeModel();
    m_forward.resize(n);
    m_backward.resize(n);
    for (uint32_t t = 0; t < n; ++t)
    {
        m_forward[t] = m_model.GetForwardTime(t, compute);
        m_backward[t] = m_model.GetBackwardTime(t, compute);
    }
    m_scheduler->Setup(m_model,
                       GetBytesPerElement(),
                       w,
                       m_forward,
                       m_backward,
                       MakeCallback(&TalbTrainingJob::Launch, this));
    m_wireBytes.resize(n);
    for (uint32_t t = 0; t < n; ++t)
    {
        m_wireBytes[t] = m_scheduler->GetWireBytes(t);
        NS_ABORT_MSG_IF(m_wireBytes[t] == 0, "TalbTrainingJob: tensor " << t << " sends no bytes");
    }
    m_readyCount.assign(n, 0);
    m_firstReady[0].assign(n, Time(0));
    m_firstReady[1].assign(n, Time(0));
    m_workerLeft.assign(uint64_t(w) * n, 0);
    m_allLeft.assign(n, 0);
    std::vector<Ptr<Node>> hosts(m_hosts.Begin(), m_hosts.End());
    m_transport->Setup(m_basePort + m_jobId);
    m_collective->Setup(m_jobId,
                        hosts,
                        m_transport,
                        MakeCallback(&TalbTrainingJob::WorkerOpDone, this),
                        MakeCallback(&TalbTrainingJob::OpDone, this),
                        MakeCallback(&TalbTrainingJob::Flow, this));
}

void
TalbTrainingJob::GradientReady(uint32_t worker, uint32_t iteration, uint32_t tensor)
{
    uint32_t n = m_model.GetNTensors();
    // A worker reports iteration i+1 only after its own synchronisation of iteration i, so its
    // per-worker counter is free again; the shared counters restart with the first report.
    m_workerLeft[uint64_t(worker) * n + tensor] = m_wireBytes[tensor];
    if (m_controlDelay.IsZero())
    {
        CountReady(iteration, tensor, Simulator::Now());
        return;
    }
    Report r;
    r.kind = Report::READY;
    r.worker = worker;
    r.iteration = iteration;
    r.item = tensor;
    r.time = Simulator::Now();
    Announce(r);
}

void
TalbTrainingJob::CountReady(uint32_t iteration, uint32_t tensor, Time time)
{
    // With a control delay too, a worker's report of iteration i+1 is applied after the launch
    // of iteration i (it follows its own synchronisation of i), so the counter is free.
    if (m_readyCount[tensor]++ == 0)
    {
        m_firstReady[iteration % 2][tensor] = time;
    }
    if (m_readyCount[tensor] == m_workers.size())
    {
        // Every worker has synchronised the previous iteration (each reported after its own
        // synchronisation), so that iteration's op is done everywhere.
        m_readyCount[tensor] = 0;
        m_allLeft[tensor] = m_wireBytes[tensor];
        m_scheduler->TensorReady(iteration, tensor);
    }
}

void
TalbTrainingJob::Announce(const Report& report)
{
    // Every rank applies every report at its time + ControlDelay, so the copies of the job's
    // scheduler see the same events at the same times.
    Simulator::Schedule(m_controlDelay, &TalbTrainingJob::ApplyReport, this, report);
    if (!m_report.IsNull())
    {
        m_report(report);
    }
}

void
TalbTrainingJob::ApplyRemoteReport(const Report& report)
{
    NS_ABORT_MSG_IF(report.worker >= m_workers.size() || m_local[report.worker],
                    "TalbTrainingJob " << m_jobId << ": a remote report of worker " << report.worker
                                       << ", which is not remote");
    ApplyReport(report);
}

void
TalbTrainingJob::ApplyReport(const Report& report)
{
    if (m_pending.empty())
    {
        // Every report of this timestamp is scheduled by now (the local ones ControlDelay ago,
        // the remote ones when a synchronisation before this time received them).
        Simulator::ScheduleNow(&TalbTrainingJob::Flush, this);
    }
    m_pending.push_back(report);
}

void
TalbTrainingJob::Flush()
{
    std::vector<Report> reports;
    reports.swap(m_pending);
    auto key = [](const Report& r) {
        // Completions (by op id) before gradients (by iteration, then from the last tensor, as
        // a backward pass reports them).
        bool ready = r.kind == Report::READY;
        return std::make_tuple(ready, r.iteration, ready ? -int64_t(r.item) : r.item, r.worker);
    };
    std::sort(reports.begin(), reports.end(), [&key](const Report& a, const Report& b) {
        return key(a) < key(b);
    });
    for (const Report& report : reports)
    {
        if (report.kind == Report::READY)
        {
            CountReady(report.iteration, report.item, report.time);
            continue;
        }
        auto it = m_ops.find(report.item);
        NS_ABORT_MSG_IF(it == m_ops.end(),
                        "TalbTrainingJob " << m_jobId << ": done report of unknown op "
                                           << report.item);
        OpProgress& p = it->second;
        p.last = std::max(p.last, report.time);
        if (++p.done == m_workers.size())
        {
            TalbCommOp op = std::move(p.op);
            Time last = p.last;
            m_ops.erase(it);
            Finish(op, last);
        }
    }
}

void
TalbTrainingJob::Launch(const TalbCommOp& op)
{
    if (!m_controlDelay.IsZero())
    {
        m_ops[op.id].op = op;
    }
    m_collective->Start(op);
}

void
TalbTrainingJob::WorkerOpDone(const TalbCommOp& op, uint32_t worker)
{
    uint32_t n = m_model.GetNTensors();
    for (const auto& seg : op.segments)
    {
        uint64_t& left = m_workerLeft[uint64_t(worker) * n + seg.tensor];
        NS_ASSERT(left >= seg.bytes);
        left -= seg.bytes;
        if (left == 0)
        {
            m_workers[worker]->TensorSynced(seg.tensor, op.iteration);
        }
    }
    if (!m_controlDelay.IsZero())
    {
        Report r;
        r.kind = Report::DONE;
        r.worker = worker;
        r.iteration = op.iteration;
        r.item = op.id;
        r.time = Simulator::Now();
        Announce(r);
    }
}

void
TalbTrainingJob::OpDone(const TalbCommOp& op)
{
    // With a control delay the workers' reports decide (ApplyReport()); the collective only
    // sees this rank's workers then.
    if (m_controlDelay.IsZero())
    {
        Finish(op, Simulator::Now());
    }
}

void
TalbTrainingJob::Finish(const TalbCommOp& op, Time done)
{
    // Of a job over several ranks, the rank of worker 0 writes the tensor records.
    bool record = m_local[0];
    for (const auto& seg : op.segments)
    {
        NS_ASSERT(m_allLeft[seg.tensor] >= seg.bytes);
        m_allLeft[seg.tensor] -= seg.bytes;
        if (m_allLeft[seg.tensor] == 0 && record)
        {
            TalbTensorRecord r;
            r.job = m_jobId;
            r.iteration = op.iteration;
            r.tensor = seg.tensor;
            r.name = m_model.GetTensor(seg.tensor).name;
            r.bytes =
                talb_gradient_bytes(m_model.GetTensor(seg.tensor).params, GetBytesPerElement());
            r.wireBytes = m_wireBytes[seg.tensor];
            r.priority = seg.priority;
            r.ready = m_firstReady[op.iteration % 2][seg.tensor];
            r.done = done;
            m_tensorTrace(r);
        }
    }
    m_scheduler->OpDone(op);
}

void
TalbTrainingJob::Flow(const TalbFlowRecord& record)
{
    m_flowTrace(record);
}

void
TalbTrainingJob::IterationEnded(uint32_t worker, uint32_t iteration, Time start, Time end)
{
    TalbIterationRecord r;
    r.job = m_jobId;
    r.worker = worker;
    r.iteration = iteration;
    r.start = start;
    r.end = end;
    r.compute = GetIterationComputeTime();
    m_iterationTrace(r);
    if (iteration + 1 == m_iterations && ++m_workersFinished == m_nLocal)
    {
        m_finishTime = end;
    }
}

} // namespace ns3
