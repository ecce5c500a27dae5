// The load-balancing decision core (model/lb/core) on its own, without ns-3: each policy's
// defining behaviour on plain port tables. The ns-3 suite talb-lb-core checks that the core and
// the ns-3 selectors decide identically.
#include "ns3/talb-lb-core-dre.h"
#include "ns3/talb-lb-core-drill.h"
#include "ns3/talb-lb-core-ecmp.h"
#include "ns3/talb-lb-core-letflow.h"
#include "ns3/talb-lb-core-port-table.h"
#include "ns3/talb-lb-core-random.h"
#include "ns3/talb-lb-core-rps.h"
#include "ns3/talb-lb-core-tensor-aware.h"

#include <deque>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <vector>

using namespace talb::lb;

namespace
{

constexpr int64_t US = 1000;

/// A leaf: port 0 to a host, ports 1..n uplinks at 10 Gb/s, all idle.
struct Leaf
{
    std::vector<PortState> state;
    PortTable table;
    std::vector<uint32_t> uplinks;

    explicit Leaf(uint32_t n)
        : state(1 + n),
          table(state.data(), 1 + n)
    {
        for (uint32_t p = 0; p <= n; ++p)
        {
            state[p].rateBps = 10000000000ull;
            if (p > 0)
            {
                uplinks.push_back(p);
            }
        }
    }

    Candidates All() const
    {
        return Candidates{uplinks.data(), static_cast<uint32_t>(uplinks.size())};
    }
};

/// Draws from a script; fails the test when the policy draws more, or out of range.
class ScriptRandom : public Random
{
  public:
    explicit ScriptRandom(std::deque<uint32_t> values = {})
        : m_values(values)
    {
    }

    uint32_t Integer(uint32_t min, uint32_t max) override
    {
        ++draws;
        if (m_values.empty())
        {
            ADD_FAILURE() << "unexpected draw in [" << min << ", " << max << "]";
            return min;
        }
        uint32_t v = m_values.front();
        m_values.pop_front();
        EXPECT_GE(v, min);
        EXPECT_LE(v, max);
        return v;
    }

    void Push(uint32_t v)
    {
        m_values.push_back(v);
    }

    uint32_t draws{0};

  private:
    std::deque<uint32_t> m_values;
};

struct Recorder : public Events
{
    std::vector<std::pair<uint32_t, uint32_t>> reroutes;
    std::vector<std::pair<uint32_t, uint32_t>> evictions;

    void Rerouted(const PacketInfo&, uint32_t from, uint32_t to) override
    {
        reroutes.emplace_back(from, to);
    }

    void Evicted(uint32_t flowHash, uint32_t tensorId) override
    {
        evictions.emplace_back(flowHash, tensorId);
    }
};

PacketInfo
Untagged(uint32_t flowHash, int64_t nowNs)
{
    PacketInfo p;
    p.flowHash = flowHash;
    p.size = 1500;
    p.dstLeaf = 1;
    p.nowNs = nowNs;
    return p;
}

PacketInfo
Tensor(uint32_t flowHash, int64_t nowNs, uint32_t tensor, uint8_t priority, uint8_t flags)
{
    PacketInfo p = Untagged(flowHash, nowNs);
    p.hasLabel = true;
    p.label = talb_label{tensor, priority, flags};
    return p;
}

} // namespace

// ---- building blocks -------------------------------------------------------------------------

TEST(TalbLbCoreDre, DecaysByOneMinusAlphaPerInterval)
{
    Dre dre;
    ASSERT_TRUE(dre.Configure(20 * US, 0.5));
    dre.Add(1000, 0);
    EXPECT_DOUBLE_EQ(dre.Bytes(19 * US), 1000); // same interval
    EXPECT_DOUBLE_EQ(dre.Bytes(20 * US), 500);  // one interval
    EXPECT_DOUBLE_EQ(dre.Bytes(60 * US), 125);  // three in all
    EXPECT_DOUBLE_EQ(dre.Bytes(60 * US), 125);  // reading twice changes nothing
    EXPECT_FALSE(dre.Configure(0, 0.5));
    EXPECT_FALSE(dre.Configure(20 * US, 0));
    EXPECT_FALSE(dre.Configure(20 * US, 1.5));
}

