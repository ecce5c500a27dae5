// Shared by talb's ns-3 test suites (not part of the module): a simulation test case that
// always tears the simulator down, and small fabrics for the generator's suites: hosts on
// point-to-point links to one router, routed by ns-3's global routing. All links have the same
// rate, so the router is non-blocking. The real leaf-spine comes from the topology helper.
#ifndef TALB_TEST_FABRIC_H
#define TALB_TEST_FABRIC_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{
namespace talbtest
{

/**
 * A test case that runs a simulation: the simulator is destroyed and the attribute defaults are
 * reset after DoRun, however it returned (an NS_TEST_ASSERT returns early), so no state leaks
 * into the next case.
 */
class SimulationTestCase : public TestCase
{
  public:
    explicit SimulationTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /// talb-scenario parameters, name and value
    using ScenarioParams = std::vector<std::pair<std::string, std::string>>;

    /**
     * Runs \p params through the scenario runner's own configuration (TalbScenario), as
     * talb-scenario would, with load balancer \p lb (one of the lb parameter's), writing into
     * \p out; a test of a bound goes through what users run. A refused parameter is a test failure,
     * and nothing runs (the result is empty). The RNG run (the scenario sets its seed) and the
     * attribute defaults are restored after, so several runs in one case start alike. \param
     * onStart called once the fabric is built (Spec::onStart), e.g. to connect traces
     */
    TalbScenario::Result RunScenario(const ScenarioParams& params,
                                     const std::string& lb,
                                     const std::string& out,
                                     std::function<void()> onStart = {})
    {
        TalbScenarioConfig config;
        TalbScenarioParameters::Declare(config);
        bool usable = true;
        for (const auto& kv : params)
        {
            std::string error = config.Set(kv.first, kv.second, "test");
            NS_TEST_EXPECT_MSG_EQ(error, "", "parameter " << kv.first);
            usable = usable && error.empty();
        }
        NS_TEST_EXPECT_MSG_EQ(config.Set("out", out, "test"), "", "parameter out");
        TalbScenarioSpec spec;
        std::vector<std::string> errors;
        usable = usable && spec.Parse(config, &errors);
        NS_TEST_EXPECT_MSG_EQ(usable, true, (errors.empty() ? "a refused parameter" : errors[0]));
        auto balancer = std::find_if(spec.balancers.begin(),
                                     spec.balancers.end(),
                                     [&lb](const auto& b) { return b.name == lb; });
        if (usable)
        {
            NS_TEST_EXPECT_MSG_EQ((balancer != spec.balancers.end()),
                                  true,
                                  "lb " << lb << " is not one of the lb parameter's");
        }
        if (!usable || balancer == spec.balancers.end())
        {
            return {};
        }
        spec.onStart = std::move(onStart);
        const uint64_t savedRun = RngSeedManager::GetRun();
        TalbScenario::Result r = TalbScenario::Run(spec, *balancer, out);
        RngSeedManager::SetRun(savedRun);
        Config::Reset();
        return r;
    }

