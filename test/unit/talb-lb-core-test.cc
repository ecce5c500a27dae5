// The load-balancing decision core (model/lb/core) on its own, without ns-3: each policy's
// defining behaviour on plain port tables. The ns-3 suite talb-lb-core checks that the core and
// the ns-3 selectors decide identically.
#include "ns3/talb-lb-core-band-drr.h"
#include "ns3/talb-lb-core-dre.h"
#include "ns3/talb-lb-core-drill.h"
#include "ns3/talb-lb-core-ecmp.h"
#include "ns3/talb-lb-core-hermes.h"
#include "ns3/talb-lb-core-letflow.h"
#include "ns3/talb-lb-core-port-table.h"
#include "ns3/talb-lb-core-presto.h"
#include "ns3/talb-lb-core-random.h"
#include "ns3/talb-lb-core-rps.h"
#include "ns3/talb-lb-core-settings.h"
#include "ns3/talb-lb-core-tensor-aware-config.h"
#include "ns3/talb-lb-core-tensor-aware-v2.h"
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

TEST(TalbLbCoreLetFlow, LeastQueuedStartsAFlowletOnTheEmptiestPortAndKeepsItThere)
{
    Leaf leaf(4);
    leaf.state[1].queueBytes = 9000;
    leaf.state[2].queueBytes = 1500;
    leaf.state[3].queueBytes = 6000;
    leaf.state[4].queueBytes = 1500;
    ScriptRandom random({0}); // the tie of uplinks 2 and 4: 0 takes the later one
    Recorder events;
    LetFlow letflow;
    ASSERT_TRUE(letflow.Configure({50 * US, 64, LetFlow::Pick::kLeastQueued}));
    letflow.Bind(&leaf.table, &random, &events);
    EXPECT_EQ(letflow.Select(Untagged(9, 0), leaf.All()), 4u);
    EXPECT_EQ(random.draws, 1u); // drawn on the tie only
    // Within the flowlet the port stays, however full it gets.
    leaf.state[4].queueBytes = 90000;
    EXPECT_EQ(letflow.Select(Untagged(9, 40 * US), leaf.All()), 4u);
    // After a gap the new flowlet takes the emptiest port, with no draw: no tie.
    EXPECT_EQ(letflow.Select(Untagged(9, 100 * US), leaf.All()), 2u);
    EXPECT_EQ(random.draws, 1u);
    ASSERT_EQ(events.reroutes.size(), 1u);
    EXPECT_EQ(events.reroutes[0], std::make_pair(4u, 2u));
}

TEST(TalbLbCoreLetFlow, CheckRejectsBadConfigurations)
{
    EXPECT_EQ(LetFlow::Check({500 * US, 4096}), nullptr);
    EXPECT_NE(LetFlow::Check({0, 4096}), nullptr);
    EXPECT_NE(LetFlow::Check({500 * US, 1000}), nullptr);
    LetFlow l;
    EXPECT_FALSE(l.Configure({500 * US, 0}));
}

// ---- Presto -----------------------------------------------------------------------------------

/// \return a packet of flow \p flowHash with \p size bytes at \p nowNs
PacketInfo
Sized(uint32_t flowHash, uint32_t size, int64_t nowNs)
{
    PacketInfo p = Untagged(flowHash, nowNs);
    p.size = size;
    return p;
}

TEST(TalbLbCorePresto, FlowcellsOfAtMostFlowcellBytesGoRoundRobin)
{
    Leaf leaf(4);
    Recorder events;
    Presto presto;
    ASSERT_TRUE(presto.Configure({65536, 64, 10000 * US}));
    presto.Bind(&leaf.table, nullptr, &events); // Presto draws nothing: a draw would crash
    const uint32_t flow = 77;
    uint32_t start = Presto::Offset(flow) % 4;
    // 43 packets of 1500 bytes (64500 bytes) fit a 64 KiB cell; the 44th starts the next one.
    for (uint32_t cell = 0; cell < 9; ++cell)
    {
        uint32_t expected = leaf.uplinks[(start + cell) % 4];
        for (uint32_t k = 0; k < 43; ++k)
        {
            leaf.state[expected].queueBytes += 1500; // load does not move a Presto cell
            ASSERT_EQ(presto.Select(Sized(flow, 1500, cell * 100 * US + k), leaf.All()), expected)
                << "cell " << cell << " packet " << k;
        }
        EXPECT_EQ(presto.CellOf(flow), cell);
    }
    // One reroute per cell boundary, each to the next port in candidate order.
    ASSERT_EQ(events.reroutes.size(), 8u);
    for (uint32_t i = 0; i < 8; ++i)
    {
        EXPECT_EQ(events.reroutes[i].first, leaf.uplinks[(start + i) % 4]);
        EXPECT_EQ(events.reroutes[i].second, leaf.uplinks[(start + i + 1) % 4]);
    }
}

TEST(TalbLbCorePresto, APacketLargerThanTheRoomLeftStartsTheNextCell)
{
    Leaf leaf(2);
    Presto presto;
    ASSERT_TRUE(presto.Configure({10000, 64, 10000 * US}));
    presto.Bind(&leaf.table, nullptr, nullptr);
    uint32_t first = presto.Select(Sized(5, 9000, 0), leaf.All());
    EXPECT_EQ(presto.Select(Sized(5, 1000, 1), leaf.All()), first); // exactly 10000: same cell
    uint32_t second = presto.Select(Sized(5, 1, 2), leaf.All());    // one byte more: next
    EXPECT_NE(second, first);
    // A packet larger than a whole cell still goes out, alone in its cell.
    EXPECT_EQ(presto.Select(Sized(5, 20000, 3), leaf.All()), first);
    EXPECT_EQ(presto.Select(Sized(5, 100, 4), leaf.All()), second);
}

TEST(TalbLbCorePresto, FlowsStartAtHashedOffsetsAndDoNotMoveInLockstep)
{
    Leaf leaf(4);
    Presto presto;
    ASSERT_TRUE(presto.Configure({65536, 4096, 10000 * US}));
    presto.Bind(&leaf.table, nullptr, nullptr);
    std::map<uint32_t, uint32_t> firstPorts;
    for (uint32_t flow = 0; flow < 400; ++flow)
    {
        uint32_t hash = Mix32(flow + 1);
        uint32_t port = presto.Select(Sized(hash, 1500, 0), leaf.All());
        EXPECT_EQ(port, leaf.uplinks[Presto::Offset(hash) % 4]);
        ++firstPorts[port];
    }
    ASSERT_EQ(firstPorts.size(), 4u);
    for (const auto& [port, n] : firstPorts)
    {
        EXPECT_GT(n, 60u) << "port " << port;
    }
}

TEST(TalbLbCorePresto, FailedPortsAndIdleFlowsRestartTheSequence)
{
    Leaf leaf(3);
    Recorder events;
    Presto presto;
    ASSERT_TRUE(presto.Configure({3000, 64, 100 * US}));
    presto.Bind(&leaf.table, nullptr, &events);
    const uint32_t flow = 12;
    uint32_t start = Presto::Offset(flow) % 3;
    EXPECT_EQ(presto.Select(Sized(flow, 3000, 0), leaf.All()), leaf.uplinks[start]);
    EXPECT_EQ(presto.Select(Sized(flow, 3000, 1), leaf.All()), leaf.uplinks[(start + 1) % 3]);
    EXPECT_EQ(presto.CellOf(flow), 1u);
    // Idle longer than the timeout: back to cell 0, no reroute counted for the restart.
    EXPECT_EQ(presto.Select(Sized(flow, 3000, 200 * US), leaf.All()), leaf.uplinks[start]);
    EXPECT_EQ(presto.CellOf(flow), 0u);
    EXPECT_EQ(events.reroutes.size(), 1u);
    // Round robin goes over the candidates that are left when a port fails.
    uint32_t survivors[] = {1, 3};
    for (int64_t k = 1; k <= 4; ++k)
    {
        uint32_t port = presto.Select(Sized(flow, 3000, 200 * US + k), Candidates{survivors, 2});
        EXPECT_EQ(port, survivors[(Presto::Offset(flow) % 2 + k) % 2]);
    }
}

TEST(TalbLbCorePresto, CollidingFlowsEvictEachOtherAndCheckRejectsBadConfigurations)
{
    Leaf leaf(2);
    Recorder events;
    Presto presto;
    ASSERT_TRUE(presto.Configure({3000, 1, 100 * US})); // one slot: every flow collides
    presto.Bind(&leaf.table, nullptr, &events);
    presto.Select(Sized(1, 3000, 0), leaf.All());
    presto.Select(Sized(1, 3000, 1), leaf.All());
    EXPECT_EQ(presto.CellOf(1), 1u);
    presto.Select(Sized(2, 3000, 2), leaf.All());
    ASSERT_EQ(events.evictions.size(), 1u);
    EXPECT_EQ(events.evictions[0].first, 1u);
    EXPECT_EQ(presto.CellOf(1), 0u);
    EXPECT_EQ(Presto::Check({65536, 4096, 1}), nullptr);
    EXPECT_NE(Presto::Check({0, 4096, 1}), nullptr);
    EXPECT_NE(Presto::Check({65536, 1000, 1}), nullptr);
    EXPECT_NE(Presto::Check({65536, 4096, 0}), nullptr);
    EXPECT_FALSE(presto.Configure({65536, 0, 1}));
}

// ---- Hermes -----------------------------------------------------------------------------------

/// Remote path sensing set by the test: [leaf][path].
struct FakeRemote : public RemoteView
{
    RemotePath value[2][4]{};

    RemotePath Path(uint32_t dstLeaf, uint32_t path, int64_t /* nowNs */) const override
    {
        return value[dstLeaf][path];
    }

    /// Path \p path towards leaf 1 has ECN fraction \p f and queueing delay \p delayUs.
    void Set(uint32_t path, double f, int64_t delayUs)
    {
        value[1][path] = RemotePath{f, delayUs * US, true};
    }
};

/// A leaf with three uplinks (ports 1..3 = paths 0..2) and Hermes bound to it.
struct HermesLeaf
{
    Leaf leaf{3};
    FakeRemote remote;
    SplitMixRandom random{7};
    Recorder events;
    Hermes hermes;

    explicit HermesLeaf(Hermes::Config c = Hermes::Config())
    {
        c.portPath = {Hermes::kNoPath, 0, 1, 2};
        c.portRateBps.assign(4, 10000000000ull);
        c.nLeaves = 2;
        c.nPaths = 3;
        EXPECT_TRUE(hermes.Configure(c));
        hermes.Bind(&leaf.table, &random, &events);
        hermes.BindRemote(&remote);
    }

    /// Send \p n packets of flow \p flow, \p gapNs apart from \p *t; \return the last port
    uint32_t Send(uint32_t flow, uint32_t n, int64_t gapNs, int64_t* t)
    {
        uint32_t port = 0;
        for (uint32_t k = 0; k < n; ++k, *t += gapNs)
        {
            port = hermes.Select(Sized(flow, 1500, *t), leaf.All());
        }
        return port;
    }
};

TEST(TalbLbCoreHermes, SensingClassifiesPathsByEcnFractionAndDelay)
{
    HermesLeaf h;
    EXPECT_EQ(h.hermes.Classify(1, 1, 0), Hermes::GOOD);
    h.leaf.state[1].queueBytes = 30000; // 24 us at 10 Gb/s: above T_RTT_low
    EXPECT_EQ(h.hermes.Classify(1, 1, 0), Hermes::GRAY);
    h.leaf.state[1].queueBytes = 200000; // 160 us, but no ECN feedback yet: not congested
    EXPECT_EQ(h.hermes.Classify(1, 1, 0), Hermes::GRAY);
    h.remote.Set(0, 0.5, 0); // marks fed back: the local queue's delay and f high
    EXPECT_EQ(h.hermes.Classify(1, 1, 0), Hermes::CONGESTED);
    h.remote.Set(1, 0.6, 50); // path 1 (port 2) towards leaf 1: both signals high
    EXPECT_EQ(h.hermes.Classify(2, 1, 0), Hermes::CONGESTED);
    EXPECT_EQ(h.hermes.Classify(2, 0, 0), Hermes::GOOD) << "other destination leaf";
    h.remote.Set(1, 0.6, 10); // many marks, short delay: gray
    EXPECT_EQ(h.hermes.Classify(2, 1, 0), Hermes::GRAY);
    h.remote.Set(1, 0.1, 30); // few marks, delay between the thresholds: gray
    EXPECT_EQ(h.hermes.Classify(2, 1, 0), Hermes::GRAY);
    h.remote.Set(1, 0.1, 10);
    EXPECT_EQ(h.hermes.Classify(2, 1, 0), Hermes::GOOD);
}

TEST(TalbLbCoreHermes, NewFlowsTakeGoodBeforeGrayBeforeCongestedThenTheLeastLocalRate)
{
    HermesLeaf h;
    h.remote.Set(0, 0.8, 100); // port 1 congested
    h.remote.Set(1, 0.6, 10);  // port 2 gray
    EXPECT_EQ(h.hermes.Select(Sized(1, 1500, 0), h.leaf.All()), 3u);
    h.remote.Set(2, 0.9, 200); // port 3 congested too
    EXPECT_EQ(h.hermes.Select(Sized(2, 1500, 0), h.leaf.All()), 2u);
    // All good: the uplink this leaf sends least on wins.
    h.remote = FakeRemote();
    for (int64_t t = 0; t < 100 * US; t += 1200)
    {
        h.leaf.state[1].dre.Add(1500, t);
        h.leaf.state[3].dre.Add(500, t);
    }
    EXPECT_EQ(h.hermes.Select(Sized(3, 1500, 100 * US), h.leaf.All()), 2u);
    EXPECT_TRUE(h.events.reroutes.empty());
}

TEST(TalbLbCoreHermes, AFlowOnAGoodPathNeverMoves)
{
    HermesLeaf h;
    h.remote.Set(1, 0.6, 10);
    h.remote.Set(2, 0.6, 10); // ports 2, 3 gray: the flow takes port 1
    int64_t t = 0;
    EXPECT_EQ(h.Send(9, 1, 1, &t), 1u);
    h.remote = FakeRemote();                     // the others become idle too
    h.leaf.state[1].queueBytes = 20000;          // 16 us: port 1 still good
    EXPECT_EQ(h.Send(9, 200, 100 * US, &t), 1u); // slow and large: would move if congested
    EXPECT_TRUE(h.events.reroutes.empty());
}

TEST(TalbLbCoreHermes, ACongestedFlowMovesOnlyWhenLargeSlowAndANotablyBetterPathExists)
{
    Hermes::Config c;
    c.sizeThresholdBytes = 30000; // 20 packets
    c.idleNs = 100000 * US;       // flows 4 and 5 take turns
    HermesLeaf h(c);
    h.remote.Set(1, 0.6, 10);
    h.remote.Set(2, 0.6, 10);
    int64_t t = 0;
    ASSERT_EQ(h.Send(4, 1, 1, &t), 1u);
    ASSERT_EQ(h.Send(5, 1, 1, &t), 1u);
    h.remote.Set(0, 0.9, 100); // port 1 congested
    h.remote.Set(2, 0, 0);     // port 3 good: notably better
    // Flow 4, large but fast (1500 B per 1 us = 12 Gb/s > 0.3 x 10 Gb/s): stays.
    EXPECT_EQ(h.Send(4, 300, 1000, &t), 1u);
    EXPECT_GT(h.hermes.RateOf(4), 3e9);
    // Flow 5, slow (1500 B per 100 us) but below the size threshold: stays.
    EXPECT_EQ(h.Send(5, 10, 100 * US, &t), 1u);
    EXPECT_GT(h.hermes.RateOf(5), 0.0);
    EXPECT_LT(h.hermes.RateOf(5), 3e9);
    // Flow 4, slow and large, but no notably better path: port 2 gray yet only 0.02 fewer
    // marks, port 3 congested.
    h.remote.Set(1, 0.88, 30);
    h.remote.Set(2, 0.5, 95);
    EXPECT_EQ(h.Send(4, 5, 100 * US, &t), 1u);
    EXPECT_LT(h.hermes.RateOf(4), 3e9);
    EXPECT_TRUE(h.events.reroutes.empty());
    // Port 3 turns good: notably better in both signals. The flow moves, once.
    h.remote.Set(2, 0, 0);
    EXPECT_EQ(h.Send(4, 1, 100 * US, &t), 3u);
    ASSERT_EQ(h.events.reroutes.size(), 1u);
    EXPECT_EQ(h.events.reroutes[0], std::make_pair(1u, 3u));
    EXPECT_EQ(h.Send(4, 20, 100 * US, &t), 3u);
    EXPECT_EQ(h.events.reroutes.size(), 1u);
}

