#include "talb-worker-timeline.h"

#include <cassert>

namespace ns3
{

TalbWorkerTimeline::TalbWorkerTimeline(uint32_t nTensors, uint32_t iterations)
    : m_nTensors(nTensors),
      m_iterations(iterations),
      m_synced(nTensors, -1)
{
    assert(nTensors > 0 && iterations > 0 && "a timeline needs tensors and iterations");
}

TalbWorkerTimeline::Action
TalbWorkerTimeline::Next()
{
    if (m_computing)
    {
        return {};
    }
    if (m_pass == FORWARD_PASS)
    {
        if (m_cursor < m_nTensors)
        {
            if (m_synced[m_cursor] + 1 < int64_t(m_iteration))
            {
                m_waiting = true;
                return {};
            }
            if (m_cursor == 0 && m_completed < m_iteration)
            {
                return {Action::ITERATION_END, m_completed++, 0};
            }
            m_computing = true;
            return {Action::FORWARD, m_iteration, m_cursor};
        }
        m_pass = BACKWARD_PASS;
    }
    if (m_pass == BACKWARD_PASS)
    {
        if (m_gradientReady)
        {
            m_gradientReady = false;
            return {Action::GRADIENT_READY, m_iteration, m_cursor};
        }
        if (m_cursor > 0)
        {
            m_computing = true;
            return {Action::BACKWARD, m_iteration, m_cursor - 1};
        }
        if (m_iteration + 1 < m_iterations)
        {
            ++m_iteration;
            m_pass = FORWARD_PASS;
            return Next();
        }
        m_pass = DONE;
    }
    if (m_syncedLast == m_nTensors && m_completed < m_iterations)
    {
        return {Action::ITERATION_END, m_completed++, 0};
    }
    return {};
}

void
TalbWorkerTimeline::StepDone()
{
    assert(m_computing && "StepDone without a running compute step");
    m_computing = false;
    if (m_pass == FORWARD_PASS)
    {
        ++m_cursor;
    }
    else
    {
        --m_cursor;
        m_gradientReady = true;
    }
}

bool
TalbWorkerTimeline::TensorSynced(uint32_t tensor, uint32_t iteration)
{
    assert(tensor < m_nTensors && int64_t(iteration) == m_synced[tensor] + 1 &&
           "a tensor's iterations are synchronised in order");
    m_synced[tensor] = iteration;
    if (iteration + 1 == m_iterations && ++m_syncedLast == m_nTensors && m_pass == DONE)
    {
        return true;
    }
    if (m_waiting && tensor == m_cursor)
    {
        m_waiting = false;
        return true;
    }
    return false;
}

uint32_t
TalbWorkerTimeline::GetCompletedIterations() const
{
    return m_completed;
}

bool
TalbWorkerTimeline::IsFinished() const
{
    return m_completed == m_iterations;
}

} // namespace ns3
