// talb-sim-bench: simulation speed of the same leaf-spine scenario (a ring all-reduce job on all
// hosts plus background flows, a fixed simulated window) run with
//   stock: ns-3's IPv4 stack on the switches, Ipv4GlobalRouting with RandomEcmpRouting,
//   ecmp:  TalbSwitch device-level forwarding with the ECMP selector,
//   talb:  TalbSwitch with the tensor-aware selector,
//   ecmp/rdma: a variant over the RDMA transport (RoCEv2 NICs, DCQCN, PFC) instead of TCP,
// all in one invocation, so that the ratios (ecmp/stock, talb/ecmp) compare runs that shared the
// machine's state. Prints packet-hops (link transmissions), events and delivered packets per
// wall-second of Simulator::Run() (building and tearing down the scenario is shown apart as
// "setup") and the ratios; --csv appends one row per run. A benchmark, not a test: nothing
// here asserts a time. doc/talb-benchmarks.rst has the measured figures and how to read them.
//
//   talb-sim-bench                                    (128 hosts, 10 and 100 Gb/s)
//   talb-sim-bench --variants=ecmp,ecmp/rdma          (TCP against RDMA, same scenario)
//   talb-sim-bench --fabrics=4x4x8,8x8x16,16x8x16 --rates=10Gbps --durations=5ms
//
// The scenario parameters that do not define the fabric, job or variant are forwarded to every
// run with talb-scenario's meaning (--bgLoad, --mtu, --tcp, ...; --help lists them).
#include "ns3/command-line.h"
#include "ns3/simulator.h"
#include "ns3/system-path.h"
#include "ns3/talb-event-scheduler.h"
#include "ns3/talb-output-writer.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-scenario-parameters.h"
#include "ns3/talb-scenario.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <dlfcn.h>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <sys/resource.h>
#include <thread>
#include <unistd.h>

using namespace ns3;

namespace
{

/// One fabric of --fabrics: LEAVESxSPINESxHOSTS_PER_LEAF.
struct Fabric
{
    uint32_t leaves;
    uint32_t spines;
    uint32_t perLeaf;

    std::string Name() const
    {
        return std::to_string(leaves) + "x" + std::to_string(spines) + "x" +
               std::to_string(perLeaf);
    }

    uint32_t Hosts() const
    {
        return leaves * perLeaf;
    }
};

bool
ParseFabric(const std::string& text, Fabric* f)
{
    std::vector<std::string> parts = TalbParse::Split(text, 'x');
    if (parts.size() != 3)
    {
        return false;
    }
    uint64_t v[3];
    for (int i = 0; i < 3; ++i)
    {
        if (!TalbParse::ParseUint(parts[i], &v[i], 1, 99999))
        {
            return false;
        }
    }
    *f = Fabric{uint32_t(v[0]), uint32_t(v[1]), uint32_t(v[2])};
    return true;
}

/// What one run measured.
struct Row
{
    std::string fabric;
    uint32_t hosts;
    std::string rate;
    std::string variant;
    uint32_t repeat;
    double load; //!< 1-minute load average before the run
    TalbScenario::Result result;

    double HopsPerSecond() const
    {
        return result.packetHops / result.runWallSeconds;
    }

    double EventsPerSecond() const
    {
        return result.events / result.runWallSeconds;
    }

    double DeliveredPerSecond() const
    {
        return result.deliveredPackets / result.runWallSeconds;
    }

