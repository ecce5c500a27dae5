// TalbLeafSpineHelper, its links: the link options' text, the devices and channels of a link
// (either transport, remote channels across ranks), and links that fail and come back.
#include "talb-leaf-spine-helper.h"

#include "ns3/error-model.h"
#include "ns3/ipv4-global-routing-helper.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/simulator.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-pfc-channel.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-priority-queue.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#include "ns3/point-to-point-remote-channel.h"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbLeafSpineLinks");

namespace
{

/// "leaf:spine" followed by \p sep and the rest, which goes to \p rest.
bool
ParseLinkItem(const std::string& item, char sep, uint32_t* leaf, uint32_t* spine, std::string* rest)
{
    std::string::size_type colon = item.find(':');
    std::string::size_type at = item.find(sep);
    uint64_t l = 0;
    uint64_t s = 0;
    if (colon == std::string::npos || at == std::string::npos || at < colon ||
        !TalbParse::ParseUint(TalbParse::Trim(item.substr(0, colon)), &l, 0, UINT32_MAX) ||
        !TalbParse::ParseUint(TalbParse::Trim(item.substr(colon + 1, at - colon - 1)),
                              &s,
                              0,
                              UINT32_MAX))
    {
        return false;
    }
    *leaf = static_cast<uint32_t>(l);
    *spine = static_cast<uint32_t>(s);
    *rest = TalbParse::Trim(item.substr(at + 1));
    return true;
}

/**
 * A ';'-separated list of "leaf:spine" items, each followed by \p sep and a value that
 * \p parseValue reads into the item: it returns nullptr when it could, "" when the value is not
 * of the \p form, or a reason. \return empty, or "'ITEM' is not FORM" / "'ITEM': REASON" for the
 * first bad item
 */
template <typename Link, typename ParseValue>
std::string
ParseLinkList(const std::string& text,
              char sep,
              const char* form,
              ParseValue parseValue,
              std::vector<Link>* out)
{
    out->clear();
    for (const auto& item : TalbParse::Split(text, ';'))
    {
        Link l;
        std::string value;
        const char* reason =
            ParseLinkItem(item, sep, &l.leaf, &l.spine, &value) ? parseValue(value, &l) : "";
        if (reason)
        {
            return "'" + item +
                   (*reason ? "': " + std::string(reason) : "' is not " + std::string(form));
        }
        out->push_back(l);
    }
    return "";
}

} // namespace

std::string
TalbLeafSpineHelper::ParseLinkRates(const std::string& text, std::vector<LinkRate>* out)
{
    return ParseLinkList(
        text,
        '=',
        "leaf:spine=rate (a positive rate)",
        [](const std::string& v, LinkRate* r) {
            return TalbParse::ParseDataRate(v, &r->rate) ? nullptr : "";
        },
        out);
}

std::string
TalbLeafSpineHelper::ParseLinkLosses(const std::string& text, std::vector<LinkLoss>* out)
{
    return ParseLinkList(
        text,
        '=',
        "leaf:spine=probability (from 0 to below 1, e.g. 0.01)",
        [](const std::string& v, LinkLoss* l) {
            bool ok = TalbParse::ParseDouble(v, &l->probability) && l->probability >= 0 &&
                      l->probability < 1;
            return ok ? nullptr : "";
        },
        out);
}

std::string
TalbLeafSpineHelper::ParseLinkFailures(const std::string& text, std::vector<LinkFailure>* out)
{
    return ParseLinkList(
        text,
        '@',
        "leaf:spine@time",
        [](const std::string& v, LinkFailure* f) {
            return TalbParse::ParseTime(v, &f->at) ? nullptr : "";
        },
        out);
}

std::string
TalbLeafSpineHelper::ParseLinkFlaps(const std::string& text, std::vector<LinkFlap>* out)
{
    return ParseLinkList(
        text,
        '@',
        "leaf:spine@start/down/up",
        [](const std::string& v, LinkFlap* f) -> const char* {
            std::vector<std::string> parts = TalbParse::Split(v, '/');
            if (parts.size() != 3 || !TalbParse::ParseTime(parts[0], &f->start) ||
                !TalbParse::ParseTime(parts[1], &f->down) ||
                !TalbParse::ParseTime(parts[2], &f->up))
            {
                return "";
            }
            if (!f->down.IsStrictlyPositive() || !f->up.IsStrictlyPositive())
            {
                return "down and up times must be > 0";
            }
            return nullptr;
        },
        out);
}

