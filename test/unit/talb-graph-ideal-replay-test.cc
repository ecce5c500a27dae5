// The ideal replay (model/graph/talb-ideal-replay.h) on graphs written by hand, against times
// computed by hand. Rates: NIC 100 Gb/s, intra-server 800 Gb/s, so that 1 MB takes 80 us
// through a NIC and 10 us inside a server.
#include "talb-graph-builder.h"

#include "ns3/talb-ideal-replay.h"

#include <ctime>
#include <gtest/gtest.h>
#include <vector>

using namespace talb::graph;
using talb::graph::test::Builder;

namespace
{

constexpr uint64_t kMb = 1000000;
constexpr double kNicMbNs = 80e3;   // 1 MB through a NIC
constexpr double kIntraMbNs = 10e3; // 1 MB inside a server

IdealReplay::Fabric
Fabric(const std::vector<uint32_t>& serverOf)
{
    return {serverOf, {100e9, 800e9}};
}

/// Replays \p b's graph, which must be valid: Validate() is Run()'s precondition.
IdealReplay::Result
Replay(const Builder& b, const std::vector<uint32_t>& serverOf)
{
    EXPECT_EQ(Validate(b.g, "test"), std::vector<std::string>());
    return IdealReplay::Run(b.g, Fabric(serverOf));
}

TEST(TalbGraphIdealReplay, OneRankComputesOneNodeAtATime)
{
    Builder b(1);
    uint32_t c0 = b.Compute(0, 100);
    b.Compute(0, 200, {c0}); // issued at 100, after node 2 (issued at 0): runs 150..350
    b.Compute(0, 50);
    const auto r = Replay(b, {0});
    EXPECT_EQ(r.error, "");
    EXPECT_DOUBLE_EQ(r.makespanNs, 350);
    EXPECT_EQ(r.iterationNs, std::vector<double>({350}));
    EXPECT_EQ(r.iterationStartNs, std::vector<std::vector<double>>({{0}}));
    EXPECT_EQ(r.iterationEndNs, std::vector<std::vector<double>>({{350}}));
    EXPECT_TRUE(r.collectives.empty());
}

TEST(TalbGraphIdealReplay, AnAllReduceAfterComputeEndsAtComputePlusItsBound)
{
    // Two ranks on two servers: 2 (N-1)/N x S / B = 80 us for 1 MB.
    Builder b(2);
    uint32_t g = b.Group("dp", {0, 1});
    for (uint32_t r = 0; r < 2; ++r)
    {
        b.AllReduce(r, g, kMb, {b.Compute(r, 1000)});
    }
    auto r = Replay(b, {0, 1});
    EXPECT_EQ(r.error, "");
    EXPECT_DOUBLE_EQ(r.makespanNs, 1000 + kNicMbNs);
    ASSERT_EQ(r.collectives.size(), 1u);
    EXPECT_EQ(r.collectives[0].group, g);
    EXPECT_EQ(r.collectives[0].seq, 0u);
    EXPECT_DOUBLE_EQ(r.collectives[0].startNs, 1000);
    EXPECT_DOUBLE_EQ(r.collectives[0].boundNs, kNicMbNs);
    EXPECT_DOUBLE_EQ(r.collectives[0].IdealNs(), kNicMbNs);
    // The collective waits for its slower member: rank 1 computes 3 us.
    b.g.ranks[1][0].durationNs = 3000;
    r = Replay(b, {0, 1});
    EXPECT_DOUBLE_EQ(r.collectives[0].startNs, 3000);
    EXPECT_DOUBLE_EQ(r.makespanNs, 3000 + kNicMbNs);
    // On one server it runs at the intra-server rate.
    r = Replay(b, {4, 4});
    EXPECT_DOUBLE_EQ(r.makespanNs, 3000 + kIntraMbNs);
}

/// Ranks 0 .. n-1 each issue, at time 0, one all-reduce of 1 MB on each of \p groups.
Builder
Concurrent(uint32_t n, const std::vector<std::vector<uint32_t>>& groups)
{
    Builder b(n);
    for (const auto& ranks : groups)
    {
        uint32_t g = b.Group("g" + std::to_string(b.g.groups.size()), ranks);
        for (uint32_t r : ranks)
        {
            b.AllReduce(r, g, kMb);
        }
    }
    return b;
}

TEST(TalbGraphIdealReplay, TwoCollectivesSharingNicsTakeTwiceAsLong)
{
    const auto r = Replay(Concurrent(2, {{0, 1}, {0, 1}}), {0, 1});
    EXPECT_EQ(r.error, "");
    ASSERT_EQ(r.collectives.size(), 2u);
    for (const auto& c : r.collectives)
    {
        EXPECT_DOUBLE_EQ(c.boundNs, kNicMbNs);
        EXPECT_DOUBLE_EQ(c.IdealNs(), 2 * kNicMbNs);
    }
    EXPECT_DOUBLE_EQ(r.makespanNs, 2 * kNicMbNs);
}

TEST(TalbGraphIdealReplay, AnOperationRunsAtTheSlowestShareOfItsNics)
{
    // Rank 1's NIC carries both; ranks 0 and 2 carry one each: both run at 1/2.
    const auto r = Replay(Concurrent(3, {{0, 1}, {1, 2}}), {0, 1, 2});
    ASSERT_EQ(r.collectives.size(), 2u);
    EXPECT_DOUBLE_EQ(r.collectives[0].IdealNs(), 2 * kNicMbNs);
    EXPECT_DOUBLE_EQ(r.collectives[1].IdealNs(), 2 * kNicMbNs);
}

TEST(TalbGraphIdealReplay, SharesAreRecomputedAtEveryStartAndFinish)
{
    // A starts at 0; B at 40 us (after a compute). A: 40 us alone, then 40 us of work at 1/2:
    // ends at 120 us. B: 40 us of work at 1/2 by then, 40 us alone: ends at 160 us.
    Builder b(2);
    uint32_t a = b.Group("a", {0, 1});
    uint32_t g = b.Group("b", {0, 1});
    for (uint32_t r = 0; r < 2; ++r)
    {
        b.AllReduce(r, a, kMb);
        b.AllReduce(r, g, kMb, {b.Compute(r, 40000)});
    }
    const auto r = Replay(b, {0, 1});
    ASSERT_EQ(r.collectives.size(), 2u);
    EXPECT_DOUBLE_EQ(r.collectives[0].endNs, 120e3);
    EXPECT_DOUBLE_EQ(r.collectives[1].startNs, 40e3);
    EXPECT_DOUBLE_EQ(r.collectives[1].endNs, 160e3);
}

TEST(TalbGraphIdealReplay, IntraServerAndFabricCommunicationDoNotShare)
{
    // Ranks 0 and 1 share server 0; rank 2 is on server 1. Group {0, 1} runs over the
    // intra-server links (10 us), group {0, 2} over the NICs (80 us), at once, unslowed.
    const auto r = Replay(Concurrent(3, {{0, 1}, {0, 2}}), {0, 0, 1});
    ASSERT_EQ(r.collectives.size(), 2u);
    EXPECT_DOUBLE_EQ(r.collectives[0].IdealNs(), kIntraMbNs);
    EXPECT_DOUBLE_EQ(r.collectives[1].IdealNs(), kNicMbNs);
    // Two intra-server collectives on the same GPUs share those links.
    const auto both = Replay(Concurrent(2, {{0, 1}, {0, 1}}), {0, 0});
    EXPECT_DOUBLE_EQ(both.collectives[0].IdealNs(), 2 * kIntraMbNs);
}

TEST(TalbGraphIdealReplay, APipelineOfTwoStagesSendsActivationsByRendezvous)
{
    // Stage 0 (rank 0) computes two micro-batches (1 us each) and sends each activation
    // (1 MB, tags 0 and 1); stage 1 (rank 1, another server) receives and computes them.
    // Message a: 1..2 us alone (1 us of work), then shares both NICs with message b: its 79 us
    // left take 158 us, to 160 us; b did 79 us by then, its last 1 us alone: to 161 us.
    // Stage 1 computes a at 160..161 us and b at 161..162 us.
    Builder b(2);
    uint32_t fa = b.Compute(0, 1000);
    b.Send(0, 1, kMb, 0, {fa});
    uint32_t fb = b.Compute(0, 1000, {fa});
    b.Send(0, 1, kMb, 1, {fb});
    b.Compute(1, 1000, {b.Recv(1, 0, kMb, 0)});
    b.Compute(1, 1000, {b.Recv(1, 0, kMb, 1)});
    const auto r = Replay(b, {0, 1});
    EXPECT_EQ(r.error, "");
    EXPECT_DOUBLE_EQ(r.makespanNs, 162e3);
    EXPECT_DOUBLE_EQ(r.iterationEndNs[0][0], 161e3); // its second send completes on arrival
    EXPECT_DOUBLE_EQ(r.iterationEndNs[1][0], 162e3);
    // Inside one server the messages share the intra-server links (10 us per MB) alike:
    // a ends at 2 + 18 us, b at 21 us, the computes at 21 and 22 us.
    const auto local = Replay(b, {0, 0});
    EXPECT_DOUBLE_EQ(local.makespanNs, 22e3);
}

TEST(TalbGraphIdealReplay, ADiamondWaitsForItsLongerBranch)
{
    // Per rank: a (100 ns) -> {b: compute 200 ns, c: all-reduce 80 us} -> d (50 ns).
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    for (uint32_t r = 0; r < 2; ++r)
    {
        uint32_t a = b.Compute(r, 100);
        uint32_t x = b.Compute(r, 200, {a});
        uint32_t y = b.AllReduce(r, g, kMb, {a});
        b.Compute(r, 50, {x, y});
    }
    auto r = Replay(b, {0, 1});
    EXPECT_EQ(r.error, "");
    EXPECT_DOUBLE_EQ(r.collectives[0].startNs, 100);
    EXPECT_DOUBLE_EQ(r.makespanNs, 100 + kNicMbNs + 50);
    // With a 1 ms compute branch, the compute is the longer one.
    b.g.ranks[0][1].durationNs = 1000000;
    r = Replay(b, {0, 1});
    EXPECT_DOUBLE_EQ(r.makespanNs, 100 + 1e6 + 50);
}

TEST(TalbGraphIdealReplay, ReportsEachRanksIterationsAndTheLongestSpan)
{
    // Two iterations of: compute (rank 0: 1 us, rank 1: 3 us), then a 1 MB all-reduce; the
    // next iteration's compute waits for the all-reduce.
    Builder b(2);
    b.g.iterations = 2;
    uint32_t g = b.Group("dp", {0, 1});
    for (uint32_t r = 0; r < 2; ++r)
    {
        uint64_t ns = r == 0 ? 1000 : 3000;
        uint32_t ar = b.AllReduce(r, g, kMb, {b.Compute(r, ns)});
        uint32_t next = b.Compute(r, ns, {ar});
        b.AllReduce(r, g, kMb, {next});
        b.Iteration(r, next, 1);
    }
    const auto r = Replay(b, {0, 1});
    EXPECT_EQ(r.error, "");
    // Iteration 0: 0 .. 3 + 80 us on both ranks; iteration 1: 83 .. 83 + 3 + 80 us.
    EXPECT_EQ(r.iterationStartNs, std::vector<std::vector<double>>({{0, 83e3}, {0, 83e3}}));
    EXPECT_EQ(r.iterationEndNs, std::vector<std::vector<double>>({{83e3, 166e3}, {83e3, 166e3}}));
    EXPECT_EQ(r.iterationNs, std::vector<double>({83e3, 83e3}));
    EXPECT_DOUBLE_EQ(r.makespanNs, 166e3);
    EXPECT_EQ(r.collectives.size(), 2u);
}

TEST(TalbGraphIdealReplay, ZeroTimeWorkFinishesAtOnce)
{
    Builder b(2);
    uint32_t g = b.Group("all", {0, 1});
    for (uint32_t r = 0; r < 2; ++r)
    {
        b.Coll(r, g, CollType::kBarrier, 0, {b.Compute(r, r == 0 ? 10 : 20)});
    }
    b.Send(0, 1, 0, 5, {1});
    b.Recv(1, 0, 0, 5, {1});
    const auto r = Replay(b, {0, 1});
    EXPECT_EQ(r.error, "");
    EXPECT_DOUBLE_EQ(r.makespanNs, 20);
    EXPECT_DOUBLE_EQ(r.collectives[0].IdealNs(), 0);
}

TEST(TalbGraphIdealReplay, SaysWhyARunCannotFinish)
{
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    b.AllReduce(0, g, 8);
    b.AllReduce(1, g, 16);
    auto r = Replay(b, {0, 1});
    EXPECT_EQ(
        r.error.rfind("group 0 'tp' collective 0: rank 0 node 0 issues all_reduce of 8 bytes, "
                      "rank 1 node 0 issues all_reduce of 16 bytes",
                      0),
        0u)
        << r.error;
    EXPECT_NE(r.error.find("(stalled: rank 0: 0 of 1 nodes completed; rank 1: 0 of 1 nodes"),
              std::string::npos)
        << r.error;

    Builder d(2); // both send first: a rendezvous deadlock
    d.Send(0, 1, 8, 0);
    d.Recv(0, 1, 8, 0, {0});
    d.Send(1, 0, 8, 0);
    d.Recv(1, 0, 8, 0, {0});
    r = Replay(d, {0, 1});
    EXPECT_EQ(r.error.rfind("the graph deadlocks: send of rank 0 node 0 (tag 0) waits for rank "
                            "1's receive",
                            0),
              0u)
        << r.error;
}

TEST(TalbGraphIdealReplay, RefusesAFabricThatDoesNotFit)
{
    Builder b(2);
    b.Compute(0, 1);
    EXPECT_EQ(IdealReplay::Run(b.g, Fabric({0})).error,
              "fabric: serverOf has 1 entries, the graph has 2 ranks");
    EXPECT_EQ(IdealReplay::Run(b.g, {{0, 1}, {0, 1e9}}).error,
              "fabric: NIC rate 0 bit/s is not positive and finite");
    EXPECT_EQ(IdealReplay::CheckFabric(b.g, {{0, 1}, {1e9, -1}}),
              "fabric: intra-server rate -1 bit/s is not positive and finite");
    EXPECT_EQ(IdealReplay::CheckFabric(b.g, Fabric({0, 1})), "");
}

TEST(TalbGraphIdealReplay, ReplaysAMillionNodesInAFewSeconds)
{
    // 8 ranks on 8 servers, each 62,500 x (compute 1 us, then an all-reduce of 8 kB of all 8).
    Builder b(8);
    uint32_t g = b.Group("dp", {0, 1, 2, 3, 4, 5, 6, 7});
    for (uint32_t r = 0; r < 8; ++r)
    {
        uint32_t last = Node::kNone;
        for (uint32_t s = 0; s < 62500; ++s)
        {
            uint32_t c = last == Node::kNone ? b.Compute(r, 1000) : b.Compute(r, 1000, {last});
            last = b.AllReduce(r, g, 8000, {c});
        }
    }
    const auto start = std::clock();
    const auto r = IdealReplay::Run(b.g, Fabric({0, 1, 2, 3, 4, 5, 6, 7}));
    const double cpu = double(std::clock() - start) / CLOCKS_PER_SEC;
    EXPECT_EQ(r.error, "");
    // Each step: 1 us + 2 x 7/8 x 0.64 us.
    EXPECT_NEAR(r.makespanNs, 62500 * (1000 + 1120), 1e-3);
    EXPECT_LT(cpu, 3.0);
}

} // namespace
