// The collectives' analytic bounds (model/graph/talb-collective-bounds.h), one formula at a time
// against numbers computed by hand. Rates: NIC 100 Gb/s, intra-server 800 Gb/s, so that 1 MB
// takes 80 us through a NIC and 10 us inside a server.
#include "ns3/talb-collective-bounds.h"

#include <gtest/gtest.h>
#include <vector>

using namespace talb::graph;

namespace
{

const LinkRates kRates{100e9, 800e9};
constexpr uint64_t kMb = 1000000;
const std::vector<uint32_t> kSpread{0, 1, 2, 3};    // four servers
const std::vector<uint32_t> kOneServer{5, 5, 5, 5}; // one server
const std::vector<uint32_t> kPairs{0, 0, 1, 1};     // two servers, two GPUs each

TEST(TalbGraphBounds, RingAllReduceIsTwiceNMinusOneOverNTimesSOverB)
{
    // 2 x 3/4 x 80 us across servers; 2 x 3/4 x 10 us inside one.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kSpread, kNoRoot, kRates), 120e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kOneServer, kNoRoot, kRates),
                     15e3);
    // Two GPUs: 2 x 1/2 x S/B = S/B.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, {0, 1}, kNoRoot, kRates), 80e3);
}

TEST(TalbGraphBounds, AMixedRingRunsAtItsSlowestEdge)
{
    // Ring 0-0 (intra), 0-1 (NIC), 1-1 (intra), 1-0 (NIC): every step waits for a NIC edge.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kPairs, kNoRoot, kRates), 120e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kReduceScatter, kMb, kPairs, kNoRoot, kRates),
                     60e3);
    // A slow interconnect (intra 50 Gb/s): its edges are the slowest, 3/4 x 160 us.
    const LinkRates slowIntra{100e9, 50e9};
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllGather, kMb, kPairs, kNoRoot, slowIntra),
                     120e3);
}

TEST(TalbGraphBounds, RingReduceScatterAndAllGatherAreNMinusOneOverNTimesSOverB)
{
    for (CollType type : {CollType::kReduceScatter, CollType::kAllGather})
    {
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kSpread, kNoRoot, kRates), 60e3);
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kOneServer, kNoRoot, kRates), 7.5e3);
    }
}

TEST(TalbGraphBounds, PipelinedBroadcastAndReduceAreSOverB)
{
    for (CollType type : {CollType::kBroadcast, CollType::kReduce})
    {
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kSpread, 2, kRates), 80e3);
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kOneServer, 0, kRates), 10e3);
    }
}

TEST(TalbGraphBounds, ThePipelinedChainSkipsTheRingEdgeIntoOrOutOfTheRoot)
{
    // Servers {0, 1, 1} with a slow interconnect (intra 50 Gb/s: 160 us per MB). Ring edges:
    // 0->1 NIC, 1->2 intra, 2->0 NIC. Broadcast from member 2 runs 2->0->1 (NIC, NIC): 80 us.
    // Reduce to member 1 runs 2->0->1 as well; reduce to member 0 runs 1->2->0 (intra): 160 us.
    const LinkRates slowIntra{100e9, 50e9};
    const std::vector<uint32_t> servers{0, 1, 1};
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kBroadcast, kMb, servers, 2, slowIntra), 80e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kReduce, kMb, servers, 1, slowIntra), 80e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kReduce, kMb, servers, 0, slowIntra), 160e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kBroadcast, kMb, servers, 1, slowIntra), 160e3);
}

TEST(TalbGraphBounds, DirectGatherAndScatterAreNMinusOneOverNTimesSOverBAtTheRoot)
{
    for (CollType type : {CollType::kGather, CollType::kScatter})
    {
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kSpread, 1, kRates), 60e3);
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kOneServer, 3, kRates), 7.5e3);
        // Root on server 0 with one local peer: two remote quarters through its NIC (40 us)
        // while the local quarter crosses the interconnect (2.5 us).
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, kPairs, 0, kRates), 40e3);
    }
}

TEST(TalbGraphBounds, EvenAllToAllSendsNMinusOneOverNOfSToOthers)
{
    // Each member sends 3/4 MB to others: 60 us through a NIC.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllToAll, kMb, kSpread, kNoRoot, kRates), 60e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllToAll, kMb, kOneServer, kNoRoot, kRates),
                     7.5e3);
    // Two servers: 1/2 MB to the remote pair (40 us) while 1/4 MB stays inside (2.5 us).
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllToAll, kMb, kPairs, kNoRoot, kRates), 40e3);
}

TEST(TalbGraphBounds, UnevenAllToAllIsTheBusiestMembersSendOrReceive)
{
    // kB from row to column. Sent to others: 300, 300, 500 kB; received: 300, 600, 200 kB.
    // The busiest is member 1 receiving 600 kB: 48 us.
    const std::vector<double> sent{0, 100e3, 200e3, 300e3, 0, 0, 0, 500e3, 0};
    EXPECT_DOUBLE_EQ(AllToAllBoundNs(sent, {0, 1, 2}, kRates), 48e3);
    // What a member keeps does not count.
    const std::vector<double> kept{900e3, 100e3, 200e3, 300e3, 0, 0, 0, 500e3, 900e3};
    EXPECT_DOUBLE_EQ(AllToAllBoundNs(kept, {0, 1, 2}, kRates), 48e3);
    // Members 1 and 2 share a server: member 1 receives 100 kB by NIC, 500 kB from member 2
    // inside (5 us); member 2 sends 500 kB inside; member 0 sends 300 kB by NIC (24 us).
    EXPECT_DOUBLE_EQ(AllToAllBoundNs(sent, {0, 1, 1}, kRates), 24e3);
}

