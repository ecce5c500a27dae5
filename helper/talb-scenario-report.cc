#include "talb-scenario-report.h"

#include "talb-scenario-build.h"
#include "talb-scenario-counters.h"

#include "ns3/simulator.h"
#include "ns3/talb-llm-analytic.h"
#include "ns3/talb-message-channel.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

double
Percentile(std::vector<double> v, double p)
{
    if (v.empty())
    {
        return 0;
    }
    std::sort(v.begin(), v.end());
    // numpy 'linear' (pandas default), like the analysis tools.
    double rank = p / 100.0 * (v.size() - 1);
    size_t lo = static_cast<size_t>(std::floor(rank));
    size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (rank - lo);
}

double
Mean(const std::vector<double>& v)
{
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    return v.empty() ? 0 : sum / v.size();
}

} // namespace

bool
TalbScenarioCollector::DoneHere() const
{
    return iterationsHere == expectedHere && Simulator::Now() >= lastEnd + settle &&
           TalbMessageChannel::GetAwaitingCompletion() == 0 && Drained();
}

bool
TalbScenarioCollector::Drained() const
{
    return bgArrivalsEnd.IsZero() ||
           (Simulator::Now() >= bgArrivalsEnd && backgroundDone >= backgroundStarted);
}

void
TalbScenarioCollector::BackgroundStarted(const TalbFlowRecord&)
{
    ++backgroundStarted;
}

void
TalbScenarioCollector::Flow(const TalbFlowRecord& r)
{
    if (r.nvlink)
    {
        return; // never on the fabric: its FCTs are the fabric's
    }
    // Exact: whole microseconds (GetMicroSeconds) would bias every average down by ~0.5 us.
    double us = (r.end - r.start).GetNanoSeconds() / 1e3;
    if (r.background)
    {
        ++backgroundDone;
        if (r.start >= bgWarmup)
        {
            backgroundFct.push_back(us);
            if (idealFct)
            {
                Time ideal = idealFct(r);
                double slowdown =
                    ideal.IsStrictlyPositive()
                        ? double((r.end - r.start).GetTimeStep()) / double(ideal.GetTimeStep())
                        : 1.0;
                backgroundSlowdowns.emplace_back(r.sizeBytes, slowdown);
            }
        }
        if (backgroundExpected > 0 || bgArrivalsEnd.IsStrictlyPositive())
        {
            StopWhenDone();
        }
    }
    else
    {
        tensorFct.push_back(us);
        if (r.priority >= 0 && r.priority <= 1)
        {
            highPrioFct.push_back(us);
        }
        StopWhenDone();
    }
}

void
TalbScenarioCollector::Iteration(const TalbIterationRecord& r)
{
    ++iterations;
    ++iterationsHere;
    double& m = iterationMax[{r.job, r.iteration}];
    m = std::max(m, (r.end - r.start).GetSeconds());
    lastEnd = std::max(lastEnd, r.end);
    StopWhenDone();
}

void
TalbScenarioCollector::StopWhenDone()
{
    if (!stopWhenDone || stopping || iterations != expected ||
        backgroundDone < backgroundExpected || !Drained() ||
        TalbMessageChannel::GetAwaitingCompletion() > 0)
    {
        return;
    }
    // Every worker of every job is done and every message acknowledged: generated background
    // traffic alone is not the question (a flow file's is).
    stopping = true;
    // The tensor records of the last operations follow their agreement's delay.
    Time left = lastEnd + settle - Simulator::Now();
    if (left.IsStrictlyPositive())
    {
        Simulator::Stop(left);
    }
    else
    {
        Simulator::Stop();
    }
}

void
TalbScenarioCollector::Rx(Ptr<const Packet>)
{
    ++delivered;
}

bool
TalbScenarioResult::Finished() const
{
    return iterationsDone == iterationsExpected && backgroundFinished >= flowsExpected;
}

std::string
TalbScenarioResult::Progress() const
{
    std::string p = std::to_string(iterationsDone) + " of " + std::to_string(iterationsExpected) +
                    " worker-iterations";
    if (flowsExpected > 0)
    {
        p += " and " + std::to_string(std::min(backgroundFinished, flowsExpected)) + " of " +
             std::to_string(flowsExpected) +
             (drained ? " started background flows (drain)" : " flowFile flows");
    }
    return p;
}

