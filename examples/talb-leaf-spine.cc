// Leaf-spine fabric of TaLB switches running TCP flows under the chosen load balancers.
//
//   ./talb-leaf-spine --lb=talb --leaves=4 --spines=4 --hostsPerLeaf=8 --flows=64 --tensors=4
//   ./talb-leaf-spine --stockRouting ...   (same fabric and traffic on ns-3's Ipv4GlobalRouting)
//
// The fabric, balancer, host and run options are talb-scenario's (the same names, meanings and
// defaults); --flows, --flowSize and --tensors are this example's. Per load balancer of --lb it
// prints per-uplink packet counts, delivered packets, delivered packets per wall-clock second,
// and an FCT summary (flows that completed, mean / p99 FCT, mean slowdown over the ideal FCT).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbLeafSpineExample");

namespace
{

/// One flow: a BulkSend (untagged) or a TalbTensorSource (tagged tensors) to a TalbBulkSink.
struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t size;
    Time start;
    uint64_t received{0};
    Time finish;
};

/// The example's options, checked.
struct Options
{
    TalbFabricSpec fabric;
    std::vector<TalbBalancerSpec> balancers;
    uint32_t flows{0};
    uint64_t flowSize{0};
    uint32_t tensors{0};
    uint64_t seed{1};
    Time duration; //!< zero: until every flow finished
    Time stopTime;
    std::string tcp;
};

/// The flows of one run on one fabric, and what they delivered.
class FlowRun
{
  public:
    FlowRun(const Options& o, Ptr<TalbLeafSpineHelper> fabric)
        : m_options(o),
          m_fabric(fabric)
    {
    }

    /// Install the flows between random hosts on different leaves, and count uplink packets.
    void Install();
    /// Simulate until every flow finished, the duration or stopTime.
    void Simulate();
    /// Print what the run measured.
    void Print(const std::string& lb) const;

  private:
    void InstallFlow(uint32_t f);
    void SinkRx(uint32_t flow, Ptr<const Packet> p, const Address&);
    void UplinkTx(uint32_t link, Ptr<const Packet>);

    const Options& m_options;
    Ptr<TalbLeafSpineHelper> m_fabric;
    std::vector<Flow> m_flows;
    uint32_t m_finished{0};
    uint64_t m_delivered{0};
    std::vector<uint64_t> m_uplinkPackets;
    double m_wallSeconds{0};
};

void
FlowRun::Install()
{
    // Traffic: drawn before anything else uses the stream, so every run gets the same.
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(1);
    uint32_t nHosts = m_fabric->GetNHosts();
    for (uint32_t f = 0; f < m_options.flows; ++f)
    {
        uint32_t src = rng->GetInteger(0, nHosts - 1);
        uint32_t dst;
        do
        {
            dst = rng->GetInteger(0, nHosts - 1);
        } while (m_fabric->GetLeafOfHost(dst) == m_fabric->GetLeafOfHost(src));
        Time start = MicroSeconds(rng->GetInteger(0, 1000));
        m_flows.push_back({src, dst, m_options.flowSize, start, 0, Time()});
        InstallFlow(f);
    }
    const TalbFabricSpec& s = m_options.fabric;
    m_uplinkPackets.assign(s.leaves * s.spines, 0);
    for (uint32_t l = 0; l < s.leaves; ++l)
    {
        for (uint32_t sp = 0; sp < s.spines; ++sp)
        {
            m_fabric->GetUplinkDevice(l, sp)->TraceConnectWithoutContext(
                "MacTx",
                MakeCallback(&FlowRun::UplinkTx, this).Bind(l * s.spines + sp));
        }
    }
}

void
FlowRun::InstallFlow(uint32_t f)
{
    const Flow& flow = m_flows[f];
    uint16_t port = 10000 + f;
    TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sink.Install(m_fabric->GetHost(flow.dst));
    sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&FlowRun::SinkRx, this).Bind(f));
    Address remote = InetSocketAddress(m_fabric->GetHostAddress(flow.dst), port);
    const uint32_t tensors = m_options.tensors;
    if (tensors == 0)
    {
        BulkSendHelper bulk("ns3::TcpSocketFactory", remote);
        bulk.SetAttribute("MaxBytes", UintegerValue(flow.size));
        bulk.SetAttribute("SendSize", UintegerValue(65536));
        ApplicationContainer app = bulk.Install(m_fabric->GetHost(flow.src));
        app.Start(flow.start);
        return;
    }
    Ptr<TalbTensorSource> app = CreateObject<TalbTensorSource>();
    app->SetAttribute("Remote", AddressValue(remote));
    uint64_t left = flow.size;
    for (uint32_t t = 0; t < tensors; ++t)
    {
        uint64_t bytes = t + 1 == tensors ? left : flow.size / tensors;
        left -= bytes;
        app->AddTensor(talb_make_tensor_id(0, f * tensors + t),
                       t % TALB_NUM_PRIORITIES,
                       bytes,
                       flow.start);
    }
    m_fabric->GetHost(flow.src)->AddApplication(app);
    app->SetStartTime(flow.start);
}

void
FlowRun::SinkRx(uint32_t flow, Ptr<const Packet> p, const Address&)
{
    ++m_delivered;
    Flow& f = m_flows[flow];
    f.received += p->GetSize();
    if (f.size > 0 && f.received >= f.size && f.finish.IsZero())
    {
        f.finish = Simulator::Now();
        if (++m_finished == m_flows.size() && m_options.duration.IsZero())
        {
            Simulator::Stop();
        }
    }
}

void
FlowRun::UplinkTx(uint32_t link, Ptr<const Packet>)
{
    ++m_uplinkPackets[link];
}