TEST(TalbGraphBounds, SendRecvIsSOverTheLinkItCrosses)
{
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(kMb, 0, 1, kRates), 80e3);
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(kMb, 4, 4, kRates), 10e3);
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(0, 0, 1, kRates), 0);
}

TEST(TalbGraphBounds, TheIntraServerLatencyIsPaidPerStepInsideAServer)
{
    // 1 us per message inside a server (the NVLink port's Latency).
    const LinkRates lat{100e9, 800e9, 1000};
    // One server, ring of 4: every step is S/4 at 800 Gb/s (2.5 us) plus 1 us.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kOneServer, kNoRoot, lat),
                     6 * 3.5e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllGather, kMb, kOneServer, kNoRoot, lat),
                     3 * 3.5e3);
    // A small message: latency is almost all of it (2 x 3 steps of 2.5 ns + 1 us).
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, 1000, kOneServer, kNoRoot, lat),
                     6 * 1002.5);
    // Across servers the NIC edges (20 us a step, no latency counted) stay the slowest.
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kPairs, kNoRoot, lat), 120e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllReduce, kMb, kSpread, kNoRoot, lat), 120e3);
    // The chain pays it once per intra-server edge: 3 inside one server, 1 of {0,0,1,1}'s
    // broadcast from member 0 (0->1 intra, 1->2 NIC, 2->3 intra: 2).
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kBroadcast, kMb, kOneServer, 0, lat), 13e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kBroadcast, kMb, kPairs, 0, lat), 82e3);
    // Direct: the intra-server part pays it once (gather at member 0 of {0,0,1,1}: 40 us by
    // NIC against 2.5 + 1 us inside; one server: 7.5 + 1 us).
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kGather, kMb, kPairs, 0, lat), 40e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kGather, kMb, kOneServer, 0, lat), 8.5e3);
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kAllToAll, kMb, kOneServer, kNoRoot, lat), 8.5e3);
    // A message inside a server, and one across.
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(kMb, 4, 4, lat), 11e3);
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(kMb, 0, 1, lat), 80e3);
    EXPECT_DOUBLE_EQ(SendRecvBoundNs(0, 4, 4, lat), 0);
}

TEST(TalbGraphBounds, BarriersAndSingleRankGroupsTakeNoTime)
{
    EXPECT_DOUBLE_EQ(CollectiveBoundNs(CollType::kBarrier, 0, kSpread, kNoRoot, kRates), 0);
    for (CollType type : {CollType::kAllReduce,
                          CollType::kReduceScatter,
                          CollType::kAllGather,
                          CollType::kAllToAll,
                          CollType::kBroadcast,
                          CollType::kReduce,
                          CollType::kGather,
                          CollType::kScatter})
    {
        EXPECT_DOUBLE_EQ(CollectiveBoundNs(type, kMb, {7}, 0, kRates), 0) << CollTypeName(type);
    }
}

TEST(TalbGraphBounds, AnInstanceOfAGraphUsesEachMembersOwnSplit)
{
    // Three ranks on three servers; an all-to-all whose members send unevenly (as MoE routing
    // makes them), the last member with an even split of its 300 kB.
    Graph g;
    g.nRanks = 3;
    g.groups.push_back({"ep0", CommClass::kExpert, {0, 1, 2}});
    g.peerBytes = {{0, 100000, 200000}, {300000, 0, 0}};
    g.ranks.resize(3);
    const uint64_t bytes[3] = {300000, 300000, 300000};
    const uint32_t split[3] = {0, 1, Node::kNone};
    for (uint32_t r = 0; r < 3; ++r)
    {
        Node n;
        n.kind = NodeKind::kCollective;
        n.coll = CollType::kAllToAll;
        n.group = 0;
        n.bytes = bytes[r];
        n.peerBytes = split[r];
        g.ranks[r].push_back(n);
    }
    ASSERT_TRUE(Validate(g, "t").empty());
    // Sent to others: 300, 300, 200 kB; received: 400, 200, 200 kB: member 0, 32 us.
    std::vector<double> scratch;
    EXPECT_DOUBLE_EQ(InstanceBoundNs(g, 0, {0, 0, 0}, {0, 1, 2}, kRates, &scratch), 32e3);
    EXPECT_DOUBLE_EQ(InstanceBoundNs(g, 0, {0, 0, 0}, {0, 1, 2}, kRates), 32e3);
    // Any other type reads the first member's node.
    for (auto& rank : g.ranks)
    {
        rank[0].coll = CollType::kAllReduce;
        rank[0].peerBytes = Node::kNone;
    }
    EXPECT_DOUBLE_EQ(InstanceBoundNs(g, 0, {0, 0, 0}, {0, 1, 2}, kRates), 2.0 / 3 * 2 * 24e3);
}

} // namespace
