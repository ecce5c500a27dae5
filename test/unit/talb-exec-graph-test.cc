// The execution graph (model/graph/talb-exec-graph.h) without ns-3: labels, names, and every
// rule of Validate(), each with a graph that breaks it and the message it must give.
#include "ns3/talb-exec-graph.h"
#include "ns3/talb-wire.h"

#include <cstdint>
#include <ctime>
#include <gtest/gtest.h>
#include <limits>
#include <string>
#include <vector>

using namespace talb::graph;

namespace
{

/// CPU seconds since \p start: the bound holds however loaded the machine is.
double
CpuSeconds(std::clock_t start)
{
    return double(std::clock() - start) / CLOCKS_PER_SEC;
}

using Messages = std::vector<std::string>;

Node
Compute(uint64_t ns, std::vector<uint32_t> deps = {})
{
    Node n;
    n.kind = NodeKind::kCompute;
    n.durationNs = ns;
    n.deps = std::move(deps);
    return n;
}

Node
Collective(CollType type, uint32_t group, uint64_t bytes, std::vector<uint32_t> deps = {})
{
    Node n;
    n.kind = NodeKind::kCollective;
    n.coll = type;
    n.cls = CommClass::kData;
    n.group = group;
    n.bytes = bytes;
    n.deps = std::move(deps);
    return n;
}

Node
P2p(NodeKind kind, uint32_t peer, uint32_t tag, uint64_t bytes, std::vector<uint32_t> deps = {})
{
    Node n;
    n.kind = kind;
    n.cls = CommClass::kPipeline;
    n.peer = peer;
    n.tag = tag;
    n.bytes = bytes;
    n.deps = std::move(deps);
    return n;
}

/**
 * Two ranks in one group "dp0" = {0, 1}, each: 0 compute, 1 all-reduce, 2 all-to-all,
 * 3 broadcast from group rank 1, 4 point-to-point (rank 0 sends, rank 1 receives). Rank 0's
 * all-to-all has an explicit split, rank 1's an even one. Valid.
 */
Graph
Sample()
{
    Graph g;
    g.nRanks = 2;
    g.groups.push_back(Group{"dp0", CommClass::kData, {0, 1}});
    g.peerBytes.push_back({100, 200});
    const uint32_t label = g.Label("fwd");
    for (uint32_t r = 0; r < 2; ++r)
    {
        std::vector<Node> nodes;
        nodes.push_back(Compute(10));
        nodes.back().label = label;
        nodes.push_back(Collective(CollType::kAllReduce, 0, 1000, {0}));
        nodes.push_back(Collective(CollType::kAllToAll, 0, 300, {1}));
        nodes.back().peerBytes = r == 0 ? 0 : Node::kNone;
        nodes.push_back(Collective(CollType::kBroadcast, 0, 64, {1}));
        nodes.back().root = 1;
        nodes.push_back(P2p(r == 0 ? NodeKind::kSend : NodeKind::kRecv, 1 - r, 7, 50, {2, 3}));
        g.ranks.push_back(std::move(nodes));
    }
    return g;
}

Messages
Check(const Graph& g)
{
    return Validate(g, "gen");
}

TEST(TalbExecGraphLabel, ReturnsTheSameIndexForTheSameName)
{
    Graph g;
    EXPECT_EQ(g.Label("fwd"), 0u);
    EXPECT_EQ(g.Label("bwd"), 1u);
    EXPECT_EQ(g.Label("fwd"), 0u);
    EXPECT_EQ(g.labels, (std::vector<std::string>{"fwd", "bwd"}));
}

TEST(TalbExecGraphLabel, FindsLabelsAppendedDirectly)
{
    Graph g;
    g.Label("a");
    g.labels.push_back("b");
    EXPECT_EQ(g.Label("b"), 1u);
    EXPECT_EQ(g.Label("c"), 2u);
    EXPECT_EQ(g.labels.size(), 3u);
}

TEST(TalbExecGraphLabel, SurvivesLabelsClearedOrEditedInPlace)
{
    Graph g;
    g.Label("a");
    g.Label("b");
    g.labels.clear();
    EXPECT_EQ(g.Label("b"), 0u);
    g.labels[0] = "z"; // the index still says "b" -> 0: Label() notices and reindexes
    EXPECT_EQ(g.Label("b"), 1u);
    EXPECT_EQ(g.Label("z"), 0u);
}

TEST(TalbExecGraphNames, NameEveryCollType)
{
    EXPECT_STREQ(CollTypeName(CollType::kAllReduce), "all_reduce");
    EXPECT_STREQ(CollTypeName(CollType::kReduceScatter), "reduce_scatter");
    EXPECT_STREQ(CollTypeName(CollType::kAllGather), "all_gather");
    EXPECT_STREQ(CollTypeName(CollType::kAllToAll), "all_to_all");
    EXPECT_STREQ(CollTypeName(CollType::kBroadcast), "broadcast");
    EXPECT_STREQ(CollTypeName(CollType::kReduce), "reduce");
    EXPECT_STREQ(CollTypeName(CollType::kGather), "gather");
    EXPECT_STREQ(CollTypeName(CollType::kScatter), "scatter");
    EXPECT_STREQ(CollTypeName(CollType::kBarrier), "barrier");
    EXPECT_STREQ(CollTypeName(static_cast<CollType>(99)), "unknown");
}

TEST(TalbExecGraphNames, NameEveryCommClassAndNodeKind)
{
    EXPECT_STREQ(CommClassName(CommClass::kTensor), "tensor");
    EXPECT_STREQ(CommClassName(CommClass::kExpert), "expert");
    EXPECT_STREQ(CommClassName(CommClass::kPipeline), "pipeline");
    EXPECT_STREQ(CommClassName(CommClass::kData), "data");
    EXPECT_STREQ(CommClassName(CommClass::kOther), "other");
    EXPECT_STREQ(CommClassName(static_cast<CommClass>(9)), "unknown");
    EXPECT_STREQ(NodeKindName(NodeKind::kCompute), "compute");
    EXPECT_STREQ(NodeKindName(NodeKind::kMemory), "memory");
    EXPECT_STREQ(NodeKindName(NodeKind::kCollective), "collective");
    EXPECT_STREQ(NodeKindName(NodeKind::kSend), "send");
    EXPECT_STREQ(NodeKindName(NodeKind::kRecv), "recv");
    EXPECT_STREQ(NodeKindName(static_cast<NodeKind>(9)), "unknown");
}

TEST(TalbExecGraphNames, CommClassesAreTheWireClasses)
{
    EXPECT_EQ(static_cast<uint32_t>(CommClass::kTensor), uint32_t{TALB_CLASS_TENSOR});
    EXPECT_EQ(static_cast<uint32_t>(CommClass::kExpert), uint32_t{TALB_CLASS_EXPERT});
    EXPECT_EQ(static_cast<uint32_t>(CommClass::kPipeline), uint32_t{TALB_CLASS_PIPELINE});
    EXPECT_EQ(static_cast<uint32_t>(CommClass::kData), uint32_t{TALB_CLASS_DATA});
    EXPECT_EQ(static_cast<uint32_t>(CommClass::kOther), uint32_t{TALB_CLASS_OTHER});
}

TEST(TalbExecGraphValidate, AcceptsAValidGraph)
{
    EXPECT_EQ(Check(Sample()), Messages{});
    EXPECT_EQ(Check(Graph{}), Messages{}); // no ranks, nothing wrong
}

TEST(TalbExecGraphValidate, RejectsNodeListsThatDoNotMatchNRanks)
{
    Graph g = Sample();
    g.nRanks = 3;
    EXPECT_EQ(Check(g), Messages{"gen: nRanks is 3 but the graph has 2 node lists"});
}

TEST(TalbExecGraphValidate, RejectsADependencyOutOfRange)
{
    Graph g = Sample();
    g.ranks[1][2].deps.push_back(5);
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1:node 2: dependency 5 out of range (the rank has 5 nodes)"});
}

TEST(TalbExecGraphValidate, RejectsASelfDependency)
{
    Graph g = Sample();
    g.ranks[0][3].deps.push_back(3);
    EXPECT_EQ(Check(g), Messages{"gen:rank 0:node 3: depends on itself"});
}

TEST(TalbExecGraphValidate, NamesOneNodeOnACycleOnce)
{
    // 0; 1 waits for 3, 3 for 2, 2 for 1 (the cycle); 4 waits behind it.
    Graph g;
    g.nRanks = 1;
    g.ranks = {{Compute(1), Compute(1, {3}), Compute(1, {1}), Compute(1, {2}), Compute(1, {3})}};
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 1: on a dependency cycle: 1 -> 3 -> 2 -> 1 (each waits "
                       "for the next; 4 nodes of the rank are on or behind cycles)"});
}

