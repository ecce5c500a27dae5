#include "talb-scenario-build.h"

#include "talb-background-traffic-helper.h"
#include "talb-graph-job-helper.h"
#include "talb-training-job-helper.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/talb-background-traffic.h"
#include "ns3/talb-rdma-rate-control.h"

#include <cctype>
#include <set>

namespace ns3
{

TalbScenarioBuild::TalbScenarioBuild(const TalbScenarioSpec& spec)
    : m_spec(spec)
{
    m_collector.stopWhenDone = !spec.distributed;
    // Twice: a report applied controlDelay after the last iteration is applied before the stop.
    m_collector.settle = 2 * spec.controlDelay;
    m_collector.collectives.SetWarmup(spec.warmup);
}

void
TalbScenarioBuild::ConfigureDefaults() const
{
    RngSeedManager::SetRun(m_spec.seed);
    m_spec.fabric.ConfigureDefaults();
    // Every RDMA job's (a job's trans.<Attribute> still overrides them).
    std::string queuePairs = m_spec.rdmaQueuePairs;
    queuePairs[0] = static_cast<char>(std::toupper(queuePairs[0]));
    Config::SetDefault("ns3::TalbRdmaTransport::QueuePairs", StringValue(queuePairs));
    bool fixed = m_spec.rdmaTrafficClass != "tensor";
    Config::SetDefault("ns3::TalbRdmaTransport::TrafficClass",
                       StringValue(fixed ? "Fixed" : "Tensor"));
    if (fixed)
    {
        Config::SetDefault("ns3::TalbRdmaTransport::FixedClass",
                           StringValue(m_spec.rdmaTrafficClass));
    }
    Config::SetDefault(
        "ns3::TalbRdmaNic::Recovery",
        StringValue(m_spec.fabric.rdmaSelectiveRepeat ? "SelectiveRepeat" : "GoBackN"));
    Config::SetDefault("ns3::TalbRdmaNic::EntropyPolicy", StringValue(m_spec.entropyPolicy));
    Config::SetDefault("ns3::TalbRdmaNic::RateControl",
                       TypeIdValue(TalbRdmaRateControl::GetRegistry().Get(m_spec.rdmaRateControl)));
    Config::SetDefault("ns3::TalbRdmaHelper::Pfc", BooleanValue(m_spec.rdmaPfc));
    for (const auto& [name, value] : m_spec.rdmaPathAttributes)
    {
        Config::SetDefault("ns3::TalbRdmaTransport::" + name, StringValue(value));
    }
    for (const auto& [name, value] : m_spec.tcpPathAttributes)
    {
        Config::SetDefault("ns3::TalbTcpTransport::" + name, StringValue(value));
    }
}

void
TalbScenarioBuild::BuildFabric(const TalbBalancerSpec& lb)
{
    m_fabric = m_spec.fabric.Build(lb.factory, m_spec.ranks);
    m_fabric->AssignStreams(1000);
    // The background's streams are the same whatever the balancer, so that one seed gives every
    // scheme the same flows (until 2026-11-29 they started at the count of streams the balancers
    // had used, and schemes that draw more, such as TaLB, CONGA or DRILL, met other flows than
    // ECMP). Far above what any balancer takes from 1000 on.
    m_stream = kBackgroundStreams;
}

void
TalbScenarioBuild::OpenOutputs(const std::string& folder, const std::string& scheme)
{
    m_ideal = std::make_unique<TalbIdealFct>(m_fabric, m_spec.fabric.mtu);
    m_writer = CreateObject<TalbOutputWriter>();
    m_writer->Open(folder);
    m_writer->SetScheme(scheme);
    m_writer->SetSeed(m_spec.seed);
    m_writer->SetIdealFctCallback(MakeCallback(&TalbIdealFct::Ideal, m_ideal.get()));
    m_fabric->TraceConnectWithoutContext("LinkDrop",
                                         MakeCallback(&TalbOutputWriter::WriteLinkDrop, m_writer));
    if (m_writer->WritesPaths())
    {
        Ptr<TalbPathRecorder> recorder = CreateObject<TalbPathRecorder>();
        for (const auto& sw : m_fabric->GetSwitches())
        {
            recorder->Connect(sw);
        }
        m_writer->ConnectPaths(recorder);
    }
}

void
TalbScenarioBuild::InstallJobs()
{
    const TalbScenarioSpec& s = m_spec;
    std::vector<NodeContainer> placed;
    for (const auto& indices : PlaceJobs(s))
    {
        placed.emplace_back();
        for (uint32_t h : indices)
        {
            placed.back().Add(m_fabric->GetHosts().Get(h));
        }
    }
    for (size_t j = 0; j < s.jobs.size(); ++j)
    {
        const TalbJobSpec& spec = s.jobs[j];
        if (spec.IsGraphJob())
        {
            InstallGraphJob(j, placed[j]);
            continue;
        }
        TalbTrainingJobHelper helper = spec.MakeHelper(j);
        helper.SetJobAttribute("ControlDelay", TimeValue(s.controlDelay));
        m_collector.expected += uint64_t(spec.iterations) * spec.workers;
        // Every rank with workers of the job holds a copy of it; each runs its own workers.
        std::set<uint32_t> ranks;
        uint32_t here = 0;
        for (uint32_t w = 0; w < placed[j].GetN(); ++w)
        {
            uint32_t rank = placed[j].Get(w)->GetSystemId();
            ranks.insert(rank);
            here += rank == s.rank ? 1 : 0;
        }
        if (here == 0)
        {
            continue;
        }
        m_collector.expectedHere += uint64_t(spec.iterations) * here;
        ApplicationContainer apps = helper.Install(placed[j]);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        m_jobs.push_back(job);
        if (ranks.size() > 1)
        {
            if (!m_rankLink)
            {
                m_rankLink =
                    std::make_unique<TalbJobRankLink>(m_fabric, s.rank, s.ranks, s.controlDelay);
            }
            m_rankLink->Add(j, job, ranks);
        }
        m_writer->ConnectJob(job);
        job->TraceConnectWithoutContext("FlowDone",
                                        MakeCallback(&TalbScenarioCollector::Flow, &m_collector));
        job->TraceConnectWithoutContext(
            "IterationDone",
            MakeCallback(&TalbScenarioCollector::Iteration, &m_collector));
    }
}

void
TalbScenarioBuild::InstallGraphJob(uint32_t j, const NodeContainer& hosts)
{
    const TalbJobSpec& spec = m_spec.jobs[j];
    m_collector.expected += uint64_t(spec.iterations) * spec.workers;
    // One rank's job (CheckPartition() refuses graph jobs across ranks).
    if (hosts.Get(0)->GetSystemId() != m_spec.rank)
    {
        return;
    }
    m_collector.expectedHere += uint64_t(spec.iterations) * spec.workers;
    Ptr<TalbGraphJob> job = MakeGraphHelper(m_spec, j).Install(hosts);
    m_graphJobs.push_back(job);
    m_writer->ConnectGraphJob(job);
    job->TraceConnectWithoutContext(
        "CollectiveDone",
        MakeCallback(&TalbCollectiveSummary::Add, &m_collector.collectives));
    job->TraceConnectWithoutContext("FlowDone",
                                    MakeCallback(&TalbScenarioCollector::Flow, &m_collector));
    job->TraceConnectWithoutContext("IterationDone",
                                    MakeCallback(&TalbScenarioCollector::Iteration, &m_collector));
}

void
TalbScenarioBuild::InstallBackground()
{
    if (m_spec.bgLoad > 0 || !m_spec.flows.empty())
    {
        TalbBackgroundTrafficHelper bg(m_spec.bgCdf, m_spec.bgLoad, m_spec.fabric.hostRate);
        bool drain = m_spec.bgArrivals.IsStrictlyPositive();
        bg.SetStartStop(Seconds(0), drain ? m_spec.bgArrivals : m_spec.stopTime);
        m_collector.bgArrivalsEnd = m_spec.bgArrivals;
        m_collector.bgWarmup = m_spec.bgWarmup;
        m_collector.idealFct = [ideal = m_ideal.get()](const TalbFlowRecord& r) {
            return ideal->Ideal(r);
        };
        if (drain)
        {
            // The arrivals may end after the last flow did: look again then.
            Simulator::Schedule(m_spec.bgArrivals,
                                &TalbScenarioCollector::StopWhenDone,
                                &m_collector);
        }
        ApplicationContainer apps = bg.Install(m_fabric->GetHosts());
        m_stream += TalbBackgroundTrafficHelper::AssignStreams(apps, m_stream);
        for (const TalbHpccFlow& f : m_spec.flows)
        {
            DynamicCast<TalbBackgroundTraffic>(apps.Get(f.src))
                ->AddFlow(f.start,
                          DynamicCast<TalbBackgroundTraffic>(apps.Get(f.dst)),
                          f.sizeBytes);
        }
        // A flow file's flows are counted: the run ends once they are done.
        m_collector.backgroundExpected = m_spec.flows.size();
        m_writer->ConnectBackground(apps);
        for (auto it = apps.Begin(); it != apps.End(); ++it)
        {
            (*it)->TraceConnectWithoutContext(
                "FlowDone",
                MakeCallback(&TalbScenarioCollector::Flow, &m_collector));
            (*it)->TraceConnectWithoutContext(
                "FlowStarted",
                MakeCallback(&TalbScenarioCollector::BackgroundStarted, &m_collector));
        }
    }
    for (uint32_t i = 0; i < m_fabric->GetNHosts(); ++i)
    {
        m_fabric->GetHostDevice(i)->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&TalbScenarioCollector::Rx, &m_collector));
    }
}