TalbScenarioResult::JobIdeal
TalbScenarioReport::GraphJobIdeal(const TalbScenarioSpec& s, uint32_t j)
{
    const TalbJobSpec& spec = s.jobs[j];
    talb::graph::IdealReplay::Result ideal =
        TalbScenarioBuild::MakeGraphHelper(s, j).ComputeIdeal();
    TalbScenarioResult::JobIdeal out;
    std::vector<talb::graph::LlmClassBytes> bytes;
    std::string error;
    if (spec.graph.kind == TalbGraphJobSpec::LLM &&
        talb::graph::LlmAnalyticBytes(spec.graph.llm, &bytes, &error))
    {
        for (const auto& b : bytes)
        {
            out.analyticBytes.push_back({b.tensor, b.expert, b.pipeline, b.data});
        }
    }
    out.known = ideal.error.empty() && s.warmup < ideal.iterationNs.size();
    if (!out.known)
    {
        return out;
    }
    double sum = 0;
    for (std::size_t i = s.warmup; i < ideal.iterationNs.size(); ++i)
    {
        sum += ideal.iterationNs[i];
    }
    out.iterationMs = sum / (ideal.iterationNs.size() - s.warmup) * 1e-6;
    // The busiest rank's compute stream in one iteration (the first).
    const talb::graph::Graph& g = *spec.graph.graph;
    double computeNs = 0;
    for (const auto& nodes : g.ranks)
    {
        double rank = 0;
        for (const auto& n : nodes)
        {
            bool onStream = n.kind == talb::graph::NodeKind::kCompute ||
                            n.kind == talb::graph::NodeKind::kMemory;
            rank += onStream && n.iteration == 0 ? double(n.durationNs) : 0.0;
        }
        computeNs = std::max(computeNs, rank);
    }
    out.computeMs = computeNs * 1e-6;
    out.communicationMs = std::max(0.0, out.iterationMs - out.computeMs);
    return out;
}

void
TalbScenarioReport::ComputeIdeals(const TalbScenarioSpec& s, TalbScenarioResult* r)
{
    for (uint32_t j = 0; j < s.jobs.size(); ++j)
    {
        if (s.jobs[j].IsGraphJob())
        {
            r->ideals.push_back(GraphJobIdeal(s, j));
            continue;
        }
        TalbIdealIteration::Result ideal =
            s.jobs[j].MakeHelper(j).ComputeIdealIteration(s.jobs[j].workers, s.fabric.hostRate);
        TalbScenarioResult::JobIdeal out;
        out.known = ideal.known;
        out.iterationMs = ideal.known ? ideal.GetMean(s.warmup).GetSeconds() * 1e3 : 0;
        out.computeMs = ideal.compute.GetSeconds() * 1e3;
        out.communicationMs = ideal.known ? ideal.communication.GetSeconds() * 1e3 : 0;
        r->ideals.push_back(out);
    }
}