TEST(TalbLbCoreHermes, AFlowWhosePortFailedMovesAtOnce)
{
    HermesLeaf h;
    h.remote.Set(1, 0.6, 10);
    h.remote.Set(2, 0.6, 10);
    int64_t t = 0;
    ASSERT_EQ(h.Send(6, 1, 1, &t), 1u);
    uint32_t survivors[] = {2, 3};
    h.remote.Set(2, 0.1, 10); // port 3 good, port 2 gray
    EXPECT_EQ(h.hermes.Select(Sized(6, 1500, t), Candidates{survivors, 2}), 3u);
    ASSERT_EQ(h.events.reroutes.size(), 1u);
    EXPECT_EQ(h.events.reroutes[0], std::make_pair(1u, 3u));
}

TEST(TalbLbCoreHermes, AFailedPathIsLeftAtOnceAndPlacedLastWhateverItsCongestion)
{
    HermesLeaf h;
    h.remote.Set(1, 0.6, 10);
    h.remote.Set(2, 0.6, 10); // ports 2, 3 gray: the flow takes port 1
    int64_t t = 0;
    ASSERT_EQ(h.Send(7, 1, 1, &t), 1u);
    h.remote.value[1][0].failed = true; // path 0 (port 1) loses packets without congestion
    EXPECT_EQ(h.hermes.Classify(1, 1, t), Hermes::FAILED);
    EXPECT_EQ(h.hermes.Classify(1, 0, t), Hermes::GOOD) << "failed towards leaf 1 only";
    // Small, fast and on a path that is not congested: it would stay; failed, it moves now.
    uint32_t moved = h.Send(7, 1, 1, &t);
    EXPECT_NE(moved, 1u);
    ASSERT_EQ(h.events.reroutes.size(), 1u);
    EXPECT_EQ(h.events.reroutes[0].first, 1u);
    // New flows take even a congested path before a failed one ...
    h.remote.Set(1, 0.9, 100);
    h.remote.Set(2, 0.9, 100);
    h.remote.value[1][0].failed = true;
    EXPECT_NE(h.hermes.Select(Sized(8, 1500, t), h.leaf.All()), 1u);
    // ... and a failed one when every path failed.
    h.remote.value[1][1].failed = true;
    h.remote.value[1][2].failed = true;
    EXPECT_EQ(h.hermes.Classify(2, 1, t), Hermes::FAILED);
    uint32_t p = h.hermes.Select(Sized(9, 1500, t), h.leaf.All());
    EXPECT_TRUE(p >= 1 && p <= 3);
}

TEST(TalbLbCoreHermes, IdleFlowsArePlacedAfreshAndCheckRejectsBadConfigurations)
{
    HermesLeaf h;
    h.remote.Set(1, 0.6, 10);
    h.remote.Set(2, 0.6, 10);
    int64_t t = 0;
    ASSERT_EQ(h.Send(8, 1, 1, &t), 1u);
    h.remote.Set(0, 0.6, 10);
    h.remote.Set(2, 0, 0);
    EXPECT_EQ(h.Send(8, 1, 1, &t), 1u) << "a live flow is not re-placed";
    t += 2000 * US; // longer than the 1 ms idle timeout
    EXPECT_EQ(h.Send(8, 1, 1, &t), 3u);
    EXPECT_TRUE(h.events.reroutes.empty()) << "a new placement is no reroute";

    Hermes::Config ok;
    EXPECT_EQ(Hermes::Check(ok), nullptr);
    Hermes::Config bad = ok;
    bad.portPath = {0};
    EXPECT_NE(Hermes::Check(bad), nullptr) << "paths without rates";
    bad = ok;
    bad.portPath = {0};
    bad.portRateBps = {10};
    EXPECT_NE(Hermes::Check(bad), nullptr) << "path index beyond nPaths";
    bad = ok;
    bad.ecnThreshold = 1.5;
    EXPECT_NE(Hermes::Check(bad), nullptr);
    bad = ok;
    bad.delayLowNs = 100000;
    EXPECT_NE(Hermes::Check(bad), nullptr) << "low delay above high";
    bad = ok;
    bad.tableSize = 1000;
    EXPECT_NE(Hermes::Check(bad), nullptr);
    bad = ok;
    bad.rateWindowNs = 0;
    EXPECT_NE(Hermes::Check(bad), nullptr);
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

/// TaLB (\p Talb: TensorAwareV1 or TensorAwareV2) with a LetFlow fallback on a leaf with 2 (or
/// more) uplinks.
template <class Talb>
struct TalbRigOf
{
    Leaf leaf;
    SplitMixRandom random{7};
    SplitMixRandom fallbackRandom{8};
    Recorder events;
    LetFlow fallback;
    Talb talb;

    explicit TalbRigOf(typename Talb::Config config = typename Talb::Config(), uint32_t uplinks = 2)
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

    uint32_t Send(const PacketInfo& p, std::vector<uint32_t> ports)
    {
        return talb.Select(p, Candidates{ports.data(), static_cast<uint32_t>(ports.size())});
    }

    /// Queues \p bytes in band \p band of \p port.
    void Queue(uint32_t port, uint8_t band, uint64_t bytes)
    {
        leaf.state[port].bandBytes[band] = bytes;
        leaf.state[port].queueBytes = 0;
        for (uint64_t b : leaf.state[port].bandBytes)
        {
            leaf.state[port].queueBytes += b;
        }
    }
};

using TalbRig = TalbRigOf<TensorAwareV1>;

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

// ---- TaLB v2 -----------------------------------------------------------------------------------

namespace
{

using TalbV2Rig = TalbRigOf<TensorAwareV2>;

/// On three uplinks with only 1 and 2 offered: flows 10 and 20 take one each, flow 30 shares
/// one of them (returned); all three send every 10 us until \p until, uplink 3 then comes back.
uint32_t
ShareTwoUplinks(TalbV2Rig& rig, uint8_t priority, int64_t until)
{
    uint32_t a = rig.Send(Tensor(10, US, 100, priority, TALB_FLAG_FIRST), {1, 2});
    uint32_t b = rig.Send(Tensor(20, US, 200, priority, TALB_FLAG_FIRST), {1, 2});
    EXPECT_NE(a, b);
    uint32_t c = rig.Send(Tensor(30, US, 300, priority, TALB_FLAG_FIRST), {1, 2});
    for (int64_t t = 11 * US; t < until; t += 10 * US)
    {
        EXPECT_EQ(rig.Send(Tensor(10, t, 100, priority, 0), {1, 2}), a);
        EXPECT_EQ(rig.Send(Tensor(20, t, 200, priority, 0), {1, 2}), b);
        EXPECT_EQ(rig.Send(Tensor(30, t, 300, priority, 0), {1, 2}), c);
    }
    return c;
}

} // namespace

TEST(TalbLbCoreTensorAwareV2, NewFlowsAvoidPortsWithOtherTensorFlows)
{
    TalbV2Rig rig;
    uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
    // The other uplink has more queued bytes, but no tensor flow: it is the less shared one.
    uint32_t other = a == 1 ? 2 : 1;
    rig.Queue(other, 5, 60000);
    EXPECT_EQ(rig.Send(Tensor(20, 2 * US, 200, 5, TALB_FLAG_FIRST)), other);
    EXPECT_EQ(rig.talb.ActiveFlows(a, 2 * US), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(other, 2 * US), 1u);
    // Equally shared: the shorter queue (in the tensor's band and above) wins.
    EXPECT_EQ(rig.Send(Tensor(30, 3 * US, 300, 5, TALB_FLAG_FIRST)), a);
}

TEST(TalbLbCoreTensorAwareV2, AFlowIsNotCountedAgainstItsOwnPort)
{
    TalbV2Rig rig(TensorAwareV2::Config(), 3);
    uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST), {1, 2});
    uint32_t b = rig.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST), {1, 2});
    ASSERT_NE(a, b);
    // Flow 10's own bytes fill its uplink; uplink 3 is empty and unshared, like flow 10's own
    // is once flow 10 itself is left out: a new tensor of flow 10 stays (stay on ties).
    rig.Queue(a, 5, 90000);
    EXPECT_EQ(rig.Send(Tensor(10, 5 * US, 101, 5, TALB_FLAG_FIRST)), a);
    EXPECT_TRUE(rig.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAwareV2, OnlyTensorsAtOrAboveItsPriorityDelayATensor)
{
    TalbV2Rig rig;
    uint32_t low = rig.Send(Tensor(10, US, 100, 6, TALB_FLAG_FIRST));
    uint32_t other = low == 1 ? 2 : 1;
    // Priority 0: the low flow does not delay it, but among equals it keeps off its port.
    EXPECT_EQ(rig.Send(Tensor(20, 2 * US, 200, 0, TALB_FLAG_FIRST)), other);
    // Priority 3: the priority-0 flow delays it, the priority-6 one does not.
    EXPECT_EQ(rig.Send(Tensor(30, 3 * US, 300, 3, TALB_FLAG_FIRST)), low);
    // Bytes queued in lower bands do not count either; bytes in its band and above do.
    TalbV2Rig bytes;
    bytes.Queue(1, 7, 500000);
    bytes.Queue(2, 0, 10000);
    EXPECT_EQ(bytes.Send(Tensor(40, US, 400, 2, TALB_FLAG_FIRST)), 1u);
}

TEST(TalbLbCoreTensorAwareV2, SlowerPathsCountInProportionToTheirRate)
{
    TalbV2Rig rig;
    rig.leaf.state[1].rateBps = 2500000000ull; // a quarter of uplink 2
    // Sharing the 10 Gb/s uplink with up to two other flows beats the 2.5 Gb/s one alone.
    for (uint32_t f = 0; f < 3; ++f)
    {
        EXPECT_EQ(rig.Send(Tensor(10 + f, US, 100 + f, 5, TALB_FLAG_FIRST)), 2u);
    }
    // The same when the slow link is beyond the port, on the path to the destination leaf.
    TalbV2Rig remote;
    remote.leaf.state[1].remoteRateBps = 2500000000ull;
    for (uint32_t f = 0; f < 3; ++f)
    {
        EXPECT_EQ(remote.Send(Tensor(10 + f, US, 100 + f, 5, TALB_FLAG_FIRST)), 2u);
    }
}

TEST(TalbLbCoreTensorAwareV2, LowPriorityTensorsMoveToALessSharedPort)
{
    TalbV2Rig rig(TensorAwareV2::Config(), 3); // MinMoveInterval 100 us
    uint32_t shared = ShareTwoUplinks(rig, 7, 200 * US);
    // Uplink 3 is back and unshared: flow 30 moves mid-tensor, although its priority is low.
    uint32_t moved = rig.Send(Tensor(30, 200 * US, 300, 7, 0));
    EXPECT_EQ(moved, 3u);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(shared, 3u));
    EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, 1u);
    // It is no longer counted on its old port, and it stays where it moved.
    EXPECT_EQ(rig.talb.ActiveFlows(shared, 200 * US), 1u);
    EXPECT_EQ(rig.Send(Tensor(30, 210 * US, 300, 7, 0)), 3u);
}