TEST(TalbLbCoreDre, UtilisationNearOneAtLineRate)
{
    // 1500-byte packets back to back at 10 Gb/s (1.2 us apart) for 2 ms: tau = 200 us.
    Dre dre;
    const uint64_t rate = 10000000000ull;
    int64_t t = 0;
    for (; t < 2000 * US; t += 1200)
    {
        dre.Add(1500, t);
    }
    EXPECT_NEAR(dre.Utilization(t, rate), 1.0, 0.1);
    EXPECT_NEAR(dre.Utilization(t, rate / 2), 2.0, 0.2);
    EXPECT_EQ(dre.Quantized(t, rate / 2, 3), 7);           // saturates
    EXPECT_LT(dre.Utilization(t + 5000 * US, rate), 0.01); // idle: decays away
}

TEST(TalbLbCoreBasics, FlowHashMixesEveryField)
{
    uint32_t h = FlowHash(0x0afa0001, 0x0afa0002, (40000u << 16) | 5201, 6);
    EXPECT_EQ(h, FlowHash(0x0afa0001, 0x0afa0002, (40000u << 16) | 5201, 6));
    EXPECT_NE(h, FlowHash(0x0afa0002, 0x0afa0001, (40000u << 16) | 5201, 6));
    EXPECT_NE(h, FlowHash(0x0afa0001, 0x0afa0002, (40001u << 16) | 5201, 6));
    EXPECT_NE(h, FlowHash(0x0afa0001, 0x0afa0002, (40000u << 16) | 5201, 17));
}

TEST(TalbLbCoreBasics, PortTableCostIsQueuePlusWeightedUtilisation)
{
    Leaf leaf(2);
    leaf.state[1].queueBytes = 3000;
    for (int64_t t = 0; t < 2000 * US; t += 1200)
    {
        leaf.state[1].dre.Add(1500, t);
    }
    double u = leaf.table.Utilization(1, 2000 * US);
    EXPECT_GT(u, 0.5);
    EXPECT_DOUBLE_EQ(leaf.table.Cost(1, 2000 * US, 15000), 3000 + 15000 * u);
    EXPECT_DOUBLE_EQ(leaf.table.Cost(2, 2000 * US, 15000), 0);
}

TEST(TalbLbCoreBasics, SplitMixRandomCoversItsRangeInclusively)
{
    SplitMixRandom r(1);
    std::map<uint32_t, int> seen;
    for (int i = 0; i < 40000; ++i)
    {
        uint32_t v = r.Integer(3, 6);
        ASSERT_GE(v, 3u);
        ASSERT_LE(v, 6u);
        ++seen[v];
    }
    ASSERT_EQ(seen.size(), 4u);
    for (const auto& [v, n] : seen)
    {
        EXPECT_NEAR(n, 10000, 500) << "value " << v;
    }
    EXPECT_EQ(r.Integer(7, 7), 7u);
    r.Integer(0, UINT32_MAX); // the full range must not overflow
    SplitMixRandom a(42);
    SplitMixRandom b(42);
    EXPECT_EQ(a.Next(), b.Next()); // seeded: reproducible
}

TEST(TalbLbCoreBasics, OneCandidateIsChosenWithoutAskingThePolicy)
{
    Leaf leaf(1);
    ScriptRandom none; // any draw fails the test
    Rps rps;
    rps.Bind(&leaf.table, &none, nullptr);
    uint32_t only = 1;
    EXPECT_EQ(rps.Select(Untagged(1, 0), Candidates{&only, 1}), 1u);
    EXPECT_EQ(none.draws, 0u);
}

// ---- ECMP, RPS ---------------------------------------------------------------------------------

TEST(TalbLbCoreEcmp, AFlowKeepsItsPortWhateverTheLoad)
{
    Leaf leaf(4);
    Ecmp ecmp;
    ecmp.Configure({0, 7});
    ecmp.Bind(&leaf.table, nullptr, nullptr);
    std::map<uint32_t, int> perPort;
    for (uint32_t flow = 0; flow < 400; ++flow)
    {
        uint32_t first = ecmp.Select(Untagged(Mix32(flow), 0), leaf.All());
        for (int k = 0; k < 10; ++k)
        {
            leaf.state[first].queueBytes += 100000; // load must not move an ECMP flow
            ASSERT_EQ(ecmp.Select(Untagged(Mix32(flow), k * US), leaf.All()), first);
        }
        ++perPort[first];
    }
    ASSERT_EQ(perPort.size(), 4u);
    for (const auto& [port, n] : perPort)
    {
        EXPECT_GT(n, 60) << "port " << port;
    }
}

