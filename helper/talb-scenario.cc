#include "talb-scenario.h"

#include "talb-background-traffic-helper.h"
#include "talb-host-config.h"
#include "talb-leaf-spine-helper.h"
#include "talb-output-writer.h"
#include "talb-training-job-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/buffer.h"
#include "ns3/channel.h"
#include "ns3/config.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/node-list.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/show-progress.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/system-path.h"
#include "ns3/talb-collective.h"
#include "ns3/talb-comm-scheduler.h"
#include "ns3/talb-flow-size-cdf.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-model-zoo.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-pfc.h"
#include "ns3/talb-priority-queue.h"
#include "ns3/talb-rdma-transport.h"
#include "ns3/talb-switch.h"
#include "ns3/talb-tcp-message-channel.h"
#include "ns3/talb-training-job.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"
#include "ns3/uinteger.h"

#ifdef NS3_MPI
#include "ns3/mpi-interface.h"
#include "ns3/mpi-receiver.h"
#endif

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unordered_map>

#ifndef TALB_DATA_DIR
#define TALB_DATA_DIR "data"
#endif

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

bool
FileExists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/// Data directory: $TALB_DATA_DIR, else the source tree's data/ known at build time.
std::string
DataDir()
{
    const char* env = std::getenv("TALB_DATA_DIR");
    return env ? env : TALB_DATA_DIR;
}

std::string
CdfPath(const std::string& spec)
{
    if (spec == "websearch")
    {
        return SystemPath::Append(DataDir(), "websearch-cdf.txt");
    }
    if (spec == "datamining")
    {
        return SystemPath::Append(DataDir(), "fbhadoop-cdf.txt");
    }
    return spec;
}

/// "Name=Value;..." into pairs. \return an error naming the bad item, or empty
std::string
ParseAttributeList(const std::string& text, std::vector<std::pair<std::string, std::string>>* out)
{
    for (const auto& kv : TalbParse::Split(text, ';'))
    {
        std::string::size_type eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            return "'" + kv + "' is not Name=Value";
        }
        out->emplace_back(TalbParse::Trim(kv.substr(0, eq)), TalbParse::Trim(kv.substr(eq + 1)));
    }
    return "";
}

/**
 * Check \p value for attribute \p name of \p tid without building the object.
 * \return false when \p tid has no such attribute; else \p error is empty or says what is wrong
 */
bool
CheckAttribute(TypeId tid, const std::string& name, const std::string& value, std::string* error)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return false;
    }
    // ns-3's parsers of numbers and times abort on malformed text: check the text with the
    // module's parsers first, then the value with the attribute's own checker (its range).
    const std::string type = info.checker->GetValueTypeName();
    std::string digits = value.substr(!value.empty() && value[0] == '-' ? 1 : 0);
    uint64_t u;
    double d;
    Time t;
    bool ok = type == "ns3::TimeValue"       ? TalbParse::ParseTime(value, &t)
              : type == "ns3::UintegerValue" ? TalbParse::ParseUint(value, &u)
              : type == "ns3::IntegerValue"  ? TalbParse::ParseUint(digits, &u)
              : type == "ns3::DoubleValue"   ? TalbParse::ParseDouble(value, &d)
                                             : true;
    // ... and they abort on text with a blank inside, which only strings may hold.
    ok = ok && (type == "ns3::StringValue" || !TalbParse::HasBlank(value)) &&
         info.checker->CreateValidValue(StringValue(value)) != nullptr;
    *error = ok ? "" : name + "='" + value + "' is not a valid value for " + tid.GetName();
    return true;
}

/// Check every pair of \p attributes against the plug-in \p name of \p registry.
void
CheckPluginAttributes(const TalbRegistry& registry,
                      const std::string& name,
                      const std::vector<std::pair<std::string, std::string>>& attributes,
                      const std::string& where,
                      std::vector<std::string>* errors)
{
    TypeId tid;
    std::string error;
    if (!registry.Lookup(name, &tid, &error))
    {
        errors->push_back(where + error);
        return;
    }
    for (const auto& kv : attributes)
    {
        if (!CheckAttribute(tid, kv.first, kv.second, &error))
        {
            errors->push_back(where + tid.GetName() + " has no attribute '" + kv.first + "'");
        }
        else if (!error.empty())
        {
            errors->push_back(where + error);
        }
    }
}

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

/// Collects what the comparison table needs while the writer streams the CSVs.
struct Collector
{
    std::vector<double> tensorFct;
    std::vector<double> highPrioFct;
    std::vector<double> backgroundFct;
    std::map<std::pair<uint32_t, uint32_t>, double> iterationMax; //!< (job, iteration) → s
    uint64_t iterations{0};
    uint64_t expected{0};
    uint64_t delivered{0};
    bool stopWhenDone{true};  //!< stop the simulation once every worker finished
    uint64_t expectedHere{0}; //!< worker-iterations of this rank's jobs
    uint64_t iterationsHere{0};
    /// After the last iteration: the jobs' last reports take effect within their controlDelay.
    Time settle;
    Time lastEnd; //!< the latest iteration end here

    /// \return whether this rank's workers are done and their reports have taken effect
    bool DoneHere() const
    {
        return iterationsHere == expectedHere && Simulator::Now() >= lastEnd + settle;
    }

    void Flow(const TalbFlowRecord& r)
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

    void Iteration(const TalbIterationRecord& r)
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

    void Rx(Ptr<const Packet>)
    {
        ++delivered;
    }
};

/**
 * Packets that started a link transmission, over every point-to-point device of every node. Every
 * packet a device sends passes its transmit queue, so the queues' counters give the count
 * without a per-packet trace sink: received - dropped - still queued.
 */
uint64_t
CountPacketHops(uint64_t* remoteHops)
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

/// Stage 2a: the fabric's parameters, link overrides and failures.
void
ParseFabric(const TalbScenarioConfig& c, TalbScenario::Spec* s, std::vector<std::string>* errors)
{
    s->leaves = c.GetUint("leaves");
    s->spines = c.GetUint("spines");
    s->hostsPerLeaf = c.GetUint("hostsPerLeaf");
    s->hostRate = c.GetRate("hostRate");
    s->fabricRate = c.GetRate("fabricRate");
    s->oversubscription = c.GetDouble("oversubscription");
    s->linkDelay = c.GetTime("linkDelay");
    s->mtu = c.GetUint("mtu");
    s->queueSize = c.GetString("queueSize");
    s->hostQueueSize = c.GetString("hostQueueSize");
    s->untaggedBand = c.GetUint("untaggedBand");
    s->dwrr = c.GetString("portScheduling") == "dwrr";
    s->trainingWeight = c.GetUint("trainingWeight");
    s->bestEffortWeight = c.GetUint("bestEffortWeight");
    s->ecnThreshold = c.GetString("ecnThreshold");
    std::string beBuffer = c.GetString("bestEffortBuffer");
    if (!beBuffer.empty())
    {
        QueueSize size(beBuffer);
        if (size.GetUnit() != QueueSizeUnit::BYTES || size.GetValue() == 0)
        {
            errors->push_back("bestEffortBuffer: '" + beBuffer +
                              "' is not a positive byte size (e.g. 300KB)");
        }
        s->bestEffortBuffer = size.GetValue();
    }
    s->stockRouting = c.GetBool("stockRouting");
    std::string rates =
        TalbLeafSpineHelper::ParseLinkRates(c.GetString("linkRates"), &s->linkRates);
    std::string failures =
        TalbLeafSpineHelper::ParseLinkFailures(c.GetString("failLink"), &s->linkFailures);
    std::string flaps = TalbLeafSpineHelper::ParseLinkFlaps(c.GetString("flapLink"), &s->linkFlaps);
    // Every named link must exist: leaf < leaves, spine < spines.
    auto checkLinks = [&](const char* param, const std::string& error, auto& links) {
        if (!error.empty())
        {
            errors->push_back(std::string(param) + ": " + error);
        }
        for (const auto& l : links)
        {
            if (l.leaf >= s->leaves || l.spine >= s->spines)
            {
                errors->push_back(std::string(param) + ": link " + std::to_string(l.leaf) + ":" +
                                  std::to_string(l.spine) + " is outside the fabric (" +
                                  std::to_string(s->leaves) + " leaves x " +
                                  std::to_string(s->spines) + " spines)");
            }
        }
    };
    checkLinks("linkRates", rates, s->linkRates);
    checkLinks("failLink", failures, s->linkFailures);
    checkLinks("flapLink", flaps, s->linkFlaps);
    // A flap restores its link, which would silently undo a permanent failure of it.
    for (const auto& fl : s->linkFlaps)
    {
        for (const auto& f : s->linkFailures)
        {
            if (f.leaf == fl.leaf && f.spine == fl.spine)
            {
                errors->push_back("flapLink: link " + std::to_string(f.leaf) + ":" +
                                  std::to_string(f.spine) + " also fails in failLink");
            }
        }
    }
}