void
FlowRun::Simulate()
{
    const Time& duration = m_options.duration;
    Simulator::Stop(duration.IsZero() ? m_options.stopTime
                                      : std::min(duration, m_options.stopTime));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    m_wallSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void
FlowRun::Print(const std::string& lb) const
{
    const uint32_t spines = m_options.fabric.spines;
    std::cout << "mode "
              << (m_options.fabric.stockRouting ? "stock-ipv4-global-routing" : "talb-switch " + lb)
              << ", hosts " << m_fabric->GetNHosts() << ", flows " << m_options.flows << ", tcp "
              << m_options.tcp << "\n";
    std::cout << "uplink packets (leaf:spine count):";
    for (uint32_t k = 0; k < m_uplinkPackets.size(); ++k)
    {
        std::cout << " " << k / spines << ":" << k % spines << " " << m_uplinkPackets[k];
    }
    std::cout << "\n";
    std::vector<double> fcts;
    double slowdownSum = 0;
    for (const auto& f : m_flows)
    {
        if (f.finish.IsZero())
        {
            continue;
        }
        double fct = (f.finish - f.start).GetSeconds();
        double ideal = m_fabric->GetBaseRtt(f.src, f.dst).GetSeconds() +
                       f.size * 8.0 / m_fabric->GetBottleneckRate(f.src, f.dst).GetBitRate();
        fcts.push_back(fct);
        slowdownSum += std::max(1.0, fct / ideal);
    }
    std::cout << "delivered packets " << m_delivered << ", wall seconds " << m_wallSeconds
              << ", delivered packets per wall-second " << std::fixed << std::setprecision(0)
              << m_delivered / m_wallSeconds << "\n";
    std::cout << std::setprecision(6);
    if (m_options.flowSize > 0)
    {
        std::sort(fcts.begin(), fcts.end());
        std::cout << "completed flows " << fcts.size() << " of " << m_options.flows;
        if (!fcts.empty())
        {
            double mean = 0;
            for (double v : fcts)
            {
                mean += v;
            }
            mean /= fcts.size();
            size_t p99 = std::min(fcts.size() - 1, static_cast<size_t>(0.99 * fcts.size()));
            std::cout << ", FCT mean " << mean * 1e6 << " us, p99 " << fcts[p99] * 1e6
                      << " us, mean slowdown " << slowdownSum / fcts.size();
        }
        std::cout << "\n";
    }
    std::cout << std::defaultfloat;
}

/// Build the fabric with load balancer \p lb, run the flows, print what they got.
void
RunOnce(const Options& o, const TalbBalancerSpec& lb)
{
    RngSeedManager::SetRun(o.seed);
    o.fabric.ConfigureDefaults();
    Ptr<TalbLeafSpineHelper> fabric = o.fabric.Build(lb.factory);
    fabric->AssignStreams(1000);
    FlowRun run(o, fabric);
    run.Install();
    run.Simulate();
    run.Print(lb.name);
    Simulator::Destroy();
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
    TalbScenarioParameters::Declare(config, {"seed", "duration", "stopTime"});
    config.Declare("flows",
                   C::UINT,
                   "8",
                   "flows between random hosts on different leaves",
                   C::Between(0, 1000000));
    config.Declare("flowSize",
                   C::UINT,
                   "1000000",
                   "bytes per flow (0: unlimited bulk transfer; needs duration)",
                   C::AtLeast(0));
    config.Declare("tensors",
                   C::UINT,
                   "0",
                   "send each flow as this many tagged tensors (priority = index mod 8); 0: "
                   "untagged BulkSend",
                   C::Between(0, 1000000));
}

/// Reads \p config into \p o, checking what the declarations cannot.
/// \return one message per problem
std::vector<std::string>
ParseOptions(const TalbScenarioConfig& config, Options* o)
{
    std::vector<std::string> errors;
    o->fabric.Parse(config, &errors);
    TalbAttributeList::Pairs profile;
    o->balancers =
        TalbBalancerSpec::ParseList(config,
                                    o->fabric,
                                    &profile,
                                    &errors,
                                    TalbBalancerSpec::Jobs()); // tensor flows, no LLM job
    o->flows = config.GetUint("flows");
    o->flowSize = config.GetUint("flowSize");
    o->tensors = config.GetUint("tensors");
    o->seed = config.GetUint("seed");
    o->duration = config.GetTime("duration");
    o->stopTime = config.GetTime("stopTime");
    o->tcp = config.GetString("tcp");
    if (o->fabric.leaves < 2)
    {
        errors.push_back("leaves: flows go between leaves, so at least 2");
    }
    if (o->tensors > 0 && (o->flowSize == 0 || o->flowSize < o->tensors))
    {
        errors.push_back("tensors needs a finite flowSize of at least one byte per tensor");
    }
    if (o->flowSize == 0 && o->duration.IsZero())
    {
        errors.push_back("duration: unlimited flows (flowSize=0) need a duration");
    }
    return errors;
}

} // namespace

int
main(int argc, char* argv[])
{
    TalbScenarioConfig config;
    DeclareOptions(config);
    CommandLine cmd(__FILE__);
    cmd.Usage("TCP flows between the leaves of a leaf-spine fabric, once per load balancer of "
              "--lb. Every option but --flows, --flowSize and --tensors is talb-scenario's.");
    Options options;
    if (!config.ParseCommandLine(cmd, argc, argv, [&] { return ParseOptions(config, &options); }))
    {
        return 2;
    }
    for (const auto& lb : options.balancers)
    {
        RunOnce(options, lb);
    }
    return 0;
}
