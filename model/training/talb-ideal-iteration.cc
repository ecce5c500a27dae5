#include "talb-ideal-iteration.h"

#include "talb-worker-timeline.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbIdealIteration");

namespace
{

/// One worker's timeline (TalbWorkerTimeline, driven as TalbDnnWorker drives it) and a fluid
/// processor-sharing NIC.
class Replay
{
  public:
    Replay(const TalbDnnModel& model,
           const std::vector<Time>& forward,
           const std::vector<Time>& backward,
           uint32_t nWorkers,
           uint32_t iterations,
           Ptr<TalbCommScheduler> scheduler,
           Ptr<const TalbCollective> collective,
           DataRate rate)
        : m_forward(forward),
          m_backward(backward),
          m_nTensors(model.GetNTensors()),
          m_nWorkers(nWorkers),
          m_scheduler(scheduler),
          m_collective(collective),
          m_rate(rate),
          m_timeline(m_nTensors, iterations),
          m_left(m_nTensors, 0),
          m_wireBytes(m_nTensors, 0)
    {
    }

    void Start()
    {
        for (uint32_t t = 0; t < m_nTensors; ++t)
        {
            m_wireBytes[t] = m_scheduler->GetWireBytes(t);
        }
        RunTimeline();
    }

    void Launch(const TalbCommOp& op)
    {
        Advance();
        Time work = m_collective->GetIdealOpTime(op.GetBytes(), m_nWorkers, m_rate);
        m_communication += work;
        m_flights.push_back({op, work.GetSeconds()});
        Reschedule();
    }

    std::vector<Time> m_done; //!< duration of each ended iteration
    Time m_communication;     //!< sum of the launched operations' analytic times

  private:
    struct Flight
    {
        TalbCommOp op;
        double work; //!< seconds of the whole NIC still needed
    };

    // The worker: TalbDnnWorker's driving of the timeline, in the replay's time.
    void RunTimeline()
    {
        for (;;)
        {
            TalbWorkerTimeline::Action a = m_timeline.Next();
            switch (a.kind)
            {
            case TalbWorkerTimeline::Action::FORWARD:
            case TalbWorkerTimeline::Action::BACKWARD: {
                Time dt = a.kind == TalbWorkerTimeline::Action::FORWARD ? m_forward[a.tensor]
                                                                        : m_backward[a.tensor];
                if (dt.IsStrictlyPositive())
                {
                    Simulator::Schedule(dt, &Replay::StepDone, this);
                    return;
                }
                m_timeline.StepDone();
                break;
            }
            case TalbWorkerTimeline::Action::GRADIENT_READY:
                // One worker stands for all: ready here is ready everywhere.
                m_left[a.tensor] = m_wireBytes[a.tensor];
                m_scheduler->TensorReady(a.iteration, a.tensor);
                break;
            case TalbWorkerTimeline::Action::ITERATION_END:
                m_done.push_back(Simulator::Now() - m_start);
                m_start = Simulator::Now();
                break;
            case TalbWorkerTimeline::Action::WAIT:
                return;
            }
        }
    }

    void StepDone()
    {
        m_timeline.StepDone();
        RunTimeline();
    }

    // The NIC: flights share it equally.
    void Advance()
    {
        if (!m_flights.empty())
        {
            double share = (Simulator::Now() - m_lastUpdate).GetSeconds() / m_flights.size();
            for (auto& f : m_flights)
            {
                f.work -= share;
            }
        }
        m_lastUpdate = Simulator::Now();
    }

    void Reschedule()
    {
        m_next.Cancel();
        if (m_flights.empty())
        {
            return;
        }
        double least = m_flights.front().work;
        for (const auto& f : m_flights)
        {
            least = std::min(least, f.work);
        }
        double delay = std::max(0.0, least) * m_flights.size();
        // Rounded up to the time resolution, so the flight is done when the event runs.
        Time t = Seconds(delay);
        if (t.GetSeconds() < delay)
        {
            t += TimeStep(1);
        }
        m_next = Simulator::Schedule(t, &Replay::Complete, this);
    }

