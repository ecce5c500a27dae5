// TalbGraphJob's ordering rules on a simulated fabric: a rank runs a group's collectives one at
// a time in issue order (NCCL's per-communicator stream) while other groups' overlap;
// dependencies hold (a node is issued only after its inputs completed); compute nodes share
// one stream per rank.
#include "talb-test-fabric.h"

#include "ns3/talb-exec-graph.h"
#include "ns3/talb-graph-job-helper.h"

#include <map>

using namespace ns3;
using namespace ns3::talbtest;
using talb::graph::CollType;
using talb::graph::Graph;
using talb::graph::NodeKind;

namespace
{

/// Records a graph job's collectives and operations.
struct GraphRecorder
{
    std::vector<TalbCollectiveRecord> collectives;
    std::map<std::pair<uint32_t, uint32_t>, TalbOperationRecord> ops; //!< (rank, node)

    void Collective(const TalbCollectiveRecord& r)
    {
        collectives.push_back(r);
    }

    void Operation(const TalbOperationRecord& r)
    {
        ops[{r.rank, r.node}] = r;
    }

    void Attach(Ptr<TalbGraphJob> job)
    {
        job->TraceConnectWithoutContext("CollectiveDone",
                                        MakeCallback(&GraphRecorder::Collective, this));
        job->TraceConnectWithoutContext("OperationDone",
                                        MakeCallback(&GraphRecorder::Operation, this));
    }

    /// \return the records of \p group in completion order
    std::vector<TalbCollectiveRecord> Of(const std::string& group) const
    {
        std::vector<TalbCollectiveRecord> out;
        for (const auto& r : collectives)
        {
            if (r.group == group)
            {
                out.push_back(r);
            }
        }
        return out;
    }
};

talb::graph::Node
Collective(CollType type, uint32_t group, uint64_t bytes, std::vector<uint32_t> deps = {})
{
    talb::graph::Node n;
    n.kind = NodeKind::kCollective;
    n.coll = type;
    n.cls = talb::graph::CommClass::kTensor;
    n.group = group;
    n.bytes = bytes;
    n.deps = std::move(deps);
    return n;
}

talb::graph::Node
Compute(uint64_t ns, std::vector<uint32_t> deps = {})
{
    talb::graph::Node n;
    n.kind = NodeKind::kCompute;
    n.durationNs = ns;
    n.deps = std::move(deps);
    return n;
}

/// Runs \p graph on a 4-host star (10 Gb/s, TCP); \return whether it finished within 1 s
bool
RunGraph(std::shared_ptr<Graph> graph, GraphRecorder* rec)
{
    NS_ABORT_MSG_UNLESS(talb::graph::Validate(*graph, "test").empty(), "invalid test graph");
    ConfigureTcp(9000);
    NodeContainer hosts = StarFabric(4, DataRate("10Gbps"), MicroSeconds(1));
    TalbGraphJobHelper helper;
    helper.SetGraph(graph);
    helper.SetJobAttribute("NicRate", DataRateValue(DataRate("10Gbps")));
    Ptr<TalbGraphJob> job = helper.Install(hosts);
    rec->Attach(job);
    Simulator::Stop(Seconds(1));
    Simulator::Run();
    return job->IsFinished();
}

std::shared_ptr<Graph>
FourRanks()
{
    auto g = std::make_shared<Graph>();
    g->nRanks = 4;
    g->ranks.resize(4);
    g->groups.push_back({"all", talb::graph::CommClass::kTensor, {0, 1, 2, 3}});
    g->groups.push_back({"pair", talb::graph::CommClass::kTensor, {0, 1}});
    return g;
}

} // namespace

/// Two all-reduces issued at once on one group run one after the other at every member; a
/// collective on another group runs meanwhile.
class TalbGraphJobGroupSerialization : public SimulationTestCase
{
  public:
    TalbGraphJobGroupSerialization()
        : SimulationTestCase("TalbGraphJobGroupSerialization")
    {
    }

