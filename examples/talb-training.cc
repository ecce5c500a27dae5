// Data-parallel DNN training jobs (and optional background traffic) on a two-tier fabric.
//
//   build/bin/talb-training --model=resnet50 --workers=16 --scheduler=bytescheduler
//       --collective=ring --hostRate=100Gbps --iterations=2 --out=results/demo
//
// writes flows.csv, tensors.csv and iterations.csv into --out and prints one line per job.
// Every option: build/bin/talb-training --help. Scheduler and collective attributes beyond the
// options below: --ns3::TalbFusionScheduler::Timeout=2ms etc. (--PrintAttributes=TYPE).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"

#include <chrono>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbTraining");

namespace
{

/**
 * The fabric: racks of hosts, each host on its own link (rate, delay) to its rack's router,
 * every rack router linked to one core router at hostsPerRack x rate (non-blocking). Hosts get
 * IPv4 + TCP and an address on interface 1. This is the one function to swap for the
 * leaf-spine helper.
 */
NodeContainer
BuildFabric(uint32_t racks, uint32_t hostsPerRack, DataRate rate, Time delay)
{
    NodeContainer hosts;
    hosts.Create(racks * hostsPerRack);
    NodeContainer tors;
    tors.Create(racks);
    Ptr<Node> core = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(tors);
    stack.Install(core);
    PointToPointHelper hostLink;
    hostLink.SetDeviceAttribute("DataRate", DataRateValue(rate));
    hostLink.SetChannelAttribute("Delay", TimeValue(delay));
    PointToPointHelper upLink;
    upLink.SetDeviceAttribute("DataRate",
                              DataRateValue(DataRate(rate.GetBitRate() * hostsPerRack)));
    upLink.SetChannelAttribute("Delay", TimeValue(delay));
    Ipv4AddressHelper addresses("10.0.0.0", "255.255.255.252");
    for (uint32_t h = 0; h < hosts.GetN(); ++h)
    {
        NetDeviceContainer devices = hostLink.Install(hosts.Get(h), tors.Get(h / hostsPerRack));
        // A host does not drop its own packets: Linux's TCP small queues hold them back in
        // the socket, which ns-3 lacks; without this a window-sized burst after an idle
        // period overflows the NIC queue.
        DynamicCast<PointToPointNetDevice>(devices.Get(0))
            ->GetQueue()
            ->SetMaxSize(QueueSize("1000000p"));
        addresses.Assign(devices);
        addresses.NewNetwork();
    }
    if (racks > 1)
    {
        for (uint32_t r = 0; r < racks; ++r)
        {
            addresses.Assign(upLink.Install(tors.Get(r), core));
            addresses.NewNetwork();
        }
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return hosts;
}

/// Reports a bad option and how to get help. \return the exit code for bad input
/// Creates \p path and its parents as needed. \return true when it is a writable folder
bool
OutputFolderWritable(const std::string& path)
{
    for (std::string::size_type slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1))
    {
        mkdir(path.substr(0, slash).c_str(), 0777);
    }
    mkdir(path.c_str(), 0777);
    struct stat st;
    return stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && access(path.c_str(), W_OK) == 0;
}

int
BadOption(const std::string& message)
{
    std::cerr << "talb-training: error: " << message << " (--help lists the options)\n";
    return 2;
}

/// Set \p name on the scheduler only if the chosen scheduler has that attribute.
void
SetIfPresent(TalbTrainingJobHelper& helper,
             TypeId scheduler,
             const std::string& name,
             const AttributeValue& value)
{
    TypeId::AttributeInformation info;
    if (scheduler.LookupAttributeByName(name, &info))
    {
        helper.SetSchedulerAttribute(name, value);
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    // Every option is declared once with its kind and range, and everything a value names
    // (models, files, plug-ins, presets) is checked before anything is built: a bad value
    // exits with code 2 and a message naming the option.
    typedef TalbScenarioConfig C;
    C config;
    config.Declare("model",
                   C::STRING,
                   "resnet50",
                   "zoo model (alexnet, vgg19, resnet50) or model file PATH[#MODEL]");
    config.Declare("models", C::STRING, "", "per-job models, comma separated (overrides --model)");
    config.Declare("astra", C::STRING, "", "ASTRA-sim 1.0 DATA workload file to use as the model");
    config.Declare("astraCycle", C::TIME, "1ns", "duration of one ASTRA-sim compute cycle");
    config.Declare("astraBytes",
                   C::UINT,
                   "4",
                   "bytes per element of the ASTRA-sim communication sizes",
                   C::Between(1, 64));
    config.Declare("workers", C::UINT, "8", "workers (hosts) per job", C::Between(1, 65536));
    config.Declare("jobs", C::UINT, "1", "training jobs sharing the fabric", C::Between(1, 255));
    config.Declare("placement",
                   C::CHOICE,
                   "packed",
                   "job placement (spread: across racks)",
                   "packed,spread");
    config.Declare("iterations",
                   C::UINT,
                   "2",
                   "training iterations per job",
                   C::Between(1, 1000000));
    config.Declare("scheduler",
                   C::NAME,
                   "wfbp",
                   "communication scheduler",
                   TalbCommScheduler::GetRegistry());
    config.Declare("collective", C::NAME, "ring", "collective", TalbCollective::GetRegistry());
    config.Declare("transport",
                   C::NAME,
                   "tcp",
                   "transport of the collectives",
                   TalbTransport::GetRegistry());
    config.Declare("psHosts",
                   C::UINT,
                   "0",
                   "dedicated parameter-server hosts per job (0: colocated; needs "
                   "--collective=ps)",
                   C::Between(0, 1024));
    config.Declare("batch", C::UINT, "32", "batch size per worker", C::Between(1, 1000000));
    config.Declare("device",
                   C::STRING,
                   "V100-FP32",
                   "device preset: " + TalbComputeModel::PresetNames());
    config.Declare("deviceRate",
                   C::DOUBLE,
                   "0",
                   "effective device FLOP/s (overrides --device when > 0)",
                   C::AtLeast(0));
    config.Declare("precision", C::CHOICE, "fp32", "gradient precision", "fp32,fp16");
    config.Declare("bucketSize",
                   C::UINT,
                   "26214400",
                   "bucket size in bytes (schedulers with BucketSize)",
                   C::AtLeast(1));
    config.Declare("partitionSize",
                   C::UINT,
                   "4194304",
                   "partition size in bytes (schedulers with PartitionSize)",
                   C::AtLeast(1));
    config.Declare("credit",
                   C::UINT,
                   "16777216",
                   "credit in bytes (schedulers with Credit; at least partitionSize)",
                   C::AtLeast(1));
    config.Declare("sparseRatio",
                   C::DOUBLE,
                   "0.01",
                   "fraction of elements kept (schedulers with Ratio)",
                   C::Between(1e-9, 1));
    config.Declare("racks",
                   C::UINT,
                   "0",
                   "racks (0: just enough for the jobs)",
                   C::Between(0, 4096));
    config.Declare("hostsPerRack", C::UINT, "4", "hosts per rack", C::Between(1, 1024));
    config.Declare("hostRate", C::RATE, "100Gbps", "host link rate");
    config.Declare("linkDelay", C::TIME, "1us", "per-link propagation delay");
    config.Declare("mtu",
                   C::UINT,
                   "1500",
                   "link MTU in bytes (TCP segment = MTU - 52)",
                   C::Between(576, 9000));
    config.Declare("bgCdf",
                   C::STRING,
                   "",
                   "background flow-size CDF file (e.g. data/websearch-cdf.txt)");
    config.Declare("bgLoad",
                   C::DOUBLE,
                   "0",
                   "background load per host link (0: none; needs --bgCdf)",
                   C::Between(0, 1, true));
    config.Declare("out",
                   C::STRING,
                   "results/talb-training",
                   "output folder for flows.csv, tensors.csv, iterations.csv");
    config.Declare("scheme",
                   C::STRING,
                   "ecmp",
                   "value of the scheme column (the load balancer's name)");
    config.Declare("stopTime", C::TIME, "60s", "simulation stop time, e.g. 60s (a safety net)");
    CommandLine cmd(__FILE__);
    config.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);
    std::vector<std::string> errors = config.TakeErrors();
    if (!errors.empty())
    {
        return BadOption(errors.front());
    }

    const std::string model = config.GetString("model");
    const std::string astraFile = config.GetString("astra");
    const uint32_t workers = config.GetUint("workers");
    const uint32_t jobs = config.GetUint("jobs");
    const std::string placement = config.GetString("placement");
    const uint32_t iterations = config.GetUint("iterations");
    const std::string scheduler = config.GetString("scheduler");
    const std::string collective = config.GetString("collective");
    const std::string transport = config.GetString("transport");
    const uint32_t psHosts = config.GetUint("psHosts");
    const uint32_t batch = config.GetUint("batch");
    const std::string device = config.GetString("device");
    const double deviceRate = config.GetDouble("deviceRate");
    const std::string precision = config.GetString("precision");
    const uint64_t bucketSize = config.GetUint("bucketSize");
    const uint64_t partitionSize = config.GetUint("partitionSize");
    const uint64_t credit = config.GetUint("credit");
    const double sparseRatio = config.GetDouble("sparseRatio");
    uint32_t racks = config.GetUint("racks");
    const uint32_t hostsPerRack = config.GetUint("hostsPerRack");
    const DataRate hostRate = config.GetRate("hostRate");
    const Time delay = config.GetTime("linkDelay");
    const uint32_t mtu = config.GetUint("mtu");
    const std::string bgCdf = config.GetString("bgCdf");
    const double bgLoad = config.GetDouble("bgLoad");
    const std::string out = config.GetString("out");
    const std::string scheme = config.GetString("scheme");
    const Time stop = config.GetTime("stopTime");

    TypeId schedulerTid;
    TypeId collectiveTid;
    std::string error;
    TalbCommScheduler::GetRegistry().Lookup(scheduler, &schedulerTid, &error);
    TalbCollective::GetRegistry().Lookup(collective, &collectiveTid, &error);
    const bool servers = psHosts > 0;
    if (servers && collectiveTid != TalbParameterServer::GetTypeId())
    {
        return BadOption("--psHosts needs --collective=ps");
    }
    if (!TalbComputeModel::HasPreset(device))
    {
        return BadOption("--device: unknown preset '" + device +
                         "' (valid: " + TalbComputeModel::PresetNames() + ")");
    }
    if (!stop.IsStrictlyPositive())
    {
        return BadOption("--stopTime must be positive");
    }
    // The models: an ASTRA-sim workload, or one zoo name or model file per job.
    std::vector<TalbDnnModel> jobModels;
    if (!astraFile.empty())
    {
        Time cycle = config.GetTime("astraCycle");
        TalbDnnModel m;
        if (!cycle.IsStrictlyPositive())
        {
            return BadOption("--astraCycle must be positive");
        }
        if (!TalbAstraSimWorkload::TryRead(astraFile,
                                           cycle,
                                           config.GetUint("astraBytes"),
                                           "astra",
                                           &m,
                                           &error))
        {
            return BadOption("--astra: " + error);
        }
        jobModels.assign(jobs, m);
    }
    else
    {
        std::vector<std::string> names = TalbParse::Split(config.GetString("models"), ',');
        if (names.empty())
        {
            names.assign(jobs, model);
        }
        if (names.size() != jobs)
        {
            return BadOption("--models lists " + std::to_string(names.size()) + " models for " +
                             std::to_string(jobs) + " jobs");
        }
        for (const auto& name : names)
        {
            TalbDnnModel m;
            if (!TalbModelZoo::TryResolve(name, &m, &error))
            {
                return BadOption(
                    std::string(config.GetString("models").empty() ? "--model: " : "--models: ") +
                    error);
            }
            jobModels.push_back(m);
        }
    }
    // Scheduler options: each goes to the schedulers that have the attribute; combinations
    // the scheduler refuses (credit below partitionSize) are refused here.
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> schedulerAttributes = {
        {"BucketSize", Create<UintegerValue>(bucketSize)},
        {"PartitionSize", Create<UintegerValue>(partitionSize)},
        {"Credit", Create<UintegerValue>(credit)},
        {"Ratio", Create<DoubleValue>(sparseRatio)},
        {"Bandwidth", Create<DataRateValue>(hostRate)},
    };
    ObjectFactory schedulerFactory(schedulerTid.GetName());
    for (const auto& kv : schedulerAttributes)
    {
        TypeId::AttributeInformation info;
        if (schedulerTid.LookupAttributeByName(kv.first, &info))
        {
            schedulerFactory.Set(kv.first, *kv.second);
        }
    }
    if (!schedulerFactory.Create<TalbCommScheduler>()->CheckAttributes(&error))
    {
        return BadOption("--scheduler=" + scheduler + ": " + error);
    }
    if (bgLoad > 0 && bgCdf.empty())
    {
        return BadOption("--bgLoad needs --bgCdf");
    }
    if (!bgCdf.empty())
    {
        TalbFlowSizeCdf cdf;
        if (!TalbFlowSizeCdf::TryLoad(bgCdf, &cdf, &error))
        {
            return BadOption("--bgCdf: " + error);
        }
    }
    if (out.empty())
    {
        return BadOption("--out: name an output folder");
    }
    if (scheme.empty() || scheme.find_first_of(",\n\r\"") != std::string::npos)
    {
        return BadOption("--scheme='" + scheme +
                         "': must be a non-empty CSV value (no comma, quote or newline)");
    }
    uint64_t hostsNeeded = uint64_t(jobs) * (workers + psHosts);
    if (racks == 0)
    {
        racks = (hostsNeeded + hostsPerRack - 1) / hostsPerRack;
    }
    else if (uint64_t(racks) * hostsPerRack < hostsNeeded)
    {
        return BadOption("--racks: " + std::to_string(racks) + " racks x " +
                         std::to_string(hostsPerRack) + " hosts hold fewer than the " +
                         std::to_string(hostsNeeded) + " hosts the jobs need");
    }
    if (uint64_t(racks) * hostsPerRack > 65536)
    {
        return BadOption("--racks x --hostsPerRack: more than 65536 hosts");
    }
    if (!OutputFolderWritable(out))
    {
        return BadOption("--out: cannot create or write the folder '" + out + "'");
    }

    // The hosts' TCP, as in talb-scenario (Linux-like buffers and timers).
    Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(mtu));
    TalbHostConfig::ApplyDefaults(mtu);