    void Complete()
    {
        Advance();
        std::vector<TalbCommOp> finished;
        // Within one time step of done counts as done (the delay was rounded to a step).
        double epsilon = TimeStep(1).GetSeconds();
        for (auto it = m_flights.begin(); it != m_flights.end();)
        {
            if (it->work <= epsilon)
            {
                finished.push_back(std::move(it->op));
                it = m_flights.erase(it);
            }
            else
            {
                ++it;
            }
        }
        for (const auto& op : finished)
        {
            for (const auto& seg : op.segments)
            {
                NS_ABORT_MSG_IF(m_left[seg.tensor] < seg.bytes,
                                "TalbIdealIteration: tensor " << seg.tensor << " over-synced");
                m_left[seg.tensor] -= seg.bytes;
                if (m_left[seg.tensor] == 0 && m_timeline.TensorSynced(seg.tensor, op.iteration))
                {
                    RunTimeline();
                }
            }
            m_scheduler->OpDone(op);
        }
        Reschedule();
    }

    const std::vector<Time>& m_forward;
    const std::vector<Time>& m_backward;
    uint32_t m_nTensors;
    uint32_t m_nWorkers;
    Ptr<TalbCommScheduler> m_scheduler;
    Ptr<const TalbCollective> m_collective;
    DataRate m_rate;

    TalbWorkerTimeline m_timeline;
    Time m_start;
    std::vector<uint64_t> m_left;      //!< per tensor: bytes of this iteration still to sync
    std::vector<uint64_t> m_wireBytes; //!< per tensor

    std::vector<Flight> m_flights;
    Time m_lastUpdate;
    EventId m_next;
};

} // namespace

Time
TalbIdealIteration::Result::GetMean(uint32_t from) const
{
    if (from >= iterations.size())
    {
        return Time(0);
    }
    Time sum(0);
    for (std::size_t i = from; i < iterations.size(); ++i)
    {
        sum += iterations[i];
    }
    return sum / int64_t(iterations.size() - from);
}

TalbIdealIteration::Result
TalbIdealIteration::Compute(const TalbDnnModel& model,
                            uint32_t bytesPerElement,
                            const std::vector<Time>& forward,
                            const std::vector<Time>& backward,
                            uint32_t nWorkers,
                            uint32_t iterations,
                            Ptr<TalbCommScheduler> scheduler,
                            Ptr<const TalbCollective> collective,
                            DataRate rate)
{
    NS_LOG_FUNCTION(model.GetName() << nWorkers << iterations << rate);
    NS_ABORT_MSG_IF(model.GetNTensors() == 0 || forward.size() != model.GetNTensors() ||
                        backward.size() != model.GetNTensors(),
                    "TalbIdealIteration: a model with per-tensor compute times is needed");
    NS_ABORT_MSG_IF(iterations == 0 || nWorkers == 0 || !scheduler || !collective,
                    "TalbIdealIteration: iterations, workers, scheduler and collective needed");
    NS_ABORT_MSG_UNLESS(Simulator::IsFinished() && Simulator::Now().IsZero(),
                        "TalbIdealIteration::Compute runs a simulator session of its own: call "
                        "it before building a simulation");
    Result result;
    for (uint32_t t = 0; t < model.GetNTensors(); ++t)
    {
        result.compute += forward[t] + backward[t];
    }
    if (collective->GetIdealOpTime(1 << 20, std::max(2u, nWorkers), rate).IsStrictlyNegative())
    {
        return result; // the collective has no analytic bound
    }
    Replay replay(model, forward, backward, nWorkers, iterations, scheduler, collective, rate);
    scheduler->Setup(model,
                     bytesPerElement,
                     nWorkers,
                     forward,
                     backward,
                     MakeCallback(&Replay::Launch, &replay));
    Simulator::ScheduleNow(&Replay::Start, &replay);
    Simulator::Run();
    scheduler->Dispose();
    Simulator::Destroy();
    result.known = replay.m_done.size() == iterations;
    result.iterations = replay.m_done;
    result.communication = replay.m_communication / int64_t(iterations);
    return result;
}

} // namespace ns3