std::pair<Ptr<NetDevice>, Ptr<NetDevice>>
TalbLeafSpineHelper::Connect(Ptr<Node> a,
                             Ptr<Node> b,
                             DataRate rate,
                             QueueSize aQueue,
                             QueueSize bQueue)
{
    Ptr<Node> nodes[2] = {a, b};
    QueueSize sizes[2] = {aQueue, bQueue};
    if (IsRdma())
    {
        Ptr<TalbPfcChannel> channel = CreateObject<TalbPfcChannel>();
        channel->SetAttribute("Delay", TimeValue(m_linkDelay));
        uint32_t mtu = m_rdma->GetDeviceMtu();
        Ptr<TalbPfcNetDevice> devs[2];
        for (int k = 0; k < 2; ++k)
        {
            devs[k] = CreateObject<TalbPfcNetDevice>();
            devs[k]->SetAddress(Mac48Address::Allocate());
            devs[k]->SetDataRate(rate);
            devs[k]->SetMtu(static_cast<uint16_t>(mtu));
            Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
            q->SetMaxSize(sizes[k]);
            q->SetAttribute("MarkThreshold", QueueSizeValue(m_ecnThreshold));
            m_rdma->ConfigureQueue(q, rate);
            devs[k]->SetQueue(q);
            nodes[k]->AddDevice(devs[k]);
            devs[k]->Attach(channel);
        }
        return {devs[0], devs[1]};
    }
    Ptr<PointToPointChannel> channel;
#ifdef NS3_MPI
    // As ns-3's PointToPointHelper does: a link that leaves this rank is a remote channel, and
    // its devices take packets from other ranks through an MpiReceiver.
    bool remote = MpiInterface::IsEnabled() && (a->GetSystemId() != MpiInterface::GetSystemId() ||
                                                b->GetSystemId() != MpiInterface::GetSystemId());
    channel = remote ? Ptr<PointToPointChannel>(CreateObject<PointToPointRemoteChannel>())
                     : CreateObject<PointToPointChannel>();
#else
    channel = CreateObject<PointToPointChannel>();
#endif
    channel->SetAttribute("Delay", TimeValue(m_linkDelay));
    Ptr<PointToPointNetDevice> devs[2];
    for (int k = 0; k < 2; ++k)
    {
        devs[k] = CreateObject<PointToPointNetDevice>();
        devs[k]->SetAddress(Mac48Address::Allocate());
        devs[k]->SetDataRate(rate);
        devs[k]->SetMtu(m_mtu);
        Ptr<TalbPriorityQueue> q = CreateObject<TalbPriorityQueue>();
        q->SetMaxSize(sizes[k]);
        q->SetAttribute("MarkThreshold", QueueSizeValue(m_ecnThreshold));
        devs[k]->SetQueue(q);
        nodes[k]->AddDevice(devs[k]);
        devs[k]->Attach(channel);
#ifdef NS3_MPI
        if (remote)
        {
            Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
            receiver->SetReceiveCallback(MakeCallback(&PointToPointNetDevice::Receive, devs[k]));
            devs[k]->AggregateObject(receiver);
        }
#endif
    }
    return {devs[0], devs[1]};
}

void
TalbLeafSpineHelper::FailLink(uint32_t leaf, uint32_t spine)
{
    NS_LOG_FUNCTION(this << leaf << spine);
    uint32_t k = leaf * m_nSpines + spine;
    if (!m_linkUp[k])
    {
        return;
    }
    m_linkUp[k] = false;
    ++m_linkEpoch[k];
    m_baseRttMemo.clear();
    m_bottleneckMemo.clear();
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    for (auto& dev : ends)
    {
        // Queued packets are lost with the link; a packet on the wire is lost on arrival.
        if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev))
        {
            p2p->GetQueue()->Flush();
        }
        else if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
        {
            pfc->FlushQueue();
        }
    }
    auto loseAll = []() {
        Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
        em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        em->SetRate(1.0);
        return em;
    };
    SetLinkErrorModels(k, loseAll(), loseAll());
    if (m_failureDetection.IsZero())
    {
        WithdrawLink(k, m_linkEpoch[k]);
        return;
    }
    Simulator::Schedule(m_failureDetection,
                        &TalbLeafSpineHelper::WithdrawLink,
                        Ptr<TalbLeafSpineHelper>(this),
                        k,
                        m_linkEpoch[k]);
}