  private:
    void DoRun() override
    {
        auto g = FourRanks();
        const uint64_t s = 2000000;
        for (uint32_t r = 0; r < 4; ++r)
        {
            g->ranks[r].push_back(Collective(CollType::kAllReduce, 0, s));
            g->ranks[r].push_back(Collective(CollType::kAllReduce, 0, s));
            if (r < 2)
            {
                g->ranks[r].push_back(Collective(CollType::kAllGather, 1, s));
            }
        }
        GraphRecorder rec;
        NS_TEST_ASSERT_MSG_EQ(RunGraph(g, &rec), true, "graph did not finish");
        auto all = rec.Of("all");
        auto pair = rec.Of("pair");
        NS_TEST_ASSERT_MSG_EQ(all.size(), 2, "two instances on group all");
        NS_TEST_ASSERT_MSG_EQ(pair.size(), 1, "one instance on group pair");
        // Every member issued both at time 0; the second starts as the first ends.
        Time first = all[0].end - all[0].start;
        NS_TEST_EXPECT_MSG_GT(all[1].start, all[0].start + first / 2, "instances overlapped");
        NS_TEST_EXPECT_MSG_LT(all[1].start, all[0].end + MicroSeconds(1), "instance 1 waited");
        // Alone each takes its bound 2 (N-1)/N S / B = 2.4 ms (plus headers and latency).
        NS_TEST_EXPECT_MSG_GT_OR_EQ(first, all[0].ideal, "faster than the bound");
        NS_TEST_EXPECT_MSG_EQ(all[0].ideal, MicroSeconds(2400), "the bound");
        // The pair's all-gather starts at once, next to the first all-reduce.
        NS_TEST_EXPECT_MSG_LT(pair[0].start, all[0].end - first / 2, "other group held back");
        NS_TEST_EXPECT_MSG_EQ(all[0].bytes, 4 * s, "bytes: the members' buffers");
    }
};

/// A node is issued once its dependencies completed: compute before a send, the receive
/// before the compute that needs it, both before the next collective; one compute stream per
/// rank.
class TalbGraphJobDependencies : public SimulationTestCase
{
  public:
    TalbGraphJobDependencies()
        : SimulationTestCase("TalbGraphJobDependencies")
    {
    }

  private:
    void DoRun() override
    {
        auto g = FourRanks();
        talb::graph::Node send;
        send.kind = NodeKind::kSend;
        send.cls = talb::graph::CommClass::kPipeline;
        send.peer = 1;
        send.bytes = 1000000;
        talb::graph::Node recv = send;
        recv.kind = NodeKind::kRecv;
        recv.peer = 0;
        // rank 0: compute 100 us -> send; rank 1: recv -> compute 50 us; ranks 2, 3: two
        // independent 10 us computes. Then everyone all-reduces.
        g->ranks[0] = {Compute(100000), send, Collective(CollType::kAllReduce, 0, 400000, {1})};
        send.deps = {0};
        g->ranks[0][1] = send;
        g->ranks[1] = {recv, Compute(50000, {0}), Collective(CollType::kAllReduce, 0, 400000, {1})};
        for (uint32_t r : {2, 3})
        {
            g->ranks[r] = {Compute(10000),
                           Compute(10000),
                           Collective(CollType::kAllReduce, 0, 400000, {0, 1})};
        }
        GraphRecorder rec;
        NS_TEST_ASSERT_MSG_EQ(RunGraph(g, &rec), true, "graph did not finish");
        auto op = [&rec](uint32_t rank, uint32_t node) { return rec.ops.at({rank, node}); };
        NS_TEST_EXPECT_MSG_EQ(op(0, 0).end, MicroSeconds(100), "compute time");
        NS_TEST_EXPECT_MSG_EQ(op(0, 1).issued, MicroSeconds(100), "send after its compute");
        NS_TEST_EXPECT_MSG_EQ(op(1, 1).issued, op(1, 0).end, "compute after its receive");
        NS_TEST_EXPECT_MSG_EQ(op(1, 1).end, op(1, 1).issued + MicroSeconds(50), "compute time");
        NS_TEST_EXPECT_MSG_EQ(op(2, 1).end, MicroSeconds(20), "one compute stream per rank");
        auto p2p = rec.Of("p2p");
        NS_TEST_ASSERT_MSG_EQ(p2p.size(), 1, "one message");
        NS_TEST_EXPECT_MSG_EQ(p2p[0].type, "send_recv", "message type");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(p2p[0].end - p2p[0].start, p2p[0].ideal, "message bound");
        auto all = rec.Of("all");
        NS_TEST_ASSERT_MSG_EQ(all.size(), 1, "one all-reduce");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(all[0].start, op(1, 1).end, "all-reduce after rank 1");
        for (uint32_t r = 0; r < 4; ++r)
        {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(op(r, 2).end, all[0].end, "members end by the instance");
        }
    }
};

/// The suite.
class TalbGraphJobTestSuite : public TestSuite
{
  public:
    TalbGraphJobTestSuite()
        : TestSuite("talb-graph-job", UNIT)
    {
        AddTestCase(new TalbGraphJobGroupSerialization, TestCase::QUICK);
        AddTestCase(new TalbGraphJobDependencies, TestCase::QUICK);
    }
};

static TalbGraphJobTestSuite g_talbGraphJobTestSuite;
