#include "talb-scenario-report.h"

#include "talb-scenario-counters.h"

#include "ns3/simulator.h"
#include "ns3/talb-llm-analytic.h"

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
    return iterationsHere == expectedHere && Simulator::Now() >= lastEnd + settle;
}

void
TalbScenarioCollector::Flow(const TalbFlowRecord& r)
{
    double us = (r.end - r.start).GetMicroSeconds();
    if (r.background)
    {
        backgroundFct.push_back(us);
    }
    else
    {
        tensorFct.push_back(us);
        if (r.priority >= 0 && r.priority <= 1)
        {
            highPrioFct.push_back(us);
        }
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
    if (stopWhenDone && iterations == expected)
    {
        // Every worker of every job is done: background traffic alone is not the question.
        if (settle.IsZero())
        {
            Simulator::Stop();
        }
        else
        {
            // The tensor records of the last operations follow their agreement's delay.
            Simulator::Stop(settle);
        }
    }
}

void
TalbScenarioCollector::Rx(Ptr<const Packet>)
{
    ++delivered;
}

TalbScenarioResult::JobIdeal
TalbScenarioReport::GraphJobIdeal(const TalbScenarioSpec& s, uint32_t j)
{
    const TalbJobSpec& spec = s.jobs[j];
    talb::graph::IdealReplay::Result ideal =
        spec.MakeGraphHelper(j).ComputeIdeal(spec.workers, s.fabric.hostRate);
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
    r->tensorAvgFctUs = Mean(tensorFct);
    r->tensorP99FctUs = Percentile(tensorFct, 99);
    r->highPrioAvgFctUs = Mean(highPrioFct);
    r->backgroundAvgFctUs = Mean(backgroundFct);
    r->backgroundP99FctUs = Percentile(backgroundFct, 99);
    r->iterationsDone = counts[0];
    r->iterationsExpected = c.expected;
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
    info->complete = r.iterationsDone == r.iterationsExpected;
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
}

void
TalbScenarioReport::PrintTable(const std::vector<TalbScenarioResult>& results, std::ostream& os)
{
    if (results.empty())
    {
        return;
    }
    const TalbScenarioResult& base = results.front();
    os << std::fixed;
    os << std::left << std::setw(12) << "scheme" << std::right << std::setw(9) << "tensor"
       << std::setw(12) << "avg FCT" << std::setw(12) << "p99 FCT" << std::setw(12) << "hi-prio avg"
       << std::setw(9) << "bg" << std::setw(12) << "bg avg" << std::setw(12) << "bg p99"
       << std::setw(12) << "iter time" << std::setw(10) << "ideal" << std::setw(8) << "x"
       << std::setw(10) << "speedup" << std::setw(10) << "iters"
       << "\n";
    os << std::left << std::setw(12) << "" << std::right << std::setw(9) << "msgs" << std::setw(12)
       << "(us)" << std::setw(12) << "(us)" << std::setw(12) << "FCT (us)" << std::setw(9)
       << "flows" << std::setw(12) << "FCT (us)" << std::setw(12) << "FCT (us)" << std::setw(12)
       << "(ms)" << std::setw(10) << "(ms)" << std::setw(8) << "ideal" << std::setw(10)
       << ("vs " + base.scheme) << std::setw(10) << "done"
       << "\n";
    for (const auto& r : results)
    {
        std::ostringstream iters;
        iters << r.iterationsDone << "/" << r.iterationsExpected;
        os << std::left << std::setw(12) << r.scheme << std::right << std::setprecision(1)
           << std::setw(9) << r.tensorFlows << std::setw(12) << r.tensorAvgFctUs << std::setw(12)
           << r.tensorP99FctUs << std::setw(12) << r.highPrioAvgFctUs << std::setw(9)
           << r.backgroundFlows << std::setw(12) << r.backgroundAvgFctUs << std::setw(12)
           << r.backgroundP99FctUs << std::setprecision(3) << std::setw(12) << r.meanIterationMs;
        if (r.idealIterationMs > 0)
        {
            os << std::setw(10) << r.idealIterationMs << std::setprecision(2) << std::setw(8)
               << r.meanIterationMs / r.idealIterationMs << std::setprecision(3);
        }
        else
        {
            os << std::setw(10) << "-" << std::setw(8) << "-";
        }
        os << std::setw(10)
           << (r.meanIterationMs > 0 ? base.meanIterationMs / r.meanIterationMs : 0.0)
           << std::setw(10) << iters.str() << "\n";
    }
    os << "avg FCT reduction vs " << base.scheme << ":";
    for (const auto& r : results)
    {
        double red =
            base.tensorAvgFctUs > 0 ? 100.0 * (1 - r.tensorAvgFctUs / base.tensorAvgFctUs) : 0.0;
        os << "  " << r.scheme << " " << std::setprecision(1) << red << " %";
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

} // namespace ns3