TEST(TalbExecGraphValidate, NamesANodeOnTheCycleNotOneBehindIt)
{
    // Node 0 waits for the cycle 1 <-> 2 but is not on it.
    Graph g;
    g.nRanks = 1;
    g.ranks = {{Compute(1, {2}), Compute(1, {2}), Compute(1, {1})}};
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 2: on a dependency cycle: 2 -> 1 -> 2 (each waits for "
                       "the next; 3 nodes of the rank are on or behind cycles)"});
}

TEST(TalbExecGraphValidate, ShortensALongCycle)
{
    Graph g;
    g.nRanks = 1;
    g.ranks.resize(1);
    for (uint32_t i = 0; i < 20; ++i)
    {
        g.ranks[0].push_back(Compute(1, {(i + 1) % 20}));
    }
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 0: on a dependency cycle: 0 -> 1 -> 2 -> 3 -> 4 -> 5 "
                       "-> 6 -> 7 -> ... (each waits for the next; 20 nodes of the rank are on "
                       "or behind cycles)"});
}

TEST(TalbExecGraphValidate, RejectsAGroupRankOutOfRange)
{
    Graph g = Sample();
    g.groups.push_back(Group{"tp0", CommClass::kTensor, {0, 2}});
    EXPECT_EQ(Check(g), Messages{"gen:group 1 'tp0': rank 2 out of range (the graph has 2 ranks)"});
}

