// Leaf-spine fabric of TaLB switches running TCP flows under a chosen path selector.
//
//   ./talb-leaf-spine --lb=talb --leaves=4 --spines=4 --hostsPerLeaf=8 --flows=64 --tensors=4
//   ./talb-leaf-spine --stockRouting ...   (same fabric and traffic on ns-3's Ipv4GlobalRouting)
//
// Prints per-uplink packet counts, delivered packets, delivered packets per wall-clock second,
// and an FCT summary (flows that completed, mean / p99 FCT, mean slowdown over the ideal FCT).
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbLeafSpineExample");

namespace
{

/// One flow: a BulkSend (untagged) or a TalbTensorSource (tagged tensors) to a PacketSink.
struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint64_t size;
    Time start;
    uint64_t received{0};
    Time finish;
};

std::vector<Flow> g_flows;
uint64_t g_deliveredPackets = 0;

void
SinkRx(uint32_t flow, Ptr<const Packet> p, const Address&)
{
    ++g_deliveredPackets;
    Flow& f = g_flows[flow];
    f.received += p->GetSize();
    if (f.size > 0 && f.received >= f.size && f.finish.IsZero())
    {
        f.finish = Simulator::Now();
    }
}

std::vector<uint64_t> g_uplinkPackets;

void
UplinkTx(uint32_t link, Ptr<const Packet>)
{
    ++g_uplinkPackets[link];
}

/// Reports a bad option and how to get help. \return the exit code for bad input
int
BadOption(const std::string& message)
{
    std::cerr << "talb-leaf-spine: error: " << message << " (--help lists the options)\n";
    return 2;
}

} // namespace

