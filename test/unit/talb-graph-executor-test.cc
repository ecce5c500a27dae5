// The executor (model/graph/talb-graph-executor.h) without ns-3: the environment is a script
// that records every Start* call, and the test answers them by hand (or at once, inside the
// call, to check that zero-time work neither nests calls nor grows the stack).
#include "talb-graph-builder.h"

#include "ns3/talb-graph-executor.h"

#include <ctime>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using namespace talb::graph;
using talb::graph::test::Builder;

namespace
{

/// Records the executor's calls as text, one entry each.
class RecordingEnv : public ExecutorEnv
{
  public:
    void StartCompute(uint32_t rank, uint32_t node) override
    {
        Log("compute ", rank, ":", node);
    }

    void StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes) override
    {
        std::ostringstream os;
        os << "coll " << group << "#" << seq;
        for (uint32_t n : nodes)
        {
            os << " " << n;
        }
        log.push_back(os.str());
    }

    void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode) override
    {
        Log("msg ", from, ":", sendNode, " -> ", to, ":", recvNode);
    }

    /// \return the entries since the last call, and forgets them
    std::vector<std::string> Take()
    {
        return std::move(log);
    }

    std::vector<std::string> log;

  private:
    template <typename... Args>
    void Log(const Args&... args)
    {
        std::ostringstream os;
        (os << ... << args);
        log.push_back(os.str());
    }
};

using Log = std::vector<std::string>;

TEST(TalbGraphExecutor, RunsARanksComputeOneAtATimeInIssueOrder)
{
    Builder b(1);
    uint32_t c0 = b.Compute(0, 10);
    b.Compute(0, 10);
    b.Compute(0, 10, {c0});
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 0:0"})); // 1 is ready too, but the stream is busy
    ex.ComputeDone(0, 0);
    EXPECT_EQ(env.Take(), Log({"compute 0:1"})); // 2 became ready after 1: it waits
    ex.ComputeDone(0, 1);
    EXPECT_EQ(env.Take(), Log({"compute 0:2"}));
    EXPECT_FALSE(ex.Done());
    ex.ComputeDone(0, 2);
    EXPECT_TRUE(ex.Done());
    EXPECT_TRUE(ex.RankDone(0));
    EXPECT_EQ(ex.Error(), "");
    EXPECT_EQ(ex.Stall(), "");
}

TEST(TalbGraphExecutor, HostOperationsRunOnTheirOwnStreamBesideTheGpus)
{
    Builder b(1);
    b.Compute(0, 10);               // 0: GPU
    uint32_t h1 = b.Compute(0, 10); // 1: host
    uint32_t h2 = b.Compute(0, 10); // 2: host, waits for 1 (one host operation at a time)
    b.Compute(0, 10, {h1});         // 3: GPU, after 1
    b.g.ranks[0][h1].host = true;
    b.g.ranks[0][h2].host = true;
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 0:0", "compute 0:1"}));
    ex.ComputeDone(0, 1);
    EXPECT_EQ(env.Take(), Log({"compute 0:2"})); // 3 is ready, but the GPU still runs 0
    ex.ComputeDone(0, 0);
    EXPECT_EQ(env.Take(), Log({"compute 0:3"}));
    ex.ComputeDone(0, 3);
    ex.ComputeDone(0, 2);
    EXPECT_TRUE(ex.Done());
}

TEST(TalbGraphExecutor, CommunicationOverlapsCompute)
{
    Builder b(2);
    b.Compute(0, 10);
    b.Send(0, 1, 100, 0);
    b.Recv(1, 0, 100, 0);
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 0:0", "msg 0:1 -> 1:0"}));
}