void
TalbScenarioReport::Summarize(const TalbScenarioSpec& s,
                              const TalbScenarioCollector& c,
                              TalbScenarioResult* r)
{
    r->simSeconds = Simulator::Now().GetSeconds();
    r->collectives = c.collectives;
    std::vector<double> tensorFct = c.tensorFct;
    std::vector<double> highPrioFct = c.highPrioFct;
    std::vector<double> backgroundFct = c.backgroundFct;
    std::map<std::pair<uint32_t, uint32_t>, double> iterationMax = c.iterationMax;
    uint64_t remoteHops = 0;
    uint64_t hops = TalbScenarioCounters::CountPacketHops(&remoteHops);
    std::vector<uint64_t> counts = {c.iterations, c.delivered, hops, remoteHops};
    if (s.distributed)
    {
        s.gatherOverRanks(&tensorFct);
        s.gatherOverRanks(&highPrioFct);
        s.gatherOverRanks(&backgroundFct);
        // A job over several ranks: its iteration time is the slowest worker's on any rank.
        std::vector<double> triples;
        for (const auto& kv : c.iterationMax)
        {
            triples.insert(triples.end(),
                           {double(kv.first.first), double(kv.first.second), kv.second});
        }
        s.gatherOverRanks(&triples);
        for (std::size_t i = 0; i + 2 < triples.size(); i += 3)
        {
            double& m = iterationMax[{uint32_t(triples[i]), uint32_t(triples[i + 1])}];
            m = std::max(m, triples[i + 2]);
        }
        s.sumOverRanks(&counts);
        r->collectives.Gather(s.gatherOverRanks);
        std::vector<double> cpu = {r->runCpuSeconds};
        s.gatherOverRanks(&cpu);
        r->runCpuSeconds = 0;
        for (double x : cpu)
        {
            r->runCpuSeconds += x;
        }
    }
    r->tensorFlows = tensorFct.size();
    r->backgroundFlows = backgroundFct.size();
    r->highPrioFlows = highPrioFct.size();
    r->background = s.bgLoad > 0 || !s.flows.empty();
    r->tensorAvgFctUs = Mean(tensorFct);
    std::vector<double> allFct = tensorFct;
    allFct.insert(allFct.end(), backgroundFct.begin(), backgroundFct.end());
    r->allAvgFctUs = Mean(allFct);
    r->tensorP99FctUs = Percentile(tensorFct, 99);
    r->highPrioAvgFctUs = Mean(highPrioFct);
    r->backgroundAvgFctUs = Mean(backgroundFct);
    r->backgroundP99FctUs = Percentile(backgroundFct, 99);
    r->iterationsDone = counts[0];
    r->iterationsExpected = c.expected;
    r->drained = c.bgArrivalsEnd.IsStrictlyPositive();
    std::vector<uint64_t> background = {c.backgroundDone,
                                        r->drained ? c.backgroundStarted : c.backgroundExpected};
    if (s.distributed)
    {
        s.sumOverRanks(&background);
    }
    r->backgroundFinished = background[0];
    r->flowsExpected = background[1];
    r->backgroundSlowdowns = c.backgroundSlowdowns;
    std::vector<double> iterationMs;
    std::vector<std::vector<double>> perJob(s.jobs.size());
    double idealSum = 0;
    // Distributed runs compute no ideals (see Run()).
    bool idealKnown = !s.jobs.empty() && r->ideals.size() == s.jobs.size();
    for (const auto& kv : iterationMax)
    {
        if (kv.first.second >= s.warmup)
        {
            iterationMs.push_back(kv.second * 1e3);
            perJob[kv.first.first].push_back(kv.second * 1e3);
            if (idealKnown)
            {
                const TalbScenarioResult::JobIdeal& ideal = r->ideals[kv.first.first];
                idealKnown = ideal.known;
                idealSum += ideal.iterationMs;
            }
        }
    }
    r->meanIterationMs = Mean(iterationMs);
    // The ideal averaged over the same (job, iteration) pairs as the measured mean.
    r->idealIterationMs = idealKnown && !iterationMs.empty() ? idealSum / iterationMs.size() : 0;
    for (std::size_t j = 0; j < perJob.size() && j < r->ideals.size(); ++j)
    {
        r->ideals[j].measuredMs = Mean(perJob[j]);
    }
    r->deliveredPackets = counts[1];
    r->packetHops = counts[2];
    r->remotePacketHops = counts[3];
}

std::string
TalbScenarioReport::JobsJson(const TalbScenarioResult& r)
{
    std::ostringstream os;
    // Enough digits for readers that recompute the table's figures (talb-testbed-table.py).
    os << std::setprecision(15) << "[";
    for (std::size_t j = 0; j < r.ideals.size(); ++j)
    {
        const TalbScenarioResult::JobIdeal& i = r.ideals[j];
        os << (j ? ", " : "") << "{\"job\": " << j << ", \"ideal_iteration_ms\": ";
        if (i.known)
        {
            os << i.iterationMs;
        }
        else
        {
            os << "null";
        }
        os << ", \"ideal_compute_ms\": " << i.computeMs
           << ", \"ideal_communication_ms\": " << i.communicationMs
           << ", \"iteration_ms\": " << i.measuredMs << ", \"x_ideal\": ";
        if (i.known && i.iterationMs > 0 && i.measuredMs > 0)
        {
            os << i.measuredMs / i.iterationMs;
        }
        else
        {
            os << "null";
        }
        std::string collectives = r.collectives.JobJson(j);
        if (collectives != "[]")
        {
            os << ", \"collectives\": " << collectives;
        }
        if (!i.analyticBytes.empty())
        {
            os << ", \"analytic_bytes\": {";
            const char* classes[] = {"tensor", "expert", "pipeline", "data"};
            for (std::size_t c = 0; c < 4; ++c)
            {
                os << (c ? ", " : "") << "\"" << classes[c] << "\": [";
                for (std::size_t r = 0; r < i.analyticBytes.size(); ++r)
                {
                    os << (r ? ", " : "") << i.analyticBytes[r][c];
                }
                os << "]";
            }
            os << "}";
        }
        os << "}";
    }
    os << "]";
    return os.str();
}