TEST(TalbLbCoreTensorAwareV2, ATensorMovesAtMostOncePerInterval)
{
    TensorAwareV2::Config c;
    c.minMoveIntervalNs = 1000 * US;
    TalbV2Rig rig(c, 3);
    uint32_t shared = ShareTwoUplinks(rig, 7, 200 * US);
    EXPECT_EQ(rig.Send(Tensor(30, 200 * US, 300, 7, 0)), shared); // placed 199 us ago
    EXPECT_TRUE(rig.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAwareV2, MovesThatWouldReorderTooMuchAreHeld)
{
    TensorAwareV2::Config bounded;
    bounded.maxReorderBytes = 18000; // two jumbo frames (the default bounds nothing)
    TalbV2Rig rig(bounded, 3);
    uint32_t shared = ShareTwoUplinks(rig, 7, 200 * US);
    rig.Queue(shared, 7, 30000); // 30000 bytes would drain after a packet sent on uplink 3
    EXPECT_EQ(rig.Send(Tensor(30, 200 * US, 300, 7, 0)), shared);
    EXPECT_EQ(rig.talb.GetTableStats().nReorderHeld, 1u);
    rig.Queue(3, 7, 15000); // now 15000: within the bound
    EXPECT_EQ(rig.Send(Tensor(30, 210 * US, 300, 7, 0)), 3u);
    // MaxReorder 0: only a move that cannot reorder (the old queue no longer than the new).
    TensorAwareV2::Config strict;
    strict.maxReorderBytes = 0;
    TalbV2Rig rdma(strict, 3);
    uint32_t port = ShareTwoUplinks(rdma, 7, 200 * US);
    rdma.Queue(port, 7, 9000);
    EXPECT_EQ(rdma.Send(Tensor(30, 200 * US, 300, 7, 0)), port);
    rdma.Queue(3, 7, 9000);
    EXPECT_EQ(rdma.Send(Tensor(30, 210 * US, 300, 7, 0)), 3u);
}

namespace
{

/// \p p as a RoCEv2 packet (go-back-N).
PacketInfo
GoBackN(PacketInfo p)
{
    p.goBackN = true;
    return p;
}

/// Flows 10 and 20 on one of uplinks 1-2 each, flow 30 (\p goBackN or not) sharing one; all
/// with 50000 bytes queued ahead in band 7 on every uplink (41.2 us at 10 Gb/s with a 1500-byte
/// packet), sending every 10 us until 191 us. \return flow 30's port
uint32_t
ShareTwoQueuedUplinks(TalbV2Rig& rig, bool goBackN)
{
    for (uint32_t port : {1u, 2u, 3u})
    {
        rig.Queue(port, 7, 50000);
    }
    auto send = [&](uint32_t flow, int64_t t, uint8_t flags) {
        PacketInfo p = Tensor(flow, t, flow * 10, 7, flags);
        return rig.Send(flow == 30 && goBackN ? GoBackN(p) : p, {1, 2});
    };
    uint32_t a = send(10, US, TALB_FLAG_FIRST);
    uint32_t b = send(20, US, TALB_FLAG_FIRST);
    EXPECT_NE(a, b);
    uint32_t c = send(30, US, TALB_FLAG_FIRST);
    for (int64_t t = 11 * US; t < 200 * US; t += 10 * US)
    {
        EXPECT_EQ(send(10, t, 0), a);
        EXPECT_EQ(send(20, t, 0), b);
        EXPECT_EQ(send(30, t, 0), c);
    }
    return c;
}

} // namespace

TEST(TalbLbCoreTensorAwareV2, GoBackNFlowsMoveAtOnceWhileAnUntaggedFlowIsActive)
{
    // The default, GoBackNUnlessUntagged: with an untagged flow on the uplinks (a background
    // burst the flow counts do not see) the RoCEv2 flow moves to the unshared uplink 3 at once,
    // as a TCP flow does, though its packets still queue on its old port ...
    TensorAwareV2::Config c;
    c.safeSlackNs = 20 * US;
    TalbV2Rig rdma(c, 3);
    uint32_t shared = ShareTwoQueuedUplinks(rdma, true);
    rdma.Send(Untagged(40, 199 * US), {1, 2});
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 200 * US, 300, 7, 0))), 3u);
    EXPECT_EQ(rdma.talb.GetTableStats().nUndrainedHeld, 0u);
    ASSERT_EQ(rdma.events.reroutes.size(), 1u);
    EXPECT_EQ(rdma.events.reroutes[0], std::make_pair(shared, 3u));
    // ... where GoBackN waits for its old path to drain whatever the untagged traffic.
    c.safeMoves = TensorAwareV2::SafeMoves::kGoBackN;
    TalbV2Rig strict(c, 3);
    uint32_t held = ShareTwoQueuedUplinks(strict, true);
    strict.Send(Untagged(40, 199 * US), {1, 2});
    EXPECT_EQ(strict.Send(GoBackN(Tensor(30, 200 * US, 300, 7, 0))), held);
    EXPECT_EQ(strict.talb.GetTableStats().nUndrainedHeld, 1u);
    EXPECT_TRUE(strict.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAwareV2, GoBackNFlowsMoveOnlyOnceTheirOldPathHasDrained)
{
    // A TCP flow moves to the unshared uplink 3 at once (equal queues: nothing to reorder).
    TensorAwareV2::Config c; // SafeMoves GoBackNUnlessUntagged; no untagged traffic: GoBackN's rule
    c.safeSlackNs = 20 * US;
    TalbV2Rig tcp(c, 3);
    ShareTwoQueuedUplinks(tcp, false);
    EXPECT_EQ(tcp.Send(Tensor(30, 200 * US, 300, 7, 0)), 3u);

    // A RoCEv2 flow's last packet, sent at 191 us behind 50000 bytes, leaves its port at
    // 232.2 us: with the 20 us slack it may move from 252.2 us on; the packet it sends at
    // 200 us, held, leaves at 241.2 us and pushes that to 261.2 us.
    TalbV2Rig rdma(c, 3);
    uint32_t shared = ShareTwoQueuedUplinks(rdma, true);
    // Flows 10 and 20 keep sending, so uplink 3 stays the less shared one.
    auto others = [&rdma](int64_t t) {
        for (uint32_t flow : {10u, 20u})
        {
            rdma.Send(Tensor(flow, t, flow * 10, 7, 0), {1, 2});
        }
    };
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 200 * US, 300, 7, 0))), shared);
    EXPECT_EQ(rdma.talb.GetTableStats().nUndrainedHeld, 1u);
    others(250 * US);
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 261 * US, 300, 7, 0))), shared);
    EXPECT_EQ(rdma.talb.GetTableStats().nUndrainedHeld, 2u);
    // Held at 261 us, that packet leaves at 302.2 us: a move is safe from 322.2 us.
    others(300 * US);
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 322 * US, 300, 7, 0))), shared);
    EXPECT_TRUE(rdma.events.reroutes.empty());
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 384 * US, 300, 7, 0))), 3u); // safe from 383.2 us
    ASSERT_EQ(rdma.events.reroutes.size(), 1u);
    EXPECT_EQ(rdma.events.reroutes[0], std::make_pair(shared, 3u));

    // A new tensor (a boundary) waits for the drain as well, and a flow silent for longer than
    // the active window (100 us) still counts on its port until its path has drained.
    TensorAwareV2::Config slow;
    slow.safeSlackNs = 500 * US;
    TalbV2Rig boundary(slow, 3);
    shared = ShareTwoQueuedUplinks(boundary, true);
    for (int64_t t : {395 * US, 945 * US})
    {
        for (uint32_t flow : {10u, 20u})
        {
            boundary.Send(Tensor(flow, t, flow * 10, 7, 0), {1, 2});
        }
    }
    // Not drained (232.2 + 500 us): stays, and its packet leaves at 441.2 us.
    EXPECT_EQ(boundary.Send(GoBackN(Tensor(30, 400 * US, 301, 7, TALB_FLAG_FIRST))), shared);
    EXPECT_EQ(boundary.Send(GoBackN(Tensor(30, 950 * US, 301, 7, 0))), 3u); // from 941.2 us

    // SafeMoves Never: the RoCEv2 flow moves at once, as TCP flows do (the MaxReorder test).
    TensorAwareV2::Config never = c;
    never.safeMoves = TensorAwareV2::SafeMoves::kNever;
    TalbV2Rig old(never, 3);
    ShareTwoQueuedUplinks(old, true);
    EXPECT_EQ(old.Send(GoBackN(Tensor(30, 200 * US, 300, 7, 0))), 3u);

    // SafeMoves Always: TCP flows wait too.
    TensorAwareV2::Config always = c;
    always.safeMoves = TensorAwareV2::SafeMoves::kAlways;
    TalbV2Rig all(always, 3);
    shared = ShareTwoQueuedUplinks(all, false);
    EXPECT_EQ(all.Send(Tensor(30, 200 * US, 300, 7, 0)), shared);
    EXPECT_EQ(all.talb.GetTableStats().nUndrainedHeld, 1u);
}

TEST(TalbLbCoreTensorAwareV2, QueueMovesUseTheClassMargin)
{
    TensorAwareV2::Config c;
    c.lowMoveMarginBytes = 150000; // this test is about the margins only: 15000 / 150000
    for (uint8_t priority : {1, 6})
    {
        TalbV2Rig rig(c);
        uint32_t port = rig.Send(Tensor(10, US, 100, priority, TALB_FLAG_FIRST));
        uint32_t other = port == 1 ? 2 : 1;
        for (int64_t t = 11 * US; t < 200 * US; t += 10 * US)
        {
            ASSERT_EQ(rig.Send(Tensor(10, t, 100, priority, 0)), port);
        }
        // Both uplinks equally shared; 100000 bytes more in the flow's band on its own: beyond
        // the high class's margin, within the low one's.
        rig.Queue(port, priority, 100000);
        EXPECT_EQ(rig.Send(Tensor(10, 200 * US, 100, priority, 0)), priority < 4 ? other : port);
        EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, priority < 4 ? 1u : 0u);
    }
}

TEST(TalbLbCoreTensorAwareV2, WithoutMarginMovesAQueueExcessDoesNotMoveAFlowMidTensor)
{
    // TCP's profile: a queue excess far past the margin does not move a flow mid-tensor (each
    // such move reorders it); a new flow still starts on the other port.
    for (bool marginMoves : {true, false})
    {
        TensorAwareV2::Config c;
        c.marginMoves = marginMoves;
        TalbV2Rig rig(c);
        uint32_t port = rig.Send(Tensor(10, US, 100, 1, TALB_FLAG_FIRST));
        for (int64_t t = 11 * US; t < 200 * US; t += 10 * US)
        {
            ASSERT_EQ(rig.Send(Tensor(10, t, 100, 1, 0)), port);
        }
        rig.Queue(port, 1, 1000000);
        EXPECT_EQ(rig.Send(Tensor(10, 200 * US, 100, 1, 0)), marginMoves ? 3 - port : port);
        EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, marginMoves ? 1u : 0u);
        if (!marginMoves)
        {
            EXPECT_EQ(rig.Send(Tensor(11, 210 * US, 200, 1, TALB_FLAG_FIRST)), 3 - port);
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, MarginsAreOneQueueingDelayAtAnyRate)
{
    // 100000 bytes more on the flow's port: beyond the high class's 15000 at 10 Gb/s, within
    // its 150000 at 100 Gb/s (both 12 us of queue); marginRateBps 0 keeps 15000 at any rate.
    for (uint64_t marginRate : {uint64_t(10000000000), uint64_t(0)})
    {
        for (uint64_t uplinkRate : {uint64_t(10000000000), uint64_t(100000000000)})
        {
            TensorAwareV2::Config c;
            c.marginRateBps = marginRate;
            TalbV2Rig rig(c);
            rig.leaf.state[1].rateBps = rig.leaf.state[2].rateBps = uplinkRate;
            uint32_t port = rig.Send(Tensor(10, US, 100, 1, TALB_FLAG_FIRST));
            for (int64_t t = 11 * US; t < 200 * US; t += 10 * US)
            {
                ASSERT_EQ(rig.Send(Tensor(10, t, 100, 1, 0)), port);
            }
            rig.Queue(port, 1, 100000);
            bool moves = marginRate == 0 || uplinkRate == marginRate;
            EXPECT_EQ(rig.Send(Tensor(10, 200 * US, 100, 1, 0)), moves ? 3 - port : port)
                << "margin rate " << marginRate << ", uplinks " << uplinkRate;
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, APausedFlowIsReplacedWithoutWaitingForTheInterval)
{
    TensorAwareV2::Config c;
    c.minMoveIntervalNs = 10000 * US; // ActiveWindow 100 us
    TalbV2Rig rig(c, 3);
    uint32_t shared = ShareTwoUplinks(rig, 4, 60 * US);
    // Flows 10 and 20 keep sending; flow 30 pauses for 150 us, then resumes its tensor.
    for (int64_t t = 61 * US; t < 211 * US; t += 10 * US)
    {
        rig.Send(Tensor(10, t, 100, 4, 0), {1, 2});
        rig.Send(Tensor(20, t, 200, 4, 0), {1, 2});
    }
    EXPECT_EQ(rig.talb.ActiveFlows(shared, 210 * US), 1u);
    EXPECT_EQ(rig.Send(Tensor(30, 210 * US, 300, 4, 0)), 3u);
    EXPECT_EQ(rig.talb.GetTableStats().nBoundaryMoves, 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, 0u);
}

namespace
{

/// Flow 30 shares an uplink (returned) with flow 10 or 20, then is silent mid-tensor for 3 ms (a
/// TCP retransmission timeout) while 10 and 20 keep sending: both uplinks are equally shared.
uint32_t
StallBesideTwo(TalbV2Rig& rig)
{
    uint32_t shared = ShareTwoUplinks(rig, 6, 60 * US);
    for (int64_t t = 61 * US; t < 3000 * US; t += 10 * US)
    {
        rig.Send(Tensor(10, t, 100, 6, 0), {1, 2});
        rig.Send(Tensor(20, t, 200, 6, 0), {1, 2});
    }
    return shared;
}

} // namespace

TEST(TalbLbCoreTensorAwareV2, AStalledTensorLeavesItsPortOnTies)
{
    for (int64_t stall : {int64_t(0), 2000 * US})
    {
        TensorAwareV2::Config c;
        c.stallTimeoutNs = stall;
        TalbV2Rig rig(c);
        uint32_t shared = StallBesideTwo(rig);
        uint32_t other = shared == 1 ? 2 : 1;
        EXPECT_EQ(rig.Send(Tensor(30, 3000 * US, 300, 6, 0)), stall ? other : shared);
        EXPECT_EQ(rig.talb.GetTableStats().nStallMoves, stall ? 1u : 0u);
    }
    // The bytes queued behind a stall are being retransmitted: a queue far beyond MaxReorder
    // on its port does not hold the move.
    TensorAwareV2::Config c;
    c.stallTimeoutNs = 2000 * US;
    TalbV2Rig queued(c);
    uint32_t shared = StallBesideTwo(queued);
    queued.Queue(shared, 6, 500000);
    EXPECT_EQ(queued.Send(Tensor(30, 3000 * US, 300, 6, 0)), shared == 1 ? 2u : 1u);
    EXPECT_EQ(queued.talb.GetTableStats().nStallMoves, 1u);
    EXPECT_EQ(queued.talb.GetTableStats().nReorderHeld, 0u);
    // A stalled tensor whose port is strictly less shared stays: flow 40 joined the other one.
    TalbV2Rig rig(c);
    shared = ShareTwoUplinks(rig, 6, 60 * US);
    uint32_t other = shared == 1 ? 2 : 1;
    for (int64_t t = 61 * US; t < 3000 * US; t += 10 * US)
    {
        rig.Send(Tensor(10, t, 100, 6, 0), {1, 2});
        rig.Send(Tensor(20, t, 200, 6, 0), {1, 2});
        // Placed while flow 30 still counted on its uplink, then kept there (stay on ties).
        ASSERT_EQ(rig.Send(Tensor(40, t, 400, 6, 0), {1, 2}), other);
    }
    EXPECT_EQ(rig.Send(Tensor(30, 3000 * US, 300, 6, 0)), shared);
    EXPECT_EQ(rig.talb.GetTableStats().nStallMoves, 0u);
    // A go-back-N flow is left to the safe-move rule (it would move here, drained, on a strict
    // improvement only).
    TalbV2Rig roce(c);
    uint32_t roceShared = StallBesideTwo(roce);
    EXPECT_EQ(roce.Send(GoBackN(Tensor(30, 3000 * US, 300, 6, 0))), roceShared);
    EXPECT_EQ(roce.talb.GetTableStats().nStallMoves, 0u);
    // The timeout must be off or longer than the active window (100 us).
    c.stallTimeoutNs = 100 * US;
    EXPECT_NE(TensorAwareV2::Check(c), nullptr);
}

TEST(TalbLbCoreTensorAwareV2, ATensorWhosePortFailedMovesAndLastFreesItsEntry)
{
    TalbV2Rig rig(TensorAwareV2::Config(), 3);
    uint32_t port = rig.Send(Tensor(10, US, 100, 7, TALB_FLAG_FIRST), {1, 2});
    std::vector<uint32_t> survivors =
        port == 1 ? std::vector<uint32_t>{2, 3} : std::vector<uint32_t>{1, 3};
    uint32_t moved = rig.Send(Tensor(10, 2 * US, 100, 7, 0), survivors);
    EXPECT_NE(moved, port);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(port, moved));
    rig.Send(Tensor(10, 3 * US, 100, 7, TALB_FLAG_LAST));
    const auto& s = rig.talb.GetTableStats();
    EXPECT_EQ(s.nFreedOnLast, 1u);
    EXPECT_EQ(s.nInserted, s.nFreedOnLast + s.nAgedOut + s.nEvicted + rig.talb.HeldEntries());
    EXPECT_EQ(rig.talb.LiveEntries(3 * US), 0u);
}

TEST(TalbLbCoreTensorAwareV2, AFollowedMoveCarriesTheFlowsEntryAndCount)
{
    // Another protocol (ConWeave under TaLB's RttMoves) moves flow 10 from its port to the
    // other uplink: the policy's entry and flow counts go with it, counted as a reroute, so
    // the flow's next packet stays there and a new tensor avoids the port it now shares.
    TalbV2Rig rig;
    uint32_t a = rig.Send(GoBackN(Tensor(10, US, 100, 5, TALB_FLAG_FIRST)));
    uint32_t other = a == 1 ? 2 : 1;
    rig.talb.Follow(GoBackN(Tensor(10, 2 * US, 100, 5, 0)), rig.leaf.All(), other);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(a, other));
    EXPECT_EQ(rig.talb.ActiveFlows(a, 2 * US), 0u);
    EXPECT_EQ(rig.talb.ActiveFlows(other, 2 * US), 1u);
    EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 3 * US, 100, 5, 0))), other);
    EXPECT_EQ(rig.Send(GoBackN(Tensor(20, 3 * US, 200, 5, TALB_FLAG_FIRST))), a);
    // Following the port the flow is on is no move; untagged packets and a single candidate
    // leave the policy as it was.
    rig.talb.Follow(GoBackN(Tensor(10, 4 * US, 100, 5, 0)), rig.leaf.All(), other);
    rig.talb.Follow(Untagged(30, 4 * US), rig.leaf.All(), a);
    std::vector<uint32_t> one{a};
    rig.talb.Follow(GoBackN(Tensor(10, 4 * US, 100, 5, 0)), Candidates{one.data(), 1}, a);
    EXPECT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(a, 4 * US), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(other, 4 * US), 1u);
}