TEST(TalbGraphExecutor, StartsACollectiveWhenEveryMemberIssuedIt)
{
    Builder b(3);
    uint32_t g = b.Group("dp", {2, 0, 1}); // member order is the group's, not the ranks'
    b.AllReduce(0, g, 64);
    uint32_t c1 = b.Compute(1, 10);
    b.AllReduce(1, g, 64, {c1});
    uint32_t c2 = b.Compute(2, 10);
    b.Compute(2, 10); // node 1: the stream's second
    b.AllReduce(2, g, 64, {c2});
    uint32_t after = b.Compute(0, 5, {0});
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 1:0", "compute 2:0"}));
    ex.ComputeDone(1, 0);
    EXPECT_EQ(env.Take(), Log());
    ex.ComputeDone(2, 0);
    EXPECT_EQ(env.Take(), Log({"coll 0#0 2 0 1", "compute 2:1"}));
    EXPECT_EQ(ex.CollectivesStarted(g), 1u);
    EXPECT_EQ(ex.CollectiveNode(g, 0, 0), 2u); // rank 2's node 2
    ex.CollectiveDone(g, 0, 1);                // rank 0 finishes first
    EXPECT_EQ(env.Take(), Log({"compute 0:" + std::to_string(after)}));
    ex.CollectiveDone(g, 0, 0);
    ex.CollectiveDone(g, 0, 2);
    EXPECT_TRUE(ex.RankDone(1));
    EXPECT_FALSE(ex.RankDone(0));
}

TEST(TalbGraphExecutor, NumbersEachMembersCollectivesInTheOrderItIssuesThem)
{
    // Rank 0 issues a then c (after a); rank 1 issues both at once, a (node 0) first.
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    uint32_t a0 = b.AllReduce(0, g, 8);
    b.Coll(0, g, CollType::kAllGather, 16, {a0});
    b.AllReduce(1, g, 8);
    b.Coll(1, g, CollType::kAllGather, 16);
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"coll 0#0 0 0"}));
    ex.CollectiveDone(g, 0, 0);
    EXPECT_EQ(env.Take(), Log({"coll 0#1 1 1"})); // starts before instance 0 ends at rank 1
    ex.CollectiveDone(g, 1, 1);
    ex.CollectiveDone(g, 0, 1);
    ex.CollectiveDone(g, 1, 0);
    EXPECT_TRUE(ex.Done());
}

TEST(TalbGraphExecutor, MembersDisagreeingInBytesAreAnErrorNamingGroupSeqRanksAndNodes)
{
    Builder b(2);
    uint32_t g = b.Group("dp0", {0, 1});
    b.Compute(1, 3);
    b.AllReduce(0, g, 100);
    b.AllReduce(1, g, 200);
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 1:0"}));
    EXPECT_EQ(ex.Error(),
              "group 0 'dp0' collective 0: rank 0 node 0 issues all_reduce of 100 bytes, rank 1 "
              "node 1 issues all_reduce of 200 bytes (the members of a group must issue the same "
              "collectives in the same order)");
    EXPECT_EQ(ex.CollectivesStarted(g), 0u); // not started
    EXPECT_FALSE(ex.Done());
    ex.ComputeDone(1, 0);
    EXPECT_EQ(ex.Stall(), "rank 0: 0 of 1 nodes completed; rank 1: 1 of 2 nodes completed");
}

TEST(TalbGraphExecutor, MembersDisagreeingInTypeOrRootAreErrors)
{
    {
        Builder b(2);
        uint32_t g = b.Group("tp", {0, 1});
        b.AllReduce(0, g, 8);
        b.Coll(1, g, CollType::kAllGather, 8);
        RecordingEnv env;
        Executor ex(b.g, &env);
        ex.Start();
        EXPECT_NE(ex.Error().find("rank 0 node 0 issues all_reduce of 8 bytes, rank 1 node 0 "
                                  "issues all_gather of 8 bytes"),
                  std::string::npos)
            << ex.Error();
        EXPECT_EQ(env.Take(), Log());
    }
    {
        Builder b(2);
        uint32_t g = b.Group("pp", {0, 1});
        b.Coll(0, g, CollType::kBroadcast, 8, {}, 0);
        b.Coll(1, g, CollType::kBroadcast, 8, {}, 1);
        RecordingEnv env;
        Executor ex(b.g, &env);
        ex.Start();
        EXPECT_NE(ex.Error().find("broadcast of 8 bytes (root 0), rank 1 node 0 issues broadcast "
                                  "of 8 bytes (root 1)"),
                  std::string::npos)
            << ex.Error();
    }
}