TalbOutputWriter::RunInfo
TalbScenarioReport::StartRunInfo(const TalbScenarioSpec& spec,
                                 const std::string& lb,
                                 const TalbScenarioResult& r)
{
    TalbOutputWriter::RunInfo info;
    info.scheme = r.scheme;
    info.lb = lb;
    info.seed = spec.seed;
    info.parametersJson = spec.parametersJson;
    info.lbProfile = TalbAttributeList::ToText(spec.lbProfileAttributes);
    info.jobsJson = JobsJson(r);
    return info;
}

void
TalbScenarioReport::FinishRunInfo(const TalbScenarioSpec& spec,
                                  const TalbScenarioResult& r,
                                  TalbOutputWriter::RunInfo* info)
{
    info->complete = r.Finished();
    info->simSeconds = r.simSeconds;
    info->wallSeconds = r.wallSeconds;
    info->runWallSeconds = r.runWallSeconds;
    info->runCpuSeconds = r.runCpuSeconds;
    info->events = r.events;
    info->packetHops = r.packetHops;
    info->deliveredPackets = r.deliveredPackets;
    info->rdma = r.rdma;
    info->tcp = r.tcp;
    info->paths = r.paths;
    info->switches = r.switches;
    info->ranks = spec.ranks;
    info->remotePacketHops = r.remotePacketHops;
    info->jobsJson = JobsJson(r);
    std::ostringstream json;
    const char* sep = "[";
    for (const SlowdownBucket& b : SlowdownBuckets(r.backgroundSlowdowns))
    {
        json << sep << "{\"max_bytes\": ";
        b.maxBytes == UINT64_MAX ? json << "null" : json << b.maxBytes;
        json << ", \"flows\": " << b.flows << ", \"avg\": " << b.avg << ", \"p50\": " << b.p50
             << ", \"p99\": " << b.p99 << "}";
        sep = ", ";
    }
    info->slowdownJson = r.backgroundSlowdowns.empty() ? "" : json.str() + "]";
}

std::vector<TalbScenarioReport::SlowdownBucket>
TalbScenarioReport::SlowdownBuckets(const std::vector<std::pair<uint64_t, double>>& slowdowns)
{
    const uint64_t bounds[] = {10000, 100000, 1000000, 10000000, UINT64_MAX};
    std::vector<SlowdownBucket> buckets;
    for (uint64_t bound : bounds)
    {
        std::vector<double> v;
        uint64_t low = buckets.empty() ? 0 : buckets.back().maxBytes;
        for (const auto& [bytes, slowdown] : slowdowns)
        {
            if (bytes <= bound && (buckets.empty() || bytes > low))
            {
                v.push_back(std::max(1.0, slowdown));
            }
        }
        SlowdownBucket b;
        b.maxBytes = bound;
        b.flows = v.size();
        b.avg = Mean(v);
        b.p50 = Percentile(v, 50);
        b.p99 = Percentile(v, 99);
        buckets.push_back(b);
    }
    return buckets;
}