TEST(TalbLbCoreTensorAwareV2, AMoveTargetIsWhereANewFlowWouldGoAndChangesNothing)
{
    // A late RTT reply (ConWeave under TaLB's RttMoveTarget=Talb) asks where flow 10 goes among
    // the paths other than its own: the one no tensor flow uses, as a new flow's placement
    // would choose. Nothing moves until Follow() says so.
    TalbV2Rig rig(TensorAwareV2::Config(), 3);
    uint32_t a = rig.Send(GoBackN(Tensor(10, US, 100, 5, TALB_FLAG_FIRST)));
    uint32_t b = rig.Send(GoBackN(Tensor(20, US, 200, 5, TALB_FLAG_FIRST)));
    ASSERT_NE(a, b);
    uint32_t unused = 6 - a - b; // ports 1-3
    std::vector<uint32_t> others;
    for (uint32_t port : rig.leaf.uplinks)
    {
        if (port != a)
        {
            others.push_back(port);
        }
    }
    PacketInfo next = GoBackN(Tensor(10, 2 * US, 100, 5, 0));
    EXPECT_EQ(rig.talb.Target(next, Candidates{others.data(), 2}), unused);
    EXPECT_TRUE(rig.events.reroutes.empty());
    EXPECT_EQ(rig.talb.ActiveFlows(a, 2 * US), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(b, 2 * US), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(unused, 2 * US), 0u);
    EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 3 * US, 100, 5, 0))), a) << "it stays until told";
    // With the unused path out (paused), the other flow's path is the only answer.
    std::vector<uint32_t> one{b};
    EXPECT_EQ(rig.talb.Target(next, Candidates{one.data(), 1}), b);
}

TEST(TalbLbCoreTensorAwareV2, UntaggedActiveSeesOnlyLiveUntaggedFlowsOnTheCandidates)
{
    TalbV2Rig rig(TensorAwareV2::Config(), 3);
    rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST), {1, 2});
    std::vector<uint32_t> low{1, 2};
    std::vector<uint32_t> third{3};
    EXPECT_FALSE(rig.talb.UntaggedActive(Candidates{low.data(), 2}, US));
    uint32_t port = rig.Send(Untagged(30, 2 * US), {1, 2});
    std::vector<uint32_t> mine{port};
    EXPECT_TRUE(rig.talb.UntaggedActive(Candidates{low.data(), 2}, 2 * US));
    EXPECT_TRUE(rig.talb.UntaggedActive(Candidates{mine.data(), 1}, 2 * US));
    EXPECT_FALSE(rig.talb.UntaggedActive(Candidates{third.data(), 1}, 2 * US));
    EXPECT_FALSE(rig.talb.UntaggedActive(Candidates{low.data(), 2}, 100000 * US)) << "aged out";
}

TEST(TalbLbCoreTensorAwareV2, UnlabelledPacketsGoToTheFallbackAndTheirFlowsCount)
{
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kNever; // tensors keep a port (placement by the flow counts)
    TalbV2Rig rig(c);
    uint32_t port = rig.Send(Untagged(30, US));
    for (int k = 2; k < 10; ++k)
    {
        EXPECT_EQ(rig.Send(Untagged(30, k * US)), port);
    }
    EXPECT_EQ(rig.talb.GetTableStats().nFallback, 9u);
    // An untagged data flow counts on its port (at untaggedPriority, 0: it is served first), so a
    // tensor avoids it; a flow of ACK-sized packets does not count.
    uint32_t other = port == 1 ? 2 : 1;
    EXPECT_EQ(rig.talb.ActiveFlows(port, 10 * US), 1u);
    PacketInfo ack = Untagged(40, 10 * US);
    ack.size = 64;
    uint32_t ackPort = rig.Send(ack);
    EXPECT_EQ(rig.talb.ActiveFlows(ackPort, 10 * US), ackPort == port ? 1u : 0u);
    EXPECT_EQ(rig.Send(Tensor(50, 11 * US, 500, 3, TALB_FLAG_FIRST)), other);
}

namespace
{

/// A fallback that always answers one port.
class FixedPort : public Policy
{
  public:
    explicit FixedPort(uint32_t port)
        : m_port(port)
    {
    }

  private:
    uint32_t DoSelect(const PacketInfo&, const Candidates&) override
    {
        return m_port;
    }

    uint32_t m_port;
};

} // namespace

TEST(TalbLbCorePolicy, AMoveTargetWithoutCostsOfItsOwnIsDrawn)
{
    // A policy that keeps no costs (here one that always answers port 1) answers Target() with
    // a uniform draw among the offered paths, the first without a random source.
    Leaf leaf(3);
    ScriptRandom random({2});
    FixedPort drawn(1);
    drawn.Bind(&leaf.table, &random, nullptr);
    EXPECT_EQ(drawn.Target(Untagged(30, US), leaf.All()), 3u);
    EXPECT_EQ(random.draws, 1u);
    FixedPort undrawn(1);
    undrawn.Bind(&leaf.table, nullptr, nullptr);
    std::vector<uint32_t> offered{2, 3};
    EXPECT_EQ(undrawn.Target(Untagged(30, US), Candidates{offered.data(), 2}), 2u);
}

TEST(TalbLbCoreTensorAwareV2, GoBackNDataHasAFallbackOfItsOwn)
{
    TalbV2Rig rig;
    FixedPort fallback(1);
    FixedPort goBackN(2);
    rig.talb.SetFallback(&fallback, &goBackN);
    EXPECT_EQ(rig.Send(GoBackN(Untagged(30, US))), 2u) << "RoCEv2 data";
    PacketInfo ack = GoBackN(Untagged(40, 2 * US));
    ack.size = TensorPolicy::kUntaggedMinBytes - 1;
    EXPECT_EQ(rig.Send(ack), 1u) << "RoCEv2 ACKs, NAKs and CNPs stay with the other fallback";
    ack.size = TensorPolicy::kUntaggedMinBytes;
    EXPECT_EQ(rig.Send(ack), 2u) << "the size bound is inclusive";
    EXPECT_EQ(rig.Send(Untagged(50, 3 * US)), 1u) << "TCP and other untagged data";
    EXPECT_EQ(rig.talb.GetTableStats().nFallback, 4u);
    EXPECT_EQ(rig.talb.GetTableStats().nGoBackNFallback, 2u);
    // A tagged RoCEv2 packet is TaLB's to place, whatever the fallbacks answer.
    rig.Send(GoBackN(Tensor(60, 4 * US, 600, 3, TALB_FLAG_FIRST)));
    EXPECT_EQ(rig.talb.GetTableStats().nFallback, 4u);
    // Without a go-back-N fallback the one fallback chooses for every untagged packet.
    rig.talb.SetFallback(&fallback);
    EXPECT_EQ(rig.Send(GoBackN(Untagged(30, 5 * US))), 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nGoBackNFallback, 2u);
}

namespace
{

/// Pace mode with the given minimum move interval.
TensorAwareV2::Config
Paced(TensorAwareV2::WindowMode mode, int64_t minMoveIntervalNs = 100 * US)
{
    TensorAwareV2::Config c;
    c.windowMode = mode;
    c.minMoveIntervalNs = minMoveIntervalNs;
    return c;
}

} // namespace

TEST(TalbLbCoreTensorAwareV2, AFlowSlowerThanTheWindowStaysOnItsPortUnderThePaceRule)
{
    // Flows 10 and 20 send every 10 us, flow 30 every 150 us (a host's fair queue serving many
    // flows): longer than the 100 us ActiveWindow. Flow 30 shares uplink 1 or 2 with one of
    // them; uplink 3 is offered at 1 ms. MinMoveInterval 10 ms: only a boundary can move it.
    for (auto mode : {TensorAwareV2::WindowMode::kFixed, TensorAwareV2::WindowMode::kPace})
    {
        const bool pace = mode == TensorAwareV2::WindowMode::kPace;
        TalbV2Rig rig(Paced(mode, 10000 * US), 3);
        uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST), {1, 2});
        uint32_t b = rig.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST), {1, 2});
        ASSERT_NE(a, b);
        uint32_t shared = rig.Send(Tensor(30, US, 300, 5, TALB_FLAG_FIRST), {1, 2});
        int64_t last = US;
        for (int64_t t = 11 * US; t < 1000 * US; t += 10 * US)
        {
            rig.Send(Tensor(10, t, 100, 5, 0), {1, 2});
            rig.Send(Tensor(20, t, 200, 5, 0), {1, 2});
            if (t - last >= 150 * US)
            {
                ASSERT_EQ(rig.Send(Tensor(30, t, 300, 5, 0), {1, 2}), shared);
                last = t;
            }
        }
        // 140 us after its last packet flow 30 still counts on its port under the pace rule
        // (window 2 x 150 us), not under the fixed 100 us window.
        EXPECT_EQ(rig.talb.ActiveFlows(shared, last + 140 * US), pace ? 2u : 1u);
        // Its next packet is mid-tensor under the pace rule (it keeps its port until the move
        // interval passes); under the fixed window it is a boundary and moves to uplink 3.
        const int64_t next = last + 150 * US;
        rig.Send(Tensor(10, next, 100, 5, 0));
        rig.Send(Tensor(20, next, 200, 5, 0));
        EXPECT_EQ(rig.Send(Tensor(30, next, 300, 5, 0)), pace ? shared : 3u);
        EXPECT_EQ(rig.talb.GetTableStats().nBoundaryMoves, pace ? 0u : 1u);
    }
}

namespace
{

/// A pace-mode rig whose uplink 2 is too slow to be chosen (a single candidate is not a
/// decision, so the rig offers two): every tensor flow goes to uplink 1.
struct OnePortPacedRig : TalbV2Rig
{
    OnePortPacedRig()
        : TalbV2Rig(Paced(TensorAwareV2::WindowMode::kPace))
    {
        leaf.state[2].rateBps = 10000000; // 10 Mb/s: 1000 x slower than uplink 1
    }

    /// Flow \p flow sends \p gaps.size() + 1 packets, from time 0, \p gaps apart.
    /// \return the time of its last packet
    int64_t Pace(uint32_t flow, std::vector<int64_t> gaps)
    {
        int64_t t = 0;
        EXPECT_EQ(Send(Tensor(flow, t, flow * 10, 5, TALB_FLAG_FIRST)), 1u);
        for (int64_t gap : gaps)
        {
            EXPECT_EQ(Send(Tensor(flow, t += gap, flow * 10, 5, 0)), 1u);
        }
        return t;
    }
};

} // namespace

TEST(TalbLbCoreTensorAwareV2, AFlowThatStopsLeavesItsPortWithinTheLongestWindow)
{
    // PaceFactor 2, ActiveWindow 100 us, MaxActiveWindow 1 ms. Every 150 us: counted for 300 us
    // after its last packet.
    {
        OnePortPacedRig rig;
        int64_t last = rig.Pace(10, std::vector<int64_t>(5, 150 * US));
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 300 * US), 1u);
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 300 * US + 1), 0u);
    }
    // Every 800 us: 2 x 800 us is capped at MaxActiveWindow.
    {
        OnePortPacedRig rig;
        int64_t last = rig.Pace(10, std::vector<int64_t>(5, 800 * US));
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 1000 * US), 1u);
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 1000 * US + 1), 0u);
    }
    // Gaps longer than the longest window are pauses, not a pace: the window stays 100 us.
    {
        OnePortPacedRig rig;
        int64_t last = rig.Pace(10, std::vector<int64_t>(3, 2000 * US));
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 100 * US), 1u);
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 100 * US + 1), 0u);
    }
    // A decaying maximum: one long gap widens the window (400 us, then 7/8 of it, 350 us), 40
    // packets 10 us apart bring it back to the ActiveWindow floor.
    {
        OnePortPacedRig rig;
        int64_t last = rig.Pace(10, {400 * US, 10 * US});
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 700 * US), 1u);
        EXPECT_EQ(rig.talb.ActiveFlows(1, last + 700 * US + 1), 0u);
        std::vector<int64_t> gaps{400 * US};
        gaps.resize(41, 10 * US);
        OnePortPacedRig steady;
        last = steady.Pace(10, gaps);
        EXPECT_EQ(steady.talb.ActiveFlows(1, last + 100 * US), 1u);
        EXPECT_EQ(steady.talb.ActiveFlows(1, last + 100 * US + 1), 0u);
    }
}

TEST(TalbLbCoreTensorAwareV2, UntaggedFlowsKeepTheFixedWindowUnderThePaceRule)
{
    // The fallback sprays untagged packets, so their gaps on a port are not a pace: an untagged
    // flow sending every 150 us counts for ActiveWindow (100 us) after each packet.
    OnePortPacedRig rig;
    uint32_t port = 0;
    for (int64_t k = 0; k <= 5; ++k)
    {
        port = rig.Send(Untagged(30, k * 150 * US));
    }
    EXPECT_EQ(rig.talb.ActiveFlows(port, 750 * US + 100 * US), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(port, 750 * US + 100 * US + 1), 0u);
}

TEST(TalbLbCoreTensorAwareV2, AFlowKeepsItsPaceWhenItLosesItsPortSlot)
{
    // Under the pace rule a flow's pace lives in its tensor entry: a port with more flows than
    // slots evicts slots, and a flow that lost its slot must not come back with the shortest
    // window (the overloaded port would then look the least shared and draw more flows).
    OnePortPacedRig rig;
    int64_t last = rig.Pace(10, std::vector<int64_t>(5, 150 * US));
    // flowSlots new flows on the same port take every slot; flow 10's (the oldest) goes.
    const uint32_t slots = TensorAwareV2::Config().flowSlots;
    for (uint32_t f = 0; f < slots; ++f)
    {
        rig.Send(Tensor(50 + f, last + 10 * US, 500 + f, 5, TALB_FLAG_FIRST));
    }
    EXPECT_EQ(rig.talb.ActiveFlows(1, last + 10 * US), slots);
    EXPECT_EQ(rig.talb.GetTableStats().nSlotOverflows, 1u);
    // 150 us on, the new flows have left (100 us windows); flow 10 is back with its 300 us one.
    EXPECT_EQ(rig.Send(Tensor(10, last + 150 * US, 100, 5, 0)), 1u);
    EXPECT_EQ(rig.talb.ActiveFlows(1, last + 150 * US + 290 * US), 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nSlotOverflows, 1u); // the expired slots were free
}

namespace
{
/// A TCP data segment of 1000 bytes ending at \p seqEnd of flow 10, tensor 100.
PacketInfo
Segment(uint32_t seqEnd, int64_t nowNs)
{
    PacketInfo p = Tensor(10, nowNs, 100, 5, 0);
    p.tcpSeqEnd = seqEnd;
    p.tcpPayload = 1000;
    return p;
}
} // namespace

TEST(TalbLbCoreTensorAwareV2, SpreadRetransmitsSendsResentBytesToTheLeastQueuedPort)
{
    for (bool spread : {false, true})
    {
        TensorAwareV2::Config c;
        c.spreadRetransmits = spread;
        c.marginMoves = false; // the queue below moves nothing by itself
        TalbV2Rig rig(c);
        const uint32_t port = rig.Send(Segment(1000, US));
        const uint32_t other = port == 1 ? 2 : 1;
        EXPECT_EQ(rig.Send(Segment(2000, 2 * US)), port);
        rig.Queue(port, 5, 200000);
        // Bytes the flow sent before: its two segments again, and part of them.
        for (uint32_t end : {1000u, 2000u, 1500u})
        {
            EXPECT_EQ(rig.Send(Segment(end, 3 * US)), spread ? other : port) << end;
        }
        // New bytes stay on the flow's port: a retransmission moves nothing.
        EXPECT_EQ(rig.Send(Segment(3000, 4 * US)), port);
        EXPECT_EQ(rig.talb.GetTableStats().nRetransmitsSpread, spread ? 3u : 0u);
        EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, 0u);
        // A control segment (no data) is no retransmission.
        PacketInfo ack = Segment(1000, 5 * US);
        ack.tcpPayload = 0;
        EXPECT_EQ(rig.Send(ack), port);
    }
}

TEST(TalbLbCoreTensorAwareV2, SpreadRetransmitsReadsSequenceNumbersModulo32Bits)
{
    TensorAwareV2::Config c;
    c.spreadRetransmits = true;
    c.marginMoves = false;
    TalbV2Rig rig(c);
    const uint32_t port = rig.Send(Segment(UINT32_MAX - 500, US));
    const uint32_t other = port == 1 ? 2 : 1;
    rig.Queue(port, 5, 200000);
    EXPECT_EQ(rig.Send(Segment(499, 2 * US)), port);               // past the wrap: new
    EXPECT_EQ(rig.Send(Segment(UINT32_MAX - 500, 3 * US)), other); // before it: resent
    EXPECT_EQ(rig.talb.GetTableStats().nRetransmitsSpread, 1u);
}