TEST(TalbGraphExecutor, ALaterInstanceOfAFailedGroupNeverStarts)
{
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    b.AllReduce(0, g, 8);
    b.AllReduce(0, g, 8);
    b.AllReduce(1, g, 9);
    b.AllReduce(1, g, 8);
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_NE(ex.Error(), "");
    EXPECT_EQ(env.Take(), Log());
}

TEST(TalbGraphExecutor, AllToAllMembersMayDifferInBytesAndSplit)
{
    Builder b(2);
    uint32_t g = b.Group("ep", {0, 1});
    b.g.peerBytes = {{10, 20}, {5, 0}};
    b.Coll(0, g, CollType::kAllToAll, 30, {}, kNoRoot, 0);
    b.Coll(1, g, CollType::kAllToAll, 5, {}, kNoRoot, 1);
    ASSERT_EQ(Validate(b.g, "t"), std::vector<std::string>());
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(ex.Error(), "");
    EXPECT_EQ(env.Take(), Log({"coll 0#0 0 0"}));
}

TEST(TalbGraphExecutor, SendsAndReceivesMatchInIssueOrderPerTag)
{
    Builder b(2);
    b.Send(0, 1, 100, 7); // 0
    b.Send(0, 1, 100, 7); // 1: tag 7's second
    b.Send(0, 1, 300, 8); // 2: another tag
    uint32_t c = b.Compute(1, 10);
    b.Recv(1, 0, 300, 8, {c}); // 1
    b.Recv(1, 0, 100, 7, {c}); // 2
    b.Recv(1, 0, 100, 7, {c}); // 3
    ASSERT_EQ(Validate(b.g, "t"), std::vector<std::string>());
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"compute 1:0"})); // a rendezvous: the sends wait for receives
    ex.ComputeDone(1, 0);
    EXPECT_EQ(env.Take(), Log({"msg 0:2 -> 1:1", "msg 0:0 -> 1:2", "msg 0:1 -> 1:3"}));
    ex.MessageDone(0, 1, 1, 3); // messages may arrive in any order
    ex.MessageDone(0, 0, 1, 2);
    ex.MessageDone(0, 2, 1, 1);
    EXPECT_TRUE(ex.Done());
}

TEST(TalbGraphExecutor, BothSidesOfAMessageCompleteWhenItArrives)
{
    Builder b(2);
    b.Send(0, 1, 100, 0);
    b.Compute(0, 1, {0});
    b.Recv(1, 0, 100, 0);
    b.Compute(1, 1, {0});
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log({"msg 0:0 -> 1:0"}));
    ex.MessageDone(0, 0, 1, 0);
    EXPECT_EQ(env.Take(), Log({"compute 0:1", "compute 1:1"}));
}

TEST(TalbGraphExecutor, AMessagePairThatDisagreesInBytesIsAnError)
{
    Builder b(2);
    b.Send(0, 1, 100, 3);
    b.Send(0, 1, 200, 3, {0});
    b.Recv(1, 0, 200, 3);
    b.Recv(1, 0, 100, 3, {0});
    ASSERT_EQ(Validate(b.g, "t"), std::vector<std::string>()); // as many of each size
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log());
    EXPECT_EQ(ex.Error(),
              "message 0 from rank 0 to rank 1 (tag 3): rank 0 node 0 sends 100 bytes, rank 1 "
              "node 0 receives 200 (sends and receives of a tag match in issue order)");
}

