#include "talb-scenario-counters.h"

#include "ns3/channel.h"
#include "ns3/node-list.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/simulator.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-pfc.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-rdma-nic.h"
#include "ns3/talb-rdma-queue-pair.h"
#include "ns3/talb-switch.h"
#include "ns3/talb-tcp-message-channel.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"

#include <algorithm>

namespace ns3
{

namespace
{

typedef TalbOutputWriter::SwitchCounters SwitchCounters;

/// Adds the per-class queue counters of every switch port of \p nodes into \p out.
void
AddClassCounters(const std::vector<Ptr<Node>>& nodes, SwitchCounters* out)
{
    TalbOutputWriter::ClassCounters* classes[] = {&out->training, &out->bestEffort};
    for (uint8_t cls = 0; cls < TalbPriorityQueue::NUM_CLASSES; ++cls)
    {
        TalbOutputWriter::ClassCounters& c = *classes[cls];
        for (const auto& node : nodes)
        {
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<TalbPriorityQueue> q = TalbLeafSpineHelper::GetPortQueue(node->GetDevice(d));
                if (!q)
                {
                    continue;
                }
                const TalbPriorityQueue::ClassStats& st = q->GetClassStats(cls);
                c.enqueuedPackets += st.enqueuedPackets;
                c.enqueuedBytes += st.enqueuedBytes;
                c.dequeuedPackets += st.dequeuedPackets;
                c.dequeuedBytes += st.dequeuedBytes;
                c.droppedPackets += st.droppedPackets;
                c.droppedBytes += st.droppedBytes;
                c.capDrops += st.capDrops;
                c.pushedOut += st.pushedOut;
                c.markedPackets += st.markedPackets;
                c.otherBytesAtDrops += st.otherBytesAtDrops;
                c.peakBytes = std::max<uint64_t>(c.peakBytes, st.peakBytes);
            }
        }
    }
}

/// Adds the PFC state of \p sw's lossless (port, priority) pairs into \p p.
void
AddPfcPorts(Ptr<TalbSwitch> sw, Ptr<TalbPfc> pfc, TalbOutputWriter::PfcCounters* p)
{
    for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
    {
        Ptr<TalbPriorityQueue> q = TalbLeafSpineHelper::GetPortQueue(sw->GetPort(port).device);
        for (uint8_t prio = 0; prio < TALB_NUM_PRIORITIES; ++prio)
        {
            if (!pfc->IsLossless(prio))
            {
                continue;
            }
            p->pausingAtEnd += pfc->IsPausing(port, prio);
            p->chargedBytesAtEnd += pfc->GetIngressBytes(port, prio);
            uint32_t peak = pfc->GetMaxIngressBytes(port, prio);
            p->maxChargeBytes = std::max<uint64_t>(p->maxChargeBytes, peak);
            p->withinHeadroom =
                p->withinHeadroom && peak <= pfc->GetXoff() + pfc->GetHeadroom(port);
            p->queuedBytesAtEnd += q ? q->GetBandBytes(prio) : 0;
            if (q && prio == q->GetUntaggedBand())
            {
                p->queuedBytesAtEnd += q->GetBestEffortBytes();
            }
        }
    }
}

/// Adds the counters of \p sw's shared buffer (if it has one) into \p b.
void
AddSharedBufferCounters(Ptr<TalbSwitch> sw, TalbOutputWriter::SharedBufferCounters* b)
{
    auto q = sw->GetNPorts() > 0 ? DynamicCast<TalbPriorityQueue>(sw->GetPort(0).queue) : nullptr;
    Ptr<TalbSharedBuffer> buffer = q ? q->GetSharedBuffer() : nullptr;
    if (!buffer)
    {
        return;
    }
    const TalbSharedBuffer::Stats& st = buffer->GetStats();
    b->installed = true;
    b->thresholdDrops += st.thresholdDrops;
    b->fullDrops += st.fullDrops;
    b->droppedBytes += st.droppedBytes;
    b->peakBytes = std::max(b->peakBytes, st.peakBytes);
    b->overCommitted += st.peakBytes > buffer->GetSize() ? 1 : 0;
}

/// Adds \p sw's egress drops per port into the hop they happened at.
void
AddHopDrops(const TalbSwitch& sw, SwitchCounters* out)
{
    for (uint32_t i = 0; i < sw.GetNPorts(); ++i)
    {
        const TalbPortState& port = sw.GetPort(i);
        const uint32_t hop = !sw.GetInfo().isLeaf ? 1 : port.uplink ? 0 : 2;
        for (uint32_t k = 0; k < port.deviceDropsByPriority.size(); ++k)
        {
            out->hopDropsByPriority[hop][k] += port.deviceDropsByPriority[k];
        }
    }
}

/// Adds the egress drops, shared-buffer counters and PFC state of \p switches (null with stock
/// routing) into \p out.
void
AddPfcCounters(const std::vector<Ptr<TalbSwitch>>& switches, SwitchCounters* out)
{
    TalbOutputWriter::PfcCounters& p = out->pfc;
    for (const auto& sw : switches)
    {
        if (!sw)
        {
            continue;
        }
        out->deviceDrops += sw->GetStats().nDropDevice;
        AddHopDrops(*sw, out);
        AddSharedBufferCounters(sw, &out->sharedBuffer);
        Ptr<TalbPfc> pfc = sw->GetPfc();
        if (!pfc)
        {
            continue;
        }
        p.installed = true;
        const TalbPfc::Stats& st = pfc->GetStats();
        p.pauseStarts += st.pauseStarts;
        p.pausesSent += st.pausesSent;
        p.resumes += st.resumesSent;
        p.headroomDrops += st.headroomDrops;
        AddPfcPorts(sw, pfc, &p);
    }
}

/// \p c's fields that sum over ranks, in the order UnpackSums() reads them
std::vector<uint64_t*>
SumFields(SwitchCounters* c)
{
    std::vector<uint64_t*> fields;
    for (TalbOutputWriter::ClassCounters* k : {&c->training, &c->bestEffort})
    {
        fields.insert(fields.end(),
                      {&k->enqueuedPackets,
                       &k->enqueuedBytes,
                       &k->dequeuedPackets,
                       &k->dequeuedBytes,
                       &k->droppedPackets,
                       &k->droppedBytes,
                       &k->capDrops,
                       &k->pushedOut,
                       &k->markedPackets,
                       &k->otherBytesAtDrops});
    }
    TalbOutputWriter::PfcCounters& p = c->pfc;
    fields.insert(fields.end(),
                  {&c->deviceDrops,
                   &c->linkLossDrops,
                   &c->failedLinkDrops,
                   &p.pauseStarts,
                   &p.pausesSent,
                   &p.resumes,
                   &p.pausingAtEnd,
                   &p.headroomDrops,
                   &p.chargedBytesAtEnd,
                   &p.queuedBytesAtEnd});
    TalbOutputWriter::SharedBufferCounters& b = c->sharedBuffer;
    fields.insert(fields.end(),
                  {&b.thresholdDrops, &b.fullDrops, &b.droppedBytes, &b.overCommitted});
    for (auto& hop : c->hopDropsByPriority)
    {
        for (uint64_t& drops : hop)
        {
            fields.push_back(&drops);
        }
    }
    return fields;
}

/// Distributed runs: \p c summed over the ranks (peaks: the largest, flags: any rank's).
void
SumOverRanks(const TalbScenarioSpec& s, SwitchCounters* c)
{
    std::vector<uint64_t*> fields = SumFields(c);
    std::vector<uint64_t> sums;
    for (uint64_t* f : fields)
    {
        sums.push_back(*f);
    }
    sums.push_back(uint64_t(c->pfc.installed));
    sums.push_back(uint64_t(!c->pfc.withinHeadroom));
    sums.push_back(uint64_t(c->sharedBuffer.installed));
    std::vector<double> peaks = {double(c->training.peakBytes),
                                 double(c->bestEffort.peakBytes),
                                 double(c->pfc.maxChargeBytes),
                                 double(c->sharedBuffer.peakBytes)};
    s.sumOverRanks(&sums);
    std::vector<double> all = peaks;
    s.gatherOverRanks(&all);
    for (std::size_t k = 0; k < all.size(); ++k)
    {
        peaks[k % peaks.size()] = std::max(peaks[k % peaks.size()], all[k]);
    }
    for (std::size_t k = 0; k < fields.size(); ++k)
    {
        *fields[k] = sums[k];
    }
    c->pfc.installed = sums[fields.size()] > 0;
    c->pfc.withinHeadroom = sums[fields.size() + 1] == 0;
    c->sharedBuffer.installed = sums[fields.size() + 2] > 0;
    c->training.peakBytes = uint64_t(peaks[0]);
    c->bestEffort.peakBytes = uint64_t(peaks[1]);
    c->pfc.maxChargeBytes = uint64_t(peaks[2]);
    c->sharedBuffer.peakBytes = uint64_t(peaks[3]);
}

} // namespace