TEST(TalbLbCoreTensorAwareV2, FlowSlotsBoundWhatAPortCounts)
{
    // 20 new flows, all active, over two equal uplinks. With 32 slots each port counts every
    // flow it holds, so placement by count splits them 10/10 whatever the random ties. With the
    // default 8 both counts saturate at 8 and the flows past 16 are placed on a tie (an
    // all-to-all puts more flows than 8 on an uplink: doc/talb-evaluation.rst).
    for (uint32_t slots : {32u, 8u})
    {
        TensorAwareV2::Config c;
        c.flowSlots = slots;
        TalbV2Rig rig(c);
        uint32_t on[3] = {0, 0, 0};
        for (uint32_t f = 0; f < 20; ++f)
        {
            ++on[rig.Send(Tensor(100 + f, (f + 1) * US, 1000 + f, 5, TALB_FLAG_FIRST))];
        }
        const int64_t now = 21 * US;
        if (slots == 32)
        {
            EXPECT_EQ(on[1], 10u);
            EXPECT_EQ(on[2], 10u);
            EXPECT_EQ(rig.talb.ActiveFlows(1, now), 10u);
            EXPECT_EQ(rig.talb.GetTableStats().nSlotOverflows, 0u);
        }
        else
        {
            EXPECT_EQ(rig.talb.ActiveFlows(1, now), 8u);
            EXPECT_EQ(rig.talb.ActiveFlows(2, now), 8u);
            // Flows 17-20 each took the slot of a live flow: what tells a user to raise it.
            EXPECT_EQ(rig.talb.GetTableStats().nSlotOverflows, 4u);
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, LastEndsWindowTakesAFinishedFlowOutOfItsPortsCount)
{
    // Flows 10 and 20 take one uplink each; flow 10's message ends (LAST) at 3 us, and its port
    // has the longer queue. A new flow at 4 us: by default flow 10 still counts there for its
    // active window, the counts tie and the shorter queue wins; with LastEndsWindow its port
    // is the less shared one.
    for (bool lastEnds : {false, true})
    {
        TensorAwareV2::Config c;
        c.lastEndsWindow = lastEnds;
        TalbV2Rig rig(c);
        const uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
        const uint32_t b = rig.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST));
        ASSERT_NE(a, b);
        EXPECT_EQ(rig.Send(Tensor(10, 3 * US, 100, 5, TALB_FLAG_LAST)), a);
        rig.Queue(a, 5, 60000);
        EXPECT_EQ(rig.talb.ActiveFlows(a, 4 * US), lastEnds ? 0u : 1u);
        EXPECT_EQ(rig.Send(Tensor(30, 4 * US, 300, 5, TALB_FLAG_FIRST)), lastEnds ? a : b);
        // The flow's next message counts again: flows 10, 20 and 30 are active.
        rig.Send(Tensor(10, 5 * US, 101, 5, TALB_FLAG_FIRST));
        EXPECT_EQ(rig.talb.ActiveFlows(a, 5 * US) + rig.talb.ActiveFlows(b, 5 * US), 3u);
    }
}

TensorAwareV2::Config
EndedTieConfig(bool lastEnds, TensorAwareV2::EndedTie tie)
{
    TensorAwareV2::Config c;
    c.lastEndsWindow = lastEnds;
    c.endedTie = tie;
    return c;
}

TEST(TalbLbCoreTensorAwareV2, EndedTieBreaksTiedCountsAtAFlowsNextTensor)
{
    using Tie = TensorAwareV2::EndedTie;
    // Flows 10 and 20 take one uplink each and both messages end (LAST): neither counts. Flow
    // 10's port has the longer queue. Its next tensor: by the queue it takes flow 20's port,
    // where flow 20's next tensor then meets it; Keep and Spread leave it where it was.
    for (Tie tie : {Tie::kQueue, Tie::kKeep, Tie::kSpread})
    {
        TalbV2Rig rig(EndedTieConfig(true, tie));
        const uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
        const uint32_t b = rig.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST));
        ASSERT_NE(a, b);
        rig.Send(Tensor(10, 3 * US, 100, 5, TALB_FLAG_LAST));
        rig.Send(Tensor(20, 3 * US, 200, 5, TALB_FLAG_LAST));
        rig.Queue(a, 5, 60000);
        EXPECT_EQ(rig.Send(Tensor(10, 4 * US, 101, 5, TALB_FLAG_FIRST)),
                  tie == Tie::kQueue ? b : a);
        EXPECT_TRUE(rig.events.reroutes.empty());
    }
    // Both flows' tensors ended on one port (flow 20's packets went there by another rule, as
    // while the other uplink was down) and the other port has the longer queue: Spread and Keep
    // part them (the own port alone as the tie-break held them together).
    for (Tie tie : {Tie::kQueue, Tie::kKeep, Tie::kSpread})
    {
        TalbV2Rig rig(EndedTieConfig(true, tie));
        const uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
        const uint32_t b = a == 1 ? 2 : 1;
        rig.talb.Follow(Tensor(20, US, 200, 5, TALB_FLAG_FIRST), rig.leaf.All(), a);
        rig.Send(Tensor(10, 3 * US, 100, 5, TALB_FLAG_LAST));
        rig.talb.Follow(Tensor(20, 3 * US, 200, 5, TALB_FLAG_LAST), rig.leaf.All(), a);
        rig.Queue(b, 5, 60000);
        EXPECT_EQ(rig.Send(Tensor(10, 4 * US, 101, 5, TALB_FLAG_FIRST)),
                  tie == Tie::kQueue ? a : b);
    }
    // No other flow's tensor ended: Spread goes by the queue, Keep stays.
    for (Tie tie : {Tie::kQueue, Tie::kKeep, Tie::kSpread})
    {
        TalbV2Rig rig(EndedTieConfig(true, tie));
        const uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
        rig.Send(Tensor(10, 3 * US, 100, 5, TALB_FLAG_LAST));
        rig.Queue(a, 5, 60000);
        EXPECT_EQ(rig.Send(Tensor(10, 4 * US, 101, 5, TALB_FLAG_FIRST)) == a, tie == Tie::kKeep);
    }
    // The counts still come first: flow 30 joins the old port, and the next tensor goes to the
    // other one however long its queue. Without LastEndsWindow the flow never left its port's
    // count and keeps it (the counts tie there).
    for (bool lastEnds : {false, true})
    {
        TalbV2Rig rig(EndedTieConfig(lastEnds, Tie::kKeep));
        const uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
        const uint32_t b = rig.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST));
        rig.Send(Tensor(10, 3 * US, 100, 5, TALB_FLAG_LAST));
        rig.Send(Tensor(20, 3 * US, 200, 5, TALB_FLAG_LAST));
        const uint32_t with30 = rig.Send(Tensor(30, 3 * US, 300, 5, 0));
        const uint32_t other = with30 == a ? b : a;
        rig.Queue(other, 5, 60000);
        const uint32_t flow = with30 == a ? 10 : 20;
        EXPECT_EQ(rig.Send(Tensor(flow, 4 * US, 101, 5, TALB_FLAG_FIRST)),
                  lastEnds ? other : with30);
    }
}

TEST(TalbLbCoreTensorAwareV2, SprayWithUntaggedSpreadsTensorsOnlyWhileUntaggedFlowsAreActive)
{
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kWithUntagged;
    TalbV2Rig rig(c);
    // No untagged traffic: a tensor flow keeps one port whatever the queues.
    uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
    uint32_t other = a == 1 ? 2 : 1;
    rig.Queue(a, 5, 8000);
    EXPECT_EQ(rig.Send(Tensor(10, 2 * US, 100, 5, 0)), a);
    // An untagged data flow active on the uplinks: each packet takes the port with the fewest
    // bytes queued at or above its priority, not a reroute.
    rig.Send(Untagged(30, 3 * US));
    rig.Queue(a, 5, 8000);
    rig.Queue(other, 5, 0);
    EXPECT_EQ(rig.Send(Tensor(10, 4 * US, 100, 5, 0)), other);
    rig.Queue(other, 5, 9000);
    EXPECT_EQ(rig.Send(Tensor(10, 5 * US, 100, 5, 0)), a);
    EXPECT_TRUE(rig.events.reroutes.empty());
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 2u);
    // Bytes in lower bands do not count (strict priority serves the tensor first).
    rig.Queue(a, 7, 500000);
    rig.Queue(other, 5, 9000);
    EXPECT_EQ(rig.Send(Tensor(10, 6 * US, 100, 5, 0)), a);
    // Once the untagged flow has been silent longer than the active window, the flow keeps a
    // port again (by the placement rules).
    rig.Queue(a, 5, 0);
    rig.Queue(other, 5, 0);
    uint32_t kept = rig.Send(Tensor(10, 300 * US, 100, 5, 0));
    rig.Queue(kept, 5, 10000);
    EXPECT_EQ(rig.Send(Tensor(10, 301 * US, 100, 5, 0)), kept);
    // Go-back-N flows never spray, also where SafeMoves covers none of them (they then move as
    // TCP flows do), and Spray::kAlways sprays without untagged traffic.
    auto roceStays = [](const TensorAwareV2::Config& config) {
        TalbV2Rig roce(config);
        PacketInfo r = Tensor(40, US, 400, 5, TALB_FLAG_FIRST);
        r.goBackN = true;
        roce.Send(Untagged(31, US));
        uint32_t rp = roce.Send(r);
        roce.Queue(rp, 5, 50000);
        r.nowNs = 2 * US;
        r.label.flags = 0;
        return roce.Send(r) == rp && roce.talb.GetTableStats().nSprayed == 0;
    };
    EXPECT_TRUE(roceStays(c));
    TensorAwareV2::Config never = c;
    never.safeMoves = TensorAwareV2::SafeMoves::kNever;
    EXPECT_TRUE(roceStays(never));
    c.spray = TensorAwareV2::Spray::kAlways;
    TalbV2Rig always(c);
    uint32_t p = always.Send(Tensor(50, US, 500, 5, TALB_FLAG_FIRST));
    always.Queue(p, 5, 8000);
    EXPECT_NE(always.Send(Tensor(50, 2 * US, 500, 5, 0)), p);
}

TEST(TalbLbCoreTensorAwareV2, SelectiveRepeatRoceFlowsSprayAndMoveAsTcpFlows)
{
    // RoceGoBackN=false (NICs with selective repeat): a RoCEv2 flow sprays while an untagged
    // flow shares the ports, as a TCP flow does, where the default keeps it on its port.
    auto sprays = [](bool roceGoBackN) {
        TensorAwareV2::Config c;
        c.roceGoBackN = roceGoBackN;
        TalbV2Rig rig(c);
        rig.Send(Untagged(31, US));
        uint32_t port = rig.Send(GoBackN(Tensor(40, US, 400, 5, TALB_FLAG_FIRST)));
        rig.Queue(port, 5, 50000);
        return rig.Send(GoBackN(Tensor(40, 2 * US, 400, 5, 0))) != port &&
               rig.talb.GetTableStats().nSprayed == 2;
    };
    EXPECT_FALSE(sprays(true));
    EXPECT_TRUE(sprays(false));

    // Its moves are TCP's: no wait for the old path to drain (SafeMoves covers go-back-N flows).
    TensorAwareV2::Config c;
    c.safeSlackNs = 20 * US;
    c.spray = TensorAwareV2::Spray::kNever;
    c.roceGoBackN = false;
    TalbV2Rig rdma(c, 3);
    ShareTwoQueuedUplinks(rdma, true);
    EXPECT_EQ(rdma.Send(GoBackN(Tensor(30, 200 * US, 300, 7, 0))), 3u);
    EXPECT_EQ(rdma.talb.GetTableStats().nUndrainedHeld, 0u);

    // Its untagged data takes the one fallback, not the go-back-N one.
    TalbV2Rig rig(c);
    FixedPort fallback(1);
    FixedPort goBackN(2);
    rig.talb.SetFallback(&fallback, &goBackN);
    EXPECT_EQ(rig.Send(GoBackN(Untagged(30, US))), 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nGoBackNFallback, 0u);
}

TEST(TalbLbCoreTensorAwareV2, ContendedSpraysWhileAnotherJobsTensorFlowSharesThePorts)
{
    TalbV2Rig rig; // Spray::kContended, the default
    const uint32_t job1 = talb_make_tensor_id(1, 100);
    const uint32_t job1b = talb_make_tensor_id(1, 200);
    const uint32_t job2 = talb_make_tensor_id(2, 300);
    // Two flows of one job: placed on a port each, kept whatever the queues (mid-tensor, within
    // the move interval).
    uint32_t a = rig.Send(Tensor(10, US, job1, 5, TALB_FLAG_FIRST));
    uint32_t b = rig.Send(Tensor(20, US, job1b, 5, TALB_FLAG_FIRST));
    ASSERT_NE(a, b);
    rig.Queue(a, 5, 8000);
    EXPECT_EQ(rig.Send(Tensor(10, 2 * US, job1, 5, 0)), a);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 0u);
    // A flow of another job on the ports: every packet takes the least queued port.
    rig.Send(Tensor(30, 3 * US, job2, 5, TALB_FLAG_FIRST));
    EXPECT_EQ(rig.Send(Tensor(10, 4 * US, job1, 5, 0)), b);
    rig.Queue(b, 5, 9000);
    EXPECT_EQ(rig.Send(Tensor(10, 5 * US, job1, 5, 0)), a);
    EXPECT_TRUE(rig.events.reroutes.empty());
    // WithUntagged ignores other jobs.
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kWithUntagged;
    TalbV2Rig untagged(c);
    uint32_t p = untagged.Send(Tensor(10, US, job1, 5, TALB_FLAG_FIRST));
    untagged.Send(Tensor(30, US, job2, 5, TALB_FLAG_FIRST));
    untagged.Queue(p, 5, 8000);
    EXPECT_EQ(untagged.Send(Tensor(10, 2 * US, job1, 5, 0)), p);
    EXPECT_EQ(untagged.talb.GetTableStats().nSprayed, 0u);
}

namespace
{

/// The remote congestion of each uplink's path, set by the test.
struct FakeCongestion : public TensorAwareV2::RemoteView
{
    double utilisation[4]{};
    int64_t delayNs[4]{};

    double Congestion(uint32_t port, uint32_t /* dstLeaf */, int64_t /* nowNs */) const override
    {
        return utilisation[port];
    }

    int64_t QueueDelayNs(uint32_t port, uint32_t /* dstLeaf */, int64_t /* nowNs */) const override
    {
        return delayNs[port];
    }

    bool DestinationShared(uint32_t /* dstLeaf */, int64_t /* nowNs */) const override
    {
        return shared;
    }

    bool shared{false};
};

/// Moves=Congestion on three uplinks with the remote view \p remote.
struct CongestionRig : TalbV2Rig
{
    static TensorAwareV2::Config Make()
    {
        TensorAwareV2::Config c;
        c.moves = TensorAwareV2::Moves::kCongestion;
        return c;
    }

    explicit CongestionRig(const FakeCongestion* remote, const TensorAwareV2::Config& c = Make())
        : TalbV2Rig(c, 3)
    {
        talb.SetRemote(remote);
    }

    /// Flow \p flow sends a 1500-byte packet every \p gapNs over [\p from, \p to); \return its
    /// last port
    uint32_t Stream(uint32_t flow, int64_t from, int64_t to, int64_t gapNs)
    {
        uint32_t port = 0;
        for (int64_t t = from; t < to; t += gapNs)
        {
            port = Send(GoBackN(Tensor(flow, t, flow * 10, 5, t == from ? TALB_FLAG_FIRST : 0)));
        }
        return port;
    }
};

} // namespace

