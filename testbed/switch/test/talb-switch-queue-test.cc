// talb-switch's building blocks: the longest-prefix route table, the egress queue (bands, buffer,
// ECN) and the token bucket.
#include "talb-egress-queue.h"
#include "talb-route-table.h"
#include "talb-token-bucket.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>
#include <set>
#include <vector>

using namespace talb;

TEST(TalbRouteTable, LongestPrefixWins)
{
    RouteTable t;
    t.Build({0x0AFA0001, 0x0AFA0000, 0x0A000000, 0}, {32, 24, 8, 0});
    EXPECT_EQ(t.Lookup(0x0AFA0001), 0);
    EXPECT_EQ(t.Lookup(0x0AFA0002), 1);
    EXPECT_EQ(t.Lookup(0x0A010203), 2);
    EXPECT_EQ(t.Lookup(0xC0A80001), 3);
    RouteTable noDefault;
    noDefault.Build({0x0AFA0000}, {24});
    EXPECT_EQ(noDefault.Lookup(0x0AFB0000), RouteTable::kNoRoute);
    RouteTable empty;
    empty.Build({}, {});
    EXPECT_EQ(empty.Lookup(1), RouteTable::kNoRoute);
}

TEST(TalbRouteTable, AgreesWithALinearScanOnRandomRoutes)
{
    std::mt19937 rng(4);
    std::vector<uint32_t> prefixes;
    std::vector<uint8_t> lengths;
    std::set<std::pair<uint32_t, uint8_t>> seen;
    while (prefixes.size() < 500)
    {
        uint8_t len = static_cast<uint8_t>(8 + rng() % 25);
        uint32_t prefix = (0x0A000000 | (rng() & 0x00FFFFFF)) & (~0u << (32 - len));
        if (seen.insert({prefix, len}).second)
        {
            prefixes.push_back(prefix);
            lengths.push_back(len);
        }
    }
    RouteTable t;
    t.Build(prefixes, lengths);
    for (int i = 0; i < 20000; ++i)
    {
        uint32_t a = i % 2 ? prefixes[rng() % prefixes.size()] | (rng() & 0xFF) : rng();
        int best = RouteTable::kNoRoute;
        for (size_t r = 0; r < prefixes.size(); ++r)
        {
            uint32_t mask = ~0u << (32 - lengths[r]);
            if ((a & mask) == prefixes[r] && (best < 0 || lengths[r] > lengths[best]))
            {
                best = static_cast<int>(r);
            }
        }
        ASSERT_EQ(t.Lookup(a), best) << std::hex << a;
    }
}

namespace
{

void*
Item(uintptr_t id)
{
    return reinterpret_cast<void*>(id);
}

} // namespace

TEST(TalbEgressQueue, StrictPriorityFifoWithinABand)
{
    EgressQueue q;
    ASSERT_TRUE(q.Init(EgressConfig()));
    q.Enqueue(Item(1), 100, 7, false);
    q.Enqueue(Item(2), 200, 3, false);
    q.Enqueue(Item(3), 300, 7, false);
    q.Enqueue(Item(4), 400, 0, false);
    q.Enqueue(Item(5), 500, 3, false);
    EXPECT_EQ(q.Bytes(), 1500u);
    EXPECT_EQ(q.BandBytes(3), 700u);
    EXPECT_EQ(q.BandPackets(7), 2u);
    std::vector<uintptr_t> order;
    uint32_t bytes = 0;
    EXPECT_EQ(q.HeadBytes(), 400u);
    while (void* it = q.Dequeue(&bytes))
    {
        order.push_back(reinterpret_cast<uintptr_t>(it));
    }
    EXPECT_EQ(order, (std::vector<uintptr_t>{4, 2, 5, 1, 3}));
    EXPECT_TRUE(q.Empty());
    EXPECT_EQ(q.Bytes(), 0u);
    EXPECT_EQ(q.HeadBytes(), 0u);
    EXPECT_EQ(q.Counters().enqueued, q.Counters().dequeued + q.Packets());
    EXPECT_EQ(q.Counters().dequeuedBytes, 1500u);
}

