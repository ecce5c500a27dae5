#include "talb-dnn-worker.h"

#include "talb-training-job.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbDnnWorker");
NS_OBJECT_ENSURE_REGISTERED(TalbDnnWorker);

TypeId
TalbDnnWorker::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbDnnWorker")
                            .SetParent<Application>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbDnnWorker>();
    return tid;
}

TalbDnnWorker::TalbDnnWorker()
{
    NS_LOG_FUNCTION(this);
}

TalbDnnWorker::~TalbDnnWorker()
{
    NS_LOG_FUNCTION(this);
}

void
TalbDnnWorker::DoDispose()
{
    m_event.Cancel();
    if (m_job)
    {
        Ptr<TalbTrainingJob> job = m_job;
        m_job = nullptr;
        job->Dispose();
    }
    Application::DoDispose();
}

void
TalbDnnWorker::SetJob(Ptr<TalbTrainingJob> job, uint32_t index)
{
    m_job = job;
    m_index = index;
}

Ptr<TalbTrainingJob>
TalbDnnWorker::GetJob() const
{
    return m_job;
}

uint32_t
TalbDnnWorker::GetIndex() const
{
    return m_index;
}

uint32_t
TalbDnnWorker::GetCompletedIterations() const
{
    return m_timeline.GetCompletedIterations();
}

void
TalbDnnWorker::StartApplication()
{
    NS_LOG_FUNCTION(this << m_index);
    NS_ABORT_MSG_IF(!m_job, "TalbDnnWorker: no job (install it with TalbTrainingJobHelper)");
    m_job->WorkerStarted(m_index);
    if (!m_job->IsLocalWorker(m_index))
    {
        return; // its host is simulated by another rank, where its copy runs
    }
    m_timeline = TalbWorkerTimeline(m_job->GetModel().GetNTensors(), m_job->GetIterations());
    m_iterationStart = Simulator::Now();
    RunTimeline();
}

void
TalbDnnWorker::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_event.Cancel();
}

void
TalbDnnWorker::RunTimeline()
{
    for (;;)
    {
        TalbWorkerTimeline::Action a = m_timeline.Next();
        switch (a.kind)
        {
        case TalbWorkerTimeline::Action::FORWARD:
        case TalbWorkerTimeline::Action::BACKWARD: {
            Time dt = a.kind == TalbWorkerTimeline::Action::FORWARD
                          ? m_job->GetForwardTime(a.tensor)
                          : m_job->GetBackwardTime(a.tensor);
            if (dt.IsStrictlyPositive())
            {
                m_event = Simulator::Schedule(dt, &TalbDnnWorker::StepDone, this);
                return;
            }
            m_timeline.StepDone();
            break;
        }
        case TalbWorkerTimeline::Action::GRADIENT_READY:
            m_job->GradientReady(m_index, a.iteration, a.tensor);
            break;
        case TalbWorkerTimeline::Action::ITERATION_END:
            m_job->IterationEnded(m_index, a.iteration, m_iterationStart, Simulator::Now());
            m_iterationStart = Simulator::Now();
            break;
        case TalbWorkerTimeline::Action::WAIT:
            return;
        }
    }
}

void
TalbDnnWorker::StepDone()
{
    m_timeline.StepDone();
    RunTimeline();
}

void
TalbDnnWorker::TensorSynced(uint32_t tensor, uint32_t iteration)
{
    if (m_timeline.TensorSynced(tensor, iteration))
    {
        RunTimeline();
    }
}

} // namespace ns3