    /// Packet-hops per CPU-second: less sensitive than wall time to other jobs on the machine.
    double HopsPerCpuSecond() const
    {
        return result.packetHops / result.runCpuSeconds;
    }
};

double
LoadAverage()
{
    double load[1] = {0};
    return getloadavg(load, 1) == 1 ? load[0] : -1;
}

std::string
Today()
{
    std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", std::localtime(&t));
    return buf;
}

/// The ns-3 core library this program runs on (Debian's or an optimized tree).
std::string
Ns3CoreLibrary()
{
    Dl_info info;
    if (dladdr(reinterpret_cast<void*>(&Simulator::GetEventCount), &info) && info.dli_fname)
    {
        return info.dli_fname;
    }
    return "unknown";
}

/// A variant LB[/TRANSPORT] as (load balancer or "stock", transport name; tcp when left out).
std::pair<std::string, std::string>
SplitVariant(const std::string& variant)
{
    auto slash = variant.find('/');
    if (slash == std::string::npos)
    {
        return {variant, "tcp"};
    }
    return {variant.substr(0, slash), variant.substr(slash + 1)};
}

/// The variant \p variants[i] is compared with: LB for LB/TRANSPORT when listed, else the one
/// before it.
std::string
BaseOf(const std::vector<std::string>& variants, size_t i)
{
    auto [lb, transport] = SplitVariant(variants[i]);
    if (transport != "tcp" && std::find(variants.begin(), variants.end(), lb) != variants.end())
    {
        return lb;
    }
    return variants[i - 1];
}

double
Median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n == 0 ? 0 : (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2);
}

/**
 * The scenario parameters every run takes from the command line, with talb-scenario's meaning
 * (the others are set per run from --fabrics, --rates, --durations, --job and --variants, or
 * are fixed: see ScenarioConfig()).
 */
const std::vector<std::string> FORWARDED = {
    "linkDelay",
    "mtu",
    "queueSize",
    "hostQueueSize",
    "portScheduling",
    "bandScheduling",
    "strictBands",
    "bandWeights",
    "trainingWeight",
    "bestEffortWeight",
    "untaggedBand",
    "bestEffortBuffer",
    "ecnThreshold",
    "pushOut",
    "lbAttributes",
    "lbProfile",
    "lbRulesOff",
    "tcp",
    "sndBuf",
    "rcvBuf",
    "minRto",
    "hostQdisc",
    "rdmaQueuePairs",
    "rdmaTrafficClass",
    "bgLoad",
    "bgCdf",
    "seed",
};

/// The benchmark: its options, every run's configuration, the runs and their ratios.
class Bench
{
  public:
    Bench();

    /// Parses and checks the command line. \return one message per problem (empty: valid)
    std::vector<std::string> ParseCommandLine(int argc, char* argv[]);

    /// Runs every fabric, rate, repeat and variant; prints the table and the ratios.
    /// \return the exit status
    int Run();

  private:
    /// Checks the lists of --fabrics, --rates, --durations, --variants and --repeat.
    void CheckLists(std::vector<std::string>* errors);
    /// Checks --job (names, models and attributes) as talb-scenario checks its jobs.
    void CheckJob(std::vector<std::string>* errors);
    /**
     * Parses the configuration of one run into m_spec: fabric \p f, rate \p r, \p variant.
     * \return one message per problem
     */
    std::vector<std::string> Configure(const Fabric& f, size_t r, const std::string& variant);
    /// \return a scenario configuration with the forwarded parameters and the fixed ones
    TalbScenarioConfig ScenarioConfig() const;
    /// Prints one run's line (and its CSV row).
    void Report(const Row& row, std::ostream& csv) const;
    /// Prints the ratios of the median rates, each variant to the one it is compared with.
    void PrintRatios() const;

    TalbScenarioConfig m_forwarded; //!< the forwarded parameters, with the benchmark's defaults
    std::string m_fabricsText = "8x8x16";
    std::string m_ratesText = "10Gbps,100Gbps";
    std::string m_durationsText = "10ms,2500us";
    std::string m_variantsText = "stock,ecmp,talb,ecmp/rdma";
    std::string m_job = "model=resnet50,scheduler=wfbp";
    std::string m_repeatText = "1";
    std::string m_csv;
    std::string m_out = "/tmp/talb-sim-bench";
    std::vector<Fabric> m_fabrics;
    std::vector<std::string> m_rates;
    std::vector<std::string> m_durations;
    std::vector<std::string> m_variants;
    uint64_t m_repeat{1};
    TalbScenarioSpec m_spec; //!< the run being configured
    std::vector<Row> m_rows;
};

