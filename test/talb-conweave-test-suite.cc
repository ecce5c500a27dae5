// ConWeave on a two-leaf, two-spine RDMA fabric (the product's helper, Transport rdma) with one
// slow remote link: a flow that starts on the slow path moves to the fast one, and its receiver
// sees every packet in order (no NAK, no go-back-N) because the destination leaf holds the new
// path's packets until the old path's TAIL; DRILL on the same fabric causes go-back-N; a reorder
// queue whose wait is too short is released by its timeout. Through the scenario runner, on
// ConWeave's own workload (AliStorage2019 background over RoCEv2 with PFC and DCQCN, random
// path choice), no receiver sees an out-of-order packet while no reorder queue overflows; with
// ConWeave's NOTIFY, reorder queues charged to PFC from arrival lose nothing to its headroom.
// TaLB's congestion moves of RoCEv2 tensor flows, hidden by the same reorder queues
// (ReorderMoves), leave receivers a small fraction of the NAKs they cause without them.
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <fstream>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/// Rate of the slow remote link (the others: 10 Gb/s).
const char* const SLOW_RATE = "5Gbps";

/// What one run of a flow from host 0 (leaf 0) to host 2 (leaf 1) measured.
struct FlowRun
{
    uint64_t bytesReceived{0};
    TalbRdmaQueuePair::Stats sender;
    TalbRdmaQueuePair::Stats receiver;
    uint32_t firstPort{UINT32_MAX}; //!< leaf 0's first choice for the flow
    uint32_t slowPort{0};           //!< leaf 0's uplink to the spine with the slow remote link
    uint64_t upBytes[2]{0, 0};      //!< bytes leaf 0 sent towards spine 0, 1
    uint64_t reroutes{0};
    TalbConWeaveLb::Counters source;      //!< leaf 0's ConWeave counters
    TalbConWeaveLb::Counters destination; //!< leaf 1's
    TalbSwitch::Stats leaf1;
};

/**
 * One 4 MB RDMA message from host 0 to host 2 over balancer \p lb (with \p attributes), the
 * link from spine \p slowSpine to leaf 1 at 1 Gb/s (the others at 10 Gb/s).
 */
FlowRun
RunFlow(const std::string& lb,
        uint32_t slowSpine,
        const std::vector<std::pair<std::string, std::string>>& attributes = {})
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("Leaves", UintegerValue(2));
    f->SetAttribute("Spines", UintegerValue(2));
    f->SetAttribute("HostsPerLeaf", UintegerValue(2));
    f->SetAttribute("HostRate", StringValue("10Gbps"));
    f->SetAttribute("FabricRate", StringValue("10Gbps"));
    ObjectFactory factory(TalbLoadBalancer::GetRegistry().Get(lb).GetName());
    for (const auto& kv : attributes)
    {
        factory.Set(kv.first, StringValue(kv.second));
    }
    f->SetLoadBalancerFactory(factory);
    f->SetLinkRate(1, slowSpine, DataRate(SLOW_RATE));
    // The DCQCN paper's absolute ECN thresholds and increase steps, which these cases were
    // calibrated with (the defaults scale them from 40 Gb/s to the link rate).
    f->GetRdmaHelper()->SetAttribute("EcnReferenceRate", DataRateValue(DataRate(0)));
    f->GetRdmaHelper()->SetRateControlAttribute("ReferenceRate", DataRateValue(DataRate(0)));
    f->Install();
    f->AssignStreams(11);

    FlowRun run;
    Ptr<TalbSwitch> leaf0 = f->GetLeafSwitch(0);
    for (uint32_t p = 0; p < leaf0->GetNPorts(); ++p)
    {
        if (leaf0->GetPort(p).uplink && leaf0->GetPort(p).peer == slowSpine)
        {
            run.slowPort = p;
        }
    }
    leaf0->GetLoadBalancer()->TraceConnectWithoutContext(
        "PathSelected",
        MakeBoundCallback(
            +[](uint32_t* first, const TalbPacketContext&, uint32_t port) {
                if (*first == UINT32_MAX)
                {
                    *first = port;
                }
            },
            &run.firstPort));
    for (uint32_t s = 0; s < 2; ++s)
    {
        f->GetUplinkDevice(0, s)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(
                +[](uint64_t* n, Ptr<const Packet> p) { *n += p->GetSize(); },
                &run.upBytes[s]));
    }
    auto qps = TalbRdmaNic::Connect(f->GetRdmaNic(0), f->GetRdmaNic(2));
    qps.second->SetReceiveCallback(MakeBoundCallback(
        +[](uint64_t* n, Ptr<TalbRdmaQueuePair>, uint64_t, uint64_t bytes) { *n += bytes; },
        &run.bytesReceived));
    Simulator::Schedule(MicroSeconds(5), [&qps]() { qps.first->PostSend(4000000); });
    Simulator::Stop(MilliSeconds(50));
    Simulator::Run();
    run.sender = qps.first->GetStats();
    run.receiver = qps.second->GetStats();
    run.reroutes = leaf0->GetLoadBalancer()->GetStats().nReroutes;
    if (Ptr<TalbConWeaveLb> cw = DynamicCast<TalbConWeaveLb>(leaf0->GetLoadBalancer()))
    {
        run.source = cw->GetCounters();
        run.destination =
            DynamicCast<TalbConWeaveLb>(f->GetLeafSwitch(1)->GetLoadBalancer())->GetCounters();
    }
    run.leaf1 = f->GetLeafSwitch(1)->GetStats();
    Simulator::Destroy();
    return run;
}

