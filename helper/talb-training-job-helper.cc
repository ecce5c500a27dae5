#include "talb-training-job-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/talb-collective.h"
#include "ns3/talb-comm-scheduler.h"
#include "ns3/talb-dnn-worker.h"
#include "ns3/talb-ideal-iteration.h"
#include "ns3/talb-model-zoo.h"
#include "ns3/talb-nvlink-transport.h"
#include "ns3/talb-parameter-server.h"
#include "ns3/talb-transport.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTrainingJobHelper");

TalbTrainingJobHelper::TalbTrainingJobHelper()
{
    m_job.SetTypeId(TalbTrainingJob::GetTypeId());
    SetScheduler("wfbp");
    SetCollective("ring");
    SetTransport("tcp");
}

void
TalbTrainingJobHelper::SetModel(const std::string& spec)
{
    m_model = TalbModelZoo::Resolve(spec);
}

void
TalbTrainingJobHelper::SetModel(const TalbDnnModel& model)
{
    m_model = model;
}

void
TalbTrainingJobHelper::SetJobAttribute(const std::string& name, const AttributeValue& value)
{
    m_job.Set(name, value);
}

void
TalbTrainingJobHelper::SetScheduler(const std::string& name)
{
    m_scheduler = ObjectFactory();
    m_scheduler.SetTypeId(TalbCommScheduler::GetRegistry().Get(name));
}

void
TalbTrainingJobHelper::SetSchedulerAttribute(const std::string& name, const AttributeValue& value)
{
    m_scheduler.Set(name, value);
}

void
TalbTrainingJobHelper::SetCollective(const std::string& name)
{
    m_collective = ObjectFactory();
    m_collective.SetTypeId(TalbCollective::GetRegistry().Get(name));
}

void
TalbTrainingJobHelper::SetCollectiveAttribute(const std::string& name, const AttributeValue& value)
{
    m_collective.Set(name, value);
}

void
TalbTrainingJobHelper::SetTransport(const std::string& name)
{
    m_transport = ObjectFactory();
    m_transport.SetTypeId(TalbTransport::GetRegistry().Get(name));
}

void
TalbTrainingJobHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transport.Set(name, value);
}

void
TalbTrainingJobHelper::SetParameterServers(const NodeContainer& servers)
{
    m_servers = servers;
}

void
TalbTrainingJobHelper::SetStartTime(Time start)
{
    m_start = start;
}

ApplicationContainer
TalbTrainingJobHelper::Install(const NodeContainer& hosts) const
{
    NS_ABORT_MSG_IF(hosts.GetN() == 0, "TalbTrainingJobHelper::Install: no hosts");
    NS_ABORT_MSG_IF(m_model.GetNTensors() == 0, "TalbTrainingJobHelper::Install: no model set");
    Ptr<TalbTrainingJob> job = m_job.Create<TalbTrainingJob>();
    job->SetModel(m_model);
    job->SetScheduler(m_scheduler.Create<TalbCommScheduler>());
    job->SetCollective(MakeCollective());
    // GPUs of one server talk over their NVLink (hosts of a fabric with GpusPerServer > 1).
    job->SetTransport(TalbNvlinkTransport::Wrap(m_transport.Create<TalbTransport>(), hosts));
    ApplicationContainer apps;
    std::vector<Ptr<TalbDnnWorker>> workers;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        Ptr<TalbDnnWorker> w = CreateObject<TalbDnnWorker>();
        w->SetJob(job, i);
        w->SetStartTime(m_start);
        hosts.Get(i)->AddApplication(w);
        workers.push_back(w);
        apps.Add(w);
    }
    job->SetWorkers(hosts, workers);
    return apps;
}

Ptr<TalbCollective>
TalbTrainingJobHelper::MakeCollective() const
{
    Ptr<TalbCollective> collective = m_collective.Create<TalbCollective>();
    if (m_servers.GetN() > 0)
    {
        Ptr<TalbParameterServer> ps = DynamicCast<TalbParameterServer>(collective);
        NS_ABORT_MSG_IF(!ps,
                        "TalbTrainingJobHelper: parameter servers given for a collective "
                        "that is not ps");
        ps->SetServers(m_servers);
    }
    return collective;
}