/// \return the balancer settings lbProfile=transport applies under lbAttributes: over RoCEv2,
/// TaLB's congestion moves while the ports are shared, with the queue moves that follow a local
/// burst (doc/talb-switch.rst, "Moves by congestion": the fastest or within 2 % of the best other
/// scheme in all but one RDMA cell of the evaluation, where the attribute defaults were up to
/// 5 % behind); over TCP, sprayed packets that count a path the leaf-to-leaf feedback reports
/// saturated as 30000 bytes more queue while another job shares the ports ("Spreading under
/// contention": the mixed-job cells 3.7 % and 9.6 % faster; the congestion rule costs up to 2.8 %
/// with background there).
std::vector<std::pair<std::string, std::string>>
TransportLbProfile(bool rdma)
{
    if (!rdma)
    {
        return {{"RemoteSprayBytes", "30000"}};
    }
    return {{"Moves", "Contended"},
            {"RemoteAwareness", "true"},
            {"ActiveWindow", "1ms"},
            {"MinMoveInterval", "200us"},
            {"QueueMoves", "true"}};
}

/// \return \p list as lbAttributes writes it, Name=Value;...
std::string
AttributeListText(const std::vector<std::pair<std::string, std::string>>& list)
{
    std::string text;
    for (const auto& kv : list)
    {
        text += (text.empty() ? "" : ";") + kv.first + "=" + kv.second;
    }
    return text;
}

/// \return the factory of balancer \p lb with the profile's attributes and then the
/// lbAttributes it has (the others are skipped: ParseRouting() checked that each lbAttributes
/// one belongs to some balancer of the comparison)
ObjectFactory
LoadBalancerFactory(const TalbScenario::Spec& s, const std::string& lb)
{
    TypeId tid = TalbLoadBalancer::GetRegistry().Get(lb);
    ObjectFactory factory(tid.GetName());
    for (const auto* list : {&s.lbProfileAttributes, &s.lbAttributes})
    {
        for (const auto& kv : *list)
        {
            TypeId::AttributeInformation info;
            if (tid.LookupAttributeByName(kv.first, &info))
            {
                factory.Set(kv.first, StringValue(kv.second));
            }
        }
    }
    return factory;
}

/// Stage 2b: load balancers and their attributes; an attribute applies to the balancers that
/// have it, so one lbAttributes value can serve a comparison.
void
ParseRouting(const TalbScenarioConfig& c, TalbScenario::Spec* s, std::vector<std::string>* errors)
{
    s->lbs = c.GetNames("lb");
    s->tcpVariant = c.GetString("tcp") == "dctcp" ? "ns3::TcpDctcp" : "ns3::TcpNewReno";
    s->sndBuf = static_cast<uint32_t>(c.GetUint("sndBuf"));
    s->rcvBuf = static_cast<uint32_t>(c.GetUint("rcvBuf"));
    s->hostQdisc = c.GetString("hostQdisc");
    std::string err = ParseAttributeList(c.GetString("lbAttributes"), &s->lbAttributes);
    if (!err.empty())
    {
        errors->push_back("lbAttributes: " + err);
    }
    // The hosts carry the scenario transport's stack: ns-3 TCP/IP, or a RoCEv2 NIC without IP.
    TypeId transport;
    std::string unknown;
    if (TalbTransport::GetRegistry().Lookup(c.GetString("transport"), &transport, &unknown))
    {
        s->rdmaHosts = transport == TalbRdmaTransport::GetTypeId();
    }
    if (c.GetString("lbProfile") == "transport")
    {
        s->lbProfileAttributes = TransportLbProfile(s->rdmaHosts);
    }
    for (const auto& kv : s->lbAttributes)
    {
        bool someoneHasIt = false;
        for (const auto& lb : s->lbs)
        {
            std::string error;
            if (CheckAttribute(TalbLoadBalancer::GetRegistry().Get(lb),
                               kv.first,
                               kv.second,
                               &error))
            {
                someoneHasIt = true;
                if (!error.empty())
                {
                    errors->push_back("lbAttributes: " + error);
                }
            }
        }
        if (!someoneHasIt)
        {
            errors->push_back("lbAttributes: no load balancer of lb has an attribute '" + kv.first +
                              "'");
        }
    }
    if (!errors->empty())
    {
        return;
    }
    // Values each attribute accepts can still clash (a fallback that cannot be one): ask each
    // balancer as its leaves will, before anything is built.
    TalbSwitchInfo leaf;
    leaf.nLeaves = s->leaves;
    leaf.nSpines = s->spines;
    for (const auto& lb : s->lbs)
    {
        std::string error =
            LoadBalancerFactory(*s, lb).Create<TalbLoadBalancer>()->CheckConfiguration(leaf);
        if (!error.empty())
        {
            std::string profile = AttributeListText(s->lbProfileAttributes);
            errors->push_back("lbAttributes: lb " + lb + ": " + error +
                              (profile.empty() ? ""
                                               : " (lbProfile=transport sets " + profile +
                                                     " first; lbProfile=none does not)"));
        }
    }
}

/// Stage 2c, one job: its model (loaded here), plug-in names and attributes, device.
void
CheckJob(TalbScenario::JobSpec* job, const std::string& where, std::vector<std::string>* errors)
{
    std::string error;
    if (!TalbModelZoo::TryResolve(job->modelName, &job->model, &error))
    {
        errors->push_back(where + error);
    }
    size_t before = errors->size();
    CheckPluginAttributes(TalbCommScheduler::GetRegistry(),
                          job->scheduler,
                          job->schedulerAttributes,
                          where,
                          errors);
    // Attribute combinations the scheduler refuses (Credit below PartitionSize, ...), once each
    // value is valid on its own.
    TypeId scheduler;
    if (before == errors->size() &&
        TalbCommScheduler::GetRegistry().Lookup(job->scheduler, &scheduler, &error))
    {
        ObjectFactory factory(scheduler.GetName());
        for (const auto& kv : job->schedulerAttributes)
        {
            factory.Set(kv.first, StringValue(kv.second));
        }
        if (!factory.Create<TalbCommScheduler>()->CheckAttributes(&error))
        {
            errors->push_back(where + error);
        }
    }
    CheckPluginAttributes(TalbCollective::GetRegistry(),
                          job->collective,
                          job->collectiveAttributes,
                          where,
                          errors);
    CheckPluginAttributes(TalbTransport::GetRegistry(),
                          job->transport,
                          job->transportAttributes,
                          where,
                          errors);
    if (!TalbComputeModel::HasPreset(job->device))
    {
        errors->push_back(where + "unknown device '" + job->device +
                          "' (valid: " + TalbComputeModel::PresetNames() + ")");
    }
}

/// Stage 2c: the jobs, with every default filled in, and whether they fit on the hosts.
void
ParseTraining(const TalbScenarioConfig& c, TalbScenario::Spec* s, std::vector<std::string>* errors)
{
    TalbScenario::JobSpec defaults;
    defaults.modelName = c.GetString("model");
    defaults.scheduler = "fusion";
    defaults.collective = "ring";
    defaults.transport = c.GetString("transport");
    defaults.iterations = c.GetUint("iterations");
    defaults.batch = c.GetUint("batch");
    defaults.device = c.GetString("device");
    defaults.precision = c.GetString("precision");
    s->placement = c.GetString("placement");
    s->warmup = c.GetUint("warmup");
    s->controlDelay = c.GetTime("controlDelay");
    if (s->controlDelay.IsStrictlyNegative() || s->controlDelay > Seconds(1))
    {
        errors->push_back("controlDelay: must lie in [0s, 1s]");
    }
    std::string err = TalbScenario::ParseJobs(c.GetString("jobs"), defaults, &s->jobs);
    if (!err.empty())
    {
        errors->push_back("jobs: " + err);
        return;
    }
    // s->rdmaHosts: ParseRouting() looked the scenario's transport up.
    std::string unknown;
    uint64_t workers = 0;
    for (size_t j = 0; j < s->jobs.size(); ++j)
    {
        std::string where = "jobs: job " + std::to_string(j + 1) + ": ";
        workers += s->jobs[j].workers;
        CheckJob(&s->jobs[j], where, errors);
        TypeId tid;
        if (TalbTransport::GetRegistry().Lookup(s->jobs[j].transport, &tid, &unknown) &&
            (tid == TalbRdmaTransport::GetTypeId()) != s->rdmaHosts)
        {
            errors->push_back(where + "transport '" + s->jobs[j].transport +
                              "' does not run on the hosts of transport '" + defaults.transport +
                              "' (one fabric: set transport for the whole scenario)");
        }
    }
    s->rdmaQueuePairs = c.GetString("rdmaQueuePairs");
    s->rdmaTrafficClass = c.GetString("rdmaTrafficClass");
    if (s->rdmaHosts && s->stockRouting)
    {
        errors->push_back("stockRouting needs IP on the switches: it works with transport tcp");
    }
    if (s->jobs.size() >= TALB_MAX_JOBS)
    {
        errors->push_back("jobs: at most " + std::to_string(TALB_MAX_JOBS - 1) + " jobs");
    }
    uint64_t hosts = uint64_t(s->leaves) * s->hostsPerLeaf;
    if (workers > hosts)
    {
        errors->push_back("jobs need " + std::to_string(workers) + " workers but the fabric has " +
                          std::to_string(hosts) + " hosts (leaves x hostsPerLeaf)");
    }
}