TEST(TalbLbCoreTensorAwareV2, CrowdedSpraysWhileTheCandidatesHoldMoreFlowsThanPorts)
{
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kCrowded;
    TalbV2Rig rig(c);
    const uint32_t t1 = talb_make_tensor_id(1, 100);
    const uint32_t t2 = talb_make_tensor_id(1, 200);
    const uint32_t t3 = talb_make_tensor_id(1, 300);
    // One job, two flows on two uplinks: each keeps a port of its own whatever the queues.
    uint32_t a = rig.Send(Tensor(10, US, t1, 5, TALB_FLAG_FIRST));
    uint32_t b = rig.Send(Tensor(20, US, t2, 5, TALB_FLAG_FIRST));
    ASSERT_NE(a, b);
    rig.Queue(a, 5, 8000);
    EXPECT_EQ(rig.Send(Tensor(10, 2 * US, t1, 5, 0)), a);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 0u);
    // A third flow of the same job: more flows than ports, so no placement gives each a port;
    // every packet takes the least queued port (Contended would keep them whole: one job).
    rig.Send(Tensor(30, 3 * US, t3, 5, TALB_FLAG_FIRST));
    rig.Queue(b, 5, 0);
    EXPECT_EQ(rig.Send(Tensor(10, 4 * US, t1, 5, 0)), b);
    rig.Queue(b, 5, 9000);
    EXPECT_EQ(rig.Send(Tensor(10, 5 * US, t1, 5, 0)), a);
    EXPECT_TRUE(rig.events.reroutes.empty());
    const uint64_t sprayed = rig.talb.GetTableStats().nSprayed;
    EXPECT_GE(sprayed, 2u);
    EXPECT_EQ(rig.talb.GetTableStats().nCrowdSprayed, sprayed); // one job: never contended
    // Once the crowd has paused longer than the active window, one flow alone keeps a port.
    rig.Queue(a, 5, 0);
    rig.Queue(b, 5, 0);
    uint32_t kept = rig.Send(Tensor(10, 400 * US, t1, 5, 0));
    rig.Queue(kept, 5, 10000);
    EXPECT_EQ(rig.Send(Tensor(10, 401 * US, t1, 5, 0)), kept);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, sprayed);

    // Two flows a port allowed: the same three flows keep whole ports.
    c.crowdFlowsPerPort = 2;
    TalbV2Rig roomy(c);
    uint32_t p = roomy.Send(Tensor(10, US, t1, 5, TALB_FLAG_FIRST));
    roomy.Send(Tensor(20, US, t2, 5, TALB_FLAG_FIRST));
    roomy.Send(Tensor(30, US, t3, 5, TALB_FLAG_FIRST));
    roomy.Queue(p, 5, 8000);
    EXPECT_EQ(roomy.Send(Tensor(10, 2 * US, t1, 5, 0)), p);
    EXPECT_EQ(roomy.talb.GetTableStats().nSprayed, 0u);
}

TEST(TalbLbCoreTensorAwareV2, SprayToASharedDestinationFollowsTheRemoteReport)
{
    // Spray::kSharedDestination: a tensor flow sprays while the remote view reports that its
    // destination leaf receives two jobs' traffic, and keeps one port otherwise; without a
    // remote view it never sprays.
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kSharedDestination;
    FakeCongestion remote;
    TalbV2Rig rig(c);
    rig.talb.SetRemote(&remote);
    uint32_t a = rig.Send(Tensor(10, US, 100, 5, TALB_FLAG_FIRST));
    uint32_t other = a == 1 ? 2 : 1;
    rig.Queue(a, 5, 8000);
    EXPECT_EQ(rig.Send(Tensor(10, 2 * US, 100, 5, 0)), a);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 0u);
    remote.shared = true;
    rig.Queue(other, 5, 0);
    EXPECT_EQ(rig.Send(Tensor(10, 3 * US, 100, 5, 0)), other);
    rig.Queue(other, 5, 9000);
    EXPECT_EQ(rig.Send(Tensor(10, 4 * US, 100, 5, 0)), a);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 2u);
    EXPECT_TRUE(rig.events.reroutes.empty());
    remote.shared = false;
    uint32_t kept = rig.Send(Tensor(10, 5 * US, 100, 5, 0));
    rig.Queue(kept, 5, 20000);
    EXPECT_EQ(rig.Send(Tensor(10, 6 * US, 100, 5, 0)), kept);
    EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 2u);

    TalbV2Rig alone(c); // no remote view
    uint32_t p = alone.Send(Tensor(20, US, 200, 5, TALB_FLAG_FIRST));
    alone.Queue(p, 5, 8000);
    EXPECT_EQ(alone.Send(Tensor(20, 2 * US, 200, 5, 0)), p);
    EXPECT_EQ(alone.talb.GetTableStats().nSprayed, 0u);
}

TEST(TalbLbCoreTensorAwareV2, UnderMovesCongestionASlowFlowLeavesASaturatedPathAtOnce)
{
    FakeCongestion remote;
    CongestionRig rig(&remote);
    // 1.2 Gb/s on a 10 Gb/s uplink: slow (below 0.3 x 10 Gb/s); its first 100 us window is
    // measured at its packet of 111 us.
    uint32_t a = rig.Stream(10, US, 121 * US, 10 * US);
    ASSERT_TRUE(rig.events.reroutes.empty());
    uint32_t least = a == 3 ? 2 : 3;
    uint32_t other = 6 - a - least;
    remote.utilisation[a] = 1.0;
    remote.utilisation[least] = 0.25;
    remote.utilisation[other] = 0.5;
    // A go-back-N flow, but the move does not wait for its old path to drain.
    EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 121 * US, 100, 5, 0))), least);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.events.reroutes[0], std::make_pair(a, least));
    EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 1u);
    // Its rate is measured afresh on the new path: it stays until a window has passed there
    // (at 221 us), then leaves the path once that is reported saturated.
    remote.utilisation[least] = 1.0;
    remote.utilisation[a] = 0.0;
    EXPECT_EQ(rig.Stream(10, 131 * US, 231 * US, 10 * US), least);
    EXPECT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 231 * US, 100, 5, 0))), a);
    EXPECT_EQ(rig.events.reroutes.size(), 2u);
}

TEST(TalbLbCoreTensorAwareV2, UnderCongestionWaitBelowAnUrgentFlowMovesOnlyOnceItsPortDrained)
{
    // The slow flow of the test above (priority 5, go-back-N): with CongestionWaitBelow above
    // its priority it keeps its saturated path while it sends, and moves once its last packet
    // has left the port and the slack passed; at or below its priority it moves at once, and so
    // it does while an untagged flow is active (SafeMoves GoBackNUnlessUntagged, the default).
    for (uint8_t waitBelow : {6, 5})
    {
        for (bool untagged : {false, true})
        {
            TensorAwareV2::Config c = CongestionRig::Make();
            c.congestionWaitBelow = waitBelow;
            c.safeSlackNs = 20 * US;
            FakeCongestion remote;
            CongestionRig rig(&remote, c);
            uint32_t a = rig.Stream(10, US, 121 * US, 10 * US);
            uint32_t least = a == 3 ? 2 : 3;
            remote.utilisation[a] = 1.0;
            remote.utilisation[least] = 0.25;
            remote.utilisation[6 - a - least] = 0.5;
            if (untagged)
            {
                rig.Send(Untagged(40, 120 * US));
            }
            uint32_t port = rig.Send(GoBackN(Tensor(10, 121 * US, 100, 5, 0)));
            if (waitBelow == 5 || untagged)
            {
                EXPECT_EQ(port, least);
                EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 1u);
                continue;
            }
            EXPECT_EQ(port, a) << "held: its packets are still queued on its port";
            EXPECT_EQ(rig.talb.GetTableStats().nUndrainedHeld, 1u);
            EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 131 * US, 100, 5, 0))), a) << "within the slack";
            EXPECT_TRUE(rig.events.reroutes.empty());
            // Silent since 131 us: drained at 132.2 us, the slack passed at 152.2 us.
            EXPECT_EQ(rig.Send(GoBackN(Tensor(10, 160 * US, 100, 5, 0))), least);
            EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 1u);
            ASSERT_EQ(rig.events.reroutes.size(), 1u);
            EXPECT_EQ(rig.events.reroutes[0], std::make_pair(a, least));
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, UnderMovesCongestionFastFlowsAndFullTargetsKeepTheirPort)
{
    // A flow at 6 Gb/s (above 0.3 x 10 Gb/s) on a saturated path stays.
    FakeCongestion remote;
    CongestionRig fast(&remote);
    uint32_t a = fast.Stream(10, US, 101 * US, 2 * US);
    remote.utilisation[a] = 1.0;
    EXPECT_EQ(fast.Stream(10, 103 * US, 400 * US, 2 * US), a);
    EXPECT_TRUE(fast.events.reroutes.empty());
    // A slow flow stays when every other path reports more than CongestionTarget (0.75).
    FakeCongestion busy;
    CongestionRig full(&busy);
    uint32_t b = full.Stream(10, US, 101 * US, 10 * US);
    for (double& u : busy.utilisation)
    {
        u = 0.875;
    }
    busy.utilisation[b] = 1.0;
    EXPECT_EQ(full.Stream(10, 111 * US, 400 * US, 10 * US), b);
    EXPECT_TRUE(full.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAwareV2, UnderACongestionDelayASaturatedPathMustAlsoQueue)
{
    // A slow flow on a saturated path: with CongestionDelay=20us it stays while neither the
    // reported delay along the path nor its uplink's queue reaches 20 us, and leaves once
    // either does; without it (0), saturation alone moves it.
    TensorAwareV2::Config c = CongestionRig::Make();
    c.congestionDelayNs = 20 * US;
    FakeCongestion remote;
    TalbV2Rig rig(c, 3);
    rig.talb.SetRemote(&remote);
    auto stream = [&rig](int64_t from, int64_t to) {
        uint32_t port = 0;
        for (int64_t t = from; t < to; t += 10 * US)
        {
            port = rig.Send(GoBackN(Tensor(10, t, 100, 5, t == US ? TALB_FLAG_FIRST : 0)));
        }
        return port;
    };
    uint32_t a = stream(US, 121 * US);
    uint32_t least = a == 3 ? 2 : 3;
    remote.utilisation[a] = 1.0;
    remote.utilisation[least] = 0.25;
    remote.utilisation[6 - a - least] = 0.5;
    remote.delayNs[a] = 19 * US;
    rig.leaf.state[a].queueBytes = 15000; // 12 us at 10 Gb/s
    EXPECT_EQ(stream(121 * US, 401 * US), a);
    EXPECT_TRUE(rig.events.reroutes.empty());
    rig.leaf.state[a].queueBytes = 25000; // 20 us: the uplink's own queue is enough
    EXPECT_EQ(stream(401 * US, 411 * US), least);
    ASSERT_EQ(rig.events.reroutes.size(), 1u);
    EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 1u);

    // The reported delay along the path is enough too.
    FakeCongestion far;
    TalbV2Rig other(c, 3);
    other.talb.SetRemote(&far);
    uint32_t b = 0;
    for (int64_t t = US; t < 121 * US; t += 10 * US)
    {
        b = other.Send(GoBackN(Tensor(10, t, 100, 5, t == US ? TALB_FLAG_FIRST : 0)));
    }
    far.utilisation[b] = 1.0;
    far.delayNs[b] = 20 * US;
    EXPECT_NE(other.Send(GoBackN(Tensor(10, 121 * US, 100, 5, 0))), b);
    EXPECT_EQ(other.talb.GetTableStats().nCongestionMoves, 1u);

    c.congestionDelayNs = -1;
    EXPECT_NE(TensorAwareV2::Check(c), nullptr);
}

TEST(TalbLbCoreTensorAwareV2, UnderCongestionPickLeastSharedASlowFlowAvoidsAnotherFlowsPath)
{
    // Flows 10 and 11 on two of three uplinks; flow 10's path saturates, the other two report
    // 0.25 (flow 11's) and 0.5, both under CongestionTarget. LeastCongested moves flow 10 onto
    // flow 11's path; LeastShared onto the one no flow holds, as flows that leave a path
    // together then spread instead of meeting on the least utilised one.
    for (auto pick : {TensorAwareV2::CongestionPick::kLeastCongested,
                      TensorAwareV2::CongestionPick::kLeastShared})
    {
        FakeCongestion remote;
        TensorAwareV2::Config c = CongestionRig::Make();
        c.congestionPick = pick;
        CongestionRig rig(&remote, c);
        auto both = [&rig](int64_t from, int64_t to, uint32_t* a, uint32_t* b) {
            for (int64_t t = from; t < to; t += 10 * US)
            {
                *a = rig.Send(GoBackN(Tensor(10, t, 100, 5, t == US ? TALB_FLAG_FIRST : 0)));
                *b = rig.Send(
                    GoBackN(Tensor(11, t + 5 * US, 110, 5, t == US ? TALB_FLAG_FIRST : 0)));
            }
        };
        uint32_t a = 0;
        uint32_t b = 0;
        both(US, 121 * US, &a, &b);
        ASSERT_NE(a, b);
        const uint32_t free = 6 - a - b; // uplinks 1-3
        remote.utilisation[a] = 1.0;
        remote.utilisation[b] = 0.25;
        remote.utilisation[free] = 0.5;
        uint32_t a2 = 0;
        uint32_t b2 = 0;
        both(121 * US, 401 * US, &a2, &b2);
        EXPECT_EQ(b2, b);
        EXPECT_EQ(a2, pick == TensorAwareV2::CongestionPick::kLeastShared ? free : b);
        EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 1u);
    }
}