  private:
    void DoTeardown() override
    {
        Simulator::Destroy();
        Config::Reset();
    }
};

/// Per-packet overhead on these links: IPv4 20 + TCP 32 (timestamps) + PPP 2 bytes.
const uint32_t PACKET_OVERHEAD = 54;

/// The hosts' TCP of every talb program (TalbHostConfig) on links of MTU \p mtu.
inline void
ConfigureTcp(uint32_t mtu)
{
    Config::SetDefault("ns3::PointToPointNetDevice::Mtu", UintegerValue(mtu));
    TalbHostConfig::ApplyDefaults(mtu);
}

/// \return \p n hosts, each on a (rate, delay) link to one shared router
inline NodeContainer
StarFabric(uint32_t n, DataRate rate, Time delay)
{
    Ipv4AddressGenerator::Reset(); // each test case builds its fabric afresh
    NodeContainer hosts;
    hosts.Create(n);
    Ptr<Node> router = CreateObject<Node>();
    InternetStackHelper stack;
    stack.Install(hosts);
    stack.Install(router);
    PointToPointHelper link;
    link.SetDeviceAttribute("DataRate", DataRateValue(rate));
    link.SetChannelAttribute("Delay", TimeValue(delay));
    Ipv4AddressHelper addresses("10.1.0.0", "255.255.255.252");
    for (uint32_t h = 0; h < n; ++h)
    {
        NetDeviceContainer devices = link.Install(hosts.Get(h), router);
        // Hosts never drop their own packets (Linux TCP small queues hold them in the socket).
        DynamicCast<PointToPointNetDevice>(devices.Get(0))
            ->GetQueue()
            ->SetMaxSize(QueueSize("1000000p"));
        addresses.Assign(devices);
        addresses.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    return hosts;
}

/**
 * The incast suites' RDMA fabric through the product's helper, not yet installed (so a test can
 * set RDMA attributes first): 4 leaves x 5 hosts, hosts and fabric at \p rate.
 */
inline Ptr<TalbLeafSpineHelper>
RdmaIncastFabric(const std::string& rate)
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("Leaves", UintegerValue(4));
    f->SetAttribute("HostsPerLeaf", UintegerValue(5));
    f->SetAttribute("HostRate", StringValue(rate));
    f->SetAttribute("FabricRate", StringValue(rate));
    return f;
}

/// A model of \p tensors tensors (one layer each) with explicit compute times.
inline TalbDnnModel
SyntheticModel(const std::vector<uint64_t>& params, int64_t fwdNs, int64_t bwdNs)
{
    TalbDnnModel model("synthetic");
    for (std::size_t i = 0; i < params.size(); ++i)
    {
        TalbTensorSpec t;
        t.name = "t" + std::to_string(i);
        t.layer = "l" + std::to_string(i);
        t.params = params[i];
        t.fwdTimeNs = fwdNs;
        t.bwdTimeNs = bwdNs;
        model.AddTensor(t);
    }
    return model;
}

/// Collects a job's records and its scheduler's launches.
class JobRecorder
{
  public:
    void Attach(Ptr<TalbTrainingJob> job)
    {
        scheduler = job->GetScheduler(); // the job lets go of it when disposed
        job->TraceConnectWithoutContext("FlowDone", MakeCallback(&JobRecorder::Flow, this));
        job->TraceConnectWithoutContext("TensorDone", MakeCallback(&JobRecorder::Tensor, this));
        job->TraceConnectWithoutContext("IterationDone",
                                        MakeCallback(&JobRecorder::Iteration, this));
        job->GetScheduler()->TraceConnectWithoutContext("OpLaunched",
                                                        MakeCallback(&JobRecorder::Op, this));
    }

    void Flow(const TalbFlowRecord& r)
    {
        flows.push_back(r);
    }

    void Tensor(const TalbTensorRecord& r)
    {
        tensors.push_back(r);
    }

    void Iteration(const TalbIterationRecord& r)
    {
        iterations.push_back(r);
    }

    void Op(const TalbCommOp& op)
    {
        ops.push_back(op);
        maxInFlightBytes = std::max(maxInFlightBytes, scheduler->GetInFlightBytes());
        maxInFlightOps = std::max(maxInFlightOps, scheduler->GetInFlightOps());
    }

    /// \return the mean iteration time over all workers and iterations
    Time MeanIteration() const
    {
        Time total(0);
        for (const auto& r : iterations)
        {
            total += r.end - r.start;
        }
        return iterations.empty() ? Time(0) : total / int64_t(iterations.size());
    }

    std::vector<TalbFlowRecord> flows;
    std::vector<TalbTensorRecord> tensors;
    std::vector<TalbIterationRecord> iterations;
    std::vector<TalbCommOp> ops;
    Ptr<TalbCommScheduler> scheduler;
    uint64_t maxInFlightBytes{0};
    uint32_t maxInFlightOps{0};
};

/// Run until the job finished (or \p limit), then destroy the simulation.
inline bool
RunJob(Ptr<TalbTrainingJob> job, Time limit)
{
    Simulator::Stop(limit);
    Simulator::Run();
    bool finished = job->IsFinished();
    Simulator::Destroy();
    return finished;
}

} // namespace talbtest
} // namespace ns3

#endif /* TALB_TEST_FABRIC_H */
