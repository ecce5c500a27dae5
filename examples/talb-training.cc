// Data-parallel DNN training jobs (and background traffic) on talb-scenario's leaf-spine fabric,
// with the training generator's own knobs: per-job models or an ASTRA-sim workload, dedicated
// parameter servers, the device rate and the schedulers' sizes.
//
//   build/bin/talb-training --model=resnet50 --workers=16 --scheduler=bytescheduler
//       --collective=ring --hostRate=100Gbps --iterations=2 --lb=ecmp --out=results/demo
//
// writes flows.csv, tensors.csv, iterations.csv and run.json into --out (a subfolder per load
// balancer when --lb names several; analysis/talb-report.py reads them as it reads
// talb-scenario's) and prints one line per job. The fabric is talb-scenario's leaf-spine with
// each --lb balancer in its switches (the scheme column names it; --stockRouting: ns-3's global
// routing instead, scheme stock-ecmp). The fabric, balancer, host,
// background and run options are talb-scenario's (the same names, meanings and defaults).
// Every option: build/bin/talb-training --help. Scheduler and collective attributes beyond the
// options below: --ns3::TalbFusionScheduler::Timeout=2ms etc. (--PrintAttributes=TYPE).
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbTraining");

namespace
{

/// The example's options, checked.
struct Options
{
    TalbFabricSpec fabric;
    std::vector<TalbBalancerSpec> balancers;
    TalbAttributeList::Pairs lbProfile; //!< what lbProfile applies
    std::vector<TalbDnnModel> models;   //!< per job
    uint32_t workers{0};
    uint32_t psHosts{0};
    std::string placement;
    uint32_t iterations{0};
    std::string scheduler;
    std::string collective;
    std::string transport;
    uint32_t batch{0};
    std::string device;
    double deviceRate{0};
    std::string precision;
    /// Scheduler options, each for the schedulers with that attribute.
    std::vector<std::pair<std::string, Ptr<AttributeValue>>> schedulerAttributes;
    double bgLoad{0};
    TalbFlowSizeCdf bgCdf;
    uint64_t seed{1};
    Time stopTime;
    std::string out;
    std::string parametersJson; //!< every option, for run.json
};

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

/// Every option, declared once with its kind and range (the shared ones as talb-scenario
/// declares them).
void
DeclareOptions(TalbScenarioConfig& config)
{
    typedef TalbScenarioConfig C;
    TalbScenarioParameters::Declare(config, TalbScenarioParameters::FABRIC);
    TalbScenarioParameters::Declare(config, TalbScenarioParameters::BALANCERS);
    TalbScenarioParameters::Declare(config, TalbScenarioParameters::HOSTS);
    TalbScenarioParameters::Declare(config,
                                    {"transport",
                                     "model",
                                     "placement",
                                     "iterations",
                                     "batch",
                                     "device",
                                     "precision",
                                     "bgLoad",
                                     "bgCdf",
                                     "seed",
                                     "stopTime",
                                     "out"});
    config.Declare("jobCount",
                   C::UINT,
                   "1",
                   "training jobs sharing the fabric",
                   C::Between(1, 255));
    config.Declare("models",
                   C::STRING,
                   "",
                   "per-job models, comma-separated, one per job (overrides model)");
    config.Declare("astra", C::STRING, "", "ASTRA-sim 1.0 DATA workload file to use as the model");
    config.Declare("astraCycle", C::TIME, "1ns", "duration of one ASTRA-sim compute cycle");
    config.Declare("astraBytes",
                   C::UINT,
                   "4",
                   "bytes per element of the ASTRA-sim communication sizes",
                   C::Between(1, 64));
    config.Declare("workers", C::UINT, "8", "workers (hosts) per job", C::Between(1, 65536));
    config.Declare("psHosts",
                   C::UINT,
                   "0",
                   "dedicated parameter-server hosts per job (0: colocated; needs "
                   "collective=ps)",
                   C::Between(0, 1024));
    config.Declare("scheduler",
                   C::NAME,
                   "wfbp",
                   "communication scheduler",
                   TalbCommScheduler::GetRegistry());
    config.Declare("collective", C::NAME, "ring", "collective", TalbCollective::GetRegistry());
    config.Declare("deviceRate",
                   C::DOUBLE,
                   "0",
                   "effective device FLOP/s (overrides device when > 0)",
                   C::AtLeast(0));
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
}

/// The models of the jobs: an ASTRA-sim workload, or one zoo name or model file per job.
void
ParseModels(const TalbScenarioConfig& config, Options* o, std::vector<std::string>* errors)
{
    const uint32_t jobs = config.GetUint("jobCount");
    std::string error;
    if (!config.GetString("astra").empty())
    {
        Time cycle = config.GetTime("astraCycle");
        TalbDnnModel m;
        if (!cycle.IsStrictlyPositive())
        {
            errors->push_back("astraCycle: must be positive");
        }
        else if (!TalbAstraSimWorkload::TryRead(config.GetString("astra"),
                                                cycle,
                                                config.GetUint("astraBytes"),
                                                "astra",
                                                &m,
                                                &error))
        {
            errors->push_back("astra: " + error);
        }
        o->models.assign(jobs, m);
        return;
    }
    const std::string option = config.GetString("models").empty() ? "model" : "models";
    std::vector<std::string> names = TalbParse::Split(config.GetString("models"), ',');
    if (names.empty())
    {
        names.assign(jobs, config.GetString("model"));
    }
    if (names.size() != jobs)
    {
        errors->push_back("models: lists " + std::to_string(names.size()) + " models for " +
                          std::to_string(jobs) + " jobs (jobCount)");
        return;
    }
    for (const auto& name : names)
    {
        TalbDnnModel m;
        if (!TalbModelZoo::TryResolve(name, &m, &error))
        {
            errors->push_back(option + ": " + error);
            return;
        }
        o->models.push_back(m);
    }
}

/// The scheduler, its options and the plug-ins that go with it.
void
ParseScheduler(const TalbScenarioConfig& config, Options* o, std::vector<std::string>* errors)
{
    o->scheduler = config.GetString("scheduler");
    o->collective = config.GetString("collective");
    o->psHosts = config.GetUint("psHosts");
    TypeId schedulerTid = TalbCommScheduler::GetRegistry().Get(o->scheduler);
    if (o->psHosts > 0 &&
        TalbCollective::GetRegistry().Get(o->collective) != TalbParameterServer::GetTypeId())
    {
        errors->push_back("psHosts: needs collective=ps");
    }
    if (!TalbComputeModel::HasPreset(o->device))
    {
        errors->push_back("device: unknown preset '" + o->device +
                          "' (valid: " + TalbComputeModel::PresetNames() + ")");
    }
    // Each scheduler option goes to the schedulers that have the attribute; combinations the
    // scheduler refuses (credit below partitionSize) are refused here.
    o->schedulerAttributes = {
        {"BucketSize", Create<UintegerValue>(config.GetUint("bucketSize"))},
        {"PartitionSize", Create<UintegerValue>(config.GetUint("partitionSize"))},
        {"Credit", Create<UintegerValue>(config.GetUint("credit"))},
        {"Ratio", Create<DoubleValue>(config.GetDouble("sparseRatio"))},
        {"Bandwidth", Create<DataRateValue>(o->fabric.hostRate)},
    };
    ObjectFactory factory(schedulerTid.GetName());
    for (const auto& kv : o->schedulerAttributes)
    {
        TypeId::AttributeInformation info;
        if (schedulerTid.LookupAttributeByName(kv.first, &info))
        {
            factory.Set(kv.first, *kv.second);
        }
    }
    std::string error;
    if (!factory.Create<TalbCommScheduler>()->CheckAttributes(&error))
    {
        errors->push_back("scheduler: " + o->scheduler + ": " + error);
    }
}

/// Reads \p config into \p o, checking everything a value names before anything is built.
/// \return one message per problem
std::vector<std::string>
ParseOptions(const TalbScenarioConfig& config, Options* o)
{
    std::vector<std::string> errors;
    o->fabric.Parse(config, &errors);
    o->transport = config.GetString("transport");
    o->fabric.rdmaHosts =
        TalbTransport::GetRegistry().Get(o->transport) == TalbRdmaTransport::GetTypeId();
    o->balancers = TalbBalancerSpec::ParseList(config,
                                               o->fabric,
                                               &o->lbProfile,
                                               &errors,
                                               TalbBalancerSpec::Jobs()); // CNN jobs only
    o->workers = config.GetUint("workers");
    o->placement = config.GetString("placement");
    o->iterations = config.GetUint("iterations");
    o->batch = config.GetUint("batch");
    o->device = config.GetString("device");
    o->deviceRate = config.GetDouble("deviceRate");
    o->precision = config.GetString("precision");
    ParseModels(config, o, &errors);
    ParseScheduler(config, o, &errors);
    o->bgLoad = config.GetDouble("bgLoad");
    std::string error;
    if (o->bgLoad > 0 &&
        !TalbBackgroundTrafficHelper::LoadCdf(config.GetString("bgCdf"), &o->bgCdf, &error))
    {
        errors.push_back("bgCdf: " + error);
    }
    o->seed = config.GetUint("seed");
    o->stopTime = config.GetTime("stopTime");
    if (!o->stopTime.IsStrictlyPositive())
    {
        errors.push_back("stopTime: must be positive");
    }
    o->out = config.GetString("out");
    o->parametersJson = config.ToJson();
    if (o->out.empty() || !OutputFolderWritable(o->out))
    {
        errors.push_back("out: cannot create or write the folder '" + o->out + "'");
    }
    uint64_t needed = uint64_t(o->models.size()) * (o->workers + o->psHosts);
    if (needed > o->fabric.GetNHosts())
    {
        errors.push_back("jobs need " + std::to_string(needed) + " hosts but the fabric has " +
                         std::to_string(o->fabric.GetNHosts()) + " (leaves x hostsPerLeaf)");
    }
    return errors;
}

/// Install the jobs on the hosts of \p fabric, their records into \p writer.
std::vector<Ptr<TalbTrainingJob>>
InstallJobs(const Options& o, Ptr<TalbLeafSpineHelper> fabric, Ptr<TalbOutputWriter> writer)
{
    const bool servers = o.psHosts > 0;
    std::vector<uint32_t> sizes;
    for (uint32_t j = 0; j < o.models.size(); ++j)
    {
        sizes.push_back(o.workers);
        if (servers)
        {
            sizes.push_back(o.psHosts);
        }
    }
    std::vector<NodeContainer> placed =
        TalbTrainingJobHelper::Place(fabric->GetHosts(), o.fabric.hostsPerLeaf, sizes, o.placement);
    TypeId schedulerTid = TalbCommScheduler::GetRegistry().Get(o.scheduler);
    std::vector<Ptr<TalbTrainingJob>> jobs;
    for (uint32_t j = 0; j < o.models.size(); ++j)
    {
        TalbTrainingJobHelper helper;
        helper.SetModel(o.models[j]);
        helper.SetJobAttribute("JobId", UintegerValue(j));
        helper.SetJobAttribute("Iterations", UintegerValue(o.iterations));
        helper.SetJobAttribute("BatchSize", UintegerValue(o.batch));
        helper.SetJobAttribute("Device", StringValue(o.device));
        helper.SetJobAttribute("DeviceRate", DoubleValue(o.deviceRate));
        helper.SetJobAttribute("Precision", StringValue(o.precision));
        helper.SetScheduler(o.scheduler);
        for (const auto& kv : o.schedulerAttributes)
        {
            TypeId::AttributeInformation info;
            if (schedulerTid.LookupAttributeByName(kv.first, &info))
            {
                helper.SetSchedulerAttribute(kv.first, *kv.second);
            }
        }
        helper.SetCollective(o.collective);
        helper.SetTransport(o.transport);
        uint32_t slot = servers ? 2 * j : j;
        if (servers)
        {
            helper.SetParameterServers(placed[slot + 1]);
        }
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(helper.Install(placed[slot]));
        writer->ConnectJob(job);
        jobs.push_back(job);
    }
    return jobs;
}

/// Simulate until every job finished and its messages' last bytes are acknowledged (their
/// flows.csv rows); background traffic alone does not keep it running.
void
RunUntilFinished(const std::vector<Ptr<TalbTrainingJob>>& jobs, Time stopTime)
{
    std::function<void()> check = [&]() {
        bool done = TalbMessageChannel::GetAwaitingCompletion() == 0;
        for (const auto& job : jobs)
        {
            done = done && job->IsFinished();
        }
        if (!done)
        {
            Simulator::Schedule(MilliSeconds(1), check);
            return;
        }
        Simulator::Stop();
    };
    Simulator::Schedule(MilliSeconds(1), check);
    Simulator::Stop(stopTime);
    Simulator::Run();
}

/// Print one line per job and the rows written. \return whether every job finished
bool
PrintJobs(const Options& o,
          const std::vector<Ptr<TalbTrainingJob>>& jobs,
          Ptr<TalbOutputWriter> writer,
          const std::string& out,
          double wall)
{
    std::cout << "job model workers scheduler collective iterations finished_ms "
                 "compute_per_iter_ms wall_s\n";
    bool allFinished = true;
    for (uint32_t j = 0; j < jobs.size(); ++j)
    {
        Ptr<TalbTrainingJob> job = jobs[j];
        std::cout << j << " " << job->GetModel().GetName() << " " << job->GetNWorkers() << " "
                  << o.scheduler << " " << o.collective << " " << o.iterations << " "
                  << (job->IsFinished() ? job->GetFinishTime().GetSeconds() * 1e3 : -1.0) << " "
                  << job->GetIterationComputeTime().GetSeconds() * 1e3 << " " << wall << "\n";
        allFinished = allFinished && job->IsFinished();
    }
    std::cout << "rows: flows " << writer->GetFlowRows() << ", tensors " << writer->GetTensorRows()
              << ", iterations " << writer->GetIterationRows() << " in " << out << "\n";
    return allFinished;
}

/// One run with load balancer \p lb, outputs into \p out. \return its exit status: 0 done, 3 a job
/// unfinished, 4 run.json not written
int
RunOnce(const Options& o, const TalbBalancerSpec& lb, const std::string& out)
{
    auto wallStart = std::chrono::steady_clock::now();
    RngSeedManager::SetRun(o.seed);
    o.fabric.ConfigureDefaults();
    Ptr<TalbLeafSpineHelper> fabric = o.fabric.Build(lb.factory);
    int64_t stream = 1000 + fabric->AssignStreams(1000);
    TalbIdealFct ideal(fabric, o.fabric.mtu);
    Ptr<TalbOutputWriter> writer = CreateObject<TalbOutputWriter>();
    writer->Open(out);
    writer->SetScheme(o.fabric.stockRouting ? "stock-ecmp" : lb.name);
    writer->SetSeed(o.seed);
    writer->SetIdealFctCallback(MakeCallback(&TalbIdealFct::Ideal, &ideal));
    std::vector<Ptr<TalbTrainingJob>> jobs = InstallJobs(o, fabric, writer);
    // run.json as talb-scenario writes it (the figures this program measures), marked
    // incomplete until the run ends: the report reads the folder either way.
    TalbOutputWriter::RunInfo info;
    info.scheme = o.fabric.stockRouting ? "stock-ecmp" : lb.name;
    info.lb = lb.name;
    info.seed = o.seed;
    info.parametersJson = o.parametersJson;
    info.lbProfile = TalbAttributeList::ToText(o.lbProfile);
    std::string error;
    if (!TalbOutputWriter::WriteRunJson(out, info, &error))
    {
        std::cerr << "talb-training: error: " << error << "\n";
        writer->Dispose();
        Simulator::Destroy();
        return 4;
    }
    uint64_t eventsBefore = Simulator::GetEventCount();
    if (o.bgLoad > 0)
    {
        TalbBackgroundTrafficHelper bg(o.bgCdf, o.bgLoad, o.fabric.hostRate);
        bg.SetStartStop(Seconds(0), o.stopTime);
        ApplicationContainer bgApps = bg.Install(fabric->GetHosts());
        TalbBackgroundTrafficHelper::AssignStreams(bgApps, stream);
        writer->ConnectBackground(bgApps);
    }
    auto runStart = std::chrono::steady_clock::now();
    RunUntilFinished(jobs, o.stopTime);
    auto runEnd = std::chrono::steady_clock::now();
    info.simSeconds = Simulator::Now().GetSeconds();
    info.events = Simulator::GetEventCount() - eventsBefore;
    double wall = std::chrono::duration<double>(runEnd - wallStart).count();
    bool finished = PrintJobs(o, jobs, writer, out, wall);
    writer->Dispose();
    Simulator::Destroy();
    info.complete = finished;
    info.runWallSeconds = std::chrono::duration<double>(runEnd - runStart).count();
    info.wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    if (!TalbOutputWriter::WriteRunJson(out, info, &error))
    {
        std::cerr << "talb-training: error: " << error << "\n";
        return 4;
    }
    return finished ? 0 : 3;
}

} // namespace

int
main(int argc, char* argv[])
{
    TalbScenarioConfig config;
    DeclareOptions(config);
    CommandLine cmd(__FILE__);
    cmd.Usage("Data-parallel training jobs and background traffic on talb-scenario's leaf-spine "
              "fabric, once per load balancer of --lb (each run's switches use that balancer; "
              "its name is the scheme column). The fabric, balancer, host, background and run "
              "options are talb-scenario's; the job options are this example's. Writes "
              "flows.csv, tensors.csv, iterations.csv and run.json (analysis/talb-report.py "
              "reads the folder). Exit status: 0 done, 2 bad option, 3 stopTime reached before "
              "every job finished, 4 run.json could not be written (e.g. its folder was removed "
              "during the "
              "run).");
    Options options;
    if (!config.ParseCommandLine(cmd, argc, argv, [&] { return ParseOptions(config, &options); }))
    {
        return 2;
    }
    int status = 0;
    for (const auto& lb : options.balancers)
    {
        std::string out = options.out;
        if (options.balancers.size() > 1)
        {
            out = SystemPath::Append(out, lb.name);
        }
        status = std::max(status, RunOnce(options, lb, out));
    }
    return status;
}