TEST(TalbLbCoreTensorAwareV2, UnderRateKeyHostPairQueuePairsOfAFastConnectionStay)
{
    // One connection spread over four queue pairs with their own source ports (flows 10-13,
    // one host pair): 1.2 Gb/s each, slow alone, 4.8 Gb/s together (above 0.3 x 10 Gb/s).
    // Every path but one reports saturation: judged per flow, the queue pairs leave their
    // paths (a go-back-N window each); judged per host pair, none does.
    for (auto key : {TensorAwareV2::RateKey::kFlow, TensorAwareV2::RateKey::kHostPair})
    {
        FakeCongestion remote;
        TensorAwareV2::Config c = CongestionRig::Make();
        c.rateKey = key;
        TalbV2Rig rig(c, 3);
        rig.talb.SetRemote(&remote);
        auto send = [&rig](uint32_t qp, int64_t t) {
            PacketInfo p = GoBackN(Tensor(10 + qp, t, 100 + qp, 5, 0));
            p.srcHost = 7;
            p.dstHost = 9;
            return rig.Send(p);
        };
        uint32_t ports[4];
        int64_t t = US;
        for (; t < 121 * US; t += 10 * US)
        {
            for (uint32_t qp = 0; qp < 4; ++qp)
            {
                ports[qp] = send(qp, t + qp * 2500);
            }
        }
        ASSERT_TRUE(rig.events.reroutes.empty());
        remote.utilisation[1] = 1.0;
        remote.utilisation[2] = 1.0;
        remote.utilisation[3] = 0.25;
        bool onSaturated = ports[0] != 3 || ports[1] != 3 || ports[2] != 3 || ports[3] != 3;
        ASSERT_TRUE(onSaturated) << "the placement put every queue pair on the free path";
        for (; t < 400 * US; t += 10 * US)
        {
            for (uint32_t qp = 0; qp < 4; ++qp)
            {
                send(qp, t + qp * 2500);
            }
        }
        if (key == TensorAwareV2::RateKey::kFlow)
        {
            EXPECT_FALSE(rig.events.reroutes.empty());
        }
        else
        {
            EXPECT_TRUE(rig.events.reroutes.empty());
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, UnderMovesCongestionFlowCountsOnlyPlaceFlows)
{
    // Three flows on uplinks 1-2, then all three uplinks offered: under Counts the flow sharing
    // an uplink moves to the free one at its next tensor; under Congestion it stays (its path is
    // not reported congested), while a new flow is still placed by the counts (on the free one).
    for (bool congestion : {false, true})
    {
        FakeCongestion remote;
        TensorAwareV2::Config c;
        if (congestion)
        {
            c.moves = TensorAwareV2::Moves::kCongestion;
        }
        TalbV2Rig rig(c, 3);
        rig.talb.SetRemote(&remote);
        uint32_t shared = ShareTwoUplinks(rig, 5, 100 * US);
        EXPECT_EQ(rig.Send(Tensor(30, 100 * US, 301, 5, TALB_FLAG_FIRST)), congestion ? shared : 3u)
            << (congestion ? "Congestion" : "Counts");
        if (congestion)
        {
            EXPECT_EQ(rig.Send(Tensor(40, 101 * US, 400, 5, TALB_FLAG_FIRST)), 3u);
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, UnderMovesContendedCountsMoveOneJobAndCongestionSharedPorts)
{
    // One job: as Counts, the flow sharing an uplink moves to the free one at its next tensor.
    FakeCongestion remote;
    TensorAwareV2::Config c;
    c.moves = TensorAwareV2::Moves::kContended;
    c.spray = TensorAwareV2::Spray::kNever; // (Spray=Contended would spread these TCP flows)
    TalbV2Rig alone(c, 3);
    alone.talb.SetRemote(&remote);
    ShareTwoUplinks(alone, 5, 100 * US);
    EXPECT_EQ(alone.Send(Tensor(30, 100 * US, 301, 5, TALB_FLAG_FIRST)), 3u);
    // Another job's tensor flow joins the other of uplinks 1-2: the candidates are contended,
    // so as Congestion the flow stays although uplink 3 is free.
    TalbV2Rig shared(c, 3);
    shared.talb.SetRemote(&remote);
    uint32_t port = ShareTwoUplinks(shared, 5, 100 * US);
    const uint32_t otherJob = talb_make_tensor_id(1, 400);
    EXPECT_EQ(shared.Send(Tensor(40, 99 * US, otherJob, 5, TALB_FLAG_FIRST), {3 - port, port}),
              3 - port);
    EXPECT_EQ(shared.Send(Tensor(30, 100 * US, 301, 5, TALB_FLAG_FIRST)), port);
    EXPECT_TRUE(shared.events.reroutes.empty());
}

TEST(TalbLbCoreTensorAwareV2, UnderMovesCongestionQueueMovesKeepTheQueueMarginMove)
{
    // A flow alone on its uplink with 100000 bytes more in its band there than on the other
    // (equally shared) one: the counts move it (QueueMovesUseTheClassMargin); under the
    // congestion rule it stays, unless queueMoves keeps that move.
    for (bool queueMoves : {false, true})
    {
        FakeCongestion remote;
        TensorAwareV2::Config c;
        c.moves = TensorAwareV2::Moves::kCongestion;
        c.queueMoves = queueMoves;
        TalbV2Rig rig(c);
        rig.talb.SetRemote(&remote);
        uint32_t port = rig.Send(Tensor(10, US, 100, 1, TALB_FLAG_FIRST));
        uint32_t other = port == 1 ? 2 : 1;
        for (int64_t t = 11 * US; t < 200 * US; t += 10 * US)
        {
            ASSERT_EQ(rig.Send(Tensor(10, t, 100, 1, 0)), port);
        }
        rig.Queue(port, 1, 100000);
        EXPECT_EQ(rig.Send(Tensor(10, 200 * US, 100, 1, 0)), queueMoves ? other : port)
            << (queueMoves ? "queueMoves" : "congestion only");
        EXPECT_EQ(rig.talb.GetTableStats().nMidTensorMoves, queueMoves ? 1u : 0u);
        EXPECT_EQ(rig.talb.GetTableStats().nCongestionMoves, 0u) << "a queue move";
    }
}

TEST(TalbLbCoreTensorAwareV2, RemoteSprayChargesSaturatedPathsAndLeavesPlacementLocal)
{
    const uint32_t job1 = talb_make_tensor_id(1, 100);
    const uint32_t job2 = talb_make_tensor_id(2, 300);
    // Two jobs' flows on the uplinks (Spray=Contended): each packet of flow 10 takes the least
    // queued uplink; with remoteSprayBytes, a path reported saturated counts that much more
    // queue. (remotePlacement off: only spraying reads the view.)
    for (double penalty : {0.0, 30000.0})
    {
        FakeCongestion remote;
        TensorAwareV2::Config c;
        c.remoteSprayBytes = penalty;
        c.remotePlacement = false;
        TalbV2Rig rig(c);
        rig.talb.SetRemote(&remote);
        rig.Send(Tensor(10, US, job1, 5, TALB_FLAG_FIRST));
        rig.Send(Tensor(30, US, job2, 5, TALB_FLAG_FIRST));
        rig.Queue(1, 5, 0);
        rig.Queue(2, 5, 29000);
        remote.utilisation[1] = 1.0;
        remote.utilisation[2] = 0.875;
        EXPECT_EQ(rig.Send(Tensor(10, 2 * US, job1, 5, 0)), penalty > 0 ? 2u : 1u) << penalty;
        // More local queue than the penalty: the saturated path again.
        rig.Queue(2, 5, 31000);
        EXPECT_EQ(rig.Send(Tensor(10, 3 * US, job1, 5, 0)), 1u) << penalty;
        // Both reported saturated: the queues decide.
        rig.Queue(2, 5, 1000);
        rig.Queue(1, 5, 2000);
        remote.utilisation[2] = 1.0;
        EXPECT_EQ(rig.Send(Tensor(10, 4 * US, job1, 5, 0)), 2u) << penalty;
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 4u); // flow 30's first packet too
    }
    // Background alone (an untagged flow) spreads the flow too, but only the queues decide: the
    // report stands for other jobs' flows.
    {
        FakeCongestion remote;
        TensorAwareV2::Config c;
        c.remoteSprayBytes = 30000;
        TalbV2Rig rig(c);
        rig.talb.SetRemote(&remote);
        rig.Send(Tensor(10, US, job1, 5, TALB_FLAG_FIRST));
        rig.Send(Untagged(30, US));
        rig.Queue(1, 5, 0);
        rig.Queue(2, 5, 9000);
        remote.utilisation[1] = 1.0;
        EXPECT_EQ(rig.Send(Tensor(10, 2 * US, job1, 5, 0)), 1u);
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 1u);
    }
    // Placement (one job, nothing sprayed): with remotePlacement off the saturated path is not
    // charged, so new flows land on it as often as on the other; with it on, never.
    for (bool remotePlacement : {false, true})
    {
        FakeCongestion remote;
        remote.utilisation[1] = 1.0;
        TensorAwareV2::Config c;
        c.remoteSprayBytes = 30000;
        c.remotePlacement = remotePlacement;
        TalbV2Rig rig(c);
        rig.talb.SetRemote(&remote);
        uint32_t onSaturated = 0;
        for (uint32_t flow = 1; flow <= 40; ++flow)
        {
            // 1 ms apart: each alone on the uplinks (100 us windows)
            int64_t t = flow * 1000 * US;
            onSaturated += rig.Send(Tensor(flow, t, flow, 5, TALB_FLAG_FIRST)) == 1u ? 1 : 0;
        }
        if (remotePlacement)
        {
            EXPECT_EQ(onSaturated, 0u);
        }
        else
        {
            EXPECT_GT(onSaturated, 5u);
            EXPECT_LT(onSaturated, 35u);
        }
    }
}

TEST(TalbLbCoreTensorAwareV2, SprayQueueCountsEveryBandWhileAnotherJobShares)
{
    using Q = TensorAwareV2::SprayQueue;
    const uint32_t job1 = talb_make_tensor_id(1, 100);
    const uint32_t job2 = talb_make_tensor_id(2, 300);
    // A priority 2 packet: uplink 1 holds 20000 bytes of priority 6 (strict priority serves the
    // packet first there), uplink 2 5000 bytes of priority 2 (it waits behind them). Its own
    // wait picks uplink 1; the load the packets add downstream picks uplink 2.
    auto sprayed = [&](Q queue, bool otherJob) {
        TensorAwareV2::Config c;
        c.sprayQueue = queue;
        TalbV2Rig rig(c);
        rig.Send(Tensor(10, US, job1, 2, TALB_FLAG_FIRST));
        if (otherJob)
        {
            rig.Send(Tensor(30, US, job2, 5, TALB_FLAG_FIRST));
        }
        else
        {
            rig.Send(Untagged(30, US)); // background: the flow is sprayed all the same
        }
        rig.Queue(1, 6, 20000);
        rig.Queue(2, 2, 5000);
        uint32_t port = rig.Send(Tensor(10, 2 * US, job1, 2, 0));
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, otherJob ? 2u : 1u);
        return port;
    };
    for (bool otherJob : {false, true})
    {
        EXPECT_EQ(sprayed(Q::kAtOrAbove, otherJob), 1u) << otherJob;
        EXPECT_EQ(sprayed(Q::kAll, otherJob), 2u) << otherJob;
        EXPECT_EQ(sprayed(Q::kAllWhenShared, otherJob), otherJob ? 2u : 1u) << otherJob;
    }
    EXPECT_EQ(TensorAwareV2::Config().sprayQueue, Q::kAllWhenShared);
}

TEST(TalbLbCoreTensorAwareV2, SprayQueueAtOrAboveThenAllBreaksTiesByEveryBand)
{
    using Q = TensorAwareV2::SprayQueue;
    // Sprayed priority 2 packets; uplink 1 holds 20000 bytes of priority 6, uplink 2 holds
    // \p bytes2 of priority \p band2 (and nothing else). Returns how many of 200 go to uplink 1.
    auto onFirst = [](Q queue, uint8_t band2, uint64_t bytes2) {
        TensorAwareV2::Config c;
        c.spray = TensorAwareV2::Spray::kAlways;
        c.sprayQueue = queue;
        TalbV2Rig rig(c);
        rig.Queue(1, 6, 20000);
        rig.Queue(2, band2, bytes2);
        uint32_t n = 0;
        for (int k = 0; k < 200; ++k)
        {
            n += rig.Send(Tensor(10, US + k * US, 100, 2, k == 0 ? TALB_FLAG_FIRST : 0)) == 1u;
        }
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 200u);
        return n;
    };
    // Nothing at or above priority 2 on either uplink: AtOrAbove draws between them, blind to
    // the 20000 bytes that fill uplink 1's buffer; AtOrAboveThenAll takes the emptier uplink.
    uint32_t drawn = onFirst(Q::kAtOrAbove, 6, 8000);
    EXPECT_GT(drawn, 60u);
    EXPECT_LT(drawn, 140u);
    EXPECT_EQ(onFirst(Q::kAtOrAboveThenAll, 6, 8000), 0u);
    EXPECT_EQ(onFirst(Q::kAll, 6, 8000), 0u);
    // Bytes the packet waits behind decide first: 5000 bytes of priority 2 on uplink 2.
    EXPECT_EQ(onFirst(Q::kAtOrAbove, 2, 5000), 200u);
    EXPECT_EQ(onFirst(Q::kAtOrAboveThenAll, 2, 5000), 200u);
    EXPECT_EQ(onFirst(Q::kAll, 2, 5000), 0u);
}

TEST(TalbLbCoreTensorAwareV2, SprayQueueAtOrAboveWithRoomSkipsPortsWhoseBufferIsFull)
{
    using Q = TensorAwareV2::SprayQueue;
    // Sprayed priority 2 packets (1500 bytes); both uplinks have 30000-byte buffers. Uplink 1
    // holds \p lowBytes of priority 6, uplink 2 3000 bytes of priority 2. Returns how many of
    // 200 go to uplink 1.
    auto onFirst = [](Q queue, uint64_t lowBytes, uint64_t buffer2 = 30000, uint8_t band2 = 2) {
        TensorAwareV2::Config c;
        c.spray = TensorAwareV2::Spray::kAlways;
        c.sprayQueue = queue;
        TalbV2Rig rig(c);
        rig.leaf.state[1].bufferBytes = 30000;
        rig.leaf.state[2].bufferBytes = buffer2;
        rig.Queue(1, 6, lowBytes);
        rig.Queue(2, band2, 3000);
        uint32_t n = 0;
        for (int k = 0; k < 200; ++k)
        {
            n += rig.Send(Tensor(10, US + k * US, 100, 2, k == 0 ? TALB_FLAG_FIRST : 0)) == 1u;
        }
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 200u);
        return n;
    };
    // Uplink 1's buffer is full of the lower band: AtOrAbove sends every packet there (nothing
    // ahead of it in its band), to be refused; WithRoom takes uplink 2, where it waits 3000 bytes.
    EXPECT_EQ(onFirst(Q::kAtOrAbove, 29000), 200u);
    EXPECT_EQ(onFirst(Q::kAtOrAboveWithRoom, 29000), 0u);
    // Room for the packet (exactly 1500 bytes): the packet's wait decides, as AtOrAbove.
    EXPECT_EQ(onFirst(Q::kAtOrAboveWithRoom, 28500), 200u);
    // Neither buffer can take it: AtOrAbove among all.
    EXPECT_EQ(onFirst(Q::kAtOrAboveWithRoom, 29000, 4000), 200u);
    // A port that does not report its buffer (size 0: the DPDK switch) counts as one with room.
    EXPECT_EQ(onFirst(Q::kAtOrAboveWithRoom, 29000, 0), 0u);
    // Among ports with room, the lower bands' bytes do not count (unlike All): uplink 2 holds
    // 3000 bytes of priority 7 only, so both tie at nothing ahead and the draw splits them.
    uint32_t drawn = onFirst(Q::kAtOrAboveWithRoom, 20000, 30000, 7);
    EXPECT_GT(drawn, 60u);
    EXPECT_LT(drawn, 140u);
}