/**
 * talb-scenario's parameters for ConWeave's own workload, cut short: 1.5 ms of AliStorage2019
 * background (CDF file \p cdf) at 50 % host load over RoCEv2 with PFC and DCQCN, 4 leaves x 4
 * spines x 8 hosts at 100 Gb/s, 2:1, 1,000-byte MTU, ConWeave with \p lbAttributes, seed 1.
 */
std::vector<std::pair<std::string, std::string>>
AliStorageParams(const std::string& cdf, const std::string& lbAttributes)
{
    return {{"transport", "rdma"},
            {"jobs", ""},
            {"duration", "1500us"},
            {"leaves", "4"},
            {"spines", "4"},
            {"hostsPerLeaf", "8"},
            {"hostRate", "100Gbps"},
            {"oversubscription", "2"},
            {"mtu", "1000"},
            {"bgLoad", "0.5"},
            {"bgCdf", cdf},
            {"lb", "conweave"},
            {"lbAttributes", lbAttributes},
            {"seed", "1"},
            {"progress", "false"}};
}

/// \return the value of policy counter \p name in \p r (0 when absent)
uint64_t
PolicyCounter(const TalbScenario::Result& r, const std::string& name)
{
    for (const auto& kv : r.paths.policy)
    {
        if (kv.first == name)
        {
            return kv.second;
        }
    }
    return 0;
}

} // namespace

/// A flow that starts on the congested (slow) path moves to the fast one, once, and its
/// receiver sees no out-of-order packet; a flow that starts on the fast path stays.
class TalbConWeaveRerouteInOrder : public talbtest::SimulationTestCase
{
  public:
    TalbConWeaveRerouteInOrder()
        : talbtest::SimulationTestCase("TalbConWeaveRerouteInOrder: a flow leaves a congested "
                                       "path and its receiver sees no out-of-order packet")
    {
    }

  private:
    void DoRun() override
    {
        bool sawSlowStart = false;
        // The first choice is a coin toss between two idle uplinks: with the slow link behind
        // either spine, one of the two runs starts on the slow path.
        for (uint32_t slowSpine = 0; slowSpine < 2; ++slowSpine)
        {
            FlowRun r = RunFlow("conweave", slowSpine);
            uint32_t fast = 1 - slowSpine;
            uint64_t total = r.upBytes[0] + r.upBytes[1];
            NS_TEST_ASSERT_MSG_EQ(r.bytesReceived, 4000000u, "message incomplete");
            NS_TEST_EXPECT_MSG_EQ(r.sender.retransmittedPackets, 0u, "go-back-N retransmission");
            NS_TEST_EXPECT_MSG_EQ(r.sender.naksReceived, 0u, "NAK at the sender");
            NS_TEST_EXPECT_MSG_EQ(r.receiver.packetsOutOfOrder, 0u, "out-of-order packet");
            NS_TEST_EXPECT_MSG_GT(r.upBytes[fast], total * 8 / 10, "fast path's share");
            NS_TEST_EXPECT_MSG_EQ(r.destination.heldNow, 0u, "packets left in a reorder queue");
            NS_TEST_EXPECT_MSG_EQ(r.destination.held,
                                  r.destination.releasedByTail + r.destination.releasedByTimeout +
                                      r.destination.releasedByOverflow,
                                  "held = released");
            NS_TEST_EXPECT_MSG_EQ(r.leaf1.nReceived + r.leaf1.nLbSent,
                                  r.leaf1.nForwarded + r.leaf1.nLbHeld + r.leaf1.nDropDevice +
                                      r.leaf1.nDropPfcHeadroom,
                                  "switch counter identity with held packets");
            NS_TEST_EXPECT_MSG_GT(r.source.rttRequests, 1u, "epochs probed");
            NS_TEST_EXPECT_MSG_GT(r.destination.repliesSent, 0u, "RTT_REPLYs sent");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.source.replies + r.source.lateReplies,
                                        r.source.rttRequests,
                                        "one reply (in time or late) per epoch at most");
            if (r.firstPort == r.slowPort)
            {
                sawSlowStart = true;
                NS_TEST_EXPECT_MSG_EQ(r.reroutes, 1u, "one move off the slow path");
                NS_TEST_EXPECT_MSG_EQ(r.source.reroutes, 1u, "ConWeave counted the move");
                NS_TEST_EXPECT_MSG_GT(r.destination.held, 0u, "the new path's packets waited");
                NS_TEST_EXPECT_MSG_GT(r.destination.releasedByTail, 0u, "released by the TAIL");
                NS_TEST_EXPECT_MSG_EQ(r.destination.timeouts, 0u, "no reorder timeout");
                NS_TEST_EXPECT_MSG_GT(r.source.clears, 0u, "CLEAR reached the source leaf");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(r.reroutes, 0u, "a flow on the fast path moved");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(sawSlowStart, true, "no run started on the slow path");
    }
};

/// The same fabric under DRILL (per-packet choices, no reordering support): go-back-N.
class TalbConWeaveDrillReorders : public talbtest::SimulationTestCase
{
  public:
    TalbConWeaveDrillReorders()
        : talbtest::SimulationTestCase("TalbConWeaveDrillReorders: DRILL on the same fabric "
                                       "causes out-of-order packets and go-back-N")
    {
    }