TEST(TalbExecGraphValidate, RejectsAGroupRankListedTwice)
{
    Graph g = Sample();
    g.groups.push_back(Group{"tp0", CommClass::kTensor, {1, 0, 1}});
    EXPECT_EQ(Check(g), Messages{"gen:group 1 'tp0': rank 1 appears twice"});
}

TEST(TalbExecGraphValidate, RejectsAnEmptyGroup)
{
    Graph g = Sample();
    g.groups.push_back(Group{"none", CommClass::kOther, {}});
    EXPECT_EQ(Check(g), Messages{"gen:group 1 'none': has no ranks"});
}

TEST(TalbExecGraphValidate, RejectsACollectiveOnAGroupWithoutItsRank)
{
    Graph g = Sample();
    g.groups.push_back(Group{"solo0", CommClass::kOther, {0}});
    g.ranks[1][1].group = 1;
    g.ranks[0][1].group = 1; // rank 0 moves too, so the counts stay equal
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1:node 1: all_reduce on group 1 'solo0', which does not contain "
                       "this rank"});
}

TEST(TalbExecGraphValidate, RejectsACollectiveWithoutAValidGroup)
{
    Graph g = Sample();
    g.ranks[0][1].group = Node::kNone;
    g.ranks[1][1].group = 4;
    EXPECT_EQ(Check(g),
              (Messages{"gen:rank 0:node 1: all_reduce names no group",
                        "gen:rank 1:node 1: all_reduce names group 4 but the graph has 1 groups"}));
}

TEST(TalbExecGraphValidate, RejectsARootOutsideTheGroup)
{
    Graph g = Sample();
    g.ranks[0][3].root = 2;
    g.ranks[1][3].root = kNoRoot;
    EXPECT_EQ(Check(g),
              (Messages{"gen:rank 0:node 3: broadcast root 2 outside group 0 'dp0' of 2 ranks",
                        "gen:rank 1:node 3: broadcast without a root"}));
}

TEST(TalbExecGraphValidate, IgnoresTheRootOfUnrootedCollectives)
{
    Graph g = Sample();
    g.ranks[0][1].root = 5; // an all-reduce has no root: the field is unused
    EXPECT_EQ(Check(g), Messages{});
}

TEST(TalbExecGraphValidate, RejectsAnAllToAllSplitOfTheWrongLength)
{
    Graph g = Sample();
    g.peerBytes[0] = {300};
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 2: all_to_all split 0 has 1 entries, group 0 'dp0' has "
                       "2 ranks"});
}