namespace
{

/// Column widths of the comparison table, in the order printed.
enum Width
{
    SCHEME = 12,
    COUNT = 9,
    FCT = 12,
    ITERATION = 12,
    IDEAL = 10,
    X_IDEAL = 8,
    SPEEDUP = 10,
    WORKER_ITERATIONS = 14
};

/// \p value in \p width columns with \p precision decimals, or "-" when it is \p known not
void
Cell(std::ostream& os, int width, bool known, double value, int precision)
{
    if (known)
    {
        os << std::setprecision(precision) << std::setw(width) << value;
    }
    else
    {
        os << std::setw(width) << "-";
    }
}

/// \p text on lines of at most 100 columns, broken between words.
std::string
Wrap(const std::string& text)
{
    std::istringstream words(text);
    std::string word;
    std::string out;
    std::size_t column = 0;
    while (words >> word)
    {
        if (column > 0 && column + 1 + word.size() > 100)
        {
            out += "\n";
            column = 0;
        }
        out += (column > 0 ? " " : "") + word;
        column += (column > 0 ? 1 : 0) + word.size();
    }
    return out + "\n";
}

/// 100 (1 - \p mine / \p base) in %, or "-" when there is nothing to compare
void
Reduction(std::ostream& os, bool known, double mine, double base)
{
    if (known)
    {
        os << std::setprecision(1) << 100.0 * (1 - mine / base) << " %";
    }
    else
    {
        os << "-";
    }
}

/// The iteration columns of one job (or all jobs): measured, ideal, x ideal, speedup.
void
IterationCells(std::ostream& os, double measuredMs, double idealMs, double baseMeasuredMs)
{
    bool measured = measuredMs > 0;
    Cell(os, ITERATION, measured, measuredMs, 3);
    Cell(os, IDEAL, idealMs > 0, idealMs, 3);
    Cell(os, X_IDEAL, measured && idealMs > 0, measuredMs / idealMs, 2);
    Cell(os, SPEEDUP, measured && baseMeasuredMs > 0, baseMeasuredMs / measuredMs, 3);
}

/// The table's two header lines.
void
PrintHeader(std::ostream& os, const TalbScenarioResult& base)
{
    os << std::left << std::setw(SCHEME) << "scheme" << std::right << std::setw(COUNT) << "tensor"
       << std::setw(FCT) << "avg FCT" << std::setw(FCT) << "p99 FCT" << std::setw(FCT)
       << "hi-prio avg" << std::setw(COUNT) << "bg" << std::setw(FCT) << "bg avg" << std::setw(FCT)
       << "bg p99" << std::setw(ITERATION) << "iter time" << std::setw(IDEAL) << "ideal"
       << std::setw(X_IDEAL) << "x" << std::setw(SPEEDUP) << "speedup"
       << std::setw(WORKER_ITERATIONS) << "worker-iters"
       << "\n";
    os << std::left << std::setw(SCHEME) << "" << std::right << std::setw(COUNT) << "msgs"
       << std::setw(FCT) << "(us)" << std::setw(FCT) << "(us)" << std::setw(FCT) << "FCT (us)"
       << std::setw(COUNT) << "flows" << std::setw(FCT) << "FCT (us)" << std::setw(FCT)
       << "FCT (us)" << std::setw(ITERATION) << "(ms)" << std::setw(IDEAL) << "(ms)"
       << std::setw(X_IDEAL) << "ideal" << std::setw(SPEEDUP) << ("vs " + base.scheme)
       << std::setw(WORKER_ITERATIONS) << "done"
       << "\n";
}

/// One scheme's line, and with several jobs (\p perJob) a line per job under it.
void
PrintRow(std::ostream& os, const TalbScenarioResult& r, const TalbScenarioResult& base, bool perJob)
{
    bool tensors = r.tensorFlows > 0;
    bool bg = r.backgroundFlows > 0;
    os << std::left << std::setw(SCHEME) << r.scheme << std::right << std::setw(COUNT)
       << r.tensorFlows;
    Cell(os, FCT, tensors, r.tensorAvgFctUs, 1);
    Cell(os, FCT, tensors, r.tensorP99FctUs, 1);
    Cell(os, FCT, r.highPrioFlows > 0, r.highPrioAvgFctUs, 1);
    if (r.background)
    {
        os << std::setw(COUNT) << r.backgroundFlows;
    }
    else
    {
        os << std::setw(COUNT) << "-";
    }
    Cell(os, FCT, bg, r.backgroundAvgFctUs, 1);
    Cell(os, FCT, bg, r.backgroundP99FctUs, 1);
    IterationCells(os, r.meanIterationMs, perJob ? 0 : r.idealIterationMs, base.meanIterationMs);
    std::ostringstream iters;
    iters << r.iterationsDone << "/" << r.iterationsExpected;
    os << std::setw(WORKER_ITERATIONS) << iters.str() << "\n";
    for (std::size_t j = 0; perJob && j < r.ideals.size(); ++j)
    {
        const TalbScenarioResult::JobIdeal& mine = r.ideals[j];
        os << std::left << std::setw(SCHEME) << ("  job " + std::to_string(j)) << std::right
           << std::setw(2 * COUNT + 5 * FCT) << "";
        IterationCells(os,
                       mine.measuredMs,
                       mine.known ? mine.iterationMs : 0,
                       j < base.ideals.size() ? base.ideals[j].measuredMs : 0);
        os << "\n";
    }
}

/// The lines under the table that compare the schemes: FCT reductions, go-back-N counters.
void
PrintComparisons(std::ostream& os, const std::vector<TalbScenarioResult>& results)
{
    const TalbScenarioResult& base = results.front();
    // Two figures, each named for what it counts: talb-report.py's headline is the second.
    os << "avg FCT reduction vs " << base.scheme << ", tensor messages:";
    for (const auto& r : results)
    {
        os << "  " << r.scheme << " ";
        Reduction(os,
                  base.tensorFlows > 0 && r.tensorFlows > 0,
                  r.tensorAvgFctUs,
                  base.tensorAvgFctUs);
    }
    os << "\n";
    os << "avg FCT reduction vs " << base.scheme << ", all flows (tensor and background):";
    for (const auto& r : results)
    {
        os << "  " << r.scheme << " ";
        Reduction(os, base.allAvgFctUs > 0 && r.allAvgFctUs > 0, r.allAvgFctUs, base.allAvgFctUs);
    }
    os << "\n";
    bool goBack = false;
    for (const auto& r : results)
    {
        goBack = goBack || r.rdma.retransmittedPackets + r.rdma.outOfOrder > 0;
    }
    if (goBack)
    {
        os << "go-back-N (retransmitted bytes / NAKs / timeouts / out-of-order drops):";
        for (const auto& r : results)
        {
            os << "  " << r.scheme << " " << r.rdma.retransmittedBytes << "/" << r.rdma.naks << "/"
               << r.rdma.timeouts << "/" << r.rdma.outOfOrder;
        }
        os << "\n";
    }
    bool placed = false;
    for (const auto& r : results)
    {
        placed = placed || r.rdma.placed > 0;
    }
    if (placed)
    {
        os << "selective repeat (out-of-order packets placed):";
        for (const auto& r : results)
        {
            os << "  " << r.scheme << " " << r.rdma.placed;
        }
        os << "\n";
    }
}

/// One line per job: its analytic ideal and each scheme's multiple of it.
void
PrintIdeals(std::ostream& os, const std::vector<TalbScenarioResult>& results)
{
    const TalbScenarioResult& base = results.front();
    // The ideal depends on the jobs and host rate only: the same for every scheme.
    for (std::size_t j = 0; j < base.ideals.size(); ++j)
    {
        const TalbScenarioResult::JobIdeal& i = base.ideals[j];
        os << "ideal iteration of job " << j << " (idle non-blocking fabric, analytic): ";
        if (i.known)
        {
            os << std::setprecision(3) << i.iterationMs << " ms";
        }
        else
        {
            os << "unknown (its collective gives no analytic bound)";
        }
        os << std::setprecision(3) << "; compute " << i.computeMs << " ms, communication "
           << i.communicationMs << " ms per iteration";
        for (const auto& r : results)
        {
            if (j < r.ideals.size() && i.known && i.iterationMs > 0 && r.ideals[j].measuredMs > 0)
            {
                os << std::setprecision(2) << "; " << r.scheme << " "
                   << r.ideals[j].measuredMs / i.iterationMs << "x";
            }
        }
        os << "\n";
    }
}

/// A background-only run: the slowdown table by flow size that HPCC's and ConWeave's papers
/// report, per scheme.
void
PrintSlowdowns(std::ostream& os, const std::vector<TalbScenarioResult>& results)
{
    if (results.front().iterationsExpected > 0 || results.front().backgroundSlowdowns.empty())
    {
        return;
    }
    os << "\nbackground slowdown (FCT / ideal FCT, at least 1) by flow size:\n"
       << std::left << std::setw(14) << "flow size" << std::setw(SCHEME) << "scheme" << std::right
       << std::setw(COUNT) << "flows" << std::setw(COUNT) << "avg" << std::setw(COUNT) << "p50"
       << std::setw(COUNT) << "p99"
       << "\n";
    const char* names[] = {"<= 10KB", "10KB-100KB", "100KB-1MB", "1MB-10MB", "> 10MB"};
    std::vector<std::vector<TalbScenarioReport::SlowdownBucket>> buckets;
    for (const auto& r : results)
    {
        buckets.push_back(TalbScenarioReport::SlowdownBuckets(r.backgroundSlowdowns));
    }
    for (std::size_t k = 0; k < std::size(names); ++k)
    {
        for (std::size_t i = 0; i < results.size(); ++i)
        {
            const TalbScenarioReport::SlowdownBucket& b = buckets[i][k];
            os << std::left << std::setw(14) << names[k] << std::setw(SCHEME) << results[i].scheme
               << std::right << std::setw(COUNT) << b.flows;
            Cell(os, COUNT, b.flows > 0, b.avg, 2);
            Cell(os, COUNT, b.flows > 0, b.p50, 2);
            Cell(os, COUNT, b.flows > 0, b.p99, 2);
            os << "\n";
        }
    }
}

} // namespace