  private:
    void DoRun() override
    {
        FlowRun r = RunFlow("drill", 1);
        NS_TEST_ASSERT_MSG_EQ(r.bytesReceived, 4000000u, "message incomplete");
        NS_TEST_EXPECT_MSG_GT(r.receiver.packetsOutOfOrder, 0u, "no out-of-order packet");
        NS_TEST_EXPECT_MSG_GT(r.sender.retransmittedPackets, 0u, "no go-back-N");
    }
};

/// A reorder queue whose wait is far shorter than the old path's delay is released by its
/// timeout (and the transport recovers).
class TalbConWeaveReorderTimeout : public talbtest::SimulationTestCase
{
  public:
    TalbConWeaveReorderTimeout()
        : talbtest::SimulationTestCase("TalbConWeaveReorderTimeout: a reorder queue is "
                                       "released by its timeout when the TAIL is late")
    {
    }

  private:
    void DoRun() override
    {
        bool sawTimeout = false;
        for (uint32_t slowSpine = 0; slowSpine < 2; ++slowSpine)
        {
            FlowRun r = RunFlow("conweave",
                                slowSpine,
                                {{"MaxReorderWait", "1us"}, {"ExtraFlushTime", "0s"}});
            NS_TEST_ASSERT_MSG_EQ(r.bytesReceived, 4000000u, "message incomplete");
            NS_TEST_EXPECT_MSG_EQ(r.destination.heldNow, 0u, "packets left in a reorder queue");
            if (r.firstPort == r.slowPort)
            {
                sawTimeout = true;
                NS_TEST_EXPECT_MSG_GT(r.destination.timeouts, 0u, "no reorder timeout");
                NS_TEST_EXPECT_MSG_GT(r.destination.releasedByTimeout,
                                      0u,
                                      "nothing released by the timeout");
                NS_TEST_EXPECT_MSG_EQ(r.destination.releasedByTail, 0u, "released by the TAIL");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(sawTimeout, true, "no run started on the slow path");
    }
};

/**
 * talb-scenario --transport=rdma --jobs= --duration=1500us --leaves=4 --spines=4
 * --hostsPerLeaf=8 --hostRate=100Gbps --oversubscription=2 --mtu=1000 --bgLoad=0.5
 * --bgCdf=data/alistorage2019-cdf.txt --lb=conweave --lbAttributes=RandomPathChoice=true: the
 * paper's random path choice moves flows while their packets are on the old path, and the
 * destination leaves hide every move (no out-of-order packet at a receiver, no NAK) while no
 * reorder queue overflows. Before TableProbes (one slot per flow hash, TableProbes=1) a new flow
 * evicted active ones, which then started afresh on another path: receivers dropped 154
 * out-of-order packets in this run.
 */
class TalbConWeaveRunnerInOrder : public talbtest::SimulationTestCase
{
  public:
    TalbConWeaveRunnerInOrder()
        : talbtest::SimulationTestCase("TalbConWeaveRunnerInOrder: AliStorage background at 50 "
                                       "% over RDMA, random path choice: no out-of-order "
                                       "packet at a receiver while reorder queues have room")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const ScenarioParams params =
            AliStorageParams(CreateDataDirFilename("../data/alistorage2019-cdf.txt"),
                             "RandomPathChoice=true");
        TalbScenario::Result r =
            RunScenario(params, "conweave", CreateTempDirFilename("conweave-alistorage"));
        NS_TEST_ASSERT_MSG_GT(r.backgroundFlows, 1000u, "background flows finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(r, "reroutes"), 0u, "flows were moved");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(r, "released_by_tail"),
                              0u,
                              "reorder queues held packets until the TAIL");
        NS_TEST_ASSERT_MSG_EQ(PolicyCounter(r, "released_by_overflow"),
                              0u,
                              "a reorder queue overflowed (the case must stay below capacity)");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.outOfOrder, 0u, "receivers dropped out-of-order packets");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.naks, 0u, "receivers sent NAKs");
        NS_TEST_EXPECT_MSG_EQ(r.rdma.retransmittedPackets, 0u, "senders went back");
    }
};