/// Stage 2d: background traffic and the run's limits and outputs.
void
ParseRun(const TalbScenarioConfig& c, TalbScenario::Spec* s, std::vector<std::string>* errors)
{
    s->bgLoad = c.GetDouble("bgLoad");
    s->bgCdfPath = CdfPath(c.GetString("bgCdf"));
    if (s->bgLoad > 0 && !FileExists(s->bgCdfPath))
    {
        errors->push_back("bgCdf: no such file '" + s->bgCdfPath +
                          "' (websearch, datamining or a path; set TALB_DATA_DIR to find the "
                          "shipped ones)");
    }
    if (s->bgLoad > 0 && FileExists(s->bgCdfPath))
    {
        // Read now: a malformed file would otherwise abort when the background starts.
        TalbFlowSizeCdf cdf;
        std::string error;
        if (!TalbFlowSizeCdf::TryLoad(s->bgCdfPath, &cdf, &error))
        {
            errors->push_back("bgCdf: " + error);
        }
    }
    s->seed = c.GetUint("seed");
    s->duration = c.GetTime("duration");
    s->stopTime = c.GetTime("stopTime");
    s->progress = c.GetBool("progress");
    s->out = c.GetString("out");
    if (s->jobs.empty() && s->duration.IsZero())
    {
        errors->push_back("with no jobs, set duration");
    }
    if (s->out.empty())
    {
        errors->push_back("out: name an output folder");
    }
    s->parametersJson = c.ToJson();
}

/// What one run builds and keeps alive until it has been simulated.
/**
 * Distributed runs: carries the reports of jobs whose workers span ranks
 * (TalbTrainingJob::SetReportCallback) to the job's copies on the other ranks, through ns-3's
 * MPI interface, arriving report time + controlDelay (at least the lookahead). Each rank
 * receives on an MpiReceiver aggregated to its first host's device, which is on a local
 * channel and so has none of its own.
 */
struct RankLink
{
    std::vector<std::pair<uint32_t, uint32_t>> address; //!< per rank: (node id, device index)
    std::map<uint32_t, Ptr<TalbTrainingJob>> jobs;      //!< job id → this rank's copy
    std::map<uint32_t, std::vector<uint32_t>> peers;    //!< job id → the other ranks with workers
    uint32_t rank{0};
    Time delay;
};

/**
 * Ideal FCT of a flow: one RTT with its first packet, then its wire bytes at the bottleneck rate
 * of its path. Asked once per message (millions in a large run), so hosts are found by hash; the
 * fabric remembers base RTTs and bottleneck rates.
 */
struct IdealFctModel
{
    Ptr<TalbLeafSpineHelper> fabric;
    std::unordered_map<uint32_t, uint32_t> hostOf; //!< address → host index
    uint32_t mssBytes{0};                          //!< payload bytes of a full packet
    uint32_t headerBytes{0};                       //!< wire bytes around each packet's payload

    Time Ideal(const TalbFlowRecord& r) const
    {
        uint32_t src = hostOf.at(r.src.Get());
        uint32_t dst = hostOf.at(r.dst.Get());
        uint64_t packets = (r.sizeBytes + mssBytes - 1) / mssBytes;
        uint64_t wire = r.sizeBytes + packets * headerBytes;
        uint32_t first = static_cast<uint32_t>(std::min<uint64_t>(r.sizeBytes, mssBytes));
        return fabric->GetBaseRtt(src, dst, first + headerBytes, 66) +
               fabric->GetBottleneckRate(src, dst).CalculateBytesTxTime(wire);
    }
};

struct Build
{
    std::unique_ptr<RankLink> link; //!< jobs across ranks only
    Ptr<TalbLeafSpineHelper> fabric;
    Ptr<TalbOutputWriter> writer;
    Collector collector;
    IdealFctModel ideal;                    //!< the writer's ideal FCTs
    std::vector<Ptr<TalbTrainingJob>> jobs; //!< this rank's jobs, for their transports' counters
    int64_t stream{0};                      //!< next free RNG stream
};

/// Stage 3a: ns-3 defaults for the hosts' TCP and the switches' queues.
void
ConfigureDefaults(const TalbScenario::Spec& s)
{
    RngSeedManager::SetRun(s.seed);
    // The hosts' TCP: Linux-like buffers and timers, the same in every talb program and test.
    Ptr<TalbHostConfig> host = CreateObject<TalbHostConfig>();
    host->SetAttribute("SndBufSize", UintegerValue(s.sndBuf));
    host->SetAttribute("RcvBufSize", UintegerValue(s.rcvBuf));
    host->Apply(s.mtu);
    Config::SetDefault("ns3::TalbPriorityQueue::UntaggedBand", UintegerValue(s.untaggedBand));
    Config::SetDefault("ns3::TalbPriorityQueue::Scheduling",
                       EnumValue(s.dwrr ? TalbPriorityQueue::DWRR : TalbPriorityQueue::STRICT));
    Config::SetDefault("ns3::TalbPriorityQueue::TrainingWeight", UintegerValue(s.trainingWeight));
    Config::SetDefault("ns3::TalbPriorityQueue::BestEffortWeight",
                       UintegerValue(s.bestEffortWeight));
    // Every RDMA job's (a job's trans.<Attribute> still overrides them).
    std::string queuePairs = s.rdmaQueuePairs;
    queuePairs[0] = static_cast<char>(std::toupper(queuePairs[0]));
    Config::SetDefault("ns3::TalbRdmaTransport::QueuePairs", StringValue(queuePairs));
    bool fixed = s.rdmaTrafficClass != "tensor";
    Config::SetDefault("ns3::TalbRdmaTransport::TrafficClass",
                       StringValue(fixed ? "Fixed" : "Tensor"));
    if (fixed)
    {
        Config::SetDefault("ns3::TalbRdmaTransport::FixedClass", StringValue(s.rdmaTrafficClass));
    }
}

/// The port queue of a switch device (either kind of link), or null.
Ptr<TalbPriorityQueue>
PortQueue(Ptr<NetDevice> dev)
{
    if (Ptr<TalbPfcNetDevice> pfc = DynamicCast<TalbPfcNetDevice>(dev))
    {
        return pfc->GetQueue();
    }
    Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
    return p2p ? DynamicCast<TalbPriorityQueue>(p2p->GetQueue()) : nullptr;
}