uint64_t
TalbScenarioCounters::CountPacketHops(uint64_t* remoteHops)
{
    uint64_t hops = 0;
    *remoteHops = 0;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(node->GetDevice(d)))
            {
                // RDMA NICs hand packets to the device without a queue: count transmissions.
                hops += pfc->GetStats().txFrames;
                continue;
            }
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            Ptr<Queue<Packet>> q = dev ? dev->GetQueue() : nullptr;
            if (q)
            {
                uint64_t sent =
                    q->GetTotalReceivedPackets() - q->GetTotalDroppedPackets() - q->GetNPackets();
                hops += sent;
                // Distributed runs: the links to other ranks (by name, so that this compiles
                // without the MPI module).
                if (dev->GetChannel()->GetInstanceTypeId().GetName() ==
                    "ns3::PointToPointRemoteChannel")
                {
                    *remoteHops += sent;
                }
            }
        }
    }
    return hops;
}

void
TalbScenarioCounters::Collect(const TalbScenarioSpec& spec,
                              Ptr<TalbLeafSpineHelper> fabric,
                              const std::vector<Ptr<TalbTrainingJob>>& jobs,
                              const std::vector<Ptr<TalbGraphJob>>& graphJobs,
                              TalbScenarioResult* r)
{
    std::vector<Ptr<TalbTransport>> transports;
    for (const auto& job : jobs)
    {
        transports.push_back(job->GetTransport());
    }
    for (const auto& job : graphJobs)
    {
        transports.push_back(job->GetTransport());
    }
    r->rdma = SumRdma(spec, fabric);
    r->tcp = SumTcp(transports);
    r->paths = SumPaths(spec, fabric);
    r->switches = SumSwitches(spec, fabric);
}

