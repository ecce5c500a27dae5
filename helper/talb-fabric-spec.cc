#include "talb-fabric-spec.h"

#include "talb-host-config.h"
#include "talb-hpcc-inputs.h"

#include "ns3/boolean.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/string.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-server-layout.h"
#include "ns3/uinteger.h"

namespace ns3
{

namespace
{

/// Every link of \p links must exist: leaf < leaves, spine < spines.
template <typename Link>
void
CheckLinks(const TalbFabricSpec& s,
           const char* param,
           const std::string& parseError,
           const std::vector<Link>& links,
           std::vector<std::string>* errors)
{
    if (!parseError.empty())
    {
        errors->push_back(std::string(param) + ": " + parseError);
    }
    for (const auto& l : links)
    {
        if (l.leaf >= s.leaves || l.spine >= s.spines)
        {
            errors->push_back(std::string(param) + ": link " + std::to_string(l.leaf) + ":" +
                              std::to_string(l.spine) + " is outside the fabric (" +
                              std::to_string(s.leaves) + " leaves x " + std::to_string(s.spines) +
                              " spines)");
        }
    }
}

/**
 * topologyFile: the fabric's shape, rates and delay from an HPCC topology file into \p s,
 * where none of the parameters it replaces was given too.
 */
void
ReadTopologyFile(const TalbScenarioConfig& c, TalbFabricSpec* s, std::vector<std::string>* errors)
{
    std::vector<std::string> replaced = {"leaves",
                                         "spines",
                                         "hostsPerLeaf",
                                         "hostRate",
                                         "fabricRate",
                                         "oversubscription",
                                         "linkDelay",
                                         "linkRates",
                                         "linkLoss"};
    for (const auto& name : replaced)
    {
        if (c.IsGiven(name))
        {
            errors->push_back(name + ": the topology file " + s->topologyFile +
                              " gives the fabric; drop " + name + " or topologyFile");
        }
    }
    TalbHpccTopology t;
    std::string error = TalbHpccTopology::Read(s->topologyFile, &t);
    if (!error.empty())
    {
        errors->push_back("topologyFile: " + error);
        return;
    }
    s->leaves = t.leaves;
    s->spines = t.spines;
    s->hostsPerLeaf = t.hostsPerLeaf;
    s->hostRate = t.hostRate;
    s->fabricRate = t.fabricRate;
    s->oversubscription = 0;
    s->linkDelay = t.linkDelay;
    s->linkRates.clear();
    for (const auto& r : t.linkRates)
    {
        s->linkRates.push_back({r.leaf, r.spine, r.rate});
    }
    s->linkLosses.clear();
    for (const auto& l : t.linkLosses)
    {
        s->linkLosses.push_back({l.leaf, l.spine, l.probability});
    }
    s->hostOfNode = t.hostOfNode;
}

} // namespace

void
TalbFabricSpec::Parse(const TalbScenarioConfig& c, std::vector<std::string>* errors)
{
    leaves = c.GetUint("leaves");
    spines = c.GetUint("spines");
    hostsPerLeaf = c.GetUint("hostsPerLeaf");
    hostRate = c.GetRate("hostRate");
    fabricRate = c.GetRate("fabricRate");
    oversubscription = c.GetDouble("oversubscription");
    linkDelay = c.GetTime("linkDelay");
    mtu = c.GetUint("mtu");
    queueSize = c.GetString("queueSize");
    sharedBuffer = c.GetString("sharedBuffer");
    bufferAlpha = c.GetDouble("bufferAlpha");
    pfcAlpha = c.GetDouble("pfcAlpha");
    hostQueueSize = c.GetString("hostQueueSize");
    untaggedBand = c.GetUint("untaggedBand");
    dwrr = c.GetString("portScheduling") == "dwrr";
    trainingWeight = c.GetUint("trainingWeight");
    bestEffortWeight = c.GetUint("bestEffortWeight");
    dwrrBands = c.GetString("bandScheduling") == "dwrr";
    strictBands = c.GetUint("strictBands");
    bandWeights = c.GetString("bandWeights");
    std::array<uint32_t, TALB_NUM_PRIORITIES> weights;
    std::string weightError = TalbPriorityQueue::ParseBandWeights(bandWeights, &weights);
    if (!weightError.empty())
    {
        errors->push_back("bandWeights: " + weightError);
    }
    ecnThreshold = c.GetString("ecnThreshold");
    std::string beBuffer = c.GetString("bestEffortBuffer");
    if (!beBuffer.empty())
    {
        QueueSize size(beBuffer);
        if (size.GetUnit() != QueueSizeUnit::BYTES || size.GetValue() == 0)
        {
            errors->push_back("bestEffortBuffer: '" + beBuffer +
                              "' is not a positive byte size (e.g. 300KB)");
        }
        bestEffortBuffer = size.GetValue();
    }
    stockRouting = c.GetBool("stockRouting");
    pushOut = c.GetBool("pushOut");
    QueueSize shared(sharedBuffer);
    if (shared.GetValue() > 0 &&
        (shared.GetUnit() != QueueSizeUnit::BYTES || shared.GetValue() > UINT32_MAX))
    {
        errors->push_back("sharedBuffer: '" + sharedBuffer +
                          "' is not a byte size below 4 GB (e.g. 16MB; 0B: none)");
    }
    if (shared.GetValue() > 0 && pushOut)
    {
        errors->push_back("pushOut: ports of a sharedBuffer are refused by its thresholds, "
                          "not their own size; drop one of the two");
    }
    if (shared.GetValue() > 0 && stockRouting)
    {
        errors->push_back("sharedBuffer: stockRouting's switches are ns-3 routers with "
                          "per-port queues; drop one of the two");
    }
    std::string rates = TalbLeafSpineHelper::ParseLinkRates(c.GetString("linkRates"), &linkRates);
    std::string failures =
        TalbLeafSpineHelper::ParseLinkFailures(c.GetString("failLink"), &linkFailures);
    std::string flaps = TalbLeafSpineHelper::ParseLinkFlaps(c.GetString("flapLink"), &linkFlaps);
    std::string losses = TalbLeafSpineHelper::ParseLinkLosses(c.GetString("linkLoss"), &linkLosses);
    topologyFile = c.GetString("topologyFile");
    if (!topologyFile.empty())
    {
        ReadTopologyFile(c, this, errors);
    }
    CheckLinks(*this, "linkRates", rates, linkRates, errors);
    CheckLinks(*this, "failLink", failures, linkFailures, errors);
    CheckLinks(*this, "flapLink", flaps, linkFlaps, errors);
    CheckLinks(*this, "linkLoss", losses, linkLosses, errors);
    // A flap restores its link, which would silently undo a permanent failure of it.
    for (const auto& fl : linkFlaps)
    {
        for (const auto& f : linkFailures)
        {
            if (f.leaf == fl.leaf && f.spine == fl.spine)
            {
                errors->push_back("flapLink: link " + std::to_string(f.leaf) + ":" +
                                  std::to_string(f.spine) + " also fails in failLink");
            }
        }
    }
    failDetect = c.GetTime("failDetect");
    gpusPerServer = c.GetUint("gpusPerServer");
    railOptimized = c.GetBool("railOptimized");
    nvlinkRate = c.GetRate("nvlinkRate");
    nvlinkLatency = c.GetTime("nvlinkLatency");
    std::string layout =
        TalbServerLayout::Check(leaves, hostsPerLeaf, gpusPerServer, railOptimized);
    if (!layout.empty())
    {
        errors->push_back(layout);
    }
    tcpVariant = c.GetString("tcp") == "dctcp" ? "ns3::TcpDctcp" : "ns3::TcpNewReno";
    sndBuf = static_cast<uint32_t>(c.GetUint("sndBuf"));
    rcvBuf = static_cast<uint32_t>(c.GetUint("rcvBuf"));
    minRto = c.GetTime("minRto");
    TimeValue delAck; // Apply refuses a minimum RTO at or below it
    CreateObject<TalbHostConfig>()->GetAttribute("DelAckTimeout", delAck);
    if (minRto <= delAck.Get() || minRto > Seconds(1))
    {
        errors->push_back("minRto: " + c.GetString("minRto") + " must lie above the hosts' " +
                          "delayed-ACK timeout (" + std::to_string(delAck.Get().GetMicroSeconds()) +
                          "us) and at most 1s");
    }
    hostQdisc = c.GetString("hostQdisc");
}

void
TalbFabricSpec::ConfigureDefaults() const
{
    // The hosts' TCP: Linux-like buffers and timers, the same in every talb program and test.
    Ptr<TalbHostConfig> host = CreateObject<TalbHostConfig>();
    host->SetAttribute("SndBufSize", UintegerValue(sndBuf));
    host->SetAttribute("RcvBufSize", UintegerValue(rcvBuf));
    host->SetAttribute("MinRto", TimeValue(minRto));
    host->Apply(mtu);
    Config::SetDefault("ns3::TalbPriorityQueue::UntaggedBand", UintegerValue(untaggedBand));
    Config::SetDefault("ns3::TalbPriorityQueue::Scheduling",
                       EnumValue(dwrr ? TalbPriorityQueue::DWRR : TalbPriorityQueue::STRICT));
    Config::SetDefault("ns3::TalbPriorityQueue::TrainingWeight", UintegerValue(trainingWeight));
    Config::SetDefault("ns3::TalbPriorityQueue::BestEffortWeight", UintegerValue(bestEffortWeight));
    Config::SetDefault(
        "ns3::TalbPriorityQueue::BandScheduling",
        EnumValue(dwrrBands ? TalbPriorityQueue::DWRR_BANDS : TalbPriorityQueue::STRICT_BANDS));
    Config::SetDefault("ns3::TalbPriorityQueue::StrictBands", UintegerValue(strictBands));
    Config::SetDefault("ns3::TalbPriorityQueue::BandWeights", StringValue(bandWeights));
    Config::SetDefault("ns3::TalbSharedBuffer::Alpha", DoubleValue(bufferAlpha));
    Config::SetDefault("ns3::TalbSharedBuffer::PfcAlpha", DoubleValue(pfcAlpha));
}

Ptr<TalbLeafSpineHelper>
TalbFabricSpec::Build(const ObjectFactory& lb, uint32_t ranks) const
{
    Ptr<TalbLeafSpineHelper> fabric = CreateObject<TalbLeafSpineHelper>();
    fabric->SetAttribute("Leaves", UintegerValue(leaves));
    fabric->SetAttribute("Spines", UintegerValue(spines));
    fabric->SetAttribute("HostsPerLeaf", UintegerValue(hostsPerLeaf));
    fabric->SetAttribute("HostRate", DataRateValue(hostRate));
    fabric->SetAttribute("FabricRate", DataRateValue(fabricRate));
    fabric->SetAttribute("LinkDelay", TimeValue(linkDelay));
    fabric->SetAttribute("FailureDetection", TimeValue(failDetect));
    fabric->SetAttribute("Mtu", UintegerValue(mtu));
    fabric->SetAttribute("StockRouting", BooleanValue(stockRouting));
    fabric->SetAttribute("TcpVariant", StringValue(tcpVariant));
    fabric->SetAttribute("Ranks", UintegerValue(ranks));
    fabric->SetAttribute("GpusPerServer", UintegerValue(gpusPerServer));
    fabric->SetAttribute("RailOptimized", BooleanValue(railOptimized));
    fabric->SetAttribute("NvlinkRate", DataRateValue(nvlinkRate));
    fabric->SetAttribute("NvlinkLatency", TimeValue(nvlinkLatency));
    if (rdmaHosts)
    {
        fabric->SetAttribute("Transport", StringValue("rdma"));
    }
    if (!queueSize.empty())
    {
        fabric->SetAttribute("QueueSize", StringValue(queueSize));
    }
    fabric->SetAttribute("HostQueueSize", StringValue(hostQueueSize));
    fabric->SetAttribute("SharedBuffer", StringValue(sharedBuffer));
    if (!ecnThreshold.empty())
    {
        fabric->SetAttribute("EcnThreshold", StringValue(ecnThreshold));
    }
    if (oversubscription > 0)
    {
        fabric->SetOversubscription(oversubscription);
    }
    for (const auto& r : linkRates)
    {
        fabric->SetLinkRate(r.leaf, r.spine, r.rate);
    }
    for (const auto& f : linkFailures)
    {
        fabric->SetLinkFailure(f.leaf, f.spine, f.at);
    }
    for (const auto& f : linkFlaps)
    {
        fabric->SetLinkFlap(f.leaf, f.spine, f.start, f.down, f.up);
    }
    for (const auto& l : linkLosses)
    {
        fabric->SetLinkLoss(l.leaf, l.spine, l.probability);
    }
    fabric->SetLoadBalancerFactory(lb);
    fabric->Install();
    if (!rdmaHosts)
    {
        Ptr<TalbHostConfig> host = CreateObject<TalbHostConfig>();
        host->SetAttribute("Qdisc", StringValue(hostQdisc));
        for (uint32_t i = 0; i < fabric->GetNHosts(); ++i)
        {
            host->ConfigureNic(fabric->GetHostDevice(i));
        }
    }
    // Switch ports only: hosts do not drop their own packets (see hostQueueSize).
    for (uint32_t i = 0; (bestEffortBuffer > 0 || pushOut) && i < leaves + spines; ++i)
    {
        Ptr<Node> node = i < leaves ? fabric->GetLeafNode(i) : fabric->GetSpineNode(i - leaves);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<TalbPriorityQueue> q = TalbLeafSpineHelper::GetPortQueue(node->GetDevice(d)))
            {
                if (bestEffortBuffer > 0)
                {
                    q->SetAttribute("BestEffortMaxBytes", UintegerValue(bestEffortBuffer));
                }
                if (pushOut)
                {
                    q->SetAttribute("PushOut", BooleanValue(true));
                }
            }
        }
    }
    return fabric;
}

uint64_t
TalbFabricSpec::GetNHosts() const
{
    return uint64_t(leaves) * hostsPerLeaf;
}

} // namespace ns3