/// Stage 3b: the leaf-spine fabric with load balancer \p lb, installed, streams assigned.
Ptr<TalbLeafSpineHelper>
BuildFabric(const TalbScenario::Spec& s, const std::string& lb)
{
    Ptr<TalbLeafSpineHelper> fabric = CreateObject<TalbLeafSpineHelper>();
    fabric->SetAttribute("Leaves", UintegerValue(s.leaves));
    fabric->SetAttribute("Spines", UintegerValue(s.spines));
    fabric->SetAttribute("HostsPerLeaf", UintegerValue(s.hostsPerLeaf));
    fabric->SetAttribute("HostRate", DataRateValue(s.hostRate));
    fabric->SetAttribute("FabricRate", DataRateValue(s.fabricRate));
    fabric->SetAttribute("LinkDelay", TimeValue(s.linkDelay));
    fabric->SetAttribute("Mtu", UintegerValue(s.mtu));
    fabric->SetAttribute("StockRouting", BooleanValue(s.stockRouting));
    fabric->SetAttribute("TcpVariant", StringValue(s.tcpVariant));
    fabric->SetAttribute("Ranks", UintegerValue(s.ranks));
    if (s.rdmaHosts)
    {
        fabric->SetAttribute("Transport", StringValue("rdma"));
    }
    if (!s.queueSize.empty())
    {
        fabric->SetAttribute("QueueSize", StringValue(s.queueSize));
    }
    fabric->SetAttribute("HostQueueSize", StringValue(s.hostQueueSize));
    if (!s.ecnThreshold.empty())
    {
        fabric->SetAttribute("EcnThreshold", StringValue(s.ecnThreshold));
    }
    if (s.oversubscription > 0)
    {
        fabric->SetOversubscription(s.oversubscription);
    }
    for (const auto& r : s.linkRates)
    {
        fabric->SetLinkRate(r.leaf, r.spine, r.rate);
    }
    for (const auto& f : s.linkFailures)
    {
        fabric->SetLinkFailure(f.leaf, f.spine, f.at);
    }
    for (const auto& f : s.linkFlaps)
    {
        fabric->SetLinkFlap(f.leaf, f.spine, f.start, f.down, f.up);
    }
    fabric->SetLoadBalancerFactory(LoadBalancerFactory(s, lb));
    fabric->Install();
    if (!s.rdmaHosts)
    {
        Ptr<TalbHostConfig> host = CreateObject<TalbHostConfig>();
        host->SetAttribute("Qdisc", StringValue(s.hostQdisc));
        for (uint32_t i = 0; i < fabric->GetNHosts(); ++i)
        {
            host->ConfigureNic(fabric->GetHostDevice(i));
        }
    }
    // Switch ports only: hosts do not drop their own packets (see hostQueueSize).
    for (uint32_t i = 0; s.bestEffortBuffer > 0 && i < s.leaves + s.spines; ++i)
    {
        Ptr<Node> node = i < s.leaves ? fabric->GetLeafNode(i) : fabric->GetSpineNode(i - s.leaves);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            if (Ptr<TalbPriorityQueue> q = PortQueue(node->GetDevice(d)))
            {
                q->SetAttribute("BestEffortMaxBytes", UintegerValue(s.bestEffortBuffer));
            }
        }
    }
    return fabric;
}

/// Stage 3c: the output files, and the ideal FCT of a flow on this fabric.
void
OpenOutputs(const TalbScenario::Spec& s, const std::string& lb, const std::string& outDir, Build* b)
{
    b->ideal.fabric = b->fabric;
    for (uint32_t i = 0; i < b->fabric->GetNHosts(); ++i)
    {
        b->ideal.hostOf[b->fabric->GetHostAddress(i).Get()] = i;
    }
    b->writer = CreateObject<TalbOutputWriter>();
    b->writer->Open(outDir);
    b->writer->SetScheme(s.stockRouting ? "stock-ecmp" : lb);
    b->writer->SetSeed(s.seed);
    // Per packet: IP + TCP with timestamps + PPP, or IP + UDP + BTH + ICRC + Ethernet + PHY.
    b->ideal.mssBytes = s.mtu - TalbHostConfig::HEADER_BYTES;
    b->ideal.headerBytes = 52 + 2;
    if (s.rdmaHosts)
    {
        b->ideal.mssBytes = b->fabric->GetRdmaNic(0)->GetMtu();
        b->ideal.headerBytes = b->fabric->GetRdmaHelper()->GetDeviceMtu() - b->ideal.mssBytes +
                               TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
    }
    b->writer->SetIdealFctCallback(MakeCallback(&IdealFctModel::Ideal, &b->ideal));
}

/// The helper that installs job \p j of \p spec.
TalbTrainingJobHelper
MakeJobHelper(const TalbScenario::JobSpec& spec, uint32_t j)
{
    TalbTrainingJobHelper helper;
    helper.SetModel(spec.model);
    helper.SetJobAttribute("JobId", UintegerValue(j));
    helper.SetJobAttribute("Iterations", UintegerValue(spec.iterations));
    helper.SetJobAttribute("BatchSize", UintegerValue(spec.batch));
    helper.SetJobAttribute("Device", StringValue(spec.device));
    helper.SetJobAttribute("Precision", StringValue(spec.precision));
    helper.SetScheduler(spec.scheduler);
    for (const auto& kv : spec.schedulerAttributes)
    {
        helper.SetSchedulerAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetCollective(spec.collective);
    for (const auto& kv : spec.collectiveAttributes)
    {
        helper.SetCollectiveAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetTransport(spec.transport);
    for (const auto& kv : spec.transportAttributes)
    {
        helper.SetTransportAttribute(kv.first, StringValue(kv.second));
    }
    helper.SetStartTime(spec.start);
    return helper;
}

/// Stage 3 (first): each job's ideal iteration on an idle non-blocking fabric of host links.
void
ComputeIdeals(const TalbScenario::Spec& s, TalbScenario::Result* r)
{
    for (uint32_t j = 0; j < s.jobs.size(); ++j)
    {
        TalbIdealIteration::Result ideal =
            MakeJobHelper(s.jobs[j], j).ComputeIdealIteration(s.jobs[j].workers, s.hostRate);
        TalbScenario::JobIdeal out;
        out.known = ideal.known;
        out.iterationMs = ideal.known ? ideal.GetMean(s.warmup).GetSeconds() * 1e3 : 0;
        out.computeMs = ideal.compute.GetSeconds() * 1e3;
        out.communicationMs = ideal.known ? ideal.communication.GetSeconds() * 1e3 : 0;
        r->ideals.push_back(out);
    }
}

/// run.json's "jobs": per job, the ideal and (once measured) the mean iteration.
std::string
JobsJson(const TalbScenario::Result& r)
{
    std::ostringstream os;
    // Enough digits for readers that recompute the table's figures (talb-testbed-table.py).
    os << std::setprecision(15) << "[";
    for (std::size_t j = 0; j < r.ideals.size(); ++j)
    {
        const TalbScenario::JobIdeal& i = r.ideals[j];
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
        os << "}";
    }
    os << "]";
    return os.str();
}

/// A job report on the wire between ranks: job, kind, worker, iteration, item, time.
constexpr uint32_t REPORT_BYTES = 1 + 1 + 4 + 4 + 4 + 8;

#ifdef NS3_MPI
void
SendReport(RankLink* link, uint32_t job, const TalbTrainingJob::Report& r)
{
    uint8_t buf[REPORT_BYTES];
    Buffer b;
    b.AddAtStart(REPORT_BYTES);
    Buffer::Iterator it = b.Begin();
    it.WriteU8(uint8_t(job));
    it.WriteU8(uint8_t(r.kind));
    it.WriteHtonU32(r.worker);
    it.WriteHtonU32(r.iteration);
    it.WriteHtonU32(r.item);
    it.WriteHtonU64(uint64_t(r.time.GetTimeStep()));
    b.CopyData(buf, REPORT_BYTES);
    Ptr<Packet> p = Create<Packet>(buf, REPORT_BYTES);
    for (uint32_t rank : link->peers.at(job))
    {
        const auto& a = link->address[rank];
        MpiInterface::SendPacket(p, r.time + link->delay, a.first, a.second);
    }
}

void
ReceiveReport(RankLink* link, Ptr<Packet> p)
{
    NS_ABORT_MSG_IF(p->GetSize() != REPORT_BYTES,
                    "talb-scenario: a job report of " << p->GetSize() << " bytes");
    uint8_t buf[REPORT_BYTES];
    p->CopyData(buf, REPORT_BYTES);
    Buffer b;
    b.AddAtStart(REPORT_BYTES);
    b.Begin().Write(buf, REPORT_BYTES);
    Buffer::Iterator it = b.Begin();
    uint32_t job = it.ReadU8();
    TalbTrainingJob::Report r;
    r.kind = TalbTrainingJob::Report::Kind(it.ReadU8());
    r.worker = it.ReadNtohU32();
    r.iteration = it.ReadNtohU32();
    r.item = it.ReadNtohU32();
    r.time = TimeStep(it.ReadNtohU64());
    auto j = link->jobs.find(job);
    NS_ABORT_MSG_IF(j == link->jobs.end(),
                    "talb-scenario: a report of job " << job << ", not on this rank");
    j->second->ApplyRemoteReport(r);
}
#endif

/**
 * Stage 3d, distributed: connect this rank's copy of job \p j, whose workers are on \p ranks,
 * to its copies on the other ranks.
 */
void
LinkJobAcrossRanks(const TalbScenario::Spec& s,
                   Build* b,
                   uint32_t j,
                   Ptr<TalbTrainingJob> job,
                   const std::set<uint32_t>& ranks)
{
#ifdef NS3_MPI
    if (!b->link)
    {
        b->link = std::make_unique<RankLink>();
        RankLink* link = b->link.get();
        link->rank = s.rank;
        link->delay = s.controlDelay;
        link->address.assign(s.ranks, {0, 0});
        std::vector<bool> found(s.ranks, false);
        for (uint32_t h = 0; h < b->fabric->GetNHosts(); ++h)
        {
            Ptr<NetDevice> dev = b->fabric->GetHostDevice(h);
            uint32_t rank = dev->GetNode()->GetSystemId();
            if (!found[rank])
            {
                found[rank] = true;
                link->address[rank] = {dev->GetNode()->GetId(), dev->GetIfIndex()};
                if (rank == s.rank)
                {
                    Ptr<MpiReceiver> receiver = CreateObject<MpiReceiver>();
                    receiver->SetReceiveCallback(MakeBoundCallback(&ReceiveReport, link));
                    dev->AggregateObject(receiver);
                }
            }
        }
    }
    RankLink* link = b->link.get();
    link->jobs[j] = job;
    for (uint32_t r : ranks)
    {
        if (r != s.rank)
        {
            link->peers[j].push_back(r);
        }
    }
    job->SetReportCallback(MakeBoundCallback(&SendReport, link, j));
#else
    (void)s;
    (void)b;
    (void)job;
    (void)ranks;
    NS_FATAL_ERROR("talb-scenario: job " << j << " spans ranks in a build without MPI");
#endif
}

/// Stage 3d: the training jobs, placed on the hosts, traced into the outputs.
void
InstallJobs(const TalbScenario::Spec& s, Build* b)
{
    std::vector<uint32_t> sizes;
    for (const auto& j : s.jobs)
    {
        sizes.push_back(j.workers);
    }
    std::vector<NodeContainer> placed =
        TalbTrainingJobHelper::Place(b->fabric->GetHosts(), s.hostsPerLeaf, sizes, s.placement);
    for (size_t j = 0; j < s.jobs.size(); ++j)
    {
        const TalbScenario::JobSpec& spec = s.jobs[j];
        TalbTrainingJobHelper helper = MakeJobHelper(spec, j);
        helper.SetJobAttribute("ControlDelay", TimeValue(s.controlDelay));
        b->collector.expected += uint64_t(spec.iterations) * spec.workers;
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
        b->collector.expectedHere += uint64_t(spec.iterations) * here;
        ApplicationContainer apps = helper.Install(placed[j]);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        b->jobs.push_back(job);
        if (ranks.size() > 1)
        {
            LinkJobAcrossRanks(s, b, j, job, ranks);
        }
        b->writer->ConnectJob(job);
        job->TraceConnectWithoutContext("FlowDone", MakeCallback(&Collector::Flow, &b->collector));
        job->TraceConnectWithoutContext("IterationDone",
                                        MakeCallback(&Collector::Iteration, &b->collector));
    }
}

/// Stage 3e: background traffic on every host, and the hosts' received-packet counter.
void
InstallBackground(const TalbScenario::Spec& s, Build* b)
{
    if (s.bgLoad > 0)
    {
        TalbBackgroundTrafficHelper bg(s.bgCdfPath,
                                       s.bgLoad,
                                       std::to_string(s.hostRate.GetBitRate()) + "bps");
        bg.SetStartStop(Seconds(0), s.stopTime);
        ApplicationContainer apps = bg.Install(b->fabric->GetHosts());
        b->stream += TalbBackgroundTrafficHelper::AssignStreams(apps, b->stream);
        b->writer->ConnectBackground(apps);
        for (auto it = apps.Begin(); it != apps.End(); ++it)
        {
            (*it)->TraceConnectWithoutContext("FlowDone",
                                              MakeCallback(&Collector::Flow, &b->collector));
        }
    }
    for (uint32_t i = 0; i < b->fabric->GetNHosts(); ++i)
    {
        b->fabric->GetHostDevice(i)->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&Collector::Rx, &b->collector));
    }
}