/**
 * The same workload with ConWeave's NOTIFY and its simulator's path choice
 * (--lbAttributes='RandomPathChoice=true;PathSamples=2;PauseOn=Notify'): the destination leaves
 * answer ECN-marked packets with NOTIFYs that their source leaves consume, and flows move. The
 * reorder queues that hold the moved flows' packets charge no ingress buffer until they release
 * them (the default), so a release can pass PFC's headroom: packets are dropped and receivers see
 * gaps. With TalbSwitch::ChargeHeldPackets a held packet is charged from its arrival and PFC
 * pauses the port that fills the queue instead: no headroom drop, no out-of-order packet.
 */
class TalbConWeaveNotifyChargeHeld : public talbtest::SimulationTestCase
{
  public:
    TalbConWeaveNotifyChargeHeld()
        : talbtest::SimulationTestCase(
              "TalbConWeaveNotifyChargeHeld: NOTIFYs pause paths; reorder queues charged from "
              "arrival (ChargeHeldPackets) lose nothing to PFC's headroom, uncharged ones do")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const ScenarioParams params =
            AliStorageParams(CreateDataDirFilename("../data/alistorage2019-cdf.txt"),
                             "RandomPathChoice=true;PathSamples=2;PauseOn=Notify");
        TalbScenario::Result released =
            RunScenario(params, "conweave", CreateTempDirFilename("conweave-notify"));
        NS_TEST_ASSERT_MSG_GT(released.backgroundFlows, 1000u, "background flows finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(released, "notifies_sent"), 0u, "NOTIFYs sent");
        NS_TEST_EXPECT_MSG_GT(released.switches.pfc.headroomDrops,
                              0u,
                              "the case must overflow the headroom without the charge");

        Config::SetDefault("ns3::TalbSwitch::ChargeHeldPackets", BooleanValue(true));
        TalbScenario::Result charged =
            RunScenario(params, "conweave", CreateTempDirFilename("conweave-notify-charged"));
        NS_TEST_ASSERT_MSG_GT(charged.backgroundFlows, 1000u, "background flows finished");
        uint64_t sent = PolicyCounter(charged, "notifies_sent");
        uint64_t heard = PolicyCounter(charged, "notifies");
        NS_TEST_EXPECT_MSG_GT(heard, 0u, "source leaves paused paths on NOTIFYs");
        // Those still on the wire when the run stops were sent but not heard.
        NS_TEST_EXPECT_MSG_LT_OR_EQ(heard, sent, "a NOTIFY heard that no leaf sent");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(charged, "reroutes"), 0u, "flows were moved");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(charged, "released_by_tail"),
                              0u,
                              "reorder queues held packets until the TAIL");
        NS_TEST_EXPECT_MSG_EQ(charged.switches.pfc.headroomDrops, 0u, "headroom overflowed");
        NS_TEST_EXPECT_MSG_EQ(charged.rdma.outOfOrder,
                              0u,
                              "receivers dropped out-of-order packets");
        NS_TEST_EXPECT_MSG_EQ(charged.rdma.naks, 0u, "receivers sent NAKs");
    }
};

/// A runner case of the reorder queues TaLB owns (ReorderMoves, GoBackNFallback=conweave).
class TalbReorderQueuesTestCase : public talbtest::SimulationTestCase
{
  protected:
    using talbtest::SimulationTestCase::SimulationTestCase;

    /**
     * RDMA on 4x4 leaves, 2 spines, 10 Gb/s, 2:1, seed 1, TaLB with \p lbAttributes, and the
     * workload of \p workload (jobs, background, iterations, placement, ...).
     */
    static ScenarioParams FourLeaves(const std::string& lbAttributes, ScenarioParams workload)
    {
        ScenarioParams params{{"transport", "rdma"},
                              {"leaves", "4"},
                              {"hostsPerLeaf", "4"},
                              {"spines", "2"},
                              {"hostRate", "10Gbps"},
                              {"oversubscription", "2"},
                              {"lb", "talb"},
                              {"lbAttributes", lbAttributes},
                              {"seed", "1"},
                              {"progress", "false"}};
        params.insert(params.end(), workload.begin(), workload.end());
        return params;
    }

