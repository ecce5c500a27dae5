#include "talb-scenario-spec.h"

#include "talb-attribute-list.h"
#include "talb-background-traffic-helper.h"
#include "talb-leaf-spine-helper.h"
#include "talb-training-job-helper.h"

#include "ns3/talb-rdma-transport.h"
#include "ns3/talb-spray-transport.h"
#include "ns3/talb-transport.h"
#include "ns3/talb-wire.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

namespace
{
/// \return true when transport \p tid runs on RoCEv2 NICs (the fabric's rdmaHosts)
bool
RunsOnRdmaNics(TypeId tid)
{
    return tid == TalbRdmaTransport::GetTypeId() || tid == TalbSprayTransport::GetTypeId();
}
} // namespace

bool
TalbScenarioSpec::Parse(const TalbScenarioConfig& c, std::vector<std::string>* errors)
{
    errors->clear();
    *this = TalbScenarioSpec();
    fabric.Parse(c, errors);
    // The hosts carry the scenario transport's stack: ns-3 TCP/IP, or a RoCEv2 NIC without IP.
    TypeId transport;
    std::string unknown;
    if (TalbTransport::GetRegistry().Lookup(c.GetString("transport"), &transport, &unknown))
    {
        fabric.rdmaHosts = RunsOnRdmaNics(transport);
        ParseRdma(c, transport == TalbSprayTransport::GetTypeId(), errors);
    }
    // The jobs first (lbProfile asks whether one is an LLM job), their errors after the
    // balancers' as before.
    std::vector<std::string> trainingErrors;
    ParseTraining(c, &trainingErrors);
    TalbBalancerSpec::Jobs kinds;
    for (const auto& job : jobs)
    {
        kinds.llm = kinds.llm || job.IsLlmJob();
    }
    balancers = TalbBalancerSpec::ParseList(c, fabric, &lbProfileAttributes, errors, kinds);
    errors->insert(errors->end(), trainingErrors.begin(), trainingErrors.end());
    ParseRun(c, errors);
    return errors->empty();
}