TEST(TalbGraphExecutor, StallNamesWhatADeadlockWaitsFor)
{
    // Both ranks send first and receive after: a rendezvous waits forever.
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    b.Send(0, 1, 8, 0);
    b.Recv(0, 1, 8, 0, {0});
    b.Send(1, 0, 8, 0);
    b.Recv(1, 0, 8, 0, {0});
    b.AllReduce(0, g, 4);
    b.AllReduce(1, g, 4, {1});
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_EQ(env.Take(), Log());
    EXPECT_EQ(ex.Error(), "");
    EXPECT_EQ(ex.Stall(),
              "group 0 'tp' collective 0 waits for rank 1 (1 of 2 members issued it); send of "
              "rank 0 node 0 (tag 0) waits for rank 1's receive; send of rank 1 node 0 (tag 0) "
              "waits for rank 0's receive; rank 0: 0 of 3 nodes completed; rank 1: 0 of 3 "
              "nodes completed");
}

/// Answers every Start* call at once, inside it, and checks that no call nests in another.
class ImmediateEnv : public ExecutorEnv
{
  public:
    Executor* ex{nullptr};
    int depth{0};
    int deepest{0};
    uint64_t calls{0};
    std::vector<uint32_t> done; //!< per rank: nodes reported done

    void StartCompute(uint32_t rank, uint32_t node) override
    {
        Enter();
        ex->ComputeDone(rank, node);
        --depth;
    }

    void StartCollective(uint32_t group, uint64_t seq, const std::vector<uint32_t>& nodes) override
    {
        Enter();
        for (uint32_t m = 0; m < nodes.size(); ++m)
        {
            ex->CollectiveDone(group, seq, m);
        }
        --depth;
    }

    void StartMessage(uint32_t from, uint32_t sendNode, uint32_t to, uint32_t recvNode) override
    {
        Enter();
        ex->MessageDone(from, sendNode, to, recvNode);
        --depth;
    }

    void NodeDone(uint32_t rank, uint32_t) override
    {
        done.resize(std::max<std::size_t>(done.size(), rank + 1));
        ++done[rank];
    }

  private:
    void Enter()
    {
        ++calls;
        deepest = std::max(deepest, ++depth);
    }
};

/// Ranks 0 and 1, \p steps times: a compute, an all-reduce between them, a message 0 -> 1.
Builder
Chain(uint32_t steps)
{
    Builder b(2);
    uint32_t g = b.Group("dp", {0, 1});
    uint32_t last[2] = {Node::kNone, Node::kNone};
    for (uint32_t s = 0; s < steps; ++s)
    {
        for (uint32_t r = 0; r < 2; ++r)
        {
            std::vector<uint32_t> deps;
            if (last[r] != Node::kNone)
            {
                deps.push_back(last[r]);
            }
            uint32_t c = b.Compute(r, 0, deps);
            uint32_t a = b.AllReduce(r, g, 8, {c});
            last[r] = r == 0 ? b.Send(0, 1, 4, 0, {a}) : b.Recv(1, 0, 4, 0, {a});
        }
    }
    return b;
}

TEST(TalbGraphExecutor, ZeroTimeAnswersInsideStartCallsNeitherNestNorGrowTheStack)
{
    Builder b = Chain(100000); // 600,000 nodes: recursion would overflow the stack
    ImmediateEnv env;
    Executor ex(b.g, &env);
    env.ex = &ex;
    ex.Start();
    EXPECT_TRUE(ex.Done());
    EXPECT_EQ(env.deepest, 1);
    EXPECT_EQ(env.calls, 400000u); // 2 computes, a collective and a message per step
    EXPECT_EQ(env.done, std::vector<uint32_t>({300000, 300000}));
}

