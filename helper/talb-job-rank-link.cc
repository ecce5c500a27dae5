#include "talb-job-rank-link.h"

#include "ns3/abort.h"
#include "ns3/buffer.h"
#include "ns3/fatal-error.h"
#include "ns3/packet.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

namespace ns3
{

TalbJobRankLink::TalbJobRankLink(Ptr<TalbLeafSpineHelper> fabric,
                                 uint32_t rank,
                                 uint32_t ranks,
                                 Time delay)
    : m_address(ranks, {0, 0}),
      m_rank(rank),
      m_delay(delay)
{
    std::vector<bool> found(ranks, false);
    for (uint32_t h = 0; h < fabric->GetNHosts(); ++h)
    {
        Ptr<NetDevice> dev = fabric->GetHostDevice(h);
        uint32_t r = dev->GetNode()->GetSystemId();
        if (found[r])
        {
            continue;
        }
        found[r] = true;
        m_address[r] = {dev->GetNode()->GetId(), dev->GetIfIndex()};
#ifdef NS3_MPI
        if (r == rank)
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&TalbJobRankLink::Receive, this));
            dev->AggregateObject(receiver);
        }
#endif
    }
}

void
TalbJobRankLink::Add(uint32_t jobId, Ptr<TalbTrainingJob> job, const std::set<uint32_t>& ranks)
{
#ifdef NS3_MPI
    m_jobs[jobId] = job;
    for (uint32_t r : ranks)
    {
        if (r != m_rank)
        {
            m_peers[jobId].push_back(r);
        }
    }
    job->SetReportCallback(MakeCallback(&TalbJobRankLink::Send, this).Bind(jobId));
#else
    (void)job;
    (void)ranks;
    NS_FATAL_ERROR("talb-scenario: job " << jobId << " spans ranks in a build without MPI");
#endif
}

void
TalbJobRankLink::Send(uint32_t jobId, const TalbTrainingJob::Report& r)
{
#ifdef NS3_MPI
    uint8_t buf[REPORT_BYTES];
    Buffer b;
    b.AddAtStart(REPORT_BYTES);
    Buffer::Iterator it = b.Begin();
    it.WriteU8(uint8_t(jobId));
    it.WriteU8(uint8_t(r.kind));
    it.WriteHtonU32(r.worker);
    it.WriteHtonU32(r.iteration);
    it.WriteHtonU32(r.item);
    it.WriteHtonU64(uint64_t(r.time.GetTimeStep()));
    b.CopyData(buf, REPORT_BYTES);
    Ptr<Packet> p = Create<Packet>(buf, REPORT_BYTES);
    for (uint32_t rank : m_peers.at(jobId))
    {
        const auto& a = m_address[rank];
        MpiInterface::SendPacket(p, r.time + m_delay, a.first, a.second);
    }
#else
    (void)jobId;
    (void)r;
#endif
}

void
TalbJobRankLink::Receive(Ptr<Packet> p)
{
    NS_ABORT_MSG_IF(p->GetSize() != REPORT_BYTES,
                    "talb-scenario: a job report of " << p->GetSize() << " bytes");
    uint8_t buf[REPORT_BYTES];
    p->CopyData(buf, REPORT_BYTES);
    Buffer b;
    b.AddAtStart(REPORT_BYTES);
    b.Begin().Write(buf, REPORT_BYTES);
    Buffer::Iterator it = b.Begin();
    uint32_t jobId = it.ReadU8();
    TalbTrainingJob::Report r;
    r.kind = TalbTrainingJob::Report::Kind(it.ReadU8());
    r.worker = it.ReadNtohU32();
    r.iteration = it.ReadNtohU32();
    r.item = it.ReadNtohU32();
    r.time = TimeStep(it.ReadNtohU64());
    auto j = m_jobs.find(jobId);
    NS_ABORT_MSG_IF(j == m_jobs.end(),
                    "talb-scenario: a report of job " << jobId << ", not on this rank");
    j->second->ApplyRemoteReport(r);
}

} // namespace ns3