void
TalbScenarioSpec::ParseTraining(const TalbScenarioConfig& c, std::vector<std::string>* errors)
{
    TalbJobSpec defaults;
    defaults.modelName = c.GetString("model");
    defaults.scheduler = "fusion";
    defaults.collective = "ring";
    defaults.transport = c.GetString("transport");
    defaults.iterations = c.GetUint("iterations");
    defaults.batch = c.GetUint("batch");
    defaults.device = c.GetString("device");
    defaults.precision = c.GetString("precision");
    placement = c.GetString("placement");
    warmup = c.GetUint("warmup");
    controlDelay = c.GetTime("controlDelay");
    if (controlDelay.IsStrictlyNegative() || controlDelay > Seconds(1))
    {
        errors->push_back("controlDelay: must lie in [0s, 1s]");
    }
    std::string err = TalbJobSpec::ParseList(c.GetString("jobs"), defaults, &jobs);
    if (!err.empty())
    {
        errors->push_back("jobs: " + err);
        return;
    }
    std::string unknown;
    uint64_t workers = 0;
    for (size_t j = 0; j < jobs.size(); ++j)
    {
        std::string where = "jobs: job " + std::to_string(j + 1) + ": ";
        jobs[j].Check(where, errors); // sets a graph job's workers to its ranks
        workers += jobs[j].workers;
        TypeId tid;
        if (TalbTransport::GetRegistry().Lookup(jobs[j].transport, &tid, &unknown) &&
            (RunsOnRdmaNics(tid) != fabric.rdmaHosts ||
             (tid == TalbSprayTransport::GetTypeId()) != !entropyPolicy.empty()))
        {
            errors->push_back(where + "transport '" + jobs[j].transport +
                              "' does not run on the hosts of transport '" + defaults.transport +
                              "' (one fabric: set transport for the whole scenario)");
        }
    }
    rdmaQueuePairs = c.GetString("rdmaQueuePairs");
    rdmaTrafficClass = c.GetString("rdmaTrafficClass");
    rdmaPathAttributes = {
        {"QueuePairsPerConnection", c.GetString("rdmaQpsPerConnection")},
        {"SharedSourcePort", c.GetString("rdmaSharedSourcePort")},
        {"SplitMessages", c.GetString("rdmaSplitMessages")},
        {"Plb", c.GetString("plb")},
        {"PlbRounds", c.GetString("plbRounds")},
        {"PlbMarkFraction", c.GetString("plbMarkFraction")},
        {"PlbRound", c.GetString("plbRound")},
    };
    tcpPathAttributes = {
        {"Plb", c.GetString("plb")},
        {"PlbRounds", c.GetString("plbRounds")},
        {"PlbMarkFraction", c.GetString("plbMarkFraction")},
        {"PlbForceRounds", c.GetString("plbForceRounds")},
        {"SlowStartAfterIdle", c.GetString("slowStartAfterIdle")},
        {"AdaptiveReordering", c.GetString("adaptiveReordering")},
        {"MaxReordering", c.GetString("maxReordering")},
        {"RackTlp", c.GetString("rackTlp")},
        {"TlpDelay", c.GetString("tlpDelay")},
    };
    if (c.GetBool("adaptiveReordering"))
    {
        const uint64_t initial =
            std::stoull(TalbAttributeList::DefaultOf(TypeId::LookupByName("ns3::TcpSocketBase"),
                                                     "ReTxThreshold"));
        if (c.GetUint("maxReordering") < initial)
        {
            errors->push_back("maxReordering: " + c.GetString("maxReordering") +
                              " is below ns3::TcpSocketBase::ReTxThreshold " +
                              std::to_string(initial) + ", where the threshold starts");
        }
    }
    const bool tcpPlb = !fabric.rdmaHosts && c.GetBool("plb");
    if (tcpPlb && (fabric.stockRouting || c.GetString("tcp") != "dctcp"))
    {
        errors->push_back("plb: on transport tcp PLB reads DCTCP's ECN marks: set tcp=dctcp (and "
                          "stockRouting=false: the switches hash the flow label)");
    }
    // plbForceRounds is TCP's alone: RDMA's PLB repaths at plbRounds whatever it says.
    if (tcpPlb && c.GetUint("plbForceRounds") < c.GetUint("plbRounds"))
    {
        errors->push_back("plbForceRounds: " + c.GetString("plbForceRounds") +
                          " is below plbRounds " + c.GetString("plbRounds"));
    }
    if (!c.GetTime("plbRound").IsStrictlyPositive())
    {
        errors->push_back("plbRound: must be positive");
    }
    if (c.GetBool("pathsCsv") && fabric.stockRouting)
    {
        errors->push_back("pathsCsv: stockRouting's switches have no talb load balancer whose "
                          "decisions it could record");
    }
    if (fabric.rdmaHosts && fabric.pushOut)
    {
        errors->push_back("pushOut: RoCEv2 fabrics hold their packets back by PFC, and a "
                          "pushed-out packet would never be released to it: transport tcp only");
    }
    if (fabric.stockRouting && fabric.pushOut)
    {
        errors->push_back("pushOut: stockRouting's switches are ns-3 routers without talb's "
                          "port queues; drop one of the two");
    }
    if (fabric.rdmaHosts && fabric.stockRouting)
    {
        errors->push_back("stockRouting needs IP on the switches: it works with transport tcp");
    }
    if (jobs.size() >= TALB_MAX_JOBS)
    {
        errors->push_back("jobs: at most " + std::to_string(TALB_MAX_JOBS - 1) + " jobs");
    }
    if (workers > fabric.GetNHosts())
    {
        errors->push_back("jobs need " + std::to_string(workers) + " workers but the fabric has " +
                          std::to_string(fabric.GetNHosts()) + " hosts (leaves x hostsPerLeaf)");
    }
}

void
TalbScenarioSpec::ParseRdma(const TalbScenarioConfig& c,
                            bool spray,
                            std::vector<std::string>* errors)
{
    // spray sprays every packet of every queue pair: its NICs need selective repeat.
    fabric.rdmaSelectiveRepeat = spray || c.GetString("rdmaRecovery") == "sr";
    fabric.hostsSpray = spray;
    if (spray && c.IsGiven("rdmaRecovery") && c.GetString("rdmaRecovery") != "sr")
    {
        errors->push_back("rdmaRecovery: transport spray needs sr (selective repeat): go-back-N "
                          "cannot take sprayed packets");
    }
    entropyPolicy = spray ? c.GetString("sprayPolicy") : "";
    if (!spray && c.IsGiven("sprayPolicy"))
    {
        errors->push_back("sprayPolicy: applies to transport spray only");
    }
    rdmaPfc = c.GetBool("rdmaPfc");
    rdmaRateControl = c.GetString("rdmaCc");
    if (!fabric.rdmaHosts && c.IsGiven("rdmaCc"))
    {
        errors->push_back("rdmaCc: applies to transports rdma and spray (tcp has its own "
                          "congestion control)");
    }
}