TalbOutputWriter::SwitchCounters
TalbScenarioCounters::SumSwitches(const TalbScenarioSpec& s, Ptr<TalbLeafSpineHelper> fabric)
{
    SwitchCounters out;
    std::vector<Ptr<Node>> nodes;
    std::vector<Ptr<TalbSwitch>> switches;
    for (uint32_t i = 0; i < s.fabric.leaves; ++i)
    {
        nodes.push_back(fabric->GetLeafNode(i));
        switches.push_back(fabric->GetLeafSwitch(i));
    }
    for (uint32_t i = 0; i < s.fabric.spines; ++i)
    {
        nodes.push_back(fabric->GetSpineNode(i));
        switches.push_back(fabric->GetSpineSwitch(i));
    }
    AddClassCounters(nodes, &out);
    AddPfcCounters(switches, &out);
    out.linkLossDrops = fabric->GetLinkLossDrops();
    out.failedLinkDrops = fabric->GetFailedLinkDrops();
    if (s.distributed)
    {
        SumOverRanks(s, &out);
    }
    return out;
}

TalbOutputWriter::RdmaCounters
TalbScenarioCounters::SumRdma(const TalbScenarioSpec& s, Ptr<TalbLeafSpineHelper> fabric)
{
    TalbOutputWriter::RdmaCounters c;
    for (uint32_t i = 0; s.fabric.rdmaHosts && i < fabric->GetNHosts(); ++i)
    {
        Ptr<TalbRdmaNic> nic = fabric->GetRdmaNic(i);
        // Queue pairs are numbered from FIRST_QPN on; the collectives keep theirs (opened as
        // their channels first use a priority), background flows destroy theirs.
        for (uint32_t qpn = TalbRdmaNic::FIRST_QPN, live = 0; live < nic->GetNQueuePairs(); ++qpn)
        {
            Ptr<TalbRdmaQueuePair> qp = nic->GetQueuePair(qpn);
            if (!qp)
            {
                continue;
            }
            ++live;
            const TalbRdmaQueuePair::Stats& q = qp->GetStats();
            c.retransmittedPackets += q.retransmittedPackets;
            c.retransmittedBytes += q.retransmittedBytes;
            c.naks += q.naksReceived;
            c.timeouts += q.timeouts;
            c.outOfOrder += q.packetsOutOfOrder;
            c.placed += q.packetsPlaced;
            c.plbRepaths += q.repaths;
        }
    }
    return c;
}