TEST(TalbLbCoreEcmp, SaltsDecorrelateSwitches)
{
    Leaf leaf(4);
    Ecmp a;
    Ecmp b;
    a.Configure({0, 7});
    b.Configure({0, 8});
    EXPECT_NE(a.Salt(), b.Salt());
    Ecmp fixed;
    fixed.Configure({12345, 7});
    EXPECT_EQ(fixed.Salt(), 12345u);
    a.Bind(&leaf.table, nullptr, nullptr);
    b.Bind(&leaf.table, nullptr, nullptr);
    int same = 0;
    for (uint32_t flow = 0; flow < 400; ++flow)
    {
        same += a.Select(Untagged(flow, 0), leaf.All()) == b.Select(Untagged(flow, 0), leaf.All());
    }
    EXPECT_LT(same, 160); // independent: about a quarter agree
}

TEST(TalbLbCoreRps, OneFlowSpraysOverEveryPort)
{
    Leaf leaf(4);
    SplitMixRandom random(3);
    Rps rps;
    rps.Bind(&leaf.table, &random, nullptr);
    std::map<uint32_t, int> perPort;
    for (int k = 0; k < 2000; ++k)
    {
        ++perPort[rps.Select(Untagged(42, k), leaf.All())];
    }
    ASSERT_EQ(perPort.size(), 4u);
    for (const auto& [port, n] : perPort)
    {
        EXPECT_GT(n, 400) << "port " << port;
    }
}

// ---- LetFlow -----------------------------------------------------------------------------------

TEST(TalbLbCoreLetFlow, PortChangesOnlyAfterAGapLongerThanTheTimeout)
{
    Leaf leaf(4);
    ScriptRandom random({2, 0});
    Recorder events;
    LetFlow letflow;
    ASSERT_TRUE(letflow.Configure({50 * US, 64}));
    letflow.Bind(&leaf.table, &random, &events);
    EXPECT_EQ(letflow.Select(Untagged(9, 0), leaf.All()), 3u); // draw 2 -> third uplink
    for (int64_t t = 40 * US; t <= 400 * US; t += 40 * US)     // gaps of 40 us < 50 us
    {
        leaf.state[3].queueBytes += 50000;
        ASSERT_EQ(letflow.Select(Untagged(9, t), leaf.All()), 3u) << "moved at " << t;
    }
    EXPECT_EQ(random.draws, 1u);
    // A gap of 51 us starts a new flowlet: one draw (0 -> first uplink), a reroute 3 -> 1.
    EXPECT_EQ(letflow.Select(Untagged(9, 451 * US), leaf.All()), 1u);
    EXPECT_EQ(random.draws, 2u);
    ASSERT_EQ(events.reroutes.size(), 1u);
    EXPECT_EQ(events.reroutes[0], std::make_pair(3u, 1u));
}

TEST(TalbLbCoreLetFlow, AFlowletWhosePortLeftTheCandidatesMoves)
{
    Leaf leaf(3);
    ScriptRandom random({0, 1});
    Recorder events;
    LetFlow letflow;
    ASSERT_TRUE(letflow.Configure({500 * US, 64}));
    letflow.Bind(&leaf.table, &random, &events);
    EXPECT_EQ(letflow.Select(Untagged(5, 0), leaf.All()), 1u);
    uint32_t survivors[] = {2, 3}; // uplink 1 failed
    EXPECT_EQ(letflow.Select(Untagged(5, US), Candidates{survivors, 2}), 3u);
    ASSERT_EQ(events.reroutes.size(), 1u);
    EXPECT_EQ(events.reroutes[0], std::make_pair(1u, 3u));
}