    NodeContainer hosts = BuildFabric(racks, hostsPerRack, hostRate, delay);

    Ptr<TalbOutputWriter> writer = CreateObject<TalbOutputWriter>();
    writer->Open(out);
    writer->SetScheme(scheme);
    writer->SetSeed(RngSeedManager::GetRun());
    // Ideal FCT: a cross-rack path (4 links) at the host rate.
    writer->SetIdealFct(hostRate, delay * 8, mtu - 52, 54);

    std::vector<uint32_t> sizes;
    for (uint32_t j = 0; j < jobs; ++j)
    {
        sizes.push_back(workers);
        if (servers)
        {
            sizes.push_back(psHosts);
        }
    }
    std::vector<NodeContainer> placed =
        TalbTrainingJobHelper::Place(hosts, hostsPerRack, sizes, placement);

    std::vector<Ptr<TalbTrainingJob>> trainingJobs;
    for (uint32_t j = 0; j < jobs; ++j)
    {
        TalbTrainingJobHelper helper;
        helper.SetModel(jobModels[j]);
        helper.SetJobAttribute("JobId", UintegerValue(j));
        helper.SetJobAttribute("Iterations", UintegerValue(iterations));
        helper.SetJobAttribute("BatchSize", UintegerValue(batch));
        helper.SetJobAttribute("Device", StringValue(device));
        helper.SetJobAttribute("DeviceRate", DoubleValue(deviceRate));
        helper.SetJobAttribute("Precision", StringValue(precision));
        helper.SetScheduler(scheduler);
        for (const auto& kv : schedulerAttributes)
        {
            SetIfPresent(helper, schedulerTid, kv.first, *kv.second);
        }
        helper.SetCollective(collective);
        helper.SetTransport(transport);
        uint32_t slot = servers ? 2 * j : j;
        if (servers)
        {
            helper.SetParameterServers(placed[slot + 1]);
        }
        ApplicationContainer apps = helper.Install(placed[slot]);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        writer->ConnectJob(job);
        trainingJobs.push_back(job);
    }