Bench::Bench()
{
    TalbScenarioParameters::Declare(m_forwarded, FORWARDED);
    // The benchmark's scenario: background at 0.3 load and strict bands, as when the figures in
    // doc/talb-benchmarks.rst were taken (their comparisons stay like for like);
    // --portScheduling=dwrr runs every variant with DWRR.
    m_forwarded.Set("bgLoad", "0.3", "talb-sim-bench default");
    m_forwarded.Set("portScheduling", "strict", "talb-sim-bench default");
}

std::vector<std::string>
Bench::ParseCommandLine(int argc, char* argv[])
{
    CommandLine cmd(__FILE__);
    cmd.Usage("Simulation speed of one scenario (a ring all-reduce job on all hosts plus "
              "background flows, a fixed simulated window) with stock ns-3 routing on the "
              "switches (stock), TalbSwitch with ECMP (ecmp) and with TaLB (talb), and ECMP over "
              "the RDMA transport (ecmp/rdma), in one invocation; prints packet-hops, events and "
              "delivered packets per wall-second and the ratios ecmp/stock, talb/ecmp and "
              "rdma/tcp. The options from --config on are talb-scenario's parameters, "
              "applied to every run (the benchmark's defaults: bgLoad 0.3, portScheduling "
              "strict); the fabric, job, transport and load balancer come from the options "
              "before them.");
    cmd.AddValue("fabrics",
                 "fabrics to run, LEAVESxSPINESxHOSTS_PER_LEAF, comma-separated",
                 m_fabricsText);
    cmd.AddValue("rates", "link rates (hosts and fabric alike), comma-separated", m_ratesText);
    cmd.AddValue("durations",
                 "simulated window per rate (same order as --rates; one value: all rates)",
                 m_durationsText);
    cmd.AddValue("variants",
                 "stock (ns-3 Ipv4GlobalRouting + RandomEcmpRouting), or a talb load balancer "
                 "(ecmp, talb, ...) over TCP, or LB/rdma over the RDMA transport, "
                 "comma-separated; ratios are each to the one before, LB/rdma's to LB when listed",
                 m_variantsText);
    cmd.AddValue("job",
                 "the training job on all hosts, as talb-scenario's --jobs, without workers; "
                 "keys left out: iterations=1 and batch=1 (compute ~3 ms: the window is mostly "
                 "all-reduce traffic), the others talb-scenario's defaults",
                 m_job);
    cmd.AddValue("repeat", "runs per variant, interleaved; rates are medians", m_repeatText);
    cmd.AddValue("csv", "append one row per run to this file (header when new)", m_csv);
    // A callback, unlike a string variable, takes an empty value (refused below, by name).
    cmd.AddValue("out",
                 "folder of the runs' outputs (one subfolder per run) [" + m_out + "]",
                 MakeBoundCallback(
                     +[](std::string* out, std::string value) {
                         *out = value;
                         return true;
                     },
                     &m_out));
    std::string eventScheduler;
    TalbEventScheduler::AddOption(cmd, &eventScheduler);
    m_forwarded.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    std::vector<std::string> errors = m_forwarded.TakeErrors();
    std::string schedulerError = TalbEventScheduler::Select(eventScheduler);
    if (!schedulerError.empty())
    {
        errors.push_back(schedulerError);
    }
    CheckLists(&errors);
    CheckJob(&errors);
    if (m_out.empty())
    {
        errors.push_back("--out: name an output folder");
    }
    if (!errors.empty())
    {
        return errors;
    }
    // Validate every run's configuration before simulating anything.
    for (const auto& f : m_fabrics)
    {
        for (size_t r = 0; r < m_rates.size(); ++r)
        {
            for (const auto& v : m_variants)
            {
                for (const auto& e : Configure(f, r, v))
                {
                    errors.push_back(f.Name() + " " + m_rates[r] + " " + v + ": " + e);
                }
            }
        }
    }
    return errors;
}