/**
 * Distributed runs: every rank calls this at the same simulated times and stops once every
 * rank's jobs had finished at the previous call, so all ranks stop at one simulated time.
 */
void
CheckAllRanksDone(const TalbScenario::Spec* s, const Collector* c, Time period)
{
    if (s->allRanksDone(c->DoneHere(), false))
    {
        Simulator::Stop();
        return;
    }
    Simulator::Schedule(period, &CheckAllRanksDone, s, c, period);
}

/// Stage 3f: simulate until the jobs are done, duration, stopTime or a signal.
void
Simulate(const TalbScenario::Spec& s, const Collector& c, TalbScenario::Result* r)
{
    if (s.distributed)
    {
        // Longer than the lookahead: when a rank waits for the previous exchange, every other
        // rank has passed the time it started it.
        Time period = std::max(MicroSeconds(100), 2 * s.linkDelay);
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

/// Stage 3g: the comparison table's figures from what the collector saw.
void
Summarize(const TalbScenario::Spec& s, const Collector& c, TalbScenario::Result* r)
{
    r->simSeconds = Simulator::Now().GetSeconds();
    std::vector<double> tensorFct = c.tensorFct;
    std::vector<double> highPrioFct = c.highPrioFct;
    std::vector<double> backgroundFct = c.backgroundFct;
    std::map<std::pair<uint32_t, uint32_t>, double> iterationMax = c.iterationMax;
    uint64_t remoteHops = 0;
    uint64_t hops = CountPacketHops(&remoteHops);
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
                const TalbScenario::JobIdeal& ideal = r->ideals[kv.first.first];
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

/**
 * What the switches counted: per-class queue counters over every switch port, egress drops and
 * PFC state. Distributed runs: each rank counts the switches it simulates (the others' queues
 * stay empty), summed over the ranks (peaks: the largest).
 */
TalbOutputWriter::SwitchCounters
SumSwitchCounters(const TalbScenario::Spec& s, Ptr<TalbLeafSpineHelper> fabric)
{
    TalbOutputWriter::SwitchCounters out;
    std::vector<Ptr<Node>> nodes;
    std::vector<Ptr<TalbSwitch>> switches;
    for (uint32_t i = 0; i < s.leaves; ++i)
    {
        nodes.push_back(fabric->GetLeafNode(i));
        switches.push_back(fabric->GetLeafSwitch(i));
    }
    for (uint32_t i = 0; i < s.spines; ++i)
    {
        nodes.push_back(fabric->GetSpineNode(i));
        switches.push_back(fabric->GetSpineSwitch(i));
    }
    std::vector<uint64_t> sums;
    std::vector<double> peaks;
    TalbOutputWriter::ClassCounters* classes[] = {&out.training, &out.bestEffort};
    for (uint8_t cls = 0; cls < TalbPriorityQueue::NUM_CLASSES; ++cls)
    {
        TalbOutputWriter::ClassCounters& c = *classes[cls];
        for (const auto& node : nodes)
        {
            for (uint32_t d = 0; d < node->GetNDevices(); ++d)
            {
                Ptr<TalbPriorityQueue> q = PortQueue(node->GetDevice(d));
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
                c.markedPackets += st.markedPackets;
                c.otherBytesAtDrops += st.otherBytesAtDrops;
                c.peakBytes = std::max<uint64_t>(c.peakBytes, st.peakBytes);
            }
        }
        sums.insert(sums.end(),
                    {c.enqueuedPackets,
                     c.enqueuedBytes,
                     c.dequeuedPackets,
                     c.dequeuedBytes,
                     c.droppedPackets,
                     c.droppedBytes,
                     c.capDrops,
                     c.markedPackets,
                     c.otherBytesAtDrops});
        peaks.push_back(double(c.peakBytes));
    }
    TalbOutputWriter::PfcCounters& p = out.pfc;
    for (const auto& sw : switches)
    {
        if (!sw)
        {
            continue;
        }
        out.deviceDrops += sw->GetStats().nDropDevice;
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
        for (uint32_t port = 0; port < sw->GetNPorts(); ++port)
        {
            Ptr<TalbPriorityQueue> q = PortQueue(sw->GetPort(port).device);
            for (uint8_t prio = 0; prio < TALB_NUM_PRIORITIES; ++prio)
            {
                if (!pfc->IsLossless(prio))
                {
                    continue;
                }
                p.pausingAtEnd += pfc->IsPausing(port, prio);
                p.chargedBytesAtEnd += pfc->GetIngressBytes(port, prio);
                uint32_t peak = pfc->GetMaxIngressBytes(port, prio);
                p.maxChargeBytes = std::max<uint64_t>(p.maxChargeBytes, peak);
                p.withinHeadroom =
                    p.withinHeadroom && peak <= pfc->GetXoff() + pfc->GetHeadroom(port);
                p.queuedBytesAtEnd += q ? q->GetBandBytes(prio) : 0;
                if (q && prio == q->GetUntaggedBand())
                {
                    p.queuedBytesAtEnd += q->GetBestEffortBytes();
                }
            }
        }
    }
    sums.insert(sums.end(),
                {out.deviceDrops,
                 uint64_t(p.installed),
                 p.pauseStarts,
                 p.pausesSent,
                 p.resumes,
                 p.pausingAtEnd,
                 p.headroomDrops,
                 p.chargedBytesAtEnd,
                 p.queuedBytesAtEnd,
                 uint64_t(!p.withinHeadroom)});
    peaks.push_back(double(p.maxChargeBytes));
    if (!s.distributed)
    {
        return out;
    }
    s.sumOverRanks(&sums);
    std::vector<double> all = peaks;
    s.gatherOverRanks(&all);
    for (std::size_t k = 0; k < all.size(); ++k)
    {
        peaks[k % peaks.size()] = std::max(peaks[k % peaks.size()], all[k]);
    }
    std::size_t k = 0;
    for (uint8_t cls = 0; cls < TalbPriorityQueue::NUM_CLASSES; ++cls)
    {
        TalbOutputWriter::ClassCounters& c = *classes[cls];
        for (uint64_t* f : {&c.enqueuedPackets,
                            &c.enqueuedBytes,
                            &c.dequeuedPackets,
                            &c.dequeuedBytes,
                            &c.droppedPackets,
                            &c.droppedBytes,
                            &c.capDrops,
                            &c.markedPackets,
                            &c.otherBytesAtDrops})
        {
            *f = sums[k++];
        }
        c.peakBytes = uint64_t(peaks[cls]);
    }
    out.deviceDrops = sums[k++];
    p.installed = sums[k++] > 0;
    for (uint64_t* f : {&p.pauseStarts,
                        &p.pausesSent,
                        &p.resumes,
                        &p.pausingAtEnd,
                        &p.headroomDrops,
                        &p.chargedBytesAtEnd,
                        &p.queuedBytesAtEnd})
    {
        *f = sums[k++];
    }
    p.withinHeadroom = sums[k++] == 0;
    p.maxChargeBytes = uint64_t(peaks.back());
    return out;
}

/// Stage 3h: the hosts' go-back-N counters (their queue pairs live until the fabric goes).
TalbOutputWriter::RdmaCounters
SumRdmaCounters(const TalbScenario::Spec& s, Ptr<TalbLeafSpineHelper> fabric)
{
    TalbOutputWriter::RdmaCounters c;
    for (uint32_t i = 0; s.rdmaHosts && i < fabric->GetNHosts(); ++i)
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
        }
    }
    return c;
}

/// Stage 3h: the TCP senders' retransmissions (this rank's jobs).
TalbOutputWriter::TcpCounters
SumTcpCounters(const std::vector<Ptr<TalbTrainingJob>>& jobs)
{
    TalbOutputWriter::TcpCounters c;
    for (const auto& job : jobs)
    {
        Ptr<TalbTransport> transport = job->GetTransport();
        for (uint32_t i = 0; transport && i < transport->GetNChannels(); ++i)
        {
            if (auto tcp = DynamicCast<TalbTcpMessageChannel>(transport->GetChannel(i)))
            {
                c.retransmittedSegments += tcp->GetStats().retransmittedSegments;
                c.retransmittedBytes += tcp->GetStats().retransmittedBytes;
                c.timeouts += tcp->GetStats().timeouts;
            }
        }
    }
    return c;
}

/// Stage 3h: path selections and reroutes of every switch's load balancer.
TalbOutputWriter::LbCounters
SumLbCounters(const TalbScenario::Spec& s, Ptr<TalbLeafSpineHelper> fabric)
{
    TalbOutputWriter::LbCounters c;
    if (s.stockRouting)
    {
        return c;
    }
    auto add = [&c](Ptr<TalbSwitch> sw) {
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
    };
    for (uint32_t l = 0; l < s.leaves; ++l)
    {
        add(fabric->GetLeafSwitch(l));
    }
    for (uint32_t sp = 0; sp < s.spines; ++sp)
    {
        add(fabric->GetSpineSwitch(sp));
    }
    return c;
}

} // namespace