TEST(TalbLbCoreLetFlow, CollidingFlowsEvictEachOther)
{
    Leaf leaf(2);
    ScriptRandom random({0, 1, 0});
    LetFlow letflow;
    ASSERT_TRUE(letflow.Configure({500 * US, 1})); // one slot: every flow collides
    letflow.Bind(&leaf.table, &random, nullptr);
    EXPECT_EQ(letflow.Select(Untagged(1, 0), leaf.All()), 1u);
    EXPECT_EQ(letflow.Select(Untagged(2, 1), leaf.All()), 2u);
    EXPECT_EQ(letflow.Select(Untagged(1, 2), leaf.All()), 1u); // new flowlet: a third draw
    EXPECT_EQ(random.draws, 3u);
}

TEST(TalbLbCoreLetFlow, CheckRejectsBadConfigurations)
{
    EXPECT_EQ(LetFlow::Check({500 * US, 4096}), nullptr);
    EXPECT_NE(LetFlow::Check({0, 4096}), nullptr);
    EXPECT_NE(LetFlow::Check({500 * US, 1000}), nullptr);
    LetFlow l;
    EXPECT_FALSE(l.Configure({500 * US, 0}));
}

// ---- DRILL -------------------------------------------------------------------------------------

TEST(TalbLbCoreDrill, TheLeastQueuedSampleWins)
{
    Leaf leaf(4);
    leaf.state[1].queueBytes = 9000;
    leaf.state[2].queueBytes = 3000;
    leaf.state[3].queueBytes = 6000;
    leaf.state[4].queueBytes = 1500;
    ScriptRandom random({0, 2}); // samples uplinks 1 and 3
    Drill drill;
    ASSERT_TRUE(drill.Configure({2, 0}));
    drill.Bind(&leaf.table, &random, nullptr);
    EXPECT_EQ(drill.Select(Untagged(1, 0), leaf.All()), 3u);
    // Sampling all four finds the emptiest.
    Drill all;
    ASSERT_TRUE(all.Configure({4, 0}));
    ScriptRandom everyPort({3, 1, 0, 2});
    all.Bind(&leaf.table, &everyPort, nullptr);
    EXPECT_EQ(all.Select(Untagged(2, 0), leaf.All()), 4u);
}

TEST(TalbLbCoreDrill, MemoryKeepsTheLastWinnerInTheRace)
{
    Leaf leaf(4);
    leaf.state[1].queueBytes = 9000;
    leaf.state[2].queueBytes = 100;
    leaf.state[3].queueBytes = 6000;
    leaf.state[4].queueBytes = 7000;
    ScriptRandom random({1, 0});
    Drill drill;
    ASSERT_TRUE(drill.Configure({1, 1}));
    drill.Bind(&leaf.table, &random, nullptr);
    EXPECT_EQ(drill.Select(Untagged(1, 0), leaf.All()), 2u); // sampled uplink 2
    // The next sample (uplink 1) is worse than the remembered uplink 2.
    EXPECT_EQ(drill.Select(Untagged(2, 0), leaf.All()), 2u);
    // Equal queues: the remembered port wins over the sample.
    leaf.state[3].queueBytes = 100;
    random.Push(2);
    EXPECT_EQ(drill.Select(Untagged(3, 0), leaf.All()), 2u);
    // A remembered port outside the candidates is skipped.
    uint32_t others[] = {3, 4};
    random.Push(1);
    EXPECT_EQ(drill.Select(Untagged(4, 0), Candidates{others, 2}), 4u);
}

TEST(TalbLbCoreDrill, CheckRejectsBadConfigurations)
{
    EXPECT_EQ(Drill::Check({2, 1}), nullptr);
    EXPECT_NE(Drill::Check({0, 1}), nullptr);
    EXPECT_NE(Drill::Check({17, 1}), nullptr);
    EXPECT_NE(Drill::Check({2, 9}), nullptr);
}

// ---- TaLB v1 -----------------------------------------------------------------------------------

namespace
{

/// TaLB v1 with a LetFlow fallback on a leaf with 2 (or more) uplinks.
struct TalbRig
{
    Leaf leaf;
    SplitMixRandom random{7};
    SplitMixRandom fallbackRandom{8};
    Recorder events;
    LetFlow fallback;
    TensorAwareV1 talb;