void
Bench::CheckLists(std::vector<std::string>* errors)
{
    for (const auto& f : TalbParse::Split(m_fabricsText, ','))
    {
        Fabric fab;
        if (!ParseFabric(f, &fab) || fab.leaves == 0 || fab.spines == 0 || fab.perLeaf == 0)
        {
            errors->push_back("--fabrics: '" + f + "' is not LEAVESxSPINESxHOSTS_PER_LEAF");
        }
        else
        {
            m_fabrics.push_back(fab);
        }
    }
    m_rates = TalbParse::Split(m_ratesText, ',');
    m_durations = TalbParse::Split(m_durationsText, ',');
    m_variants = TalbParse::Split(m_variantsText, ',');
    if (m_rates.empty() || m_variants.empty() || m_fabrics.empty())
    {
        errors->push_back("--fabrics, --rates and --variants need at least one value each");
    }
    if (m_durations.size() != 1 && m_durations.size() != m_rates.size())
    {
        errors->push_back("--durations: give one value, or one per rate (" +
                          std::to_string(m_rates.size()) + ")");
    }
    // Each list item on its own, so that the message names the option it came from.
    for (const auto& rate : m_rates)
    {
        DataRate parsed;
        if (!TalbParse::ParseDataRate(rate, &parsed))
        {
            errors->push_back("--rates: '" + rate + "' is not a positive data rate (e.g. 10Gbps)");
        }
    }
    for (const auto& d : m_durations)
    {
        Time parsed;
        if (!TalbParse::ParseTime(d, &parsed) || !parsed.IsStrictlyPositive())
        {
            errors->push_back("--durations: '" + d + "' is not a positive time with its unit");
        }
    }
    for (const auto& v : m_variants)
    {
        auto [lb, transport] = SplitVariant(v);
        TypeId tid;
        std::string unknown;
        if (lb == "stock" && transport != "tcp")
        {
            errors->push_back("--variants: '" + v + "': stock routing runs over TCP only");
        }
        else if (lb != "stock" && !TalbLoadBalancer::GetRegistry().Lookup(lb, &tid, &unknown))
        {
            errors->push_back("--variants: '" + v + "': " + unknown + ", or stock");
        }
        else if (!TalbTransport::GetRegistry().Lookup(transport, &tid, &unknown))
        {
            errors->push_back("--variants: '" + v + "': " + unknown);
        }
    }
    if (!TalbParse::ParseUint(m_repeatText, &m_repeat, 1, 1000))
    {
        errors->push_back("--repeat='" + m_repeatText + "': expected an integer in [1, 1000]");
    }
}

void
Bench::CheckJob(std::vector<std::string>* errors)
{
    std::vector<TalbJobSpec> jobs;
    std::string jobError = TalbJobSpec::ParseList(m_job, TalbJobSpec(), &jobs);
    if (m_job.find("workers=") != std::string::npos)
    {
        errors->push_back("--job: leave workers out (the job runs on every host)");
        return;
    }
    if (!jobError.empty() || jobs.size() != 1)
    {
        errors->push_back("--job: " + (jobError.empty() ? "give exactly one job" : jobError));
        return;
    }
    // Names, models and attributes: as talb-scenario checks them, on a fabric it fits.
    TalbScenarioConfig config = ScenarioConfig();
    config.Set("jobs", m_job + ",workers=2", "--job");
    TalbScenarioSpec probe;
    std::vector<std::string> invalid;
    probe.Parse(config, &invalid);
    for (const auto& e : invalid)
    {
        if (e.rfind("jobs: ", 0) == 0)
        {
            errors->push_back("--job: " + e.substr(6));
        }
    }
}

