#include "talb-scenario.h"

#include "talb-scenario-build.h"
#include "talb-scenario-counters.h"

#include "ns3/log.h"
#include "ns3/show-progress.h"
#include "ns3/simulator.h"
#include "ns3/system-path.h"

#include <chrono>
#include <csignal>
#include <ctime>
#include <iostream>
#include <memory>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbScenario");

namespace
{

/// Set by SIGINT/SIGTERM; polled from simulated time so the run ends cleanly, outputs closed.
volatile std::sig_atomic_t g_interrupted = 0;

void
OnSignal(int)
{
    g_interrupted = 1;
}

/// Stops the simulation once a signal arrived; checks again every \p period of simulated time.
void
PollInterrupt(Time period)
{
    if (g_interrupted)
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(period, &PollInterrupt, period);
}

/**
 * Distributed runs: every rank calls this at the same simulated times and stops once every
 * rank's jobs had finished at the previous call, so all ranks stop at one simulated time.
 */
void
CheckAllRanksDone(const TalbScenarioSpec* s, const TalbScenarioCollector* c, Time period)
{
    if (s->allRanksDone(c->DoneHere(), false))
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(period, &CheckAllRanksDone, s, c, period);
}

/// Stage 4: simulate until the jobs are done, duration, stopTime or a signal.
void
Simulate(const TalbScenarioSpec& s, const TalbScenarioCollector& c, TalbScenarioResult* r)
{
    if (s.distributed)
    {
        // Longer than the lookahead: when a rank waits for the previous exchange, every other
        // rank has passed the time it started it.
        Time period = std::max(MicroSeconds(100), 2 * s.fabric.linkDelay);
        Simulator::Schedule(period, &CheckAllRanksDone, &s, &c, period);
    }
    Simulator::Stop(s.duration.IsZero() ? s.stopTime : std::min(s.duration, s.stopTime));
    std::unique_ptr<ShowProgress> progress;
    if (s.progress && s.rank == 0)
    {
        progress = std::make_unique<ShowProgress>(Seconds(1), std::cerr);
    }
    // Ctrl-C or a sweep's SIGTERM ends the run like stopTime does: what was measured is written.
    auto previousInt = std::signal(SIGINT, &OnSignal);
    auto previousTerm = std::signal(SIGTERM, &OnSignal);
    Simulator::ScheduleNow(&PollInterrupt, MilliSeconds(1));
    if (s.onStart)
    {
        s.onStart();
    }
    auto runStart = std::chrono::steady_clock::now();
    std::clock_t cpuStart = std::clock();
    Simulator::Run();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    r->interrupted = g_interrupted;
    r->runCpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    r->runWallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    if (s.distributed)
    {
        s.allRanksDone(false, true);
    }
}

} // namespace

TalbScenario::Result
TalbScenario::Run(const TalbScenarioSpec& spec,
                  const TalbBalancerSpec& lb,
                  const std::string& outDir)
{
    auto wallStart = std::chrono::steady_clock::now();
    Result r;
    r.scheme = spec.fabric.stockRouting ? "stock-ecmp" : lb.name;
    r.outDir = outDir;
    // Before anything is built: the replay runs a simulator session of its own (not under MPI,
    // whose simulator implementation must be the first one made).
    if (!spec.distributed)
    {
        TalbScenarioReport::ComputeIdeals(spec, &r);
    }
    uint64_t eventsBefore = Simulator::GetEventCount();
    TalbScenarioBuild build(spec);
    build.ConfigureDefaults();
    build.BuildFabric(lb);
    // Distributed: each rank its own rows, merged by rank 0 at the end.
    std::string rowsDir = outDir;
    if (spec.ranks > 1)
    {
        rowsDir = SystemPath::Append(outDir, "rank-" + std::to_string(spec.rank));
    }
    build.OpenOutputs(rowsDir, r.scheme);
    // run.json first, marked incomplete: a run killed outright (SIGKILL, out of memory) still
    // leaves a folder the report reads, its CSVs holding every row flushed so far.
    TalbOutputWriter::RunInfo info = TalbScenarioReport::StartRunInfo(spec, lb.name, r);
    if (spec.rank == 0 && !TalbOutputWriter::WriteRunJson(outDir, info, &r.outputError))
    {
        // Nothing is simulated that could not be recorded.
        build.GetWriter()->Dispose();
        Simulator::Destroy();
        return r;
    }
    build.InstallJobs();
    build.InstallBackground();

    Simulate(spec, build.GetCollector(), &r);
    TalbScenarioCounters::Collect(spec,
                                  build.GetFabric(),
                                  build.GetJobs(),
                                  build.GetGraphJobs(),
                                  &r);
    // Rows flushed and closed before Summarize(), whose first exchange between the ranks then
    // also tells rank 0 that every rank's files are complete.
    build.GetWriter()->Dispose();
    TalbScenarioReport::Summarize(spec, build.GetCollector(), &r);
    TalbScenarioCounters::SumEvents(spec, eventsBefore, &r);
    Simulator::Destroy();
    if (spec.ranks > 1 && spec.rank == 0)
    {
        std::vector<std::string> rankDirs;
        for (uint32_t k = 0; k < spec.ranks; ++k)
        {
            rankDirs.push_back(SystemPath::Append(outDir, "rank-" + std::to_string(k)));
        }
        TalbOutputWriter::MergeFolders(rankDirs, outDir);
    }
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    TalbScenarioReport::FinishRunInfo(spec, r, &info);
    if (spec.rank == 0)
    {
        TalbOutputWriter::WriteRunJson(outDir, info, &r.outputError);
    }
    return r;
}

bool
TalbScenario::Interrupted()
{
    return g_interrupted;
}

} // namespace ns3
