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
    return m_completed;
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
    m_iterations = m_job->GetIterations();
    m_nTensors = m_job->GetModel().GetNTensors();
    m_synced.assign(m_nTensors, -1);
    m_iteration = 0;
    m_cursor = 0;
    m_iterationStart = Simulator::Now();
    Forward();
}

void
TalbDnnWorker::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_event.Cancel();
}

void
TalbDnnWorker::Forward()
{
    if (m_computing)
    {
        m_computing = false;
        ++m_cursor;
    }
    while (m_cursor < m_nTensors)
    {
        if (m_synced[m_cursor] + 1 < int64_t(m_iteration))
        {
            m_waiting = true;
            return;
        }
        if (m_cursor == 0 && m_iteration > 0)
        {
            EndIteration(m_iteration - 1);
            m_iterationStart = Simulator::Now();
        }
        Time dt = m_job->GetForwardTime(m_cursor);
        if (dt.IsStrictlyPositive())
        {
            m_computing = true;
            m_event = Simulator::Schedule(dt, &TalbDnnWorker::Forward, this);
            return;
        }
        ++m_cursor;
    }
    Backward();
}

void
TalbDnnWorker::Backward()
{
    // m_cursor counts the tensors whose backward step has not ended yet.
    while (m_cursor > 0)
    {
        if (!m_computing)
        {
            Time dt = m_job->GetBackwardTime(m_cursor - 1);
            if (dt.IsStrictlyPositive())
            {
                m_computing = true;
                m_event = Simulator::Schedule(dt, &TalbDnnWorker::Backward, this);
                return;
            }
        }
        m_computing = false;
        --m_cursor;
        m_job->GradientReady(m_index, m_iteration, m_cursor);
    }
    if (m_iteration + 1 < m_iterations)
    {
        ++m_iteration;
        Forward();
    }
    else
    {
        m_backwardDone = true;
        if (m_syncedLast == m_nTensors)
        {
            EndIteration(m_iteration);
        }
    }
}

void
TalbDnnWorker::TensorSynced(uint32_t tensor, uint32_t iteration)
{
    NS_ASSERT(tensor < m_nTensors && int64_t(iteration) == m_synced[tensor] + 1);
    m_synced[tensor] = iteration;
    if (iteration + 1 == m_iterations && ++m_syncedLast == m_nTensors && m_backwardDone)
    {
        EndIteration(iteration);
        return;
    }
    if (m_waiting && tensor == m_cursor)
    {
        m_waiting = false;
        Forward();
    }
}

void
TalbDnnWorker::EndIteration(uint32_t iteration)
{
    ++m_completed;
    m_job->IterationEnded(m_index, iteration, m_iterationStart, Simulator::Now());
}

} // namespace ns3