TEST(TalbExecGraphValidate, RejectsAnAllToAllSplitThatMissesTheBytes)
{
    Graph g = Sample();
    g.peerBytes[0] = {100, 201};
    EXPECT_EQ(
        Check(g),
        Messages{"gen:rank 0:node 2: all_to_all split 0 sums to 301 bytes, the node has 300"});
}

TEST(TalbExecGraphValidate, RejectsAnAllToAllSplitOutOfRange)
{
    Graph g = Sample();
    g.ranks[1][2].peerBytes = 1;
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1:node 2: all_to_all split 1 out of range (the graph has 1)"});
}

TEST(TalbExecGraphValidate, RejectsAnAllToAllSplitThatOverflows)
{
    Graph g = Sample();
    g.peerBytes[0] = {std::numeric_limits<uint64_t>::max(), 2};
    EXPECT_EQ(Check(g), Messages{"gen:rank 0:node 2: all_to_all split 0 overflows 64 bits"});
}

TEST(TalbExecGraphValidate, RejectsGroupMembersIssuingDifferentCollectiveCounts)
{
    Graph g = Sample();
    g.ranks[1][3] = Compute(5, {1}); // rank 1 skips the broadcast
    EXPECT_EQ(Check(g),
              Messages{"gen:group 0 'dp0': rank 0 issues 3 collectives on it, rank 1 issues 2"});
}

TEST(TalbExecGraphValidate, RejectsASendWithoutItsRecv)
{
    Graph g = Sample();
    g.ranks[1][4] = Compute(5, {2, 3});
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 4: send to rank 1 (tag 7, 50 bytes) unmatched: rank 0 "
                       "sends 1 such messages, rank 1 receives 0"});
}

TEST(TalbExecGraphValidate, RejectsARecvOfOtherBytesOrTag)
{
    Graph g = Sample();
    g.ranks[1][4].bytes = 60;
    const Messages bytes{
        "gen:rank 0:node 4: send to rank 1 (tag 7, 50 bytes) unmatched: rank 0 sends 1 such "
        "messages, rank 1 receives 0",
        "gen:rank 1:node 4: recv from rank 0 (tag 7, 60 bytes) unmatched: rank 0 sends 0 such "
        "messages, rank 1 receives 1"};
    EXPECT_EQ(Check(g), bytes);
    g.ranks[1][4].bytes = 50;
    g.ranks[1][4].tag = 8;
    EXPECT_EQ(Check(g).size(), 2u);
}

TEST(TalbExecGraphValidate, MatchesSendsAndRecvsByCountInAnyOrder)
{
    // Rank 0 sends 10 then 20 bytes on one tag; rank 1 receives them in the other order.
    Graph g;
    g.nRanks = 2;
    g.ranks = {{P2p(NodeKind::kSend, 1, 0, 10), P2p(NodeKind::kSend, 1, 0, 20)},
               {P2p(NodeKind::kRecv, 0, 0, 20), P2p(NodeKind::kRecv, 0, 0, 10)}};
    EXPECT_EQ(Check(g), Messages{});
    g.ranks[0].push_back(P2p(NodeKind::kSend, 1, 0, 10));
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 0: send to rank 1 (tag 0, 10 bytes) unmatched: rank 0 "
                       "sends 2 such messages, rank 1 receives 1"});
}

TEST(TalbExecGraphValidate, RejectsAPeerOutOfRange)
{
    Graph g = Sample();
    g.ranks[0][4].peer = 2;
    g.ranks[1][4] = Compute(5, {2, 3});
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 0:node 4: send peer 2 out of range (the graph has 2 ranks)"});
}

TEST(TalbExecGraphValidate, RejectsARankByteTotalThatOverflows)
{
    Graph g = Sample();
    // The all-reduce's 1000 bytes reach the maximum, the all-to-all's 300 pass it.
    g.ranks[0][0].bytes = std::numeric_limits<uint64_t>::max() - 1000;
    EXPECT_EQ(Check(g), Messages{"gen:rank 0:node 2: the rank's byte total overflows 64 bits"});
}

TEST(TalbExecGraphValidate, RejectsAJobByteTotalThatOverflows)
{
    Graph g = Sample();
    g.ranks[0][0].bytes = std::numeric_limits<uint64_t>::max() / 2;
    g.ranks[1][0].bytes = std::numeric_limits<uint64_t>::max() / 2;
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1: the job's byte total overflows 64 bits from this rank on"});
}

