// The per-rank ready queue (model/graph/talb-graph-feeder.h) without ns-3: the exact order it
// issues nodes in, its counters, its aborts on misuse and its speed on a long chain.
#include "ns3/talb-graph-feeder.h"

#include <ctime>
#include <gtest/gtest.h>
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

std::vector<Node>
Nodes(const std::vector<std::vector<uint32_t>>& deps)
{
    std::vector<Node> nodes(deps.size());
    for (std::size_t i = 0; i < deps.size(); ++i)
    {
        nodes[i].deps = deps[i];
    }
    return nodes;
}

/// Diamond 0 -> {1, 2} -> 3, and 4 on its own.
std::vector<Node>
Diamond()
{
    return Nodes({{}, {0}, {0}, {1, 2}, {}});
}

TEST(TalbGraphFeeder, IssuesTheDiamondInTheExactOrder)
{
    const auto nodes = Diamond();
    Feeder feeder(nodes);
    ASSERT_TRUE(feeder.HasReady());
    EXPECT_EQ(feeder.PopReady(), 0u); // the initial ready nodes in index order
    EXPECT_EQ(feeder.PopReady(), 4u);
    EXPECT_FALSE(feeder.HasReady());
    feeder.Complete(4);
    EXPECT_FALSE(feeder.HasReady());
    feeder.Complete(0);
    EXPECT_EQ(feeder.PopReady(), 1u);
    EXPECT_EQ(feeder.PopReady(), 2u);
    EXPECT_FALSE(feeder.HasReady());
    feeder.Complete(2);
    EXPECT_FALSE(feeder.HasReady()); // 3 still waits for 1
    feeder.Complete(1);
    EXPECT_EQ(feeder.PopReady(), 3u);
    EXPECT_FALSE(feeder.Done());
    feeder.Complete(3);
    EXPECT_TRUE(feeder.Done());
    EXPECT_FALSE(feeder.HasReady());
}

TEST(TalbGraphFeeder, TakesNodesInTheOrderTheyBecameReady)
{
    // 2 waits for 1, 3 for 0; 1 completes first, so 2 is ready (and taken) before 3.
    const auto nodes = Nodes({{}, {}, {1}, {0}});
    Feeder feeder(nodes);
    EXPECT_EQ(feeder.PopReady(), 0u);
    EXPECT_EQ(feeder.PopReady(), 1u);
    feeder.Complete(1);
    feeder.Complete(0);
    EXPECT_EQ(feeder.PopReady(), 2u);
    EXPECT_EQ(feeder.PopReady(), 3u);
}

TEST(TalbGraphFeeder, CountsCompletedNodes)
{
    const auto nodes = Diamond();
    Feeder feeder(nodes);
    EXPECT_EQ(feeder.Completed(), 0u);
    feeder.Complete(feeder.PopReady());
    EXPECT_EQ(feeder.Completed(), 1u);
    uint32_t n = 1;
    while (feeder.HasReady())
    {
        feeder.Complete(feeder.PopReady());
        EXPECT_EQ(feeder.Completed(), ++n);
    }
    EXPECT_EQ(n, 5u);
    EXPECT_TRUE(feeder.Done());
}

TEST(TalbGraphFeeder, WaitsForARepeatedDependencyOnce)
{
    const auto nodes = Nodes({{}, {0, 0}});
    Feeder feeder(nodes);
    feeder.Complete(feeder.PopReady());
    ASSERT_TRUE(feeder.HasReady());
    EXPECT_EQ(feeder.PopReady(), 1u);
}

TEST(TalbGraphFeeder, AnEmptyRankIsDoneAtOnce)
{
    const std::vector<Node> nodes;
    Feeder feeder(nodes);
    EXPECT_TRUE(feeder.Done());
    EXPECT_FALSE(feeder.HasReady());
}

TEST(TalbGraphFeederDeathTest, AbortsOnPopReadyWhenNoneIsReady)
{
    const auto nodes = Diamond();
    Feeder feeder(nodes);
    feeder.PopReady();
    feeder.PopReady();
    EXPECT_DEATH(feeder.PopReady(), "PopReady\\(\\) without a ready node");
}

TEST(TalbGraphFeederDeathTest, AbortsOnCompletingANodeNotTaken)
{
    const auto nodes = Diamond();
    Feeder feeder(nodes);
    EXPECT_DEATH(feeder.Complete(0), "Complete\\(\\) of a node not taken.*node 0"); // ready
    EXPECT_DEATH(feeder.Complete(3), "Complete\\(\\) of a node not taken.*node 3"); // waiting
    EXPECT_DEATH(feeder.Complete(9), "Complete\\(\\) of a node not taken.*node 9"); // none
    feeder.Complete(feeder.PopReady());
    EXPECT_DEATH(feeder.Complete(0), "Complete\\(\\) of a node not taken.*node 0"); // done
}

TEST(TalbGraphFeederDeathTest, AbortsOnADependencyOutOfRange)
{
    const auto nodes = Nodes({{}, {2}});
    EXPECT_DEATH(Feeder feeder(nodes), "dependency out of range or on itself \\(node 1\\)");
}

TEST(TalbGraphFeeder, RunsAMillionNodeChainInWellUnderASecond)
{
    std::vector<Node> nodes(1000000);
    for (uint32_t i = 1; i < nodes.size(); ++i)
    {
        nodes[i].deps.push_back(i - 1);
    }
    const auto start = std::clock();
    Feeder feeder(nodes);
    uint32_t expected = 0;
    bool inOrder = true;
    while (feeder.HasReady())
    {
        uint32_t node = feeder.PopReady();
        inOrder = inOrder && node == expected++;
        feeder.Complete(node);
    }
    double elapsed = CpuSeconds(start);
    EXPECT_TRUE(inOrder);
    EXPECT_TRUE(feeder.Done());
    EXPECT_EQ(feeder.Completed(), 1000000u);
    EXPECT_LT(elapsed, 1.0);
}

} // namespace