TalbOutputWriter::TcpCounters
TalbScenarioCounters::SumTcp(const std::vector<Ptr<TalbTransport>>& transports)
{
    TalbOutputWriter::TcpCounters c;
    for (const auto& transport : transports)
    {
        for (uint32_t i = 0; transport && i < transport->GetNChannels(); ++i)
        {
            if (auto tcp = DynamicCast<TalbTcpMessageChannel>(transport->GetChannel(i)))
            {
                const TalbTcpMessageChannel::Stats stats = tcp->GetStats();
                c.retransmittedSegments += stats.retransmittedSegments;
                c.retransmittedBytes += stats.retransmittedBytes;
                c.timeouts += stats.timeouts;
                c.plbRepaths += stats.plbRepaths;
                c.idleRestarts += stats.idleRestarts;
                c.reorderingRaises += stats.reorderingRaises;
                c.lossProbes += stats.lossProbes;
                c.probeLosses += stats.probeLosses;
                c.rackLosses += stats.rackLosses;
            }
        }
    }
    return c;
}

TalbOutputWriter::LbCounters
TalbScenarioCounters::SumPaths(const TalbScenarioSpec& /* s */, Ptr<TalbLeafSpineHelper> fabric)
{
    TalbOutputWriter::LbCounters c;
    for (const auto& sw : fabric->GetSwitches())
    {
        Ptr<TalbLoadBalancer> lb = sw->GetLoadBalancer();
        c.selections += lb->GetStats().nSelections;
        c.reroutes += lb->GetStats().nReroutes;
        for (const TalbLoadBalancer::PolicyCounter& pc : lb->GetPolicyCounters())
        {
            auto it = std::find_if(c.policy.begin(), c.policy.end(), [&pc](const auto& named) {
                return named.first == pc.name;
            });
            if (it == c.policy.end())
            {
                c.policy.emplace_back(pc.name, pc.value);
            }
            else
            {
                it->second += pc.value;
            }
        }
    }
    return c;
}

void
TalbScenarioCounters::SumEvents(const TalbScenarioSpec& spec,
                                uint64_t eventsBefore,
                                TalbScenarioResult* r)
{
    std::vector<uint64_t> events = {Simulator::GetEventCount() - eventsBefore,
                                    r->tcp.retransmittedSegments,
                                    r->tcp.retransmittedBytes,
                                    r->tcp.timeouts,
                                    r->tcp.plbRepaths,
                                    r->paths.selections,
                                    r->paths.reroutes,
                                    r->tcp.idleRestarts,
                                    r->tcp.reorderingRaises,
                                    r->tcp.lossProbes,
                                    r->tcp.probeLosses,
                                    r->tcp.rackLosses};
    const size_t policyAt = events.size();
    for (const auto& named : r->paths.policy)
    {
        events.push_back(named.second); // every rank lists the same names (the same balancers)
    }
    if (spec.distributed)
    {
        spec.sumOverRanks(&events);
    }
    for (size_t i = 0; i < r->paths.policy.size(); ++i)
    {
        r->paths.policy[i].second = events[policyAt + i];
    }
    r->events = events[0];
    r->tcp.retransmittedSegments = events[1];
    r->tcp.retransmittedBytes = events[2];
    r->tcp.timeouts = events[3];
    r->tcp.plbRepaths = events[4];
    r->paths.selections = events[5];
    r->paths.reroutes = events[6];
    r->tcp.idleRestarts = events[7];
    r->tcp.reorderingRaises = events[8];
    r->tcp.lossProbes = events[9];
    r->tcp.probeLosses = events[10];
    r->tcp.rackLosses = events[11];
}

} // namespace ns3