TEST(TalbEgressQueue, DropTailOnTheSharedBufferAndOnAFullBand)
{
    EgressConfig c;
    c.bufferBytes = 4000;
    c.bandPackets = 4;
    EgressQueue q;
    ASSERT_TRUE(q.Init(c));
    EXPECT_EQ(q.Enqueue(Item(1), 1500, 1, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(2), 1500, 2, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(3), 1500, 0, false), EnqueueResult::kDropped); // 4500 > 4000
    EXPECT_EQ(q.Enqueue(Item(4), 1000, 0, false), EnqueueResult::kQueued);  // exactly full
    uint32_t bytes;
    q.Dequeue(&bytes);
    q.Dequeue(&bytes);
    q.Dequeue(&bytes);
    for (int i = 0; i < 4; ++i)
    {
        EXPECT_EQ(q.Enqueue(Item(10 + i), 64, 5, false), EnqueueResult::kQueued);
    }
    EXPECT_EQ(q.Enqueue(Item(20), 64, 5, false), EnqueueResult::kDropped); // band ring full
    EXPECT_EQ(q.Enqueue(Item(21), 64, 6, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Counters().dropped, 2u);
    EXPECT_EQ(q.Counters().enqueued, q.Counters().dequeued + q.Packets());
    EXPECT_NE(EgressQueue::Check(EgressConfig{1000, 0, true, 4}), nullptr);
    EXPECT_NE(EgressQueue::Check(EgressConfig{4000, 0, true, 3}), nullptr);
}

namespace
{

/// What push-out released, in order (EgressConfig::release is a plain function).
std::vector<void*> g_released;

void
Release(void* item)
{
    g_released.push_back(item);
}

} // namespace

TEST(TalbEgressQueue, PushOutEvictsLowerBandsOldestFirstWhereThatMakesRoom)
{
    EgressConfig c;
    c.bufferBytes = 6000;
    c.bandPackets = 8;
    c.pushOut = true;
    EXPECT_NE(EgressQueue::Check(c), nullptr); // no release function
    c.release = &Release;
    g_released.clear();
    EgressQueue q;
    ASSERT_TRUE(q.Init(c));
    EXPECT_EQ(q.Enqueue(Item(1), 1500, 5, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(2), 1500, 7, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(3), 1500, 5, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(4), 1500, 2, false), EnqueueResult::kQueued); // full: 6000
    // Band 1 takes the lowest band's packet first (band 7), then the oldest of band 5.
    EXPECT_EQ(q.Enqueue(Item(5), 3000, 1, false), EnqueueResult::kQueued);
    EXPECT_EQ(g_released, (std::vector<void*>{Item(2), Item(1)}));
    EXPECT_EQ(q.Bytes(), 6000u);
    // Band 5 cannot push out its own band or above: refused, nothing evicted.
    EXPECT_EQ(q.Enqueue(Item(6), 1500, 5, false), EnqueueResult::kDropped);
    // Band 2 could evict only band 5's 1500 bytes, which leave no room for 3000: all stay.
    EXPECT_EQ(q.Enqueue(Item(7), 3000, 2, false), EnqueueResult::kDropped);
    EXPECT_EQ(g_released.size(), 2u);
    EXPECT_EQ(q.Counters().pushedOut, 2u);
    EXPECT_EQ(q.Counters().dropped, 2u);
    uint32_t bytes;
    EXPECT_EQ(q.Dequeue(&bytes), Item(5));
    EXPECT_EQ(q.Dequeue(&bytes), Item(4));
    EXPECT_EQ(q.Dequeue(&bytes), Item(3));
    EXPECT_TRUE(q.Empty());
    EXPECT_EQ(q.Counters().enqueued, q.Counters().dequeued + q.Counters().pushedOut + q.Packets());
}

TEST(TalbEgressQueue, PushOutUnderDwrrSparesTheUntaggedBandAndOffDropsTail)
{
    EgressConfig c;
    c.bufferBytes = 3000;
    c.bandPackets = 8;
    c.pushOut = true;
    c.release = &Release;
    c.dwrrBands = true;
    c.bestEffortBand = 7;
    g_released.clear();
    EgressQueue q;
    ASSERT_TRUE(q.Init(c));
    EXPECT_EQ(q.Enqueue(Item(1), 1500, 7, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(2), 1500, 6, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(3), 1500, 0, false), EnqueueResult::kQueued); // evicts band 6's
    EXPECT_EQ(g_released, (std::vector<void*>{Item(2)}));
    EXPECT_EQ(q.Enqueue(Item(4), 1500, 0, false), EnqueueResult::kDropped); // band 7 is spared
    EXPECT_EQ(q.BandPackets(7), 1u);
    c.pushOut = false; // drop-tail: nothing evicted
    ASSERT_TRUE(q.Init(c));
    g_released.clear();
    EXPECT_EQ(q.Enqueue(Item(1), 1500, 6, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(2), 1500, 6, false), EnqueueResult::kQueued);
    EXPECT_EQ(q.Enqueue(Item(3), 1500, 0, false), EnqueueResult::kDropped);
    EXPECT_TRUE(g_released.empty());
}

TEST(TalbEgressQueue, RoomBytesSaysWhetherEnqueueTakesAPacket)
{
    // What TaLB's SprayQueue=AtOrAboveWithRoom reads: a packet of a band fits exactly when
    // Enqueue takes it, through arrivals of every band and departures, drop-tail and push-out.
    for (int mode = 0; mode < 3; ++mode)
    {
        EgressConfig c;
        c.bufferBytes = 20000;
        c.bandPackets = 8;
        c.pushOut = mode > 0;
        c.release = &Release;
        c.dwrrBands = mode == 2;
        c.bestEffortBand = mode == 2 ? 7 : TALB_NUM_PRIORITIES;
        EgressQueue q;
        ASSERT_TRUE(q.Init(c));
        std::mt19937 rng(5);
        auto next = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
        uint32_t queued = 0;
        uint32_t dropped = 0;
        for (int step = 0; step < 3000; ++step)
        {
            if (next(3) == 0)
            {
                uint32_t bytes;
                q.Dequeue(&bytes);
                continue;
            }
            const uint8_t band = next(8);
            const uint32_t size = 300 + next(1200);
            const bool fits = q.RoomBytes(band) >= size;
            const bool taken =
                q.Enqueue(Item(step + 1), size, band, false) != EnqueueResult::kDropped;
            ASSERT_EQ(taken, fits) << "mode " << mode << ", step " << step;
            taken ? ++queued : ++dropped;
        }
        EXPECT_GT(queued, 100u) << mode;
        EXPECT_GT(dropped, 100u) << mode;
    }
}

TEST(TalbEgressQueue, EcnMarksCapablePacketsFromTheThresholdOn)
{
    EgressConfig c;
    c.ecnThresholdBytes = 3000;
    EgressQueue q;
    ASSERT_TRUE(q.Init(c));
    EXPECT_EQ(q.Enqueue(Item(1), 1500, 4, true), EnqueueResult::kQueued);  // finds 0
    EXPECT_EQ(q.Enqueue(Item(2), 1500, 4, true), EnqueueResult::kQueued);  // finds 1500
    EXPECT_EQ(q.Enqueue(Item(3), 1500, 4, true), EnqueueResult::kMarked);  // finds 3000
    EXPECT_EQ(q.Enqueue(Item(4), 1500, 0, false), EnqueueResult::kQueued); // not ECN-capable
    EXPECT_EQ(q.Counters().marked, 1u);
    c.ecn = false;
    EgressQueue off;
    ASSERT_TRUE(off.Init(c));
    for (int i = 0; i < 5; ++i)
    {
        EXPECT_EQ(off.Enqueue(Item(i), 1500, 4, true), EnqueueResult::kQueued);
    }
}

TEST(TalbEgressQueue, DwrrBandsShareByWeightAfterTheStrictBands)
{
    EgressConfig c;
    c.bufferBytes = 1u << 30;
    c.bandPackets = 1u << 14;
    c.dwrrBands = true;
    c.strictBands = 2;
    const uint32_t weights[TALB_NUM_PRIORITIES] = {9, 9, 1, 1, 3, 1, 1, 4};
    std::copy(weights, weights + TALB_NUM_PRIORITIES, c.bandWeights);
    EgressQueue q;
    ASSERT_TRUE(q.Init(c));
    const uint32_t sizes[] = {8948, 1448, 300, 4000};
    for (uint32_t k = 0; k < 3000; ++k)
    {
        q.Enqueue(Item(1), sizes[k % 4], 2, false);
        q.Enqueue(Item(2), sizes[(k + 1) % 4], 4, false);
        q.Enqueue(Item(3), sizes[(k + 2) % 4], 7, false);
    }
    q.Enqueue(Item(10), 1448, 1, false);
    q.Enqueue(Item(11), 1448, 0, false);
    uint32_t bytes;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q.Dequeue(&bytes)), 11u); // strict bands first
    EXPECT_EQ(reinterpret_cast<uintptr_t>(q.Dequeue(&bytes)), 10u);
    uint64_t sent[4] = {0, 0, 0, 0};
    for (int k = 0; k < 4000; ++k)
    {
        uint32_t head = q.HeadBytes();
        void* it = q.Dequeue(&bytes);
        ASSERT_EQ(head, bytes) << "HeadBytes() shows what Dequeue() takes";
        sent[reinterpret_cast<uintptr_t>(it)] += bytes;
        if (k == 100)
        {
            q.Enqueue(Item(12), 1448, 1, false); // a strict band jumps the DWRR turns
            EXPECT_EQ(reinterpret_cast<uintptr_t>(q.Dequeue(&bytes)), 12u);
        }
    }
    double total = double(sent[1] + sent[2] + sent[3]);
    EXPECT_NEAR(sent[1] / total, 1.0 / 8, 0.02);
    EXPECT_NEAR(sent[2] / total, 3.0 / 8, 0.02);
    EXPECT_NEAR(sent[3] / total, 4.0 / 8, 0.02);

    // Bad settings are refused.
    EgressConfig bad = c;
    bad.strictBands = 9;
    EXPECT_NE(EgressQueue::Check(bad), nullptr);
    bad = c;
    bad.bandWeights[5] = 0;
    EXPECT_NE(EgressQueue::Check(bad), nullptr);
    bad = c;
    bad.quantumBytes = 10;
    EXPECT_NE(EgressQueue::Check(bad), nullptr);
}

