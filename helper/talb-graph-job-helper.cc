#include "talb-graph-job-helper.h"

#include "ns3/abort.h"
#include "ns3/simulator.h"
#include "ns3/talb-transport.h"

namespace ns3
{

TalbGraphJobHelper::TalbGraphJobHelper()
{
    m_job.SetTypeId(TalbGraphJob::GetTypeId());
    SetTransport("tcp");
}

void
TalbGraphJobHelper::SetGraph(std::shared_ptr<const talb::graph::Graph> graph)
{
    m_graph = std::move(graph);
}

void
TalbGraphJobHelper::SetJobAttribute(const std::string& name, const AttributeValue& value)
{
    m_job.Set(name, value);
}

void
TalbGraphJobHelper::SetTransport(const std::string& name)
{
    m_transport = ObjectFactory();
    m_transport.SetTypeId(TalbTransport::GetRegistry().Get(name));
}

void
TalbGraphJobHelper::SetTransportAttribute(const std::string& name, const AttributeValue& value)
{
    m_transport.Set(name, value);
}

void
TalbGraphJobHelper::SetStartTime(Time start)
{
    m_start = start;
}

std::vector<uint32_t>
TalbGraphJobHelper::PlaceRanks(uint32_t nRanks, uint32_t nHosts)
{
    NS_ABORT_MSG_IF(nHosts < nRanks,
                    "TalbGraphJobHelper: " << nRanks << " ranks on " << nHosts
                                           << " hosts (one rank per host)");
    std::vector<uint32_t> hostOf(nRanks);
    for (uint32_t r = 0; r < nRanks; ++r)
    {
        hostOf[r] = r;
    }
    return hostOf;
}

Ptr<TalbGraphJob>
TalbGraphJobHelper::Install(const NodeContainer& hosts) const
{
    NS_ABORT_MSG_IF(!m_graph, "TalbGraphJobHelper: no graph");
    std::vector<uint32_t> hostOf = PlaceRanks(m_graph->nRanks, hosts.GetN());
    std::vector<Ptr<Node>> rankHosts;
    for (uint32_t h : hostOf)
    {
        rankHosts.push_back(hosts.Get(h));
    }
    Ptr<TalbGraphJob> job = m_job.Create<TalbGraphJob>();
    job->SetGraph(m_graph);
    job->SetHosts(rankHosts, hostOf);
    job->SetTransport(m_transport.Create<TalbTransport>());
    Simulator::Schedule(m_start, &TalbGraphJob::Start, job);
    return job;
}

talb::graph::IdealReplay::Result
TalbGraphJobHelper::ComputeIdeal(uint32_t nHosts, DataRate rate) const
{
    NS_ABORT_MSG_IF(!m_graph, "TalbGraphJobHelper: no graph");
    talb::graph::IdealReplay::Fabric fabric;
    fabric.serverOf = PlaceRanks(m_graph->nRanks, nHosts);
    fabric.rates.nicBps = static_cast<double>(rate.GetBitRate());
    fabric.rates.intraBps = fabric.rates.nicBps;
    return talb::graph::IdealReplay::Run(*m_graph, fabric);
}

} // namespace ns3