TEST(TalbExecGraphValidate, RejectsAPriorityOutsideTheEightClasses)
{
    Graph g = Sample();
    g.ranks[0][1].priority = 8;
    g.ranks[1][1].priority = -2;
    g.ranks[1][2].priority = 7;
    EXPECT_EQ(Check(g),
              (Messages{"gen:rank 0:node 1: priority 8 is not 0..7 or kPriorityByRule",
                        "gen:rank 1:node 1: priority -2 is not 0..7 or kPriorityByRule"}));
}

TEST(TalbExecGraphValidate, RejectsALabelOutOfRange)
{
    Graph g = Sample();
    g.ranks[1][0].label = 1;
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1:node 0: label 1 out of range (the graph has 1 labels)"});
}

TEST(TalbExecGraphValidate, RejectsATensorIdBeyondTheWire)
{
    Graph g = Sample();
    g.ranks[0][1].tensor = TALB_TENSOR_INDEX_MASK;
    g.ranks[1][1].tensor = TALB_TENSOR_INDEX_MASK + 1;
    EXPECT_EQ(Check(g),
              Messages{"gen:rank 1:node 1: tensor 16777216 does not fit the wire's 24 bits"});
}

TEST(TalbExecGraphValidate, RejectsEnumValuesOutOfRange)
{
    Graph g = Sample();
    g.ranks[0][0].kind = static_cast<NodeKind>(5);
    g.ranks[0][1].cls = static_cast<CommClass>(5);
    g.ranks[1][1].coll = static_cast<CollType>(9);
    g.groups[0].cls = static_cast<CommClass>(7);
    EXPECT_EQ(Check(g),
              (Messages{"gen:group 0 'dp0': class 7 is not a CommClass",
                        "gen:rank 0:node 0: kind 5 is not a NodeKind",
                        "gen:rank 0:node 1: class 5 is not a CommClass",
                        "gen:rank 1:node 1: collective type 9 is not a CollType",
                        "gen:group 0 'dp0': rank 0 issues 3 collectives on it, rank 1 issues 2"}));
}

TEST(TalbExecGraphValidate, RejectsABarrierThatMovesBytes)
{
    Graph g = Sample();
    for (uint32_t r = 0; r < 2; ++r)
    {
        g.ranks[r][1].coll = CollType::kBarrier;
        g.ranks[r][1].bytes = r; // rank 0's 0 bytes are right
    }
    EXPECT_EQ(Check(g), Messages{"gen:rank 1:node 1: barrier of 1 bytes (a barrier moves 0)"});
}

TEST(TalbExecGraphValidate, StopsAfterMaxErrors)
{
    Graph g;
    g.nRanks = 1;
    g.ranks.resize(1);
    for (uint32_t i = 0; i < 30; ++i)
    {
        g.ranks[0].push_back(Compute(1, {i})); // 30 self-dependencies
    }
    EXPECT_EQ(Validate(g, "x").size(), 20u);
    EXPECT_EQ(Validate(g, "x", 5).size(), 5u);
    EXPECT_EQ(Validate(g, "x", 0).size(), 30u);
    EXPECT_EQ(Validate(g, "x", 1), Messages{"x:rank 0:node 0: depends on itself"});
}

TEST(TalbExecGraphValidate, ValidatesAMillionNodeChainInWellUnderASecond)
{
    Graph g;
    g.nRanks = 1;
    g.ranks.resize(1);
    auto& nodes = g.ranks[0];
    nodes.resize(1000000);
    for (uint32_t i = 1; i < nodes.size(); ++i)
    {
        nodes[i].deps.push_back(i - 1);
    }
    auto start = std::clock();
    Messages messages = Validate(g, "chain");
    double elapsed = CpuSeconds(start);
    EXPECT_EQ(messages, Messages{});
    EXPECT_LT(elapsed, 1.0);
    // Closing the chain into a cycle is found as fast.
    nodes[0].deps.push_back(999999);
    start = std::clock();
    messages = Validate(g, "chain");
    elapsed = CpuSeconds(start);
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_EQ(messages[0].rfind("chain:rank 0:node 0: on a dependency cycle: 0 -> 999999 -> ", 0),
              0u);
    EXPECT_LT(elapsed, 1.0);
}

} // namespace