TEST(TalbEgressQueue, StrictBandsStarveALowerBandDwrrBandsDoNot)
{
    for (bool dwrr : {false, true})
    {
        EgressConfig c;
        c.dwrrBands = dwrr;
        EgressQueue q;
        ASSERT_TRUE(q.Init(c));
        for (int k = 0; k < 100; ++k)
        {
            q.Enqueue(Item(7), 1500, 7, false);
            q.Enqueue(Item(2), 1500, 2, false);
        }
        int lowFirst100 = 0;
        uint32_t bytes;
        for (int k = 0; k < 100; ++k)
        {
            lowFirst100 += reinterpret_cast<uintptr_t>(q.Dequeue(&bytes)) == 7;
        }
        // Equal weights: turns of one quantum (about six 1500-byte packets) each.
        EXPECT_NEAR(lowFirst100, dwrr ? 50 : 0, dwrr ? 7 : 0) << (dwrr ? "dwrr" : "strict");
    }
}

TEST(TalbTokenBucket, ShapesToItsRate)
{
    TokenBucket b;
    b.Configure(8000000, 3000); // 1 byte per us, 3000 bytes deep
    int64_t t = 1000000;
    EXPECT_TRUE(b.TryConsume(1500, t)); // full bucket: a burst of 3000 bytes
    EXPECT_TRUE(b.TryConsume(1500, t));
    EXPECT_FALSE(b.TryConsume(1500, t));
    EXPECT_EQ(b.WaitNs(1500, t), 1500001);
    EXPECT_FALSE(b.TryConsume(1500, t + 1499000));
    EXPECT_TRUE(b.TryConsume(1500, t + 1500001));
    // Over 100 ms of back-to-back demand it sends 100 kB (+ the burst).
    uint64_t sent = 0;
    for (int64_t now = t + 1500001; now < t + 101500001; now += 1000)
    {
        while (b.TryConsume(1000, now))
        {
            sent += 1000;
        }
    }
    EXPECT_NEAR(static_cast<double>(sent), 100000, 2000);
    TokenBucket unlimited;
    unlimited.Configure(0, 0);
    EXPECT_TRUE(unlimited.Unlimited());
    EXPECT_TRUE(unlimited.TryConsume(1 << 30, 0));
    EXPECT_EQ(unlimited.WaitNs(1 << 30, 0), 0);
}