std::vector<std::vector<uint32_t>>
TalbScenarioBuild::PlaceJobs(const TalbScenarioSpec& spec)
{
    std::vector<uint32_t> sizes;
    for (const auto& j : spec.jobs)
    {
        sizes.push_back(j.workers);
    }
    return TalbTrainingJobHelper::PlaceIndices(spec.fabric.GetNHosts(),
                                               spec.fabric.hostsPerLeaf,
                                               sizes,
                                               spec.placement);
}

TalbGraphJobHelper
TalbScenarioBuild::MakeGraphHelper(const TalbScenarioSpec& spec, uint32_t j)
{
    const TalbFabricSpec& f = spec.fabric;
    TalbGraphJobHelper helper = spec.jobs[j].MakeGraphHelper(j);
    helper.SetPlacement(
        TalbServerLayout(f.leaves, f.hostsPerLeaf, f.gpusPerServer, f.railOptimized),
        PlaceJobs(spec)[j]);
    helper.SetJobAttribute("NicRate", DataRateValue(f.hostRate));
    helper.SetJobAttribute("IntraRate",
                           DataRateValue(f.gpusPerServer > 1 ? f.nvlinkRate : f.hostRate));
    helper.SetJobAttribute("IntraLatency",
                           TimeValue(f.gpusPerServer > 1 ? f.nvlinkLatency : Seconds(0)));
    return helper;
}

Ptr<TalbLeafSpineHelper>
TalbScenarioBuild::GetFabric() const
{
    return m_fabric;
}

Ptr<TalbOutputWriter>
TalbScenarioBuild::GetWriter() const
{
    return m_writer;
}

const TalbScenarioCollector&
TalbScenarioBuild::GetCollector() const
{
    return m_collector;
}

const std::vector<Ptr<TalbTrainingJob>>&
TalbScenarioBuild::GetJobs() const
{
    return m_jobs;
}

const std::vector<Ptr<TalbGraphJob>>&
TalbScenarioBuild::GetGraphJobs() const
{
    return m_graphJobs;
}

} // namespace ns3