TEST(TalbGraphExecutor, IsDeterministic)
{
    Builder b = Chain(3);
    Log runs[2];
    for (auto& run : runs)
    {
        RecordingEnv env;
        Executor ex(b.g, &env);
        ex.Start();
        // Answer the oldest pending call each time, until nothing is pending.
        for (std::size_t next = 0; next < env.log.size(); ++next)
        {
            std::istringstream is(env.log[next]);
            std::string kind;
            is >> kind;
            if (kind == "compute")
            {
                uint32_t r;
                uint32_t n;
                char colon;
                is >> r >> colon >> n;
                ex.ComputeDone(r, n);
            }
            else if (kind == "coll")
            {
                uint32_t g;
                char hash;
                uint64_t seq;
                is >> g >> hash >> seq;
                ex.CollectiveDone(g, seq, 1);
                ex.CollectiveDone(g, seq, 0);
            }
            else
            {
                uint32_t f, s, t, r;
                char c;
                std::string arrow;
                is >> f >> c >> s >> arrow >> t >> c >> r;
                ex.MessageDone(f, s, t, r);
            }
        }
        EXPECT_TRUE(ex.Done());
        run = env.log;
    }
    EXPECT_EQ(runs[0], runs[1]);
    EXPECT_EQ(runs[0].size(), 12u);
}

TEST(TalbGraphExecutor, AnEmptyGraphIsDoneAtOnce)
{
    Builder b(3);
    RecordingEnv env;
    Executor ex(b.g, &env);
    EXPECT_TRUE(ex.Done());
    ex.Start();
    EXPECT_EQ(env.Take(), Log());
}

TEST(TalbGraphExecutor, RunsAMillionNodesInWellUnderASecond)
{
    // 8 ranks, each 125,000 nodes: compute then an all-reduce of all 8, repeated.
    Builder b(8);
    uint32_t g = b.Group("dp", {0, 1, 2, 3, 4, 5, 6, 7});
    for (uint32_t r = 0; r < 8; ++r)
    {
        uint32_t last = Node::kNone;
        for (uint32_t s = 0; s < 62500; ++s)
        {
            uint32_t c = last == Node::kNone ? b.Compute(r, 0) : b.Compute(r, 0, {last});
            last = b.AllReduce(r, g, 8, {c});
        }
    }
    const auto start = std::clock();
    ImmediateEnv env;
    Executor ex(b.g, &env);
    env.ex = &ex;
    ex.Start();
    const double cpu = double(std::clock() - start) / CLOCKS_PER_SEC;
    EXPECT_TRUE(ex.Done());
    EXPECT_LT(cpu, 1.0); // 0.2 s here
}

TEST(TalbGraphExecutorDeathTest, AbortsOnAnswersToCallsNotMade)
{
    Builder b(2);
    uint32_t g = b.Group("tp", {0, 1});
    b.Compute(0, 1);
    b.AllReduce(0, g, 8);
    b.AllReduce(1, g, 8);
    b.Send(0, 1, 1, 0, {0});
    b.Recv(1, 0, 1, 0);
    RecordingEnv env;
    Executor ex(b.g, &env);
    ex.Start();
    EXPECT_DEATH(ex.ComputeDone(1, 0), "ComputeDone\\(\\) of a node not on the rank's compute");
    EXPECT_DEATH(ex.ComputeDone(0, 99), "ComputeDone\\(\\) of a node not on the rank's compute");
    EXPECT_DEATH(ex.CollectiveDone(g, 1, 0), "CollectiveDone\\(\\) of an instance not started");
    EXPECT_DEATH(ex.CollectiveDone(g, 0, 2), "CollectiveDone\\(\\) of a member outside");
    EXPECT_DEATH(ex.MessageDone(0, 0, 1, 1), "MessageDone\\(\\) of nodes that are no send");
    EXPECT_DEATH(ex.MessageDone(0, 2, 1, 1), "Complete\\(\\) of a node not taken"); // not issued
    ex.CollectiveDone(g, 0, 0);
    EXPECT_DEATH(ex.CollectiveDone(g, 0, 0), "Complete\\(\\) of a node not taken"); // twice
    EXPECT_DEATH(ex.Start(), "Start\\(\\) called twice");
}

} // namespace