TalbIdealIteration::Result
TalbTrainingJobHelper::ComputeIdealIteration(uint32_t nWorkers, DataRate hostRate) const
{
    NS_ABORT_MSG_IF(m_model.GetNTensors() == 0,
                    "TalbTrainingJobHelper::ComputeIdealIteration: no model set");
    Ptr<TalbTrainingJob> job = m_job.Create<TalbTrainingJob>();
    TalbComputeModel compute = job->GetComputeModel();
    std::vector<Time> forward(m_model.GetNTensors());
    std::vector<Time> backward(m_model.GetNTensors());
    for (uint32_t t = 0; t < m_model.GetNTensors(); ++t)
    {
        forward[t] = m_model.GetForwardTime(t, compute);
        backward[t] = m_model.GetBackwardTime(t, compute);
    }
    TalbIdealIteration::Result r =
        TalbIdealIteration::Compute(m_model,
                                    job->GetBytesPerElement(),
                                    forward,
                                    backward,
                                    nWorkers,
                                    job->GetIterations(),
                                    m_scheduler.Create<TalbCommScheduler>(),
                                    MakeCollective(),
                                    hostRate);
    job->Dispose();
    return r;
}

Ptr<TalbTrainingJob>
TalbTrainingJobHelper::GetJob(const ApplicationContainer& apps)
{
    NS_ABORT_MSG_IF(apps.GetN() == 0, "TalbTrainingJobHelper::GetJob: no applications");
    Ptr<TalbDnnWorker> w = DynamicCast<TalbDnnWorker>(apps.Get(0));
    NS_ABORT_MSG_IF(!w, "TalbTrainingJobHelper::GetJob: not a TalbDnnWorker");
    return w->GetJob();
}

std::vector<NodeContainer>
TalbTrainingJobHelper::Place(const NodeContainer& hosts,
                             uint32_t hostsPerRack,
                             const std::vector<uint32_t>& jobSizes,
                             const std::string& placement)
{
    std::vector<NodeContainer> jobs;
    for (const auto& indices : PlaceIndices(hosts.GetN(), hostsPerRack, jobSizes, placement))
    {
        jobs.emplace_back();
        for (uint32_t i : indices)
        {
            jobs.back().Add(hosts.Get(i));
        }
    }
    return jobs;
}

std::vector<std::vector<uint32_t>>
TalbTrainingJobHelper::PlaceIndices(uint32_t nHosts,
                                    uint32_t hostsPerRack,
                                    const std::vector<uint32_t>& jobSizes,
                                    const std::string& placement)
{
    NS_ABORT_MSG_IF(hostsPerRack == 0 || nHosts % hostsPerRack != 0,
                    "TalbTrainingJobHelper::Place: " << nHosts << " hosts are not whole racks of "
                                                     << hostsPerRack);
    uint32_t needed = 0;
    for (uint32_t s : jobSizes)
    {
        NS_ABORT_MSG_IF(s == 0, "TalbTrainingJobHelper::Place: a job of zero workers");
        needed += s;
    }
    NS_ABORT_MSG_IF(needed > nHosts,
                    "TalbTrainingJobHelper::Place: jobs need " << needed << " hosts, there are "
                                                               << nHosts);
    uint32_t racks = nHosts / hostsPerRack;
    std::vector<std::vector<uint32_t>> jobs(jobSizes.size());
    if (placement == "packed")
    {
        uint32_t next = 0;
        for (std::size_t j = 0; j < jobSizes.size(); ++j)
        {
            for (uint32_t k = 0; k < jobSizes[j]; ++k)
            {
                jobs[j].push_back(next++);
            }
        }
    }
    else if (placement == "spread")
    {
        std::vector<uint32_t> used(racks, 0); // hosts taken per rack
        uint32_t rack = 0;
        for (std::size_t j = 0; j < jobSizes.size(); ++j)
        {
            for (uint32_t k = 0; k < jobSizes[j]; ++k)
            {
                while (used[rack] == hostsPerRack)
                {
                    rack = (rack + 1) % racks;
                }
                jobs[j].push_back(rack * hostsPerRack + used[rack]++);
                rack = (rack + 1) % racks;
            }
        }
    }
    else
    {
        NS_FATAL_ERROR("unknown placement '" << placement << "'; valid: packed, spread");
    }
    return jobs;
}

} // namespace ns3