void
TalbScenarioReport::PrintTable(const std::vector<TalbScenarioResult>& results, std::ostream& os)
{
    if (results.empty())
    {
        return;
    }
    const TalbScenarioResult& base = results.front();
    // Several jobs: one ideal averaged over jobs would mislead, so each job gets its own line.
    const bool perJob = base.ideals.size() > 1;
    os << std::fixed;
    PrintHeader(os, base);
    for (const auto& r : results)
    {
        PrintRow(os, r, base, perJob);
    }
    PrintComparisons(os, results);
    PrintIdeals(os, results);
    std::vector<std::string> schemes;
    std::vector<const TalbCollectiveSummary*> summaries;
    for (const auto& r : results)
    {
        schemes.push_back(r.scheme);
        summaries.push_back(&r.collectives);
    }
    TalbCollectiveSummary::Print(os, schemes, summaries);
    PrintSlowdowns(os, results);
    os << Wrap(Legend());
}

std::vector<std::string>
TalbScenarioReport::Warnings(const TalbScenarioSpec& spec)
{
    std::vector<std::string> warnings;
    for (std::size_t j = 0; j < spec.jobs.size(); ++j)
    {
        uint32_t n = spec.jobs[j].iterations;
        if (n <= spec.warmup)
        {
            warnings.push_back(
                "job " + std::to_string(j) + " runs " + std::to_string(n) + " iteration" +
                (n == 1 ? "" : "s") + ", all within warmup=" + std::to_string(spec.warmup) +
                ": the table gives it no iteration time, ideal, x ideal or "
                "speedup ('-'); set warmup=0 or iterations > " +
                std::to_string(spec.warmup) + " (iterations.csv holds every iteration either way)");
        }
    }
    return warnings;
}