    if (bgLoad > 0)
    {
        TalbBackgroundTrafficHelper bg(bgCdf, bgLoad, config.GetString("hostRate"));
        bg.SetStartStop(Seconds(0), stop);
        ApplicationContainer bgApps = bg.Install(hosts);
        TalbBackgroundTrafficHelper::AssignStreams(bgApps, 100);
        writer->ConnectBackground(bgApps);
    }

    // Stop once every job has finished (background traffic alone does not keep it running).
    std::function<void()> check = [&]() {
        for (const auto& job : trainingJobs)
        {
            if (!job->IsFinished())
            {
                Simulator::Schedule(MilliSeconds(1), check);
                return;
            }
        }
        Simulator::Stop();
    };
    Simulator::Schedule(MilliSeconds(1), check);
    Simulator::Stop(stop);

    auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    std::cout << "job model workers scheduler collective iterations finished_ms "
                 "compute_per_iter_ms wall_s\n";
    for (uint32_t j = 0; j < jobs; ++j)
    {
        Ptr<TalbTrainingJob> job = trainingJobs[j];
        std::cout << j << " " << job->GetModel().GetName() << " " << job->GetNWorkers() << " "
                  << scheduler << " " << collective << " " << iterations << " "
                  << (job->IsFinished() ? job->GetFinishTime().GetSeconds() * 1e3 : -1.0) << " "
                  << job->GetIterationComputeTime().GetSeconds() * 1e3 << " " << wall << "\n";
    }
    std::cout << "rows: flows " << writer->GetFlowRows() << ", tensors " << writer->GetTensorRows()
              << ", iterations " << writer->GetIterationRows() << " in " << out << "\n";
    bool allFinished = true;
    for (const auto& job : trainingJobs)
    {
        allFinished = allFinished && job->IsFinished();
    }
    Simulator::Destroy();
    return allFinished ? 0 : 1;
}