    explicit TalbRig(TensorAwareV1::Config config = TensorAwareV1::Config(), uint32_t uplinks = 2)
        : leaf(uplinks)
    {
        EXPECT_TRUE(fallback.Configure(LetFlow::Config()));
        fallback.Bind(&leaf.table, &fallbackRandom, nullptr);
        EXPECT_TRUE(talb.Configure(config, 1 + uplinks));
        talb.SetFallback(&fallback);
        talb.Bind(&leaf.table, &random, &events);
    }

    uint32_t Send(const PacketInfo& p)
    {
        return talb.Select(p, leaf.All());
    }
};

} // namespace

TEST(TalbLbCoreTensorAware, LowPriorityTensorsKeepTheirPort)
{
    TalbRig rig;
    uint32_t port = rig.Send(Tensor(10, US, 100, 7, TALB_FLAG_FIRST));
    rig.leaf.state[port].queueBytes = 1000000;
    for (int k = 2; k < 50; ++k)
    {
        ASSERT_EQ(rig.Send(Tensor(10, k * US, 100, 7, 0)), port);
    }
    EXPECT_TRUE(rig.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAware, NewHighPriorityTensorTakesTheLeastCostPort)
{
    TalbRig rig;
    rig.leaf.state[1].queueBytes = 30000;
    EXPECT_EQ(rig.Send(Tensor(20, US, 200, 0, TALB_FLAG_FIRST)), 2u);
    rig.leaf.state[2].queueBytes = 60000;
    EXPECT_EQ(rig.Send(Tensor(21, US, 201, 1, TALB_FLAG_FIRST)), 1u);
}

TEST(TalbLbCoreTensorAware, HighPriorityMovesOnlyBeyondTheMargin)
{
    TalbRig rig; // MoveMargin 15000 bytes
    uint32_t port = rig.Send(Tensor(20, US, 200, 0, TALB_FLAG_FIRST));
    uint32_t other = port == 1 ? 2 : 1;
    rig.leaf.state[port].queueBytes = 14000; // within the margin: stays
    EXPECT_EQ(rig.Send(Tensor(20, 2 * US, 200, 0, 0)), port);
    rig.leaf.state[port].queueBytes = 40000; // beyond: moves
    EXPECT_EQ(rig.Send(Tensor(20, 3 * US, 200, 0, 0)), other);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(port, other));
    EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, 1u);
    // The entry follows the move.
    rig.leaf.state[port].queueBytes = 0;
    EXPECT_EQ(rig.Send(Tensor(20, 4 * US, 200, 0, 0)), other);
}

TEST(TalbLbCoreTensorAware, NewLowPriorityTensorAvoidsHighPriorityLoad)
{
    TalbRig rig;
    rig.leaf.state[1].queueBytes = 1; // high traffic then takes uplink 2
    for (int k = 0; k < 20; ++k)
    {
        ASSERT_EQ(rig.Send(Tensor(20, US + k * 100, 200, 0, k == 0 ? TALB_FLAG_FIRST : 0)), 2u);
    }
    // Uplink 2 has less queue but all the high-priority load: low goes to uplink 1.
    rig.leaf.state[1].queueBytes = 20000;
    EXPECT_EQ(rig.Send(Tensor(30, 3 * US, 300, 6, TALB_FLAG_FIRST)), 1u);
}

TEST(TalbLbCoreTensorAware, LastFreesAndIdleAgesEntries)
{
    TalbRig rig; // IdleTimeout 10 ms
    rig.Send(Tensor(10, US, 100, 7, TALB_FLAG_FIRST));
    rig.Send(Tensor(20, US, 200, 0, TALB_FLAG_FIRST));
    EXPECT_EQ(rig.talb.LiveEntries(US), 2u);
    rig.Send(Tensor(10, 2 * US, 100, 7, TALB_FLAG_LAST));
    EXPECT_EQ(rig.talb.LiveEntries(2 * US), 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nFreedOnLast, 1u);
    // A one-packet tensor (FIRST|LAST) never takes an entry.
    rig.Send(Tensor(30, 3 * US, 300, 2, TALB_FLAG_FIRST | TALB_FLAG_LAST));
    EXPECT_EQ(rig.talb.GetTableStats().nInserted, 2u);
    // Idle for longer than 10 ms: no longer live, reclaimed when its slot is reused.
    EXPECT_EQ(rig.talb.LiveEntries(20000 * US), 0u);
    EXPECT_EQ(rig.talb.HeldEntries(), 1u);
    const auto& s = rig.talb.GetTableStats();
    EXPECT_EQ(s.nInserted, s.nFreedOnLast + s.nAgedOut + s.nEvicted + rig.talb.HeldEntries());
}

