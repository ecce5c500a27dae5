#include "talb-scenario.h"

#include "talb-background-traffic-helper.h"
#include "talb-leaf-spine-helper.h"
#include "talb-output-writer.h"
#include "talb-training-job-helper.h"

#include "ns3/boolean.h"
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
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-load-balancer.h"
#include "ns3/talb-model-zoo.h"
#include "ns3/talb-training-job.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <sys/stat.h>

#ifndef TALB_DATA_DIR
#define TALB_DATA_DIR "data"
#endif
#ifndef TALB_VERSION
#define TALB_VERSION "unknown"
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

/**
 * Writes run.json through a temporary file and a rename, so that a run killed at any point
 * leaves either the previous run.json or the new one, never half of one.
 */
void
WriteRunJson(const std::string& outDir, const std::string& text)
{
    std::string path = SystemPath::Append(outDir, "run.json");
    std::string tmp = path + ".tmp";
    {
        std::ofstream json(tmp);
        json << text;
    }
    std::rename(tmp.c_str(), path.c_str());
}

bool
FileExists(const std::string& path)
{
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

bool
ParseUint32(const std::string& s, uint32_t* out)
{
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    *out = static_cast<uint32_t>(std::stoul(s));
    return true;
}

/// "leaf:spine" → indices
bool
ParseLink(const std::string& s, uint32_t* leaf, uint32_t* spine)
{
    size_t colon = s.find(':');
    return colon != std::string::npos && ParseUint32(s.substr(0, colon), leaf) &&
           ParseUint32(s.substr(colon + 1), spine);
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

bool
IsDevicePreset(const std::string& name)
{
    for (const auto& p : TalbScenarioConfig::Split(TalbComputeModel::PresetNames(), ','))
    {
        if (p == name)
        {
            return true;
        }
    }
    return false;
}

/// Model spec check without aborting: a zoo name, or "PATH" / "PATH#MODEL" of a model file.
std::string
CheckModel(const std::string& spec)
{
    if (TalbModelZoo::Has(spec))
    {
        return "";
    }
    std::string path = spec.substr(0, spec.find('#'));
    if (!FileExists(path))
    {
        std::string names;
        for (const auto& n : TalbModelZoo::GetNames())
        {
            names += " " + n;
        }
        return "model '" + spec + "' is neither a zoo model (" + names.substr(1) +
               ") nor a model file";
    }
    std::vector<TalbDnnModel> models;
    std::string error;
    if (!TalbDnnModel::TryLoadFile(path, &models, &error))
    {
        return error;
    }
    if (spec.find('#') != std::string::npos)
    {
        std::string wanted = spec.substr(spec.find('#') + 1);
        bool found = false;
        for (const auto& m : models)
        {
            found = found || m.GetName() == wanted;
        }
        if (!found)
        {
            return path + ": no model named '" + wanted + "'";
        }
    }
    else if (models.size() != 1)
    {
        return path + ": holds " + std::to_string(models.size()) +
               " models: name one as PATH#MODEL";
    }
    return "";
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
        double& m = iterationMax[{r.job, r.iteration}];
        m = std::max(m, (r.end - r.start).GetSeconds());
        if (iterations == expected)
        {
            // Every worker of every job is done: background traffic alone is not the question.
            Simulator::Stop();
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
CountPacketHops()
{
    uint64_t hops = 0;
    for (uint32_t n = 0; n < NodeList::GetNNodes(); ++n)
    {
        Ptr<Node> node = NodeList::GetNode(n);
        for (uint32_t d = 0; d < node->GetNDevices(); ++d)
        {
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(node->GetDevice(d));
            Ptr<Queue<Packet>> q = dev ? dev->GetQueue() : nullptr;
            if (q)
            {
                hops +=
                    q->GetTotalReceivedPackets() - q->GetTotalDroppedPackets() - q->GetNPackets();
            }
        }
    }
    return hops;
}

} // namespace

void
TalbScenario::DeclareParameters(TalbScenarioConfig& c)
{
    using C = TalbScenarioConfig;
    // Fabric
    c.Declare("leaves", C::UINT, "4", "leaf (ToR) switches");
    c.Declare("spines", C::UINT, "2", "spine switches");
    c.Declare("hostsPerLeaf", C::UINT, "4", "hosts below each leaf");
    c.Declare("hostRate", C::RATE, "10Gbps", "host-leaf link rate");
    c.Declare("fabricRate", C::RATE, "10Gbps", "leaf-spine link rate (see oversubscription)");
    c.Declare("oversubscription",
              C::DOUBLE,
              "0",
              "if > 0, set the leaf-spine rate so hostsPerLeaf x hostRate / (spines x rate) "
              "equals this ratio");
    c.Declare("linkDelay", C::TIME, "1us", "propagation delay of every link");
    c.Declare("mtu",
              C::UINT,
              "9000",
              "device MTU in bytes; TCP segments are mtu - 52 bytes (jumbo frames, as in "
              "training clusters, keep packet counts and simulation time down)");
    c.Declare("queueSize", C::STRING, "", "switch port buffer, e.g. 1MB (empty: helper default)");
    c.Declare("hostQueueSize",
              C::STRING,
              "1000000p",
              "host NIC buffer. Linux hosts do not drop their own packets (TCP small queues "
              "push back on the socket); ns-3 has no such feedback, so the default is large");
    c.Declare("untaggedBand",
              C::UINT,
              "0",
              "queue band (0 = served first .. 7) of untagged traffic: background flows; "
              "tensor packets use the band of their priority");
    c.Declare("ecnThreshold",
              C::STRING,
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
    c.Declare("stockRouting",
              C::BOOL,
              "false",
              "switches use ns-3's IPv4 stack with Ipv4GlobalRouting ECMP instead of TalbSwitch "
              "(for speed comparisons; lb is then ignored)");
    // Routing and transport
    c.Declare("lb",
              C::STRING,
              "ecmp,talb",
              "load balancers to compare, comma-separated: " + TalbLoadBalancer::GetShortNames() +
                  " (or TypeId names); one run each");
    c.Declare("lbAttributes",
              C::STRING,
              "",
              "attributes of the load balancer, Name=Value;... (applied to every lb that has "
              "them), e.g. HighPriorityThreshold=3");
    c.Declare("tcp", C::CHOICE, "newreno", "TCP congestion control of the hosts", "newreno,dctcp");
    // Training
    c.Declare("jobs",
              C::STRING,
              "workers=8,scheduler=fusion",
              "training jobs, ';'-separated, each key=value,...: model (default: the model "
              "parameter), workers, scheduler, collective, iterations, batch, device, "
              "precision, start (time), sched.<Attribute>, coll.<Attribute>");
    c.Declare("model",
              C::STRING,
              "resnet50",
              "model of jobs that name none: a zoo name (alexnet, vgg19, resnet50) or a model "
              "file, PATH or PATH#MODEL");
    c.Declare("placement", C::CHOICE, "spread", "how jobs are placed on racks", "spread,packed");
    c.Declare("iterations", C::UINT, "3", "training iterations per job (unless a job says)");
    c.Declare("warmup",
              C::UINT,
              "1",
              "first iterations left out of the printed mean iteration time (CSVs hold all)");
    c.Declare("batch", C::UINT, "32", "samples per worker per iteration (unless a job says)");
    c.Declare("device",
              C::STRING,
              "V100-FP32",
              "compute-rate preset (" + TalbComputeModel::PresetNames() + ")");
    c.Declare("precision", C::CHOICE, "fp32", "gradient element type", "fp32,fp16");
    // Background
    c.Declare("bgLoad",
              C::DOUBLE,
              "0.1",
              "background load per host as a fraction of hostRate (0: none)");
    c.Declare("bgCdf",
              C::STRING,
              "websearch",
              "background flow sizes: websearch, datamining or a CDF file (size percent lines)");
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

std::string
TalbScenario::ParseJobs(const std::string& text, std::vector<JobSpec>* jobs)
{
    jobs->clear();
    for (const auto& jobText : TalbScenarioConfig::Split(text, ';'))
    {
        JobSpec job;
        std::string where = "job " + std::to_string(jobs->size() + 1);
        for (const auto& kv : TalbScenarioConfig::Split(jobText, ','))
        {
            size_t eq = kv.find('=');
            if (eq == std::string::npos)
            {
                return where + ": expected key=value, got '" + kv + "'";
            }
            std::string key = kv.substr(0, eq);
            std::string value = kv.substr(eq + 1);
            bool ok = true;
            if (key == "model")
            {
                job.model = value;
            }
            else if (key == "workers")
            {
                ok = ParseUint32(value, &job.workers) && job.workers >= 2;
            }
            else if (key == "scheduler")
            {
                job.scheduler = value;
            }
            else if (key == "collective")
            {
                job.collective = value;
            }
            else if (key == "iterations")
            {
                ok = ParseUint32(value, &job.iterations) && job.iterations >= 1;
            }
            else if (key == "batch")
            {
                ok = ParseUint32(value, &job.batch) && job.batch >= 1;
            }
            else if (key == "device")
            {
                job.device = value;
            }
            else if (key == "precision")
            {
                job.precision = value;
                ok = value == "fp32" || value == "fp16";
            }
            else if (key == "start")
            {
                ok = TalbScenarioConfig::ParseTime(value, &job.start);
            }
            else if (key.rfind("sched.", 0) == 0 && key.size() > 6)
            {
                job.schedulerAttributes.emplace_back(key.substr(6), value);
            }
            else if (key.rfind("coll.", 0) == 0 && key.size() > 5)
            {
                job.collectiveAttributes.emplace_back(key.substr(5), value);
            }
            else
            {
                return where + ": unknown key '" + key +
                       "' (model, workers, scheduler, collective, iterations, batch, device, "
                       "precision, start, sched.<Attribute>, coll.<Attribute>)";
            }
            if (!ok)
            {
                return where + ": bad value " + kv;
            }
        }
        jobs->push_back(job);
    }
    return "";
}

std::vector<std::string>
TalbScenario::LoadBalancers(const TalbScenarioConfig& config)
{
    return TalbScenarioConfig::Split(config.GetString("lb"), ',');
}

std::vector<std::string>
TalbScenario::Validate(const TalbScenarioConfig& c)
{
    std::vector<std::string> errors;
    auto fail = [&errors](const std::string& e) { errors.push_back(e); };

    uint64_t leaves = c.GetUint("leaves");
    uint64_t spines = c.GetUint("spines");
    uint64_t perLeaf = c.GetUint("hostsPerLeaf");
    if (leaves < 1 || leaves > 256 || spines < 1 || spines > 256 || perLeaf < 1 || perLeaf > 1024)
    {
        fail("leaves and spines must be 1..256 and hostsPerLeaf 1..1024");
    }
    uint64_t hosts = leaves * perLeaf;
    if (c.GetUint("mtu") < 576 || c.GetUint("mtu") > 9216)
    {
        fail("mtu must be 576..9216 bytes");
    }
    if (c.GetUint("untaggedBand") >= TALB_NUM_PRIORITIES)
    {
        fail("untaggedBand must be 0..7");
    }
    for (const char* q : {"queueSize", "hostQueueSize", "ecnThreshold"})
    {
        QueueSizeValue v;
        if (!c.GetString(q).empty() &&
            !v.DeserializeFromString(c.GetString(q), MakeQueueSizeChecker()))
        {
            fail(std::string(q) + "='" + c.GetString(q) + "' is not a size such as 1MB or 100p");
        }
    }
    for (const auto& item : TalbScenarioConfig::Split(c.GetString("linkRates"), ';'))
    {
        size_t eq = item.find('=');
        uint32_t l;
        uint32_t s;
        DataRateValue rate;
        if (eq == std::string::npos || !ParseLink(item.substr(0, eq), &l, &s) ||
            !rate.DeserializeFromString(item.substr(eq + 1), MakeDataRateChecker()))
        {
            fail("linkRates: '" + item + "' is not leaf:spine=rate");
        }
        else if (l >= leaves || s >= spines)
        {
            fail("linkRates: '" + item + "' names a link outside the fabric");
        }
    }
    for (const auto& item : TalbScenarioConfig::Split(c.GetString("failLink"), ';'))
    {
        size_t at = item.find('@');
        uint32_t l;
        uint32_t s;
        Time t;
        if (at == std::string::npos || !ParseLink(item.substr(0, at), &l, &s) ||
            !TalbScenarioConfig::ParseTime(item.substr(at + 1), &t))
        {
            fail("failLink: '" + item + "' is not leaf:spine@time");
        }
        else if (l >= leaves || s >= spines)
        {
            fail("failLink: '" + item + "' names a link outside the fabric");
        }
    }
    std::vector<std::string> lbs = LoadBalancers(c);
    if (lbs.empty())
    {
        fail("lb: name at least one load balancer");
    }
    for (const auto& lb : lbs)
    {
        bool known = false;
        for (const auto& n : TalbScenarioConfig::Split(TalbLoadBalancer::GetShortNames(), ','))
        {
            known = known || n == lb;
        }
        TypeId tid;
        if (!known && !(TypeId::LookupByNameFailSafe(lb, &tid) &&
                        tid.IsChildOf(TalbLoadBalancer::GetTypeId())))
        {
            fail("lb: unknown load balancer '" + lb +
                 "' (valid: " + TalbLoadBalancer::GetShortNames() + ")");
        }
    }
    for (const auto& kv : TalbScenarioConfig::Split(c.GetString("lbAttributes"), ';'))
    {
        if (kv.find('=') == std::string::npos)
        {
            fail("lbAttributes: '" + kv + "' is not Name=Value");
        }
    }
    std::vector<JobSpec> jobs;
    std::string err = ParseJobs(c.GetString("jobs"), &jobs);
    if (!err.empty())
    {
        fail("jobs: " + err);
    }
    uint64_t workers = 0;
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        const JobSpec& job = jobs[j];
        std::string where = "jobs: job " + std::to_string(j + 1) + ": ";
        std::string model = job.model.empty() ? c.GetString("model") : job.model;
        workers += job.workers;
        std::string m = CheckModel(model);
        if (!m.empty())
        {
            fail(where + m);
        }
        TypeId tid;
        if (!TypeId::LookupByNameFailSafe(job.scheduler, &tid) &&
            TalbCommScheduler::GetNames().find(job.scheduler) == std::string::npos)
        {
            fail(where + "unknown scheduler '" + job.scheduler +
                 "' (valid: " + TalbCommScheduler::GetNames() + ")");
        }
        if (!TypeId::LookupByNameFailSafe(job.collective, &tid) &&
            TalbCollective::GetNames().find(job.collective) == std::string::npos)
        {
            fail(where + "unknown collective '" + job.collective +
                 "' (valid: " + TalbCollective::GetNames() + ")");
        }
        std::string device = job.device.empty() ? c.GetString("device") : job.device;
        if (!IsDevicePreset(device))
        {
            fail(where + "unknown device '" + device +
                 "' (valid: " + TalbComputeModel::PresetNames() + ")");
        }
    }
    if (jobs.size() >= TALB_MAX_JOBS)
    {
        fail("jobs: at most " + std::to_string(TALB_MAX_JOBS - 1) + " jobs");
    }
    if (workers > hosts)
    {
        fail("jobs need " + std::to_string(workers) + " workers but the fabric has " +
             std::to_string(hosts) + " hosts (leaves x hostsPerLeaf)");
    }
    double load = c.GetDouble("bgLoad");
    if (load < 0 || load >= 1)
    {
        fail("bgLoad must be in [0, 1)");
    }
    if (load > 0 && !FileExists(CdfPath(c.GetString("bgCdf"))))
    {
        fail("bgCdf: no such file '" + CdfPath(c.GetString("bgCdf")) +
             "' (websearch, datamining or a path; set TALB_DATA_DIR to find the shipped ones)");
    }
    if (jobs.empty() && c.GetTime("duration").IsZero())
    {
        fail("with no jobs, set duration");
    }
    if (c.GetString("out").empty())
    {
        fail("out: name an output folder");
    }
    return errors;
}

TalbScenario::Result
TalbScenario::Run(const TalbScenarioConfig& c, const std::string& lb, const std::string& outDir)
{
    auto wallStart = std::chrono::steady_clock::now();
    uint64_t eventsBefore = Simulator::GetEventCount();
    RngSeedManager::SetRun(c.GetUint("seed"));

    uint32_t mtu = static_cast<uint32_t>(c.GetUint("mtu"));
    uint32_t mss = mtu - 52;
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mss));
    // Data-center RTTs are microseconds: ns-3's 1 s minimum RTO would turn every tail loss
    // into a one-second stall.
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(5)));
    Config::SetDefault("ns3::TcpSocketBase::ClockGranularity", TimeValue(MicroSeconds(10)));
    // The delayed-ACK timeout must stay below the minimum RTO, or a lone trailing segment
    // times out and the connection then sends one segment per RTO.
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(20)));
    // TIME_WAIT lasts 2 x MaxSegLifetime (ns-3: 2 x 120 s, i.e. never within a run). Every
    // endpoint in TIME_WAIT stays in the linear list that Ipv4EndPointDemux scans for each
    // received packet, so background traffic made every packet slower as the run went on. 20 ms
    // is still hundreds of fabric RTTs and four minimum RTOs: no segment of a closed connection
    // arrives later in these fabrics.
    Config::SetDefault("ns3::TcpSocketBase::MaxSegLifetime", DoubleValue(0.01));

    Ptr<TalbLeafSpineHelper> fabric = CreateObject<TalbLeafSpineHelper>();
    fabric->SetAttribute("Leaves", UintegerValue(c.GetUint("leaves")));
    fabric->SetAttribute("Spines", UintegerValue(c.GetUint("spines")));
    fabric->SetAttribute("HostsPerLeaf", UintegerValue(c.GetUint("hostsPerLeaf")));
    fabric->SetAttribute("HostRate", DataRateValue(c.GetRate("hostRate")));
    fabric->SetAttribute("FabricRate", DataRateValue(c.GetRate("fabricRate")));
    fabric->SetAttribute("LinkDelay", TimeValue(c.GetTime("linkDelay")));
    fabric->SetAttribute("Mtu", UintegerValue(mtu));
    fabric->SetAttribute("StockRouting", BooleanValue(c.GetBool("stockRouting")));
    fabric->SetAttribute(
        "TcpVariant",
        StringValue(c.GetString("tcp") == "dctcp" ? "ns3::TcpDctcp" : "ns3::TcpNewReno"));
    if (!c.GetString("queueSize").empty())
    {
        fabric->SetAttribute("QueueSize", StringValue(c.GetString("queueSize")));
    }
    fabric->SetAttribute("HostQueueSize", StringValue(c.GetString("hostQueueSize")));
    Config::SetDefault("ns3::TalbPriorityQueue::UntaggedBand",
                       UintegerValue(c.GetUint("untaggedBand")));
    if (!c.GetString("ecnThreshold").empty())
    {
        fabric->SetAttribute("EcnThreshold", StringValue(c.GetString("ecnThreshold")));
    }
    if (c.GetDouble("oversubscription") > 0)
    {
        fabric->SetOversubscription(c.GetDouble("oversubscription"));
    }
    for (const auto& item : TalbScenarioConfig::Split(c.GetString("linkRates"), ';'))
    {
        uint32_t l;
        uint32_t s;
        size_t eq = item.find('=');
        ParseLink(item.substr(0, eq), &l, &s);
        fabric->SetLinkRate(l, s, DataRate(item.substr(eq + 1)));
    }
    for (const auto& item : TalbScenarioConfig::Split(c.GetString("failLink"), ';'))
    {
        uint32_t l;
        uint32_t s;
        Time t;
        size_t at = item.find('@');
        ParseLink(item.substr(0, at), &l, &s);
        TalbScenarioConfig::ParseTime(item.substr(at + 1), &t);
        fabric->SetLinkFailure(l, s, t);
    }
    {
        // Attributes that this balancer does not have are skipped, so one lbAttributes value
        // can serve a comparison of several balancers.
        TypeId tid = TalbLoadBalancer::TypeIdFromName(lb);
        ObjectFactory factory(tid.GetName());
        for (const auto& kv : TalbScenarioConfig::Split(c.GetString("lbAttributes"), ';'))
        {
            std::string name = kv.substr(0, kv.find('='));
            TypeId::AttributeInformation info;
            if (tid.LookupAttributeByName(name, &info))
            {
                factory.Set(name, StringValue(kv.substr(kv.find('=') + 1)));
            }
        }
        fabric->SetLoadBalancerFactory(factory);
    }
    fabric->Install();
    int64_t stream = fabric->AssignStreams(1000);

    NodeContainer hosts = fabric->GetHosts();
    std::map<uint32_t, uint32_t> hostOf; // address → host index, for ideal FCTs
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        hostOf[fabric->GetHostAddress(i).Get()] = i;
    }

    Ptr<TalbOutputWriter> writer = CreateObject<TalbOutputWriter>();
    writer->Open(outDir);
    // run.json first, marked incomplete: a run killed outright (SIGKILL, out of memory) still
    // leaves a folder the report reads, its CSVs holding every row flushed so far.
    const std::string scheme = c.GetBool("stockRouting") ? "stock-ecmp" : lb;
    {
        std::ostringstream json;
        json << "{\"talb_version\": \"" << TALB_VERSION << "\", \"scheme\": \"" << scheme
             << "\", \"seed\": " << c.GetUint("seed") << ", \"lb\": \"" << lb
             << "\", \"complete\": false, \"parameters\": " << c.ToJson() << "}\n";
        WriteRunJson(outDir, json.str());
    }
    writer->SetScheme(scheme);
    writer->SetSeed(c.GetUint("seed"));
    const uint32_t headerBytes = 52 + 2; // IP+TCP+timestamps, PPP
    writer->SetIdealFctCallback(MakeBoundCallback(
        +[](Ptr<TalbLeafSpineHelper> f,
            std::map<uint32_t, uint32_t>* index,
            uint32_t mssBytes,
            uint32_t header,
            const TalbFlowRecord& r) {
            uint32_t s = index->at(r.src.Get());
            uint32_t d = index->at(r.dst.Get());
            uint64_t packets = (r.sizeBytes + mssBytes - 1) / mssBytes;
            uint64_t wire = r.sizeBytes + packets * header;
            // One RTT with the flow's first packet, then its bytes at the bottleneck rate.
            uint32_t first = static_cast<uint32_t>(std::min<uint64_t>(r.sizeBytes, mssBytes));
            return f->GetBaseRtt(s, d, first + header, 66) +
                   f->GetBottleneckRate(s, d).CalculateBytesTxTime(wire);
        },
        fabric,
        &hostOf,
        mss,
        headerBytes));

    auto collector = std::make_shared<Collector>();
    std::vector<JobSpec> jobs;
    ParseJobs(c.GetString("jobs"), &jobs);
    std::vector<uint32_t> sizes;
    for (const auto& j : jobs)
    {
        sizes.push_back(j.workers);
    }
    std::vector<NodeContainer> placed =
        TalbTrainingJobHelper::Place(hosts,
                                     static_cast<uint32_t>(c.GetUint("hostsPerLeaf")),
                                     sizes,
                                     c.GetString("placement"));
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        const JobSpec& spec = jobs[j];
        uint32_t iterations =
            spec.iterations ? spec.iterations : static_cast<uint32_t>(c.GetUint("iterations"));
        TalbTrainingJobHelper helper;
        helper.SetModel(spec.model.empty() ? c.GetString("model") : spec.model);
        helper.SetJobAttribute("JobId", UintegerValue(j));
        helper.SetJobAttribute("Iterations", UintegerValue(iterations));
        helper.SetJobAttribute(
            "BatchSize",
            UintegerValue(spec.batch ? spec.batch : static_cast<uint32_t>(c.GetUint("batch"))));
        helper.SetJobAttribute(
            "Device",
            StringValue(spec.device.empty() ? c.GetString("device") : spec.device));
        helper.SetJobAttribute(
            "Precision",
            StringValue(spec.precision.empty() ? c.GetString("precision") : spec.precision));
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
        helper.SetStartTime(spec.start);
        ApplicationContainer apps = helper.Install(placed[j]);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        writer->ConnectJob(job);
        job->TraceConnectWithoutContext("FlowDone",
                                        MakeCallback(&Collector::Flow, collector.get()));
        job->TraceConnectWithoutContext("IterationDone",
                                        MakeCallback(&Collector::Iteration, collector.get()));
        collector->expected += uint64_t(iterations) * spec.workers;
    }

    if (c.GetDouble("bgLoad") > 0)
    {
        TalbBackgroundTrafficHelper bg(CdfPath(c.GetString("bgCdf")),
                                       c.GetDouble("bgLoad"),
                                       c.GetString("hostRate"));
        bg.SetStartStop(Seconds(0), c.GetTime("stopTime"));
        ApplicationContainer apps = bg.Install(hosts);
        stream += TalbBackgroundTrafficHelper::AssignStreams(apps, stream);
        writer->ConnectBackground(apps);
        for (auto it = apps.Begin(); it != apps.End(); ++it)
        {
            (*it)->TraceConnectWithoutContext("FlowDone",
                                              MakeCallback(&Collector::Flow, collector.get()));
        }
    }

    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        fabric->GetHostDevice(i)->TraceConnectWithoutContext(
            "MacRx",
            MakeCallback(&Collector::Rx, collector.get()));
    }

    Result r;
    Time duration = c.GetTime("duration");
    Simulator::Stop(duration.IsZero() ? c.GetTime("stopTime")
                                      : std::min(duration, c.GetTime("stopTime")));
    std::unique_ptr<ShowProgress> progress;
    if (c.GetBool("progress"))
    {
        progress = std::make_unique<ShowProgress>(Seconds(1), std::cerr);
    }
    // Ctrl-C or a sweep's SIGTERM ends the run like stopTime does: what was measured is written.
    auto previousInt = std::signal(SIGINT, &OnSignal);
    auto previousTerm = std::signal(SIGTERM, &OnSignal);
    Simulator::ScheduleNow(&PollInterrupt, MilliSeconds(1));
    auto runStart = std::chrono::steady_clock::now();
    std::clock_t cpuStart = std::clock();
    Simulator::Run();
    std::signal(SIGINT, previousInt);
    std::signal(SIGTERM, previousTerm);
    r.interrupted = g_interrupted;
    r.runCpuSeconds = double(std::clock() - cpuStart) / CLOCKS_PER_SEC;
    r.runWallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - runStart).count();
    progress.reset();

    r.scheme = scheme;
    r.outDir = outDir;
    r.simSeconds = Simulator::Now().GetSeconds();
    r.tensorFlows = collector->tensorFct.size();
    r.backgroundFlows = collector->backgroundFct.size();
    r.tensorAvgFctUs = Mean(collector->tensorFct);
    r.tensorP99FctUs = Percentile(collector->tensorFct, 99);
    r.highPrioAvgFctUs = Mean(collector->highPrioFct);
    r.backgroundAvgFctUs = Mean(collector->backgroundFct);
    r.backgroundP99FctUs = Percentile(collector->backgroundFct, 99);
    r.iterationsDone = collector->iterations;
    r.iterationsExpected = collector->expected;
    std::vector<double> iterationMs;
    for (const auto& kv : collector->iterationMax)
    {
        if (kv.first.second >= c.GetUint("warmup"))
        {
            iterationMs.push_back(kv.second * 1e3);
        }
    }
    r.meanIterationMs = Mean(iterationMs);
    r.deliveredPackets = collector->delivered;
    r.events = Simulator::GetEventCount() - eventsBefore;
    r.packetHops = CountPacketHops();

    writer->Dispose();
    Simulator::Destroy();
    r.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::ostringstream json;
    json << "{\"talb_version\": \"" << TALB_VERSION << "\", \"scheme\": \"" << r.scheme
         << "\", \"seed\": " << c.GetUint("seed") << ", \"lb\": \"" << lb
         << "\", \"complete\": " << (r.iterationsDone == r.iterationsExpected ? "true" : "false")
         << ", \"sim_seconds\": " << r.simSeconds << ", \"wall_seconds\": " << r.wallSeconds
         << ", \"run_wall_seconds\": " << r.runWallSeconds
         << ", \"run_cpu_seconds\": " << r.runCpuSeconds << ", \"events\": " << r.events
         << ", \"packet_hops\": " << r.packetHops
         << ", \"delivered_packets\": " << r.deliveredPackets << ", \"parameters\": " << c.ToJson()
         << "}\n";
    WriteRunJson(outDir, json.str());
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
       << std::setw(12) << "iter time" << std::setw(10) << "speedup" << std::setw(10) << "iters"
       << "\n";
    os << std::left << std::setw(12) << "" << std::right << std::setw(9) << "msgs" << std::setw(12)
       << "(us)" << std::setw(12) << "(us)" << std::setw(12) << "FCT (us)" << std::setw(9)
       << "flows" << std::setw(12) << "FCT (us)" << std::setw(12) << "FCT (us)" << std::setw(12)
       << "(ms)" << std::setw(10) << ("vs " + base.scheme) << std::setw(10) << "done"
       << "\n";
    for (const auto& r : results)
    {
        std::ostringstream iters;
        iters << r.iterationsDone << "/" << r.iterationsExpected;
        os << std::left << std::setw(12) << r.scheme << std::right << std::setprecision(1)
           << std::setw(9) << r.tensorFlows << std::setw(12) << r.tensorAvgFctUs << std::setw(12)
           << r.tensorP99FctUs << std::setw(12) << r.highPrioAvgFctUs << std::setw(9)
           << r.backgroundFlows << std::setw(12) << r.backgroundAvgFctUs << std::setw(12)
           << r.backgroundP99FctUs << std::setprecision(3) << std::setw(12) << r.meanIterationMs
           << std::setw(10)
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
}

} // namespace ns3
