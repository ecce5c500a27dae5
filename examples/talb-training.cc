// Data-parallel DNN training jobs (and optional background traffic) on a two-tier fabric.
//
//   build/bin/talb-training --model=resnet50 --workers=16 --scheduler=bytescheduler
//       --collective=ring --rate=100Gbps --iterations=2 --out=results/demo
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
#include <sstream>

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

std::vector<std::string>
SplitList(const std::string& s)
{
    std::vector<std::string> out;
    std::istringstream in(s);
    std::string item;
    while (std::getline(in, item, ','))
    {
        out.push_back(item);
    }
    return out;
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
    std::string rate = "100Gbps";
    std::string delay = "1us";
    uint32_t mtu = 1500;
    std::string bgCdf;
    double bgLoad = 0;
    std::string out = "results/talb-training";
    std::string scheme = "ecmp";
    double stopTime = 60;

    CommandLine cmd(__FILE__);
    cmd.AddValue("model", "Zoo model (alexnet, vgg19, resnet50) or model file PATH[#MODEL]", model);
    cmd.AddValue("models", "Per-job models, comma separated (overrides --model)", models);
    cmd.AddValue("astra", "ASTRA-sim 1.0 DATA workload file to use as the model", astraFile);
    cmd.AddValue("astra-cycle", "Duration of one ASTRA-sim compute cycle", astraCycle);
    cmd.AddValue("astra-bytes",
                 "Bytes per element of the ASTRA-sim communication sizes",
                 astraBytes);
    cmd.AddValue("workers", "Workers (hosts) per job", workers);
    cmd.AddValue("jobs", "Training jobs sharing the fabric", jobs);
    cmd.AddValue("placement", "Job placement: packed or spread (across racks)", placement);
    cmd.AddValue("iterations", "Training iterations per job", iterations);
    cmd.AddValue("scheduler", "wfbp, fusion, bytescheduler, usbyte, ascwfbp or sparse", scheduler);
    cmd.AddValue("collective", "ring or ps", collective);
    cmd.AddValue("ps-hosts", "Dedicated parameter-server hosts per job (0: colocated)", psHosts);
    cmd.AddValue("batch", "Batch size per worker", batch);
    cmd.AddValue("device", "Device preset: V100-FP32, V100-AMP, A100-TF32, A100-AMP", device);
    cmd.AddValue("device-rate",
                 "Effective device FLOP/s (overrides --device when > 0)",
                 deviceRate);
    cmd.AddValue("precision", "Gradient precision: fp32 or fp16", precision);
    cmd.AddValue("bucket-size", "fusion: bucket size in bytes", bucketSize);
    cmd.AddValue("partition-size", "bytescheduler: partition size in bytes", partitionSize);
    cmd.AddValue("credit", "bytescheduler: credit in bytes", credit);
    cmd.AddValue("sparse-ratio", "sparse: fraction of elements kept", sparseRatio);
    cmd.AddValue("racks", "Racks (0: just enough for the jobs)", racks);
    cmd.AddValue("hosts-per-rack", "Hosts per rack", hostsPerRack);
    cmd.AddValue("rate", "Host link rate", rate);
    cmd.AddValue("delay", "Per-link propagation delay", delay);
    cmd.AddValue("mtu", "Link MTU in bytes (TCP segment = MTU - 52)", mtu);
    cmd.AddValue("bg-cdf", "Background flow-size CDF file (e.g. data/websearch-cdf.txt)", bgCdf);
    cmd.AddValue("bg-load", "Background load per host link, 0..1 (0: none)", bgLoad);
    cmd.AddValue("out", "Output folder for flows.csv, tensors.csv, iterations.csv", out);
    cmd.AddValue("scheme", "Value of the scheme column (the load balancer's name)", scheme);
    cmd.AddValue("stop", "Simulation stop time in seconds (a safety net)", stopTime);
    cmd.Parse(argc, argv);

    NS_ABORT_MSG_IF(workers == 0 || jobs == 0 || hostsPerRack == 0,
                    "workers, jobs and "
                    "hosts-per-rack must be > 0");
    NS_ABORT_MSG_IF(mtu < 576 || mtu > 9000, "--mtu must be in [576, 9000]");
    uint32_t hostsNeeded = jobs * (workers + (collective == "ps" ? psHosts : 0));
    if (racks == 0)
    {
        racks = (hostsNeeded + hostsPerRack - 1) / hostsPerRack;
    }

    // TCP: full-size segments, buffers well above the bandwidth-delay product.
    Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(mtu));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - 52));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(8 << 20));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(8 << 20));
    // A datacenter RTO, and a delayed-ACK timeout well below it: with the ns-3 defaults
    // (200 ms) a lone trailing segment waits for its ACK longer than the RTO, every such wait
    // ends in a timeout with cwnd = 1, and the connection never leaves that state.
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(MilliSeconds(5)));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MicroSeconds(20)));

    NodeContainer hosts = BuildFabric(racks, hostsPerRack, DataRate(rate), Time(delay));

    Ptr<TalbOutputWriter> writer = CreateObject<TalbOutputWriter>();
    writer->Open(out);
    writer->SetScheme(scheme);
    writer->SetSeed(RngSeedManager::GetRun());
    // Ideal FCT: a cross-rack path (4 links) at the host rate.
    writer->SetIdealFct(DataRate(rate), Time(delay) * 8, mtu - 52, 54);

    std::vector<std::string> jobModels = SplitList(models);
    if (jobModels.empty())
    {
        jobModels.assign(jobs, model);
    }
    NS_ABORT_MSG_IF(jobModels.size() != jobs,
                    "--models lists " << jobModels.size() << " models for " << jobs << " jobs");

    std::vector<uint32_t> sizes;
    for (uint32_t j = 0; j < jobs; ++j)
    {
        sizes.push_back(workers);
        if (collective == "ps" && psHosts > 0)
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
        if (scheduler == "fusion")
        {
            helper.SetSchedulerAttribute("BucketSize", UintegerValue(bucketSize));
        }
        else if (scheduler == "bytescheduler")
        {
            helper.SetSchedulerAttribute("PartitionSize", UintegerValue(partitionSize));
            helper.SetSchedulerAttribute("Credit", UintegerValue(credit));
        }
        else if (scheduler == "sparse")
        {
            helper.SetSchedulerAttribute("Ratio", DoubleValue(sparseRatio));
        }
        else if (scheduler == "usbyte")
        {
            helper.SetSchedulerAttribute("Bandwidth", DataRateValue(DataRate(rate)));
        }
        helper.SetCollective(collective);
        uint32_t slot = (collective == "ps" && psHosts > 0) ? 2 * j : j;
        if (collective == "ps" && psHosts > 0)
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
        NS_ABORT_MSG_IF(bgCdf.empty(), "--bg-load needs --bg-cdf");
        TalbBackgroundTrafficHelper bg(bgCdf, bgLoad, rate);
        bg.SetStartStop(Seconds(0), Seconds(stopTime));
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
    Simulator::Stop(Seconds(stopTime));

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