int
main(int argc, char* argv[])
{
    // Every option is declared once with its kind and range, and checked before anything is
    // built: a bad value exits with code 2 and a message naming the option.
    typedef TalbScenarioConfig C;
    C config;
    config.Declare("lb", C::NAME, "ecmp", "path selector", TalbLoadBalancer::GetRegistry());
    config.Declare("leaves",
                   C::UINT,
                   "2",
                   "leaf switches (flows go between leaves)",
                   C::Between(2, 256));
    config.Declare("spines", C::UINT, "2", "spine switches", C::Between(1, 256));
    config.Declare("hostsPerLeaf", C::UINT, "4", "hosts below each leaf", C::Between(1, 1024));
    config.Declare("hostRate", C::RATE, "10Gbps", "host link rate");
    config.Declare("fabricRate", C::RATE, "40Gbps", "leaf-spine link rate");
    config.Declare("oversubscription",
                   C::DOUBLE,
                   "0",
                   "oversubscription ratio (overrides fabricRate when > 0)",
                   C::AtLeast(0));
    config.Declare("linkDelay", C::TIME, "1us", "propagation delay of every link");
    config.Declare("flows",
                   C::UINT,
                   "8",
                   "flows between random hosts on different leaves",
                   C::Between(0, 1000000));
    config.Declare("flowSize",
                   C::UINT,
                   "1000000",
                   "bytes per flow (0: unlimited bulk transfer)",
                   C::AtLeast(0));
    config.Declare("tensors",
                   C::UINT,
                   "0",
                   "send each flow as this many tagged tensors (priority = index mod 8); 0: "
                   "untagged BulkSend",
                   C::Between(0, 1000000));
    config.Declare("duration", C::TIME, "50ms", "simulated time, e.g. 50ms");
    config.Declare("failLink",
                   C::STRING,
                   "",
                   "leaf-spine links that fail, leaf:spine@time, ';'-separated, e.g. 0:1@10ms");
    config.Declare("linkRates",
                   C::STRING,
                   "",
                   "leaf-spine link rate overrides, leaf:spine=rate, ';'-separated, e.g. "
                   "0:1=1Gbps");
    config.Declare("tcp", C::CHOICE, "newreno", "TCP variant", "newreno,dctcp");
    config.Declare("seed",
                   C::UINT,
                   "1",
                   "random seed (traffic and load balancers)",
                   C::Between(1, 4294967295.0));
    config.Declare("stockRouting",
                   C::BOOL,
                   "false",
                   "build the switches with ns-3's IPv4 stack + Ipv4GlobalRouting ECMP instead");
    CommandLine cmd(__FILE__);
    config.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);
    std::vector<std::string> errors = config.TakeErrors();
    if (!errors.empty())
    {
        return BadOption(errors.front());
    }

    const std::string lb = config.GetString("lb");
    const uint32_t leaves = config.GetUint("leaves");
    const uint32_t spines = config.GetUint("spines");
    const uint32_t hostsPerLeaf = config.GetUint("hostsPerLeaf");
    const uint32_t flows = config.GetUint("flows");
    const uint64_t flowSize = config.GetUint("flowSize");
    const uint32_t tensors = config.GetUint("tensors");
    const double oversubscription = config.GetDouble("oversubscription");
    const std::string tcp = config.GetString("tcp");
    const uint32_t seed = config.GetUint("seed");
    const bool stockRouting = config.GetBool("stockRouting");
    const Time stop = config.GetTime("duration");
    const Time delay = config.GetTime("linkDelay");
    std::vector<TalbLeafSpineHelper::LinkFailure> failures;
    std::vector<TalbLeafSpineHelper::LinkRate> rates;
    std::string error =
        TalbLeafSpineHelper::ParseLinkFailures(config.GetString("failLink"), &failures);
    if (!error.empty())
    {
        return BadOption("--failLink: " + error);
    }
    error = TalbLeafSpineHelper::ParseLinkRates(config.GetString("linkRates"), &rates);
    if (!error.empty())
    {
        return BadOption("--linkRates: " + error);
    }
    for (const auto& f : failures)
    {
        if (f.leaf >= leaves || f.spine >= spines)
        {
            return BadOption("--failLink: link " + std::to_string(f.leaf) + ":" +
                             std::to_string(f.spine) + " is outside the fabric");
        }
    }
    for (const auto& r : rates)
    {
        if (r.leaf >= leaves || r.spine >= spines)
        {
            return BadOption("--linkRates: link " + std::to_string(r.leaf) + ":" +
                             std::to_string(r.spine) + " is outside the fabric");
        }
    }
    if (tensors > 0 && (flowSize == 0 || flowSize < tensors))
    {
        return BadOption("--tensors needs a finite --flowSize of at least one byte per tensor");
    }
    RngSeedManager::SetSeed(seed);

    Ptr<TalbLeafSpineHelper> fabric = CreateObject<TalbLeafSpineHelper>();
    fabric->SetAttribute("Leaves", UintegerValue(leaves));
    fabric->SetAttribute("Spines", UintegerValue(spines));
    fabric->SetAttribute("HostsPerLeaf", UintegerValue(hostsPerLeaf));
    fabric->SetAttribute("HostRate", DataRateValue(config.GetRate("hostRate")));
    fabric->SetAttribute("FabricRate", DataRateValue(config.GetRate("fabricRate")));
    fabric->SetAttribute("LinkDelay", TimeValue(delay));
    fabric->SetAttribute("TcpVariant",
                         StringValue(tcp == "dctcp" ? "ns3::TcpDctcp" : "ns3::TcpNewReno"));
    fabric->SetAttribute("StockRouting", BooleanValue(stockRouting));
    if (oversubscription > 0)
    {
        fabric->SetOversubscription(oversubscription);
    }
    fabric->SetLoadBalancer(lb);
    for (const auto& f : failures)
    {
        fabric->SetLinkFailure(f.leaf, f.spine, f.at);
    }
    for (const auto& r : rates)
    {
        fabric->SetLinkRate(r.leaf, r.spine, r.rate);
    }
    // The hosts' TCP, as in talb-scenario, for the fabric's MTU.
    UintegerValue mtu;
    fabric->GetAttribute("Mtu", mtu);
    TalbHostConfig::ApplyDefaults(mtu.Get());
    fabric->Install();
    fabric->AssignStreams(1000);

    // Traffic: drawn before anything else uses the stream, so both routing modes get the same.
    Ptr<UniformRandomVariable> rng = CreateObject<UniformRandomVariable>();
    rng->SetStream(1);
    uint32_t nHosts = fabric->GetNHosts();
    for (uint32_t f = 0; f < flows; ++f)
    {
        uint32_t src = rng->GetInteger(0, nHosts - 1);
        uint32_t dst;
        do
        {
            dst = rng->GetInteger(0, nHosts - 1);
        } while (fabric->GetLeafOfHost(dst) == fabric->GetLeafOfHost(src));
        Time start = MicroSeconds(rng->GetInteger(0, 1000));
        g_flows.push_back({src, dst, flowSize, start, 0, Time()});

        uint16_t port = 10000 + f;
        PacketSinkHelper sink("ns3::TcpSocketFactory",
                              InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sink.Install(fabric->GetHost(dst));
        sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&SinkRx, f));
        Address remote = InetSocketAddress(fabric->GetHostAddress(dst), port);
        if (tensors == 0)
        {
            BulkSendHelper bulk("ns3::TcpSocketFactory", remote);
            bulk.SetAttribute("MaxBytes", UintegerValue(flowSize));
            bulk.SetAttribute("SendSize", UintegerValue(65536));
            ApplicationContainer app = bulk.Install(fabric->GetHost(src));
            app.Start(start);
        }
        else
        {
            Ptr<TalbTensorSource> app = CreateObject<TalbTensorSource>();
            app->SetAttribute("Remote", AddressValue(remote));
            uint64_t left = flowSize;
            for (uint32_t t = 0; t < tensors; ++t)
            {
                uint64_t bytes = t + 1 == tensors ? left : flowSize / tensors;
                left -= bytes;
                app->AddTensor(talb_make_tensor_id(0, f * tensors + t),
                               t % TALB_NUM_PRIORITIES,
                               bytes,
                               start);
            }
            fabric->GetHost(src)->AddApplication(app);
            app->SetStartTime(start);
        }
    }
    g_uplinkPackets.assign(leaves * spines, 0);
    for (uint32_t l = 0; l < leaves; ++l)
    {
        for (uint32_t s = 0; s < spines; ++s)
        {
            fabric->GetUplinkDevice(l, s)->TraceConnectWithoutContext(
                "MacTx",
                MakeBoundCallback(&UplinkTx, l * spines + s));
        }
    }

    Simulator::Stop(stop);
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::cout << "mode " << (stockRouting ? "stock-ipv4-global-routing" : "talb-switch " + lb)
              << ", hosts " << nHosts << ", flows " << flows << ", tcp " << tcp << "\n";
    std::cout << "uplink packets (leaf:spine count):";
    for (uint32_t k = 0; k < g_uplinkPackets.size(); ++k)
    {
        std::cout << " " << k / spines << ":" << k % spines << " " << g_uplinkPackets[k];
    }
    std::cout << "\n";
    std::vector<double> fcts;
    double slowdownSum = 0;
    for (const auto& f : g_flows)
    {
        if (f.finish.IsZero())
        {
            continue;
        }
        double fct = (f.finish - f.start).GetSeconds();
        double ideal = fabric->GetBaseRtt(f.src, f.dst).GetSeconds() +
                       f.size * 8.0 / fabric->GetBottleneckRate(f.src, f.dst).GetBitRate();
        fcts.push_back(fct);
        slowdownSum += std::max(1.0, fct / ideal);
    }
    std::cout << "delivered packets " << g_deliveredPackets << ", wall seconds " << wall
              << ", delivered packets per wall-second " << std::fixed << std::setprecision(0)
              << g_deliveredPackets / wall << "\n";
    std::cout << std::setprecision(6);
    if (flowSize > 0)
    {
        std::sort(fcts.begin(), fcts.end());
        std::cout << "completed flows " << fcts.size() << " of " << flows;
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
    Simulator::Destroy();
    return 0;
}
