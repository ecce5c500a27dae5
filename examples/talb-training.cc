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
    std::string model = "resnet50";
    std::string models;
    std::string astraFile;
    std::string astraCycle = "1ns";
    uint32_t astraBytes = 4;
    uint32_t workers = 8;
    uint32_t jobs = 1;
    std::string placement = "packed";
    uint32_t iterations = 2;
    std::string scheduler = "wfbp";
    std::string collective = "ring";
    std::string transport = "tcp";
    uint32_t psHosts = 0;
    uint32_t batch = 32;
    std::string device = "V100-FP32";
    double deviceRate = 0;
    std::string precision = "fp32";
    uint64_t bucketSize = 25 * 1024 * 1024;
    uint64_t partitionSize = 4 * 1024 * 1024;
    uint64_t credit = 16 * 1024 * 1024;
    double sparseRatio = 0.01;
    uint32_t racks = 0;
    uint32_t hostsPerRack = 4;
    std::string hostRate = "100Gbps";
    std::string linkDelay = "1us";
    uint32_t mtu = 1500;
    std::string bgCdf;
    double bgLoad = 0;
    std::string out = "results/talb-training";
    std::string scheme = "ecmp";
    std::string stopTime = "60s";

    CommandLine cmd(__FILE__);
    cmd.AddValue("model", "Zoo model (alexnet, vgg19, resnet50) or model file PATH[#MODEL]", model);
    cmd.AddValue("models", "Per-job models, comma separated (overrides --model)", models);
    cmd.AddValue("astra", "ASTRA-sim 1.0 DATA workload file to use as the model", astraFile);
    cmd.AddValue("astraCycle", "Duration of one ASTRA-sim compute cycle", astraCycle);
    cmd.AddValue("astraBytes",
                 "Bytes per element of the ASTRA-sim communication sizes",
                 astraBytes);
    cmd.AddValue("workers", "Workers (hosts) per job", workers);
    cmd.AddValue("jobs", "Training jobs sharing the fabric", jobs);
    cmd.AddValue("placement", "Job placement: packed or spread (across racks)", placement);
    cmd.AddValue("iterations", "Training iterations per job", iterations);
    cmd.AddValue("scheduler",
                 "Communication scheduler: " + TalbCommScheduler::GetRegistry().GetNames(),
                 scheduler);
    cmd.AddValue("collective",
                 "Collective: " + TalbCollective::GetRegistry().GetNames(),
                 collective);
    cmd.AddValue("transport",
                 "Transport of the collectives: " + TalbTransport::GetRegistry().GetNames(),
                 transport);
    cmd.AddValue("psHosts", "Dedicated parameter-server hosts per job (0: colocated)", psHosts);
    cmd.AddValue("batch", "Batch size per worker", batch);
    cmd.AddValue("device", "Device preset: " + TalbComputeModel::PresetNames(), device);
    cmd.AddValue("deviceRate", "Effective device FLOP/s (overrides --device when > 0)", deviceRate);
    cmd.AddValue("precision", "Gradient precision: fp32 or fp16", precision);
    cmd.AddValue("bucketSize", "Bucket size in bytes (schedulers with BucketSize)", bucketSize);
    cmd.AddValue("partitionSize",
                 "Partition size in bytes (schedulers with PartitionSize)",
                 partitionSize);
    cmd.AddValue("credit", "Credit in bytes (schedulers with Credit)", credit);
    cmd.AddValue("sparseRatio", "Fraction of elements kept (schedulers with Ratio)", sparseRatio);
    cmd.AddValue("racks", "Racks (0: just enough for the jobs)", racks);
    cmd.AddValue("hostsPerRack", "Hosts per rack", hostsPerRack);
    cmd.AddValue("hostRate", "Host link rate", hostRate);
    cmd.AddValue("linkDelay", "Per-link propagation delay", linkDelay);
    cmd.AddValue("mtu", "Link MTU in bytes (TCP segment = MTU - 52)", mtu);
    cmd.AddValue("bgCdf", "Background flow-size CDF file (e.g. data/websearch-cdf.txt)", bgCdf);
    cmd.AddValue("bgLoad", "Background load per host link, 0..1 (0: none)", bgLoad);
    cmd.AddValue("out", "Output folder for flows.csv, tensors.csv, iterations.csv", out);
    cmd.AddValue("scheme", "Value of the scheme column (the load balancer's name)", scheme);
    cmd.AddValue("stopTime", "Simulation stop time, e.g. 60s (a safety net)", stopTime);
    cmd.Parse(argc, argv);

    TypeId schedulerTid;
    TypeId collectiveTid;
    TypeId tid;
    std::string error;
    Time stop;
    Time delay;
    if (!TalbCommScheduler::GetRegistry().Lookup(scheduler, &schedulerTid, &error) ||
        !TalbCollective::GetRegistry().Lookup(collective, &collectiveTid, &error) ||
        !TalbTransport::GetRegistry().Lookup(transport, &tid, &error))
    {
        return BadOption(error);
    }
    if (workers == 0 || jobs == 0 || hostsPerRack == 0)
    {
        return BadOption("--workers, --jobs and --hostsPerRack must be > 0");
    }
    if (mtu < 576 || mtu > 9000)
    {
        return BadOption("--mtu must be in [576, 9000]");
    }
    if (!TalbParse::ParseTime(stopTime, &stop) || !TalbParse::ParseTime(linkDelay, &delay))
    {
        return BadOption("--stopTime and --linkDelay take a time with its unit, e.g. 60s");
    }
    // Dedicated parameter servers: hosts of their own next to each job's workers.
    const bool servers = psHosts > 0;
    if (servers && collectiveTid != TalbParameterServer::GetTypeId())
    {
        return BadOption("--psHosts needs --collective=ps");
    }
    if (bgLoad > 0 && bgCdf.empty())
    {
        return BadOption("--bgLoad needs --bgCdf");
    }
    uint32_t hostsNeeded = jobs * (workers + psHosts);
    if (racks == 0)
    {
        racks = (hostsNeeded + hostsPerRack - 1) / hostsPerRack;
    }

    // The hosts' TCP, as in talb-scenario (Linux-like buffers and timers).
    Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(mtu));
    TalbHostConfig::ApplyDefaults(mtu);

    NodeContainer hosts = BuildFabric(racks, hostsPerRack, DataRate(hostRate), delay);

    Ptr<TalbOutputWriter> writer = CreateObject<TalbOutputWriter>();
    writer->Open(out);
    writer->SetScheme(scheme);
    writer->SetSeed(RngSeedManager::GetRun());
    // Ideal FCT: a cross-rack path (4 links) at the host rate.
    writer->SetIdealFct(DataRate(hostRate), delay * 8, mtu - 52, 54);

    std::vector<std::string> jobModels = TalbParse::Split(models, ',');
    if (jobModels.empty())
    {
        jobModels.assign(jobs, model);
    }
    if (jobModels.size() != jobs)
    {
        return BadOption("--models lists " + std::to_string(jobModels.size()) + " models for " +
                         std::to_string(jobs) + " jobs");
    }

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
        if (!astraFile.empty())
        {
            helper.SetModel(
                TalbAstraSimWorkload::Read(astraFile, Time(astraCycle), astraBytes, "astra"));
        }
        else
        {
            helper.SetModel(jobModels[j]);
        }
        helper.SetJobAttribute("JobId", UintegerValue(j));
        helper.SetJobAttribute("Iterations", UintegerValue(iterations));
        helper.SetJobAttribute("BatchSize", UintegerValue(batch));
        helper.SetJobAttribute("Device", StringValue(device));
        helper.SetJobAttribute("DeviceRate", DoubleValue(deviceRate));
        helper.SetJobAttribute("Precision", StringValue(precision));
        helper.SetScheduler(scheduler);
        // Each option goes to the schedulers that have the attribute; the others ignore it.
        SetIfPresent(helper, schedulerTid, "BucketSize", UintegerValue(bucketSize));
        SetIfPresent(helper, schedulerTid, "PartitionSize", UintegerValue(partitionSize));
        SetIfPresent(helper, schedulerTid, "Credit", UintegerValue(credit));
        SetIfPresent(helper, schedulerTid, "Ratio", DoubleValue(sparseRatio));
        SetIfPresent(helper, schedulerTid, "Bandwidth", DataRateValue(DataRate(hostRate)));
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
        TalbBackgroundTrafficHelper bg(bgCdf, bgLoad, hostRate);
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