TalbScenarioConfig
Bench::ScenarioConfig() const
{
    TalbScenarioConfig config;
    TalbScenarioParameters::Declare(config);
    for (const auto& name : FORWARDED)
    {
        config.Set(name, m_forwarded.GetString(name), "--" + name);
    }
    config.Set("iterations", "1", "talb-sim-bench");
    config.Set("batch", "1", "talb-sim-bench");
    config.Set("progress", "false", "talb-sim-bench");
    return config;
}

std::vector<std::string>
Bench::Configure(const Fabric& f, size_t r, const std::string& variant)
{
    TalbScenarioConfig config = ScenarioConfig();
    std::vector<std::string> errors;
    auto set = [&](const std::string& name, const std::string& value) {
        std::string err = config.Set(name, value, "talb-sim-bench");
        if (!err.empty())
        {
            errors.push_back(err);
        }
    };
    set("leaves", std::to_string(f.leaves));
    set("spines", std::to_string(f.spines));
    set("hostsPerLeaf", std::to_string(f.perLeaf));
    set("hostRate", m_rates[r]);
    set("fabricRate", m_rates[r]);
    set("duration", m_durations.size() == 1 ? m_durations[0] : m_durations[r]);
    set("jobs", m_job + ",workers=" + std::to_string(f.Hosts()));
    auto [lb, transport] = SplitVariant(variant); // Parse() refuses stock over rdma
    set("transport", transport);
    set("stockRouting", lb == "stock" ? "true" : "false");
    set("lb", lb == "stock" ? "ecmp" : lb);
    set("out",
        SystemPath::Append(m_out,
                           f.Name() + "-" + m_rates[r] + "-" + lb +
                               (transport == "tcp" ? "" : "-" + transport)));
    std::vector<std::string> invalid;
    m_spec.Parse(config, &invalid);
    errors.insert(errors.end(), invalid.begin(), invalid.end());
    return errors;
}

int
Bench::Run()
{
    const char* preload = std::getenv("LD_PRELOAD");
    std::cout << "talb-sim-bench " << Today() << ", " << std::thread::hardware_concurrency()
              << " cores, ns-3 core library " << Ns3CoreLibrary() << ", allocator "
              << TalbOutputWriter::AllocatorName() << ", LD_PRELOAD "
              << (preload && *preload ? preload : "(none)") << "\n";
    std::ofstream csvOut;
    if (!m_csv.empty())
    {
        std::ifstream probe(m_csv);
        bool fresh = !probe.good() || probe.peek() == std::ifstream::traits_type::eof();
        csvOut.open(m_csv, std::ios::app);
        if (!csvOut)
        {
            std::cerr << "talb-sim-bench: error: cannot append to --csv=" << m_csv << "\n";
            return 2;
        }
        if (fresh)
        {
            csvOut << "date,cores,ns3_core,fabric,hosts,rate,variant,repeat,load1,sim_s,"
                      "run_wall_s,run_cpu_s,total_wall_s,events,packet_hops,delivered,"
                      "iterations_done,hops_per_s,events_per_s,delivered_per_s,hops_per_cpu_s\n";
        }
    }
    std::cout << std::left << std::setw(10) << "fabric" << std::setw(9) << "rate" << std::setw(11)
              << "variant" << std::right << std::setw(6) << "load" << std::setw(8) << "sim ms"
              << std::setw(8) << "setup s" << std::setw(8) << "run s" << std::setw(8) << "cpu s"
              << std::setw(10) << "events" << std::setw(10) << "pkt-hops" << std::setw(10)
              << "delivered" << std::setw(10) << "hops/s" << std::setw(10) << "events/s"
              << std::setw(11) << "hops/cpu-s"
              << "\n";
    for (const auto& f : m_fabrics)
    {
        for (size_t r = 0; r < m_rates.size(); ++r)
        {
            for (uint32_t k = 0; k < m_repeat; ++k)
            {
                for (const auto& v : m_variants)
                {
                    Configure(f, r, v);
                    Row row{f.Name(), f.Hosts(), m_rates[r], v, k, LoadAverage(), {}};
                    row.result = TalbScenario::Run(m_spec, m_spec.balancers.front(), m_spec.out);
                    Report(row, csvOut);
                    m_rows.push_back(row);
                }
            }
        }
    }
    PrintRatios();
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    std::cout << "peak RSS of this process " << ru.ru_maxrss / 1024 << " MiB\n";
    return 0;
}