    /// One ResNet50 ring next to web-search background at \p bgLoad, two iterations.
    static ScenarioParams RingBesideBackground(const std::string& lbAttributes,
                                               const std::string& bgLoad)
    {
        return FourLeaves(lbAttributes,
                          {{"bgLoad", bgLoad},
                           {"iterations", "2"},
                           {"jobs", "model=resnet50,workers=8,scheduler=fusion,collective=ring"}});
    }

    /// The destination leaves held moved flows' packets until a TAIL and released them all.
    void ExpectHeldUntilTail(const TalbScenario::Result& r)
    {
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(r, "move_released_by_tail"),
                              0u,
                              "reorder queues held packets until the TAIL");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(r, "move_reorder_held"),
                              PolicyCounter(r, "move_released_by_tail") +
                                  PolicyCounter(r, "move_released_by_timeout") +
                                  PolicyCounter(r, "move_released_by_overflow"),
                              "held = released at the end");
    }
};

/**
 * talb-scenario --transport=rdma --leaves=4 --hostsPerLeaf=4 --spines=2 --hostRate=10Gbps
 * --oversubscription=2 --placement=spread --sharedBuffer=4MB --bgLoad=0 and three jobs sharing
 * the fabric (the sharedbuf family's 2:1 spread cell, one measured iteration): TaLB moves RoCEv2
 * tensor flows off congested paths at once (its congestion rule), and each move costs the
 * receiver a go-back-N window. With ReorderMoves the destination leaves hold a moved flow's
 * packets until its old path's last one: the moves stay, the NAKs go (measured on the full
 * cell: 5,413 NAKs without, 18 with). With RoceGoBackN=false and Spray=SharedDestination each
 * packet of a flow towards a leaf that receives two jobs takes the least-queued path, but the
 * flow changes path only when the move can be hidden (once per epoch): the jobs are faster than
 * with TaLB's defaults; one job alone sprays nothing.
 */
class TalbTensorAwareReorderMoves : public TalbReorderQueuesTestCase
{
  public:
    TalbTensorAwareReorderMoves()
        : TalbReorderQueuesTestCase("TalbTensorAwareReorderMoves: TaLB's moves of RoCEv2 "
                                    "flows, hidden by ConWeave's destination reorder queues, "
                                    "leave receivers under a tenth of the NAKs; sprayed at "
                                    "epoch pace, the jobs are faster")
    {
    }

  private:
    static ScenarioParams Params(const std::string& lbAttributes)
    {
        return FourLeaves(lbAttributes,
                          {{"placement", "spread"},
                           {"sharedBuffer", "4MB"},
                           {"bgLoad", "0"},
                           {"iterations", "2"},
                           {"jobs",
                            "model=resnet50,workers=6,scheduler=fusion,collective=ring;"
                            "model=alexnet,workers=4,scheduler=fusion,collective=ring;"
                            "model=resnet50,workers=4,scheduler=fusion,collective=ps"}});
    }

    void DoRun() override
    {
        TalbScenario::Result plain =
            RunScenario(Params(""), "talb", CreateTempDirFilename("talb-moves"));
        NS_TEST_ASSERT_MSG_EQ(plain.Finished(), true, "the jobs finished");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(plain, "hidden_moves"),
                              0u,
                              "hidden without the option");
        NS_TEST_ASSERT_MSG_GT(PolicyCounter(plain, "congestion_moves"), 100u, "TaLB moved flows");
        NS_TEST_ASSERT_MSG_GT(plain.rdma.naks,
                              1000u,
                              "the moves must cost NAKs without the option");