namespace
{

using C = TalbScenarioConfig;

/// Stage 1a: the fabric's parameters.
void
DeclareFabric(TalbScenarioConfig& c)
{
    c.Declare("leaves", C::UINT, "4", "leaf (ToR) switches", C::Between(1, 256));
    c.Declare("spines", C::UINT, "2", "spine switches", C::Between(1, 256));
    c.Declare("hostsPerLeaf", C::UINT, "4", "hosts below each leaf", C::Between(1, 1024));
    c.Declare("hostRate", C::RATE, "10Gbps", "host-leaf link rate");
    c.Declare("fabricRate", C::RATE, "10Gbps", "leaf-spine link rate (see oversubscription)");
    c.Declare("oversubscription",
              C::DOUBLE,
              "0",
              "if > 0, set the leaf-spine rate so hostsPerLeaf x hostRate / (spines x rate) "
              "equals this ratio",
              C::AtLeast(0));
    c.Declare("linkDelay", C::TIME, "1us", "propagation delay of every link");
    c.Declare("mtu",
              C::UINT,
              "9000",
              "device MTU in bytes; TCP segments are mtu - 52 bytes (jumbo frames, as in "
              "training clusters, keep packet counts and simulation time down)",
              C::Between(576, 9216));
    c.Declare("queueSize", C::SIZE, "", "switch port buffer, e.g. 1MB (empty: helper default)");
    c.Declare("hostQueueSize",
              C::SIZE,
              "1000000p",
              "host NIC buffer. Linux hosts do not drop their own packets (TCP small queues "
              "push back on the socket); ns-3 has no such feedback, so the default is large");
    c.Declare("portScheduling",
              C::CHOICE,
              "dwrr",
              "port queues: dwrr = training class (strict tensor bands) and best-effort class "
              "(untagged background) sharing each link by DWRR, as a data-center switch runs; "
              "strict = one strict-priority order, untagged traffic in untaggedBand",
              "dwrr,strict");
    c.Declare("trainingWeight",
              C::UINT,
              "1",
              "dwrr: weight of the training class (link share trainingWeight / (trainingWeight "
              "+ bestEffortWeight) while both classes have packets; an idle class gets nothing)",
              C::Between(1, 1000));
    c.Declare("bestEffortWeight",
              C::UINT,
              "1",
              "dwrr: weight of the best-effort class (untagged background traffic)",
              C::Between(1, 1000));
    c.Declare("untaggedBand",
              C::UINT,
              "0",
              "strict: queue band (0 = served first .. 7) of untagged traffic (background "
              "flows); dwrr: the band PFC accounts the best-effort class in. Tensor packets use "
              "the band of their priority",
              C::Between(0, TALB_NUM_PRIORITIES - 1));
    c.Declare("bestEffortBuffer",
              C::SIZE,
              "",
              "most bytes the best-effort class (untagged background) may hold of a switch "
              "port's buffer, e.g. 300KB; more is dropped (empty: no cap, the whole buffer)");
    c.Declare("ecnThreshold",
              C::SIZE,
              "",
              "ECN marking threshold per port, e.g. 200KB (empty: helper default)");
    c.Declare("linkRates",
              C::STRING,
              "",
              "asymmetric fabric: leaf:spine=rate overrides, ';'-separated, e.g. 0:1=2.5Gbps");
    c.Declare("failLink",
              C::STRING,
              "",
              "leaf-spine links that fail, leaf:spine@time, ';'-separated, e.g. 0:1@5ms");
    c.Declare("flapLink",
              C::STRING,
              "",
              "leaf-spine links that flap, leaf:spine@start/down/up, ';'-separated: down at "
              "start for down, then up for up, repeated (e.g. 1:0@350ms/20ms/80ms)");
    c.Declare("stockRouting",
              C::BOOL,
              "false",
              "switches use ns-3's IPv4 stack with Ipv4GlobalRouting ECMP instead of TalbSwitch "
              "(for speed comparisons; lb is then ignored)");
}

/// \return the default of TalbHostConfig's attribute \p name, as text
std::string
HostConfigDefault(const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(TalbHostConfig::GetTypeId().LookupAttributeByName(name, &info));
    return info.initialValue->SerializeToString(info.checker);
}

/// talb-scenario's spelling of TalbRdmaTransport's default \p name: the enum name with a
/// lower-case initial; for TrafficClass, "tensor" or the FixedClass number.
std::string
RdmaTransportDefault(const std::string& name)
{
    auto initial = [](const std::string& attribute) {
        TypeId::AttributeInformation info;
        NS_ABORT_UNLESS(TalbRdmaTransport::GetTypeId().LookupAttributeByName(attribute, &info));
        return info.initialValue->SerializeToString(info.checker);
    };
    if (name == "TrafficClass" && initial(name) == "Fixed")
    {
        return initial("FixedClass");
    }
    std::string value = initial(name);
    value[0] = static_cast<char>(std::tolower(value[0]));
    return value;
}

/// Stage 1b: routing, transport, training jobs and background traffic.
void
DeclareTraffic(TalbScenarioConfig& c)
{
    // Routing and transport
    c.Declare("lb",
              C::NAMES,
              "ecmp,talb",
              "load balancers to compare, comma-separated; one run each",
              TalbLoadBalancer::GetRegistry());
    c.Declare("lbAttributes",
              C::STRING,
              "",
              "attributes of the load balancer, Name=Value;... (applied to every lb that has "
              "them), e.g. HighPriorityThreshold=3");
    c.Declare("lbProfile",
              C::CHOICE,
              "transport",
              "balancer settings applied before lbAttributes: transport, those measured best for "
              "the hosts' transport (rdma: TaLB with " +
                  AttributeListText(TransportLbProfile(true)) + "; tcp: TaLB with " +
                  AttributeListText(TransportLbProfile(false)) + "); none, the attribute defaults",
              "transport,none");
    c.Declare("tcp", C::CHOICE, "newreno", "TCP congestion control of the hosts", "newreno,dctcp");
    c.Declare("sndBuf",
              C::UINT,
              HostConfigDefault("SndBufSize"),
              "TCP send buffer of the hosts in bytes (default: Linux's tcp_wmem maximum; larger "
              "windows can overflow a switch port)",
              C::Between(65536, 1e9));
    c.Declare("rcvBuf",
              C::UINT,
              HostConfigDefault("RcvBufSize"),
              "TCP receive buffer of the hosts in bytes (default: Linux's tcp_rmem maximum)",
              C::Between(65536, 1e9));
    c.Declare("hostQdisc",
              C::CHOICE,
              HostConfigDefault("Qdisc"),
              "host NIC queueing inside each priority band: fifo, or fq = per-flow deficit round "
              "robin, as Linux's fq qdisc shares a host's link evenly among its connections "
              "(tcp transport only)",
              "fifo,fq");
    c.Declare("transport",
              C::NAME,
              "tcp",
              "how the jobs' collectives move their messages (unless a job says)",
              TalbTransport::GetRegistry());
    c.Declare("rdmaQueuePairs",
              C::CHOICE,
              RdmaTransportDefault("QueuePairs"),
              "rdma: queue pairs per connection: perPriority = one per tensor priority (a "
              "message is one SEND per run of parts of one priority), single = one (messages "
              "in order). A job's trans.QueuePairs overrides it",
              "perPriority,single");
    c.Declare("rdmaTrafficClass",
              C::CHOICE,
              RdmaTransportDefault("TrafficClass"),
              "rdma: traffic class (DSCP, switch band, PFC priority) of the jobs' packets: "
              "tensor = each packet's from its tensor's priority (with single, a queue pair's "
              "packets change band and strict priority reorders them: NAKs); 0-7 = that one "
              "class for every queue pair, as NCCL_IB_TC sets it, the TaLB option still carrying "
              "each tensor's priority to the balancers (the switches band by DSCP). A job's "
              "trans.TrafficClass/trans.FixedClass override it",
              "tensor,0,1,2,3,4,5,6,7");
    // Training
    c.Declare("jobs",
              C::STRING,
              "workers=8,scheduler=fusion",
              "training jobs, ';'-separated, each key=value,...: model (default: the model "
              "parameter), workers, scheduler (" +
                  TalbCommScheduler::GetRegistry().GetNames() + "), collective (" +
                  TalbCollective::GetRegistry().GetNames() + "), transport, iterations, batch, " +
                  "device, precision, start (time), sched.<Attribute>, coll.<Attribute>, " +
                  "trans.<Attribute>");
    c.Declare("model",
              C::STRING,
              "resnet50",
              "model of jobs that name none: a zoo name (alexnet, vgg19, resnet50) or a model "
              "file, PATH or PATH#MODEL");
    c.Declare("placement", C::CHOICE, "spread", "how jobs are placed on racks", "spread,packed");
    c.Declare("iterations",
              C::UINT,
              "3",
              "training iterations per job (unless a job says)",
              C::Between(1, 1e6));
    c.Declare("warmup",
              C::UINT,
              "1",
              "first iterations left out of the printed mean iteration time (CSVs hold all)",
              C::Between(0, 1e6));
    c.Declare("controlDelay",
              C::TIME,
              "0s",
              "latency of each job's agreement between its workers: a tensor's all-reduce "
              "starts this long after its gradient is ready on the last worker, and the "
              "scheduler learns an operation finished this long after its last worker (0: "
              "instantaneous). Under mpirun a job whose workers span ranks needs at least "
              "linkDelay");
    c.Declare("batch",
              C::UINT,
              "32",
              "samples per worker per iteration (unless a job says)",
              C::Between(1, 1e6));
    c.Declare("device",
              C::STRING,
              "V100-FP32",
              "compute-rate preset (" + TalbComputeModel::PresetNames() + ")");
    c.Declare("precision", C::CHOICE, "fp32", "gradient element type", "fp32,fp16");
    // Background
    c.Declare("bgLoad",
              C::DOUBLE,
              "0.1",
              "background load per host as a fraction of hostRate (0: none)",
              C::Between(0, 1, true));
    c.Declare("bgCdf",
              C::STRING,
              "websearch",
              "background flow sizes: websearch, datamining or a CDF file (size percent lines)");
}

/// Stage 1c: the run's seed, limits and outputs.
void
DeclareRun(TalbScenarioConfig& c)
{
    // Run
    c.Declare("seed", C::UINT, "1", "run number of ns-3's RNG (RngRun)");
    c.Declare("duration",
              C::TIME,
              "0s",
              "stop after this simulated time (0s: when every job finished its iterations)");
    c.Declare("stopTime",
              C::TIME,
              "60s",
              "safety limit on simulated time; a run stopped here is reported incomplete");
    c.Declare("progress", C::BOOL, "true", "print simulated-time progress every wall second");
    c.Declare("out",
              C::STRING,
              "results/run",
              "output folder (one subfolder per lb when several are compared)");
}

} // namespace