void
TalbLeafSpineHelper::WithdrawLink(uint32_t k, uint32_t epoch)
{
    NS_LOG_FUNCTION(this << k << epoch);
    if (m_linkEpoch[k] != epoch)
    {
        return;
    }
    uint32_t leaf = k / m_nSpines;
    uint32_t spine = k % m_nSpines;
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    if (m_stockRouting)
    {
        for (auto& dev : ends)
        {
            Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
            ipv4->SetDown(ipv4->GetInterfaceForDevice(dev));
        }
        Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
        return;
    }
    m_leafSwitches[leaf]->SetPortUp(m_hostsPerLeaf + spine, false);
    m_spineSwitches[spine]->SetPortUp(leaf, false);
    ComputeRoutes();
}

void
TalbLeafSpineHelper::RestoreLink(uint32_t leaf, uint32_t spine)
{
    NS_LOG_FUNCTION(this << leaf << spine);
    uint32_t k = leaf * m_nSpines + spine;
    if (m_linkUp[k])
    {
        return;
    }
    m_linkUp[k] = true;
    ++m_linkEpoch[k];
    m_baseRttMemo.clear();
    m_bottleneckMemo.clear();
    // Back to what it was: lossless, or its random loss (SetLinkLoss).
    auto loss = m_lossModels.find(k);
    if (loss == m_lossModels.end())
    {
        SetLinkErrorModels(k, nullptr, nullptr);
    }
    else
    {
        SetLinkErrorModels(k, loss->second.first, loss->second.second);
    }
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    if (m_stockRouting)
    {
        for (auto& dev : ends)
        {
            Ptr<Ipv4> ipv4 = dev->GetNode()->GetObject<Ipv4>();
            ipv4->SetUp(ipv4->GetInterfaceForDevice(dev));
        }
        Ipv4GlobalRoutingHelper::RecomputeRoutingTables();
        return;
    }
    m_leafSwitches[leaf]->SetPortUp(m_hostsPerLeaf + spine, true);
    m_spineSwitches[spine]->SetPortUp(leaf, true);
    ComputeRoutes();
}

void
TalbLeafSpineHelper::SetLinkErrorModels(uint32_t k,
                                        Ptr<ErrorModel> leafSide,
                                        Ptr<ErrorModel> spineSide)
{
    Ptr<ErrorModel> models[2] = {leafSide, spineSide};
    Ptr<NetDevice> ends[2] = {m_links[k].first, m_links[k].second};
    for (int i = 0; i < 2; ++i)
    {
        if (Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(ends[i]))
        {
            p2p->SetReceiveErrorModel(models[i]);
        }
        else if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(ends[i]))
        {
            pfc->SetReceiveErrorModel(models[i]);
        }
    }
}

void
TalbLeafSpineHelper::CountLinkDrop(TalbLeafSpineHelper* self,
                                   uint32_t k,
                                   bool towardSpine,
                                   Ptr<const Packet> p)
{
    // A failed link drops everything through its own models: not the random loss's.
    bool failed = !self->m_linkUp[k];
    ++(failed ? self->m_failedDrops : self->m_lossDrops);
    if (!self->m_linkDropTrace.IsEmpty())
    {
        TalbLinkDropRecord drop;
        drop.time = Simulator::Now();
        drop.leaf = k / self->m_nSpines;
        drop.spine = k % self->m_nSpines;
        drop.towardSpine = towardSpine;
        drop.failed = failed;
        drop.packet = TalbPriorityQueue::Read(p);
        self->m_linkDropTrace(drop);
    }
}

void
TalbLeafSpineHelper::FlapCycle(uint32_t i)
{
    const LinkFlap& f = m_flaps[i];
    FailLink(f.leaf, f.spine);
    Simulator::Schedule(f.down,
                        &TalbLeafSpineHelper::RestoreLink,
                        Ptr<TalbLeafSpineHelper>(this),
                        f.leaf,
                        f.spine);
    Simulator::Schedule(f.down + f.up,
                        &TalbLeafSpineHelper::FlapCycle,
                        Ptr<TalbLeafSpineHelper>(this),
                        i);
}

} // namespace ns3