        TalbScenario::Result hidden = RunScenario(Params("ReorderMoves=true"),
                                                  "talb",
                                                  CreateTempDirFilename("talb-reorder-moves"));
        NS_TEST_ASSERT_MSG_EQ(hidden.Finished(), true, "the jobs finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(hidden, "congestion_moves"), 100u, "TaLB moved flows");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(hidden, "hidden_moves"), 0u, "moves hidden");
        ExpectHeldUntilTail(hidden);
        NS_TEST_EXPECT_MSG_LT(hidden.rdma.naks * 10, plain.rdma.naks, "NAKs with ReorderMoves");

        // Without RoceGoBackN the flows are sprayed as reorder-tolerant ones (here while their
        // destination leaf receives two jobs) and the protocol takes one hidden move per epoch:
        // many more moves, still few NAKs, and faster.
        TalbScenario::Result sprayed =
            RunScenario(Params("ReorderMoves=true;RoceGoBackN=false;Spray=SharedDestination"),
                        "talb",
                        CreateTempDirFilename("talb-reorder-spray"));
        NS_TEST_ASSERT_MSG_EQ(sprayed.Finished(), true, "the jobs finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(sprayed, "hidden_moves"),
                              10 * PolicyCounter(hidden, "hidden_moves"),
                              "moves taken at epoch pace");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(sprayed, "kept_paths"), 0u, "moves refused mid-epoch");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(sprayed, "unhidden_moves"), 0u, "unhidden moves");
        NS_TEST_EXPECT_MSG_LT(sprayed.rdma.naks * 10, plain.rdma.naks, "NAKs when sprayed");
        // Against the defaults before the go-back-N profile's EndedTie=Keep (2026-12-06): with
        // it TaLB's defaults are the faster here (348.7 ms against 355.0).
        TalbScenario::Result queue =
            RunScenario(Params("EndedTie=Queue"), "talb", CreateTempDirFilename("talb-queue"));
        NS_TEST_ASSERT_MSG_EQ(queue.Finished(), true, "the jobs finished");
        NS_TEST_EXPECT_MSG_LT(
            sprayed.meanIterationMs,
            queue.meanIterationMs,
            "the sprayed flows' iteration against TaLB's defaults before EndedTie");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(sprayed, "sprayed"), 0u, "packets sprayed");

        // One job alone on the same fabric: no leaf receives two jobs, nothing is sprayed.
        ScenarioParams alone =
            Params("ReorderMoves=true;RoceGoBackN=false;Spray=SharedDestination");
        for (auto& kv : alone)
        {
            if (kv.first == "jobs")
            {
                kv.second = "model=resnet50,workers=8,scheduler=fusion,collective=ring";
            }
        }
        TalbScenario::Result one =
            RunScenario(alone, "talb", CreateTempDirFilename("talb-one-job"));
        NS_TEST_ASSERT_MSG_EQ(one.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(one, "sprayed"), 0u, "a job alone sprayed");
    }
};

/**
 * talb-scenario --transport=rdma --leaves=4 --hostsPerLeaf=4 --spines=2 --hostRate=10Gbps
 * --oversubscription=2 --bgLoad=0.3 and one ResNet50 ring (two iterations): with
 * GoBackNFallback=conweave the untagged RoCEv2 background is placed by ConWeave's own protocol
 * (RTT probes, moves at late replies, each move held at the destination leaf until the old path's
 * TAIL), TaLB's tensor flows by TaLB and, with ReorderMoves off, not tagged by the protocol. With
 * the default fallback (letflow) the protocol does not run.
 */
class TalbTensorAwareConWeaveFallback : public TalbReorderQueuesTestCase
{
  public:
    TalbTensorAwareConWeaveFallback()
        : TalbReorderQueuesTestCase("TalbTensorAwareConWeaveFallback: GoBackNFallback=conweave "
                                    "reroutes the untagged RoCEv2 background per epoch, its "
                                    "moves held until the old path's tail")
    {
    }

  private:
    static ScenarioParams Params(const std::string& lbAttributes)
    {
        return RingBesideBackground(lbAttributes, "0.3");
    }

    void DoRun() override
    {
        TalbScenario::Result plain =
            RunScenario(Params(""), "talb", CreateTempDirFilename("talb-letflow-fallback"));
        NS_TEST_ASSERT_MSG_EQ(plain.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(plain, "untagged_rtt_requests"),
                              0u,
                              "ConWeave ran without the option");

        TalbScenario::Result cw = RunScenario(Params("GoBackNFallback=conweave"),
                                              "talb",
                                              CreateTempDirFilename("talb-conweave-fallback"));
        NS_TEST_ASSERT_MSG_EQ(cw.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(cw, "untagged_rtt_requests"), 1000u, "epochs probed");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(cw, "untagged_late_replies"), 0u, "late replies");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(cw, "untagged_reroutes"), 100u, "background moved");
        ExpectHeldUntilTail(cw);
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(cw, "hidden_moves") +
                                  PolicyCounter(cw, "unhidden_moves"),
                              0u,
                              "tensor flows tagged without ReorderMoves");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(cw, "congestion_moves"), 100u, "TaLB moved flows");
    }
};

/**
 * The same 4x4 fabric, ring and 30 % background with RttMoves: with Always, ConWeave's protocol
 * moves TaLB's tensor flows (RTT probes, moves at late replies, held at the destination leaf
 * until the old path's TAIL) and TaLB's counts follow each move (counted as its reroutes); with
 * WithUntagged it does so beside the background (measured here: 14 NAKs against 4,717 with the
 * background alone given to ConWeave), and on the idle fabric it never runs: the run is
 * ReorderMoves', file for file (TaLB's own moves, hidden).
 */
class TalbTensorAwareRttMoves : public TalbReorderQueuesTestCase
{
  public:
    TalbTensorAwareRttMoves()
        : TalbReorderQueuesTestCase("TalbTensorAwareRttMoves: ConWeave's protocol moves TaLB's "
                                    "RoCEv2 tensor flows (WithUntagged: only beside untagged "
                                    "data); TaLB's counts follow")
    {
    }