void
TalbScenarioSpec::ParseRun(const TalbScenarioConfig& c, std::vector<std::string>* errors)
{
    bgLoad = c.GetDouble("bgLoad");
    std::string error;
    std::string flowFile = c.GetString("flowFile");
    if (!flowFile.empty())
    {
        // The file's flows are the background: generated flows beside them would blur both.
        if (c.IsGiven("bgLoad") && bgLoad > 0)
        {
            errors->push_back("bgLoad: flowFile gives the background flows; drop bgLoad");
        }
        bgLoad = 0;
        error = TalbHpccFlows::Read(flowFile,
                                    fabric.topologyFile.empty() ? nullptr : &fabric.hostOfNode,
                                    static_cast<uint32_t>(fabric.GetNHosts()),
                                    &flows);
        if (!error.empty())
        {
            errors->push_back("flowFile: " + error);
        }
    }
    // Read now: a malformed file would otherwise abort when the background starts.
    if (bgLoad > 0 && !TalbBackgroundTrafficHelper::LoadCdf(c.GetString("bgCdf"), &bgCdf, &error))
    {
        errors->push_back("bgCdf: " + error);
    }
    bgArrivals = c.GetTime("bgArrivals");
    bgWarmup = c.GetTime("bgWarmup");
    if (bgArrivals.IsStrictlyNegative() || bgWarmup.IsStrictlyNegative())
    {
        errors->push_back("bgArrivals, bgWarmup: must not be negative");
    }
    if (bgArrivals.IsStrictlyPositive() && bgLoad == 0)
    {
        errors->push_back(flowFile.empty()
                              ? "bgArrivals: needs bgLoad > 0 (there are no arrivals to stop)"
                              : "bgArrivals: a flowFile's flows are its arrivals (the run "
                                "already drains them); drop bgArrivals");
    }
    if (bgArrivals.IsStrictlyPositive() && bgWarmup >= bgArrivals)
    {
        errors->push_back("bgWarmup: must end before bgArrivals, or no flow is counted");
    }
    seed = c.GetUint("seed");
    duration = c.GetTime("duration");
    stopTime = c.GetTime("stopTime");
    if (bgArrivals >= stopTime && bgArrivals.IsStrictlyPositive())
    {
        errors->push_back("bgArrivals: must end before stopTime, which would cut the drain");
    }
    progress = c.GetBool("progress");
    out = c.GetString("out");
    if (jobs.empty() && duration.IsZero() && flowFile.empty() && bgArrivals.IsZero())
    {
        errors->push_back("with no jobs, set duration, bgArrivals (arrivals, then drain) or a "
                          "flowFile");
    }
    if (out.empty())
    {
        errors->push_back("out: name an output folder");
    }
    parametersJson = c.ToJson();
}

std::vector<std::string>
TalbScenarioSpec::CheckPartition() const
{
    std::vector<std::string> errors;
    if (ranks <= 1)
    {
        return errors;
    }
    std::string n = std::to_string(ranks);
    const uint32_t leaves = fabric.leaves;
    const uint32_t perLeaf = fabric.hostsPerLeaf;
    if (ranks > leaves)
    {
        errors.push_back(n + " ranks but " + std::to_string(leaves) +
                         " leaves: each rank needs at least one leaf");
        return errors;
    }
    if (fabric.rdmaHosts || fabric.stockRouting)
    {
        errors.push_back("over several ranks only TCP hosts and TalbSwitch forwarding work "
                         "(transport=tcp, stockRouting=false)");
    }
    if (balancers.size() != 1)
    {
        errors.push_back("lb: over several ranks name one load balancer per mpirun");
    }
    if (!flows.empty())
    {
        errors.push_back("flowFile: runs on one rank (its end is counted where the flows start)");
    }
    std::vector<uint32_t> sizes;
    uint32_t needed = 0;
    for (const auto& j : jobs)
    {
        sizes.push_back(j.workers);
        needed += j.workers;
    }
    if (needed > leaves * perLeaf)
    {
        return errors; // Parse() said so
    }
    Ptr<TalbLeafSpineHelper> partition = CreateObject<TalbLeafSpineHelper>();
    partition->SetAttribute("Leaves", UintegerValue(leaves));
    partition->SetAttribute("Ranks", UintegerValue(ranks));
    auto placed = TalbTrainingJobHelper::PlaceIndices(leaves * perLeaf, perLeaf, sizes, placement);
    for (std::size_t j = 0; j < placed.size(); ++j)
    {
        uint32_t firstRank = partition->GetLeafRank(placed[j].front() / perLeaf);
        uint32_t lastRank = firstRank;
        for (uint32_t h : placed[j])
        {
            uint32_t r = partition->GetLeafRank(h / perLeaf);
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
        if (controlDelay < fabric.linkDelay)
        {
            errors.push_back(job + ": set controlDelay to at least linkDelay (" +
                             std::to_string(fabric.linkDelay.GetNanoSeconds()) +
                             "ns), the ranks' lookahead, or use placement=packed and jobs of "
                             "at most " +
                             std::to_string(leaves / ranks * perLeaf) + " workers");
        }
        const std::string& collective = jobs[j].collective;
        if (jobs[j].IsGraphJob())
        {
            errors.push_back(job + ": LLM and benchmark jobs run on one rank only");
        }
        else if (collective != "ring" && collective != "ns3::TalbRingAllReduce")
        {
            errors.push_back(job + ": over several ranks only collective=ring works");
        }
        if (fabric.spines < ranks)
        {
            errors.push_back(job + ": its reports need a link between every two ranks: at "
                                   "least as many spines as ranks");
        }
    }
    return errors;
}

} // namespace ns3