void
Bench::Report(const Row& row, std::ostream& csv) const
{
    const auto& res = row.result;
    std::cout << std::left << std::setw(10) << row.fabric << std::setw(9) << row.rate
              << std::setw(11) << row.variant << std::right << std::fixed << std::setprecision(2)
              << std::setw(6) << row.load << std::setw(8) << res.simSeconds * 1e3 << std::setw(8)
              << res.wallSeconds - res.runWallSeconds << std::setw(8) << res.runWallSeconds
              << std::setw(8) << res.runCpuSeconds << std::setw(10) << res.events << std::setw(10)
              << res.packetHops << std::setw(10) << res.deliveredPackets << std::setprecision(0)
              << std::setw(10) << row.HopsPerSecond() << std::setw(10) << row.EventsPerSecond()
              << std::setw(11) << row.HopsPerCpuSecond() << std::endl;
    if (csv)
    {
        csv << std::setprecision(6) << std::defaultfloat << Today() << ","
            << std::thread::hardware_concurrency() << "," << Ns3CoreLibrary() << "," << row.fabric
            << "," << row.hosts << "," << row.rate << "," << row.variant << "," << row.repeat << ","
            << row.load << "," << res.simSeconds << "," << res.runWallSeconds << ","
            << res.runCpuSeconds << "," << res.wallSeconds << "," << res.events << ","
            << res.packetHops << "," << res.deliveredPackets << "," << res.iterationsDone << ","
            << row.HopsPerSecond() << "," << row.EventsPerSecond() << ","
            << row.DeliveredPerSecond() << "," << row.HopsPerCpuSecond() << std::endl;
    }
}

void
Bench::PrintRatios() const
{
    std::cout << "\nratios (median over repeats; each variant : the one before it, LB/rdma : LB "
                 "when listed):\n";
    for (const auto& f : m_fabrics)
    {
        for (const auto& rate : m_rates)
        {
            std::map<std::string, std::vector<double>> hops;
            std::map<std::string, std::vector<double>> events;
            std::map<std::string, std::vector<double>> cpu;
            for (const auto& row : m_rows)
            {
                if (row.fabric == f.Name() && row.rate == rate)
                {
                    hops[row.variant].push_back(row.HopsPerSecond());
                    events[row.variant].push_back(row.EventsPerSecond());
                    cpu[row.variant].push_back(row.HopsPerCpuSecond());
                }
            }
            for (size_t i = 1; i < m_variants.size(); ++i)
            {
                const std::string a = BaseOf(m_variants, i);
                const std::string& b = m_variants[i];
                std::cout << "  " << std::left << std::setw(10) << f.Name() << std::setw(9) << rate
                          << std::setw(22) << (b + " : " + a) << std::right << std::fixed
                          << std::setprecision(2) << "packet-hops/s " << std::setw(6)
                          << Median(hops[b]) / Median(hops[a]) << "   packet-hops/cpu-s "
                          << std::setw(6) << Median(cpu[b]) / Median(cpu[a]) << "   events/s "
                          << std::setw(6) << Median(events[b]) / Median(events[a]) << "\n";
            }
        }
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    Bench bench;
    std::vector<std::string> errors = bench.ParseCommandLine(argc, argv);
    for (const auto& e : errors)
    {
        std::cerr << "talb-sim-bench: error: " << e << "\n";
    }
    return errors.empty() ? bench.Run() : 2;
}