  private:
    static std::string Slurp(const std::string& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    void DoRun() override
    {
        // Always, the background left to TaLB's default fallback (letflow): every move of a
        // tensor flow by ConWeave is one of TaLB's reroutes.
        TalbScenario::Result always = RunScenario(RingBesideBackground("RttMoves=Always", "0.3"),
                                                  "talb",
                                                  CreateTempDirFilename("talb-rtt-always"));
        NS_TEST_ASSERT_MSG_EQ(always.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(always, "rtt_requests"), 1000u, "epochs probed");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(always, "rtt_reroutes"), 100u, "tensor flows moved");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(always.paths.reroutes,
                                    PolicyCounter(always, "rtt_reroutes"),
                                    "TaLB's counts followed ConWeave's moves");
        ExpectHeldUntilTail(always);

        // The same late replies, TaLB choosing where each moved flow goes: the moves still
        // happen, are followed and hidden, and land elsewhere than ConWeave's draws.
        TalbScenario::Result targeted =
            RunScenario(RingBesideBackground("RttMoves=Always;RttMoveTarget=Talb", "0.3"),
                        "talb",
                        CreateTempDirFilename("talb-rtt-talb-target"));
        NS_TEST_ASSERT_MSG_EQ(targeted.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(targeted, "rtt_reroutes"), 100u, "flows moved");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(targeted.paths.reroutes,
                                    PolicyCounter(targeted, "rtt_reroutes"),
                                    "TaLB's counts followed the moves it chose");
        NS_TEST_EXPECT_MSG_NE(PolicyCounter(targeted, "rtt_reroutes"),
                              PolicyCounter(always, "rtt_reroutes"),
                              "the targets changed the run");
        ExpectHeldUntilTail(targeted);

        // WithUntagged beside the background, which ConWeave places too: the tensor flows are
        // probed as well, and their moves, hidden now, no longer cost NAKs.
        TalbScenario::Result fallback =
            RunScenario(RingBesideBackground("GoBackNFallback=conweave", "0.3"),
                        "talb",
                        CreateTempDirFilename("talb-rtt-fallback"));
        NS_TEST_ASSERT_MSG_EQ(fallback.Finished(), true, "the job finished");
        TalbScenario::Result beside = RunScenario(
            RingBesideBackground("RttMoves=WithUntagged;GoBackNFallback=conweave", "0.3"),
            "talb",
            CreateTempDirFilename("talb-rtt-untagged"));
        NS_TEST_ASSERT_MSG_EQ(beside.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_GT(PolicyCounter(beside, "rtt_requests"),
                              PolicyCounter(fallback, "untagged_rtt_requests") * 3 / 2,
                              "tensor flows probed beside the background");
        NS_TEST_EXPECT_MSG_GT(fallback.rdma.naks, 1000u, "TaLB's own moves cost NAKs");
        NS_TEST_EXPECT_MSG_LT(beside.rdma.naks * 10, fallback.rdma.naks, "NAKs with RttMoves");
        ExpectHeldUntilTail(beside);

        const std::string idle = CreateTempDirFilename("talb-rtt-idle");
        TalbScenario::Result untagged =
            RunScenario(RingBesideBackground("RttMoves=WithUntagged", "0"), "talb", idle);
        NS_TEST_ASSERT_MSG_EQ(untagged.Finished(), true, "the job finished");
        NS_TEST_EXPECT_MSG_EQ(PolicyCounter(untagged, "rtt_requests"), 0u, "probed while idle");
        const std::string hidden = CreateTempDirFilename("talb-rtt-reorder-moves");
        RunScenario(RingBesideBackground("ReorderMoves=true", "0"), "talb", hidden);
        for (const char* file : {"/flows.csv", "/iterations.csv"})
        {
            std::string a = Slurp(idle + file);
            NS_TEST_EXPECT_MSG_EQ(a.empty(), false, file << " written");
            NS_TEST_EXPECT_MSG_EQ((a == Slurp(hidden + file)),
                                  true,
                                  file << ": WithUntagged on an idle fabric is ReorderMoves");
        }
    }
};

/// A GoBackNFallback=conweave whose ns3::TalbConWeaveLb attributes do not fit is refused with
/// ConWeave's reason, named as the fallback's.
class TalbTensorAwareConWeaveFallbackConfig : public TestCase
{
  public:
    TalbTensorAwareConWeaveFallbackConfig()
        : TestCase("TalbTensorAwareConWeaveFallbackConfig: ConWeave's attributes checked as the "
                   "fallback's")
    {
    }