void
TalbScenario::DeclareParameters(TalbScenarioConfig& c)
{
    DeclareFabric(c);
    DeclareTraffic(c);
    DeclareRun(c);
}

namespace
{

/// One key=value of a job. \return an error ("bad value ..."), or empty
std::string
SetJobKey(TalbScenario::JobSpec* job, const std::string& key, const std::string& value)
{
    uint64_t n = 0;
    bool ok = true;
    if (key == "model")
    {
        job->modelName = value;
    }
    else if (key == "workers")
    {
        ok = TalbParse::ParseUint(value, &n, 2, TALB_TENSOR_INDEX_MASK);
        job->workers = n;
    }
    else if (key == "scheduler")
    {
        job->scheduler = value;
    }
    else if (key == "collective")
    {
        job->collective = value;
    }
    else if (key == "transport")
    {
        job->transport = value;
    }
    else if (key == "iterations" || key == "batch")
    {
        ok = TalbParse::ParseUint(value, &n, 1, 1000000);
        (key == "batch" ? job->batch : job->iterations) = n;
    }
    else if (key == "device")
    {
        job->device = value;
    }
    else if (key == "precision")
    {
        job->precision = value;
        ok = value == "fp32" || value == "fp16";
    }
    else if (key == "start")
    {
        ok = TalbParse::ParseTime(value, &job->start);
    }
    else if (key.rfind("sched.", 0) == 0 && key.size() > 6)
    {
        job->schedulerAttributes.emplace_back(key.substr(6), value);
    }
    else if (key.rfind("coll.", 0) == 0 && key.size() > 5)
    {
        job->collectiveAttributes.emplace_back(key.substr(5), value);
    }
    else if (key.rfind("trans.", 0) == 0 && key.size() > 6)
    {
        job->transportAttributes.emplace_back(key.substr(6), value);
    }
    else
    {
        return "unknown key '" + key +
               "' (model, workers, scheduler, collective, transport, iterations, batch, "
               "device, precision, start, sched.<Attribute>, coll.<Attribute>, "
               "trans.<Attribute>)";
    }
    return ok ? "" : "bad value " + key + "=" + value;
}

} // namespace

std::string
TalbScenario::ParseJobs(const std::string& text,
                        const JobSpec& defaults,
                        std::vector<JobSpec>* jobs)
{
    jobs->clear();
    for (const auto& jobText : TalbParse::Split(text, ';'))
    {
        JobSpec job = defaults;
        std::string where = "job " + std::to_string(jobs->size() + 1);
        for (const auto& kv : TalbParse::Split(jobText, ','))
        {
            size_t eq = kv.find('=');
            if (eq == std::string::npos)
            {
                return where + ": expected key=value, got '" + kv + "'";
            }
            std::string key = TalbParse::Trim(kv.substr(0, eq));
            std::string value = TalbParse::Trim(kv.substr(eq + 1));
            std::string error = SetJobKey(&job, key, value);
            if (!error.empty())
            {
                return where + ": " + error;
            }
        }
        jobs->push_back(job);
    }
    return "";
}