std::vector<std::string>
TalbScenarioReport::RunWarnings(const TalbScenarioResult& r)
{
    std::vector<std::string> warnings;
    for (const auto& [name, value] : r.paths.policy)
    {
        if (name == "slot_overflows" && value > 0)
        {
            warnings.push_back(
                r.scheme + ": " + std::to_string(value) +
                " times a flow found every flow slot of its port held by other live flows "
                "(run.json's slot_overflows): the ports' flow counts saturated at FlowSlots, "
                "so more slots can change this run's decisions: try "
                "--lbAttributes=FlowSlots=32 (at most 64), which sped up all-to-all jobs and "
                "slowed heavy untagged background (doc/talb-switch.rst)");
        }
    }
    return warnings;
}

bool
TalbScenarioReport::CutByStopTime(const TalbScenarioSpec& spec, const TalbScenarioResult& r)
{
    bool durationFirst = !spec.duration.IsZero() && spec.duration < spec.stopTime;
    return !r.Finished() && !durationFirst && !r.interrupted;
}

std::string
TalbScenarioReport::Legend()
{
    return "columns: tensor msgs = the jobs' messages (one per collective step and peer); FCT = "
           "flow completion time, from the first byte handed to the sender's transport to the "
           "last byte acknowledged at the sender; hi-prio = tensor messages of priority 0-1 (0 = "
           "most urgent: the "
           "layers the next forward pass needs first); bg = background flows ('-' with "
           "bgLoad=0); iter time = mean over iterations past the warm-up of the slowest "
           "worker's iteration; ideal = the same iteration alone on an idle non-blocking fabric "
           "(analytic); x ideal = iter time / ideal; speedup = the first scheme's iter time / "
           "this one's; worker-iters done = (job, worker, iteration) finished / asked for; "
           "'-' = nothing to measure. Several jobs: a line per job.\n";
}

} // namespace ns3