  private:
    void DoRun() override
    {
        TalbSwitchInfo leaf;
        leaf.nLeaves = 2;
        leaf.nSpines = 2;
        Config::SetDefault("ns3::TalbConWeaveLb::PathSamples", UintegerValue(2));
        for (bool random : {true, false})
        {
            Config::SetDefault("ns3::TalbConWeaveLb::RandomPathChoice", BooleanValue(random));
            Ptr<TalbTensorAwareLb> lb = CreateObject<TalbTensorAwareLb>();
            lb->SetAttribute("GoBackNFallback", StringValue("conweave"));
            lb->SetTransmitCallback(MakeCallback(+[](Ptr<Packet>, uint32_t, uint32_t, bool) {}));
            std::string error = lb->CheckConfiguration(leaf);
            if (random)
            {
                NS_TEST_EXPECT_MSG_EQ(error, "", "GoBackNFallback=conweave refused");
            }
            else
            {
                NS_TEST_EXPECT_MSG_NE(
                    error.find("GoBackNFallback: the ns3::TalbConWeaveLb attributes: PathSamples 2 "
                               "needs RandomPathChoice=true"),
                    std::string::npos,
                    "refusal names the attribute: " << error);
            }
            lb->Dispose();
        }
        Config::Reset();
    }
};

/// ReorderMoves runs on v2's decisions only: with Version=1 the configuration is refused with
/// the reason.
class TalbTensorAwareReorderMovesNeedV2 : public TestCase
{
  public:
    TalbTensorAwareReorderMovesNeedV2()
        : TestCase("TalbTensorAwareReorderMovesNeedV2: ReorderMoves needs Version=2")
    {
    }

  private:
    void DoRun() override
    {
        TalbSwitchInfo leaf;
        leaf.nLeaves = 2;
        leaf.nSpines = 2;
        for (uint32_t version : {2u, 1u})
        {
            Ptr<TalbTensorAwareLb> lb = CreateObject<TalbTensorAwareLb>();
            lb->SetAttribute("ReorderMoves", BooleanValue(true));
            lb->SetAttribute("Version", UintegerValue(version));
            lb->SetTransmitCallback(MakeCallback(+[](Ptr<Packet>, uint32_t, uint32_t, bool) {}));
            std::string error = lb->CheckConfiguration(leaf);
            if (version == 2)
            {
                NS_TEST_EXPECT_MSG_EQ(error, "", "ReorderMoves with Version=2 refused");
            }
            else
            {
                NS_TEST_EXPECT_MSG_NE(error.find("ReorderMoves needs Version=2"),
                                      std::string::npos,
                                      "refusal names the attribute: " << error);
            }
            lb->Dispose();
        }
    }
};

/// PathSamples draws among paths uniformly: it needs RandomPathChoice, else the configuration is
/// refused with the reason.
class TalbConWeavePathSamplesNeedRandom : public TestCase
{
  public:
    TalbConWeavePathSamplesNeedRandom()
        : TestCase("TalbConWeavePathSamplesNeedRandom: PathSamples needs RandomPathChoice=true")
    {
    }

  private:
    void DoRun() override
    {
        for (bool random : {false, true})
        {
            ObjectFactory f("ns3::TalbConWeaveLb");
            f.Set("PathSamples", UintegerValue(2));
            f.Set("RandomPathChoice", BooleanValue(random));
            std::string error = f.Create<TalbLoadBalancer>()->CheckConfiguration(TalbSwitchInfo());
            if (random)
            {
                NS_TEST_EXPECT_MSG_EQ(error, "", "refused with RandomPathChoice");
            }
            else
            {
                NS_TEST_EXPECT_MSG_NE(error.find("PathSamples 2 needs RandomPathChoice=true"),
                                      std::string::npos,
                                      "not reported: " << error);
            }
        }
    }
};

class TalbConWeaveTestSuite : public TestSuite
{
  public:
    TalbConWeaveTestSuite()
        : TestSuite("talb-conweave", UNIT)
    {
        AddTestCase(new TalbConWeaveRerouteInOrder, TestCase::QUICK);
        AddTestCase(new TalbConWeaveDrillReorders, TestCase::QUICK);
        AddTestCase(new TalbConWeaveReorderTimeout, TestCase::QUICK);
        AddTestCase(new TalbConWeaveRunnerInOrder, TestCase::QUICK);
        AddTestCase(new TalbConWeaveNotifyChargeHeld, TestCase::QUICK);
        AddTestCase(new TalbConWeavePathSamplesNeedRandom, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareReorderMoves, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareReorderMovesNeedV2, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareConWeaveFallback, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareConWeaveFallbackConfig, TestCase::QUICK);
        AddTestCase(new TalbTensorAwareRttMoves, TestCase::QUICK);
    }
};

static TalbConWeaveTestSuite g_talbConWeaveTestSuite;
