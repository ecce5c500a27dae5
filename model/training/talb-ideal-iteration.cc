#include "talb-ideal-iteration.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbIdealIteration");

namespace
{

/// One worker's timeline (TalbDnnWorker's rules) and a fluid processor-sharing NIC.
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
          m_iterations(iterations),
          m_scheduler(scheduler),
          m_collective(collective),
          m_rate(rate),
          m_synced(m_nTensors, -1),
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
        Forward();
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

    // The worker, as TalbDnnWorker::Forward / Backward / TensorSynced / EndIteration.
    void Forward()
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
                EndIteration();
            }
            if (m_forward[m_cursor].IsStrictlyPositive())
            {
                m_computing = true;
                Simulator::Schedule(m_forward[m_cursor], &Replay::Forward, this);
                return;
            }
            ++m_cursor;
        }
        Backward();
    }

    void Backward()
    {
        while (m_cursor > 0)
        {
            if (!m_computing && m_backward[m_cursor - 1].IsStrictlyPositive())
            {
                m_computing = true;
                Simulator::Schedule(m_backward[m_cursor - 1], &Replay::Backward, this);
                return;
            }
            m_computing = false;
            --m_cursor;
            m_left[m_cursor] = m_wireBytes[m_cursor];
            m_scheduler->TensorReady(m_iteration, m_cursor);
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
                EndIteration();
            }
        }
    }

    void TensorSynced(uint32_t tensor, uint32_t iteration)
    {
        m_synced[tensor] = iteration;
        if (iteration + 1 == m_iterations && ++m_syncedLast == m_nTensors && m_backwardDone)
        {
            EndIteration();
            return;
        }
        if (m_waiting && tensor == m_cursor)
        {
            m_waiting = false;
            Forward();
        }
    }

    void EndIteration()
    {
        m_done.push_back(Simulator::Now() - m_start);
        m_start = Simulator::Now();
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
                if (m_left[seg.tensor] == 0)
                {
                    TensorSynced(seg.tensor, op.iteration);
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
    uint32_t m_iterations;
    Ptr<TalbCommScheduler> m_scheduler;
    Ptr<const TalbCollective> m_collective;
    DataRate m_rate;

    uint32_t m_iteration{0};
    uint32_t m_cursor{0};
    bool m_computing{false};
    bool m_waiting{false};
    bool m_backwardDone{false};
    uint32_t m_syncedLast{0};
    Time m_start;
    std::vector<int64_t> m_synced;     //!< per tensor: last iteration synchronised
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