bool
TalbScenario::Parse(const TalbScenarioConfig& config, Spec* spec, std::vector<std::string>* errors)
{
    errors->clear();
    *spec = Spec();
    ParseFabric(config, spec, errors);
    ParseRouting(config, spec, errors);
    ParseTraining(config, spec, errors);
    ParseRun(config, spec, errors);
    return errors->empty();
}

std::vector<std::string>
TalbScenario::CheckPartition(const Spec& spec)
{
    std::vector<std::string> errors;
    if (spec.ranks <= 1)
    {
        return errors;
    }
    std::string n = std::to_string(spec.ranks);
    if (spec.ranks > spec.leaves)
    {
        errors.push_back(n + " ranks but " + std::to_string(spec.leaves) +
                         " leaves: each rank needs at least one leaf");
        return errors;
    }
    if (spec.rdmaHosts || spec.stockRouting)
    {
        errors.push_back("over several ranks only TCP hosts and TalbSwitch forwarding work "
                         "(transport=tcp, stockRouting=false)");
    }
    if (spec.lbs.size() != 1)
    {
        errors.push_back("lb: over several ranks name one load balancer per mpirun");
    }
    std::vector<uint32_t> sizes;
    uint32_t needed = 0;
    for (const auto& j : spec.jobs)
    {
        sizes.push_back(j.workers);
        needed += j.workers;
    }
    if (needed > spec.leaves * spec.hostsPerLeaf)
    {
        return errors; // Parse() said so
    }
    Ptr<TalbLeafSpineHelper> fabric = CreateObject<TalbLeafSpineHelper>();
    fabric->SetAttribute("Leaves", UintegerValue(spec.leaves));
    fabric->SetAttribute("Ranks", UintegerValue(spec.ranks));
    auto placed = TalbTrainingJobHelper::PlaceIndices(spec.leaves * spec.hostsPerLeaf,
                                                      spec.hostsPerLeaf,
                                                      sizes,
                                                      spec.placement);
    for (std::size_t j = 0; j < placed.size(); ++j)
    {
        uint32_t firstRank = fabric->GetLeafRank(placed[j].front() / spec.hostsPerLeaf);
        uint32_t lastRank = fabric->GetLeafRank(placed[j].back() / spec.hostsPerLeaf);
        for (uint32_t h : placed[j])
        {
            uint32_t r = fabric->GetLeafRank(h / spec.hostsPerLeaf);
            firstRank = std::min(firstRank, r);
            lastRank = std::max(lastRank, r);
        }
        if (firstRank == lastRank)
        {
            continue;
        }
        // Its workers' copies of the job agree through reports that cross between the ranks
        // (TalbTrainingJob::ControlDelay): no sooner than the lookahead, over a direct link.
        std::string job = "job " + std::to_string(j) + " has workers on ranks " +
                          std::to_string(firstRank) + " to " + std::to_string(lastRank) +
                          " (leaf l is on rank l x " + n + " / leaves)";
        if (spec.controlDelay < spec.linkDelay)
        {
            errors.push_back(job + ": set controlDelay to at least linkDelay (" +
                             std::to_string(spec.linkDelay.GetNanoSeconds()) +
                             "ns), the ranks' lookahead, or use placement=packed and jobs of "
                             "at most " +
                             std::to_string(spec.leaves / spec.ranks * spec.hostsPerLeaf) +
                             " workers");
        }
        const std::string& collective = spec.jobs[j].collective;
        if (collective != "ring" && collective != "ns3::TalbRingAllReduce")
        {
            errors.push_back(job + ": over several ranks only collective=ring works");
        }
        if (spec.spines < spec.ranks)
        {
            errors.push_back(job + ": its reports need a link between every two ranks: at "
                                   "least as many spines as ranks");
        }
    }
    return errors;
}

std::vector<std::string>
TalbScenario::Validate(const TalbScenarioConfig& config)
{
    Spec spec;
    std::vector<std::string> errors;
    Parse(config, &spec, &errors);
    return errors;
}

TalbScenario::Result
TalbScenario::Run(const Spec& spec, const std::string& lb, const std::string& outDir)
{
    auto wallStart = std::chrono::steady_clock::now();
    Result r;
    // Before anything is built: the replay runs a simulator session of its own (not under MPI,
    // whose simulator implementation must be the first one made).
    if (!spec.distributed)
    {
        ComputeIdeals(spec, &r);
    }
    uint64_t eventsBefore = Simulator::GetEventCount();
    ConfigureDefaults(spec);
    Build b;
    b.collector.stopWhenDone = !spec.distributed;
    // Twice: a report applied controlDelay after the last iteration is applied before the stop.
    b.collector.settle = 2 * spec.controlDelay;
    b.fabric = BuildFabric(spec, lb);
    // Background streams start at the count the balancers used (from 1000 on), not after them:
    // kept as it was so results stay comparable; they overlap only past ~1000 - 3 x hosts.
    b.stream = b.fabric->AssignStreams(1000);
    // Distributed: each rank its own rows, merged by rank 0 at the end.
    std::string rowsDir = outDir;
    if (spec.ranks > 1)
    {
        rowsDir = SystemPath::Append(outDir, "rank-" + std::to_string(spec.rank));
    }
    OpenOutputs(spec, lb, rowsDir, &b);
    // run.json first, marked incomplete: a run killed outright (SIGKILL, out of memory) still
    // leaves a folder the report reads, its CSVs holding every row flushed so far.
    TalbOutputWriter::RunInfo info;
    info.scheme = spec.stockRouting ? "stock-ecmp" : lb;
    info.lb = lb;
    info.seed = spec.seed;
    info.parametersJson = spec.parametersJson;
    info.lbProfile = AttributeListText(spec.lbProfileAttributes);
    info.jobsJson = JobsJson(r);
    if (spec.rank == 0)
    {
        TalbOutputWriter::WriteRunJson(outDir, info);
    }
    InstallJobs(spec, &b);
    InstallBackground(spec, &b);

    r.scheme = spec.stockRouting ? "stock-ecmp" : lb;
    r.outDir = outDir;
    Simulate(spec, b.collector, &r);
    r.rdma = SumRdmaCounters(spec, b.fabric);
    r.tcp = SumTcpCounters(b.jobs);
    r.paths = SumLbCounters(spec, b.fabric);
    r.switches = SumSwitchCounters(spec, b.fabric);
    // Rows flushed and closed before Summarize(), whose first exchange between the ranks then
    // also tells rank 0 that every rank's files are complete.
    b.writer->Dispose();
    Summarize(spec, b.collector, &r);
    std::vector<uint64_t> events = {Simulator::GetEventCount() - eventsBefore,
                                    r.tcp.retransmittedSegments,
                                    r.tcp.retransmittedBytes,
                                    r.tcp.timeouts,
                                    r.paths.selections,
                                    r.paths.reroutes};
    const size_t policyAt = events.size();
    for (const auto& named : r.paths.policy)
    {
        events.push_back(named.second); // every rank lists the same names (the same balancers)
    }
    if (spec.distributed)
    {
        spec.sumOverRanks(&events);
    }
    for (size_t i = 0; i < r.paths.policy.size(); ++i)
    {
        r.paths.policy[i].second = events[policyAt + i];
    }
    r.events = events[0];
    r.tcp.retransmittedSegments = events[1];
    r.tcp.retransmittedBytes = events[2];
    r.tcp.timeouts = events[3];
    r.paths.selections = events[4];
    r.paths.reroutes = events[5];
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

    info.complete = r.iterationsDone == r.iterationsExpected;
    info.simSeconds = r.simSeconds;
    info.wallSeconds = r.wallSeconds;
    info.runWallSeconds = r.runWallSeconds;
    info.runCpuSeconds = r.runCpuSeconds;
    info.events = r.events;
    info.packetHops = r.packetHops;
    info.deliveredPackets = r.deliveredPackets;
    info.rdma = r.rdma;
    info.tcp = r.tcp;
    info.paths = r.paths;
    info.switches = r.switches;
    info.ranks = spec.ranks;
    info.remotePacketHops = r.remotePacketHops;
    info.jobsJson = JobsJson(r);
    if (spec.rank == 0)
    {
        TalbOutputWriter::WriteRunJson(outDir, info);
    }
    return r;
}

bool
TalbScenario::Interrupted()
{
    return g_interrupted;
}

void
TalbScenario::PrintTable(const std::vector<Result>& results, std::ostream& os)
{
    if (results.empty())
    {
        return;
    }
    const Result& base = results.front();
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
        const JobIdeal& i = base.ideals[j];
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