TEST(TalbLbCoreTensorAwareV2, SprayPathsRateSharesThePathsByTheirRates)
{
    using P = TensorAwareV2::SprayPaths;
    // A flow sprayed over paths of 2.5 and 7.5 Gb/s to its leaf, whose slow links are beyond
    // the ports (the queues here stay empty: congestion control paces the sender). Rate (the
    // default) gives the paths a quarter and three quarters, at 10 Gb/s and at 5 (which the fast
    // path alone would carry: the sender's congestion control would then hold it there);
    // Fastest keeps to the 7.5 Gb/s path.
    auto split = [](P paths, int64_t gapNs = 1200) {
        TensorAwareV2::Config c;
        c.spray = TensorAwareV2::Spray::kAlways;
        c.sprayPaths = paths;
        TalbV2Rig rig(c);
        rig.leaf.state[1].remoteRateBps = 2500000000ull;
        rig.leaf.state[2].remoteRateBps = 7500000000ull;
        uint32_t onSlow = 0;
        for (int k = 0; k < 4000; ++k)
        {
            onSlow +=
                rig.Send(Tensor(10, US + k * gapNs, 100, 0, k == 0 ? TALB_FLAG_FIRST : 0)) == 1;
        }
        EXPECT_EQ(rig.talb.GetTableStats().nSprayed, 4000u);
        return onSlow;
    };
    EXPECT_EQ(TensorAwareV2::Config().sprayPaths, P::kRate);
    EXPECT_EQ(split(P::kFastest), 0u);
    for (int64_t gapNs : {1200, 2400})
    {
        uint32_t onSlow = split(P::kRate, gapNs);
        EXPECT_GE(onSlow, 980u) << gapNs;
        EXPECT_LE(onSlow, 1020u) << gapNs;
    }
    // On paths of one rate Rate chooses as Fastest does, draw for draw.
    auto ports = [](P paths) {
        TensorAwareV2::Config c;
        c.spray = TensorAwareV2::Spray::kAlways;
        c.sprayPaths = paths;
        TalbV2Rig rig(c, 3);
        std::vector<uint32_t> chosen;
        for (int k = 0; k < 200; ++k)
        {
            rig.Queue(1 + k % 3, 0, (k * 7919) % 5 * 1500);
            chosen.push_back(
                rig.Send(Tensor(10, US + k * 1200, 100, 0, k == 0 ? TALB_FLAG_FIRST : 0)));
        }
        return chosen;
    };
    EXPECT_EQ(ports(P::kRate), ports(P::kFastest));
    // A queue here counts: with 12000 bytes queued on uplink 2 (9.6 us at 10 Gb/s) a packet
    // goes to the 2.5 Gb/s path, whose clock is 4.8 us ahead.
    {
        TensorAwareV2::Config c;
        c.spray = TensorAwareV2::Spray::kAlways;
        TalbV2Rig rig(c);
        rig.leaf.state[1].remoteRateBps = 2500000000ull;
        EXPECT_EQ(rig.Send(Tensor(10, US, 100, 0, TALB_FLAG_FIRST)), 2u);
        rig.Queue(2, 0, 12000);
        EXPECT_EQ(rig.Send(Tensor(10, US, 100, 0, 0)), 1u);
    }
    // remoteSprayBytes counts under Rate too: two jobs share the uplinks (Spray=Contended), the
    // 10 Gb/s path through uplink 1 is reported saturated, uplink 2's path runs at 2.5 Gb/s.
    // Without the penalty flow 10's packet takes uplink 1 (its clock 2.4 us against 4.8); with
    // 30000 bytes (24 us at 10 Gb/s), uplink 2.
    for (double penalty : {0.0, 30000.0})
    {
        FakeCongestion remote;
        remote.utilisation[1] = 1.0;
        TensorAwareV2::Config c;
        c.remoteSprayBytes = penalty;
        c.remotePlacement = false;
        TalbV2Rig rig(c);
        rig.talb.SetRemote(&remote);
        rig.leaf.state[2].remoteRateBps = 2500000000ull;
        rig.Send(Tensor(10, US, talb_make_tensor_id(1, 100), 5, TALB_FLAG_FIRST));
        rig.Send(Tensor(30, US, talb_make_tensor_id(2, 300), 5, TALB_FLAG_FIRST));
        EXPECT_EQ(rig.Send(Tensor(10, 2 * US, talb_make_tensor_id(1, 100), 5, 0)),
                  penalty > 0 ? 2u : 1u)
            << penalty;
    }
    // Retuned to Rate, a balancer configured without it gets its clocks.
    TensorAwareV2::Config c;
    c.spray = TensorAwareV2::Spray::kAlways;
    c.sprayPaths = P::kFastest;
    TalbV2Rig rig(c);
    rig.leaf.state[1].remoteRateBps = 2500000000ull;
    c.sprayPaths = P::kRate;
    ASSERT_TRUE(rig.talb.Retune(c));
    uint32_t onSlow2 = 0;
    for (int k = 0; k < 400; ++k)
    {
        onSlow2 += rig.Send(Tensor(10, US, 100, 0, k == 0 ? TALB_FLAG_FIRST : 0)) == 1;
    }
    EXPECT_NEAR(onSlow2, 80.0, 2.0); // a burst: one packet in five to the quarter-rate path
}

TEST(TalbLbCoreTensorAwareV2, CheckRejectsBadConfigurations)
{
    EXPECT_EQ(TensorAwareV2::Check(TensorAwareV2::Config()), nullptr);
    auto bad = [](auto change) {
        TensorAwareV2::Config x;
        change(x);
        return TensorAwareV2::Check(x) != nullptr;
    };
    EXPECT_TRUE(bad([](auto& x) { x.highThreshold = 9; }));
    EXPECT_TRUE(bad([](auto& x) { x.lowMoveMarginBytes = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.maxReorderBytes = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.minMoveIntervalNs = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.activeWindowNs = 0; }));
    EXPECT_TRUE(bad([](auto& x) { x.safeSlackNs = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.congestionWaitBelow = TALB_NUM_PRIORITIES + 1; }));
    EXPECT_TRUE(bad([](auto& x) { x.safeMoves = static_cast<TensorAwareV2::SafeMoves>(4); }));
    EXPECT_TRUE(bad([](auto& x) { x.tableSize = 100; }));
    EXPECT_TRUE(bad([](auto& x) { x.probeLimit = 65; }));
    EXPECT_TRUE(bad([](auto& x) { x.flowSlots = 0; }));
    EXPECT_TRUE(bad([](auto& x) { x.flowSlots = TensorAwareV2::kMaxFlowSlots + 1; }));
    EXPECT_FALSE(bad([](auto& x) { x.flowSlots = TensorAwareV2::kMaxFlowSlots; }));
    EXPECT_TRUE(bad([](auto& x) { x.paceFactor = 0.5; }));
    EXPECT_TRUE(bad([](auto& x) { x.windowMode = static_cast<TensorAwareV2::WindowMode>(2); }));
    EXPECT_TRUE(bad([](auto& x) { x.spray = static_cast<TensorAwareV2::Spray>(6); }));
    EXPECT_TRUE(bad([](auto& x) { x.crowdFlowsPerPort = -1; }));
    EXPECT_TRUE(bad([](auto& x) { x.crowdFlowsPerPort = 9; })); // above the 8 flow slots
    EXPECT_FALSE(bad([](auto& x) { x.crowdFlowsPerPort = 8; }));
    EXPECT_TRUE(bad([](auto& x) { x.sprayQueue = static_cast<TensorAwareV2::SprayQueue>(5); }));
    EXPECT_TRUE(bad([](auto& x) { x.sprayPaths = static_cast<TensorAwareV2::SprayPaths>(2); }));
    EXPECT_TRUE(bad([](auto& x) { x.moves = static_cast<TensorAwareV2::Moves>(3); }));
    EXPECT_TRUE(bad([](auto& x) { x.slowRate = 0; }));
    EXPECT_TRUE(bad([](auto& x) { x.slowRate = 1.5; }));
    EXPECT_TRUE(bad([](auto& x) { x.congestionTarget = 1; }));
    EXPECT_TRUE(bad([](auto& x) { x.rateWindowNs = 0; }));
    EXPECT_TRUE(bad([](auto& x) {
        x.windowMode = TensorAwareV2::WindowMode::kPace;
        x.maxActiveWindowNs = 50 * US;
    }));
    // Under the pace rule the stall timeout must exceed the longest window (1 ms), not 100 us.
    EXPECT_FALSE(bad([](auto& x) { x.stallTimeoutNs = 500 * US; }));
    EXPECT_TRUE(bad([](auto& x) {
        x.windowMode = TensorAwareV2::WindowMode::kPace;
        x.stallTimeoutNs = 500 * US;
    }));
    TensorAwareV2 t;
    TensorAwareV2::Config c;
    EXPECT_TRUE(t.Configure(c, 3));
    c.tableSize = 8;
    EXPECT_FALSE(t.Retune(c));
    c = TensorAwareV2::Config();
    c.flowSlots = 16; // sizes the slots: fixed at Configure()
    EXPECT_FALSE(t.Retune(c));
}

// ---- Settings tables: each policy's settings, declared once for ns-3 and the switch

/// Checks what every settings table must hold: unique attribute names and flags, a range that
/// holds the default (the Config's), enum defaults among the spellings, help that names only
/// settings of the table.
template <class C>
void
ExpectWellFormed(const SettingTable<C>& table)
{
    SCOPED_TRACE(table.prefix);
    const C defaults{};
    std::set<std::string> attributes;
    std::set<std::string> flags;
    EXPECT_GT(table.size, 0u);
    for (const Setting<C>& s : table)
    {
        SCOPED_TRACE(s.attribute);
        EXPECT_TRUE(attributes.insert(s.attribute).second) << "attribute twice";
        if (s.flag)
        {
            EXPECT_TRUE(flags.insert(s.flag).second) << "flag twice";
        }
        EXPECT_LE(s.min, s.max);
        EXPECT_TRUE(InRange(s, s.field.get(defaults))) << "default out of range";
        EXPECT_EQ(s.field.kind == SettingKind::kEnum, s.spellings.count > 0);
        ASSERT_NE(s.help, nullptr);
        EXPECT_NE(std::string(s.help), "");
        std::string unknown;
        ExpandHelp(s.help, [&](const std::string& other) {
            if (!table.Find(other))
            {
                unknown += other + " ";
            }
            return other;
        });
        EXPECT_EQ(unknown, "") << "help names settings the table does not have";
        EXPECT_EQ(table.Find(s.attribute), &s);
    }
}

TEST(TalbLbCoreSettings, EveryTableIsWellFormed)
{
    ExpectWellFormed(Ecmp::Settings());
    ExpectWellFormed(LetFlow::Settings());
    ExpectWellFormed(Drill::Settings());
    ExpectWellFormed(Presto::Settings());
    ExpectWellFormed(Hermes::Settings());
    ExpectWellFormed(TensorAwareConfig::Settings());
}

TEST(TalbLbCoreSettings, FieldsReadAndWriteTheirConfigInTheTablesUnit)
{
    const auto& drill = Drill::Settings();
    Drill::Config d;
    drill.Find("Samples")->field.set(d, 5);
    EXPECT_EQ(d.samples, 5u);
    EXPECT_EQ(drill.Find("Memory")->field.get(d), 1);
    EXPECT_EQ(drill.Find("Samples")->field.bytes, sizeof(uint32_t));

    const auto& talb = TensorAwareConfig::Settings();
    TensorAwareConfig t;
    talb.Find("IdleTimeout")->field.set(t, 2500); // ns
    EXPECT_EQ(t.v2.idleTimeoutNs, 2500);
    talb.Find("MoveMarginRate")->field.set(t, 25e9);
    EXPECT_EQ(t.v2.marginRateBps, 25000000000u);
    talb.Find("ActiveWindowMode")->field.set(t, int(TensorAwareV2::WindowMode::kPace));
    EXPECT_EQ(t.v2.windowMode, TensorAwareV2::WindowMode::kPace);
    talb.Find("QueueMoves")->field.set(t, 1);
    EXPECT_TRUE(t.v2.queueMoves);
    EXPECT_EQ(talb.Find("QueueMoves")->field.get(t), 1);
    talb.Find("DreAlpha")->field.set(t, 0.5);
    EXPECT_EQ(t.v1.dreAlpha, 0.5);
    EXPECT_EQ(talb.Find("Nonexistent"), nullptr);
}

TEST(TalbLbCoreSettings, ASettingBothTalbVersionsTakeSetsBothConfigs)
{
    const auto& talb = TensorAwareConfig::Settings();
    TensorAwareConfig t;
    talb.Find("HighPriorityThreshold")->field.set(t, 2);
    talb.Find("MoveMargin")->field.set(t, 3000);
    talb.Find("IdleTimeout")->field.set(t, 500 * US);
    talb.Find("TableSize")->field.set(t, 1024);
    talb.Find("ProbeLimit")->field.set(t, 16);
    EXPECT_EQ(t.v2.highThreshold, 2);
    EXPECT_EQ(t.v1.highThreshold, 2);
    EXPECT_EQ(t.v2.highMoveMarginBytes, 3000);
    EXPECT_EQ(t.v1.moveMarginBytes, 3000);
    EXPECT_EQ(t.v2.idleTimeoutNs, 500 * US);
    EXPECT_EQ(t.v1.idleTimeoutNs, 500 * US);
    EXPECT_EQ(t.v2.tableSize, 1024u);
    EXPECT_EQ(t.v1.tableSize, 1024u);
    EXPECT_EQ(t.v2.probeLimit, 16u);
    EXPECT_EQ(t.v1.probeLimit, 16u);
}

TEST(TalbLbCoreSettings, RangesAndSpellingsBoundValues)
{
    const auto& talb = TensorAwareConfig::Settings();
    const Setting<TensorAwareConfig>& spray = *talb.Find("Spray");
    EXPECT_TRUE(InRange(spray, int(TensorAwareV2::Spray::kNever)));
    EXPECT_FALSE(InRange(spray, 6));
    EXPECT_EQ(spray.spellings.count, 6u);
    const Setting<TensorAwareConfig>& pace = *talb.Find("PaceFactor");
    EXPECT_FALSE(InRange(pace, 0.5));
    EXPECT_TRUE(InRange(pace, 1000));
    EXPECT_FALSE(InRange(pace, 1000.5));
}

TEST(TalbLbCoreSettings, ExpandHelpLetsEachSideNameTheOtherSettings)
{
    auto flag = [](const std::string& name) { return "--x-" + name; };
    EXPECT_EQ(ExpandHelp("at most {TableSize}, not {A}{B}", flag),
              "at most --x-TableSize, not --x-A--x-B");
    EXPECT_EQ(ExpandHelp("no reference { here", flag), "no reference { here");
}

TEST(TalbLbCoreBandDrr, StrictBandsFirstThenTurnsOfAQuantumTimesTheWeight)
{
    const uint32_t weights[8] = {1, 1, 1, 2, 1, 1, 1, 1};
    talb::lb::BandDrr drr;
    ASSERT_EQ(drr.Configure(1, weights, 1000), nullptr);
    auto head = [](uint8_t) { return 500u; };
    EXPECT_EQ(drr.Next(0, head), talb::lb::BandDrr::kNone);
    EXPECT_EQ(drr.Next(0b10001001, head), 0); // band 0 is strict
    // Bands 3 (weight 2) and 7 (weight 1), 500-byte packets: four of band 3, then two of 7.
    std::vector<int> order;
    for (int k = 0; k < 12; ++k)
    {
        uint8_t b = drr.Next(0b10001000, head);
        drr.Charge(b, 500);
        order.push_back(b);
    }
    EXPECT_EQ(order, (std::vector<int>{3, 3, 3, 3, 7, 7, 3, 3, 3, 3, 7, 7}));
    drr.Forfeit(3); // band 3 emptied: it starts its next visit from nothing
    EXPECT_EQ(drr.Next(0b00001000, head), 3);
    EXPECT_FALSE(drr.IsDrrBand(0));
    EXPECT_TRUE(drr.IsDrrBand(7));
    const uint32_t zero[8] = {1, 1, 1, 1, 1, 1, 1, 0};
    EXPECT_STREQ(drr.Configure(1, zero, 1000), "band weights must be 1..1000");
    EXPECT_STREQ(drr.Configure(9, weights, 1000), "strict bands must be 0..8");
    EXPECT_STREQ(drr.Configure(1, weights, 10), "the DWRR quantum must be at least 64 bytes");
    ASSERT_EQ(drr.Configure(8, weights, 1000), nullptr); // every band strict
    EXPECT_EQ(drr.Next(0b10000000, head), 7);
}

TEST(TalbLbCoreBandDrr, ParseWeightsReadsEightWeightsAndNamesTheWrongOne)
{
    using talb::lb::BandDrr;
    uint32_t w[8] = {7, 7, 7, 7, 7, 7, 7, 7};
    EXPECT_EQ(BandDrr::ParseWeights("1,2,3,4,5,6,7,1000", w), BandDrr::kWeightsOk);
    EXPECT_EQ(w[0], 1u);
    EXPECT_EQ(w[7], 1000u);
    const uint32_t kept[8] = {1, 2, 3, 4, 5, 6, 7, 1000};
    EXPECT_EQ(BandDrr::ParseWeights("1,1,1,1,1,1,1", w), BandDrr::kWeightsCount);
    EXPECT_EQ(BandDrr::ParseWeights("1,1,1,1,1,1,1,1,1", w), BandDrr::kWeightsCount);
    EXPECT_EQ(BandDrr::ParseWeights("", w), BandDrr::kWeightsCount);
    EXPECT_EQ(BandDrr::ParseWeights("1,1,0,1,1,1,1,1", w), 2);
    EXPECT_EQ(BandDrr::ParseWeights("1,1,1,1,1,1,1,1001", w), 7);
    EXPECT_EQ(BandDrr::ParseWeights("1,,1,1,1,1,1,1", w), 1);
    EXPECT_EQ(BandDrr::ParseWeights("1,1,1,x,1,1,1,1", w), 3);
    EXPECT_EQ(BandDrr::ParseWeights("1,1,1,1,1,1,1,-1", w), 7);
    EXPECT_EQ(BandDrr::ParseWeights("99999999999,1,1,1,1,1,1,1", w), 0);
    for (int b = 0; b < 8; ++b)
    {
        EXPECT_EQ(w[b], kept[b]) << "a refused text changes nothing";
    }
}