TEST(TalbLbCoreTensorAware, AFullWindowEvictsTheLeastRecentlyUsedEntry)
{
    TensorAwareV1::Config c;
    c.tableSize = 4;
    c.probeLimit = 4;
    TalbRig rig(c);
    for (uint32_t t = 0; t < 5; ++t)
    {
        rig.Send(Tensor(1, (1 + t) * US, t, 6, TALB_FLAG_FIRST));
    }
    ASSERT_EQ(rig.events.evictions.size(), 1u);
    EXPECT_EQ(rig.events.evictions[0], std::make_pair(1u, 0u)); // tensor 0, the oldest
    EXPECT_EQ(rig.talb.GetTableStats().nEvicted, 1u);
    EXPECT_EQ(rig.talb.LiveEntries(6 * US), 4u);
    const auto& s = rig.talb.GetTableStats();
    EXPECT_EQ(s.nInserted, s.nFreedOnLast + s.nAgedOut + s.nEvicted + rig.talb.HeldEntries());
}

TEST(TalbLbCoreTensorAware, UnlabelledPacketsGoToTheFallback)
{
    TalbRig rig;
    uint32_t port = rig.Send(Untagged(30, US));
    for (int k = 2; k < 10; ++k)
    {
        EXPECT_EQ(rig.Send(Untagged(30, k * US)), port); // LetFlow: same flowlet
    }
    EXPECT_EQ(rig.talb.GetTableStats().nFallback, 9u);
    EXPECT_EQ(rig.talb.GetTableStats().nInserted, 0u);
}

TEST(TalbLbCoreTensorAware, ATensorWhosePortFailedMovesWhateverItsPriority)
{
    TalbRig rig(TensorAwareV1::Config(), 3);
    uint32_t port = rig.Send(Tensor(10, US, 100, 7, TALB_FLAG_FIRST));
    std::vector<uint32_t> survivors;
    for (uint32_t p : rig.leaf.uplinks)
    {
        if (p != port)
        {
            survivors.push_back(p);
        }
    }
    Candidates alive{survivors.data(), 2};
    uint32_t moved = rig.talb.Select(Tensor(10, 2 * US, 100, 7, 0), alive);
    EXPECT_NE(moved, port);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(port, moved));
    // The entry follows: back on all three uplinks, the tensor stays where it moved.
    EXPECT_EQ(rig.Send(Tensor(10, 3 * US, 100, 7, 0)), moved);
}

TEST(TalbLbCoreTensorAware, CheckRejectsBadConfigurations)
{
    TensorAwareV1::Config c;
    EXPECT_EQ(TensorAwareV1::Check(c), nullptr);
    auto bad = [](auto change) {
        TensorAwareV1::Config x;
        change(x);
        return TensorAwareV1::Check(x) != nullptr;
    };
    EXPECT_TRUE(bad([](auto& x) { x.highThreshold = 9; }));
    EXPECT_TRUE(bad([](auto& x) { x.moveMarginBytes = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.loadQuantumBytes = 0.5; }));
    EXPECT_TRUE(bad([](auto& x) { x.idleTimeoutNs = 0; }));
    EXPECT_TRUE(bad([](auto& x) { x.tableSize = 100; }));
    EXPECT_TRUE(bad([](auto& x) { x.probeLimit = 0; }));
    EXPECT_TRUE(bad([](auto& x) { x.probeLimit = 65; }));
    EXPECT_TRUE(bad([](auto& x) {
        x.tableSize = 4;
        x.probeLimit = 8;
    }));
    EXPECT_TRUE(bad([](auto& x) { x.dreAlpha = 0; }));
    TensorAwareV1 t;
    c.tableSize = 3;
    EXPECT_FALSE(t.Configure(c, 3));
}
