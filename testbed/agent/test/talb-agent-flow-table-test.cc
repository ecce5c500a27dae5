// The flow table: capacity, reuse of closed entries, least-recently-used eviction.
#include "talb-flow-table.h"

#include <gtest/gtest.h>
#include <set>

namespace
{

using namespace talb;

FlowKey
Key(uint32_t i)
{
    return FlowKey{0x0A000000u + i, 0x0A010000u + i * 7, static_cast<uint16_t>(i), 5000};
}

TEST(TalbAgentFlowTable, CapacityRoundsUpToWholeBuckets)
{
    EXPECT_EQ(FlowTable(1).Capacity(), FlowTable::kWays);
    EXPECT_EQ(FlowTable(4096).Capacity(), 4096u);
    EXPECT_EQ(FlowTable(4097).Capacity(), 8192u);
}

TEST(TalbAgentFlowTable, FindsWhatWasInsertedAndKeepsEntriesApart)
{
    FlowTable table(1024);
    std::set<SeqTracker*> trackers;
    bool evicted = false;
    uint32_t inserted = 0;
    for (uint32_t i = 0; i < 512; ++i)
    {
        trackers.insert(table.Insert(Key(i), i, &evicted));
        inserted += !evicted;
    }
    EXPECT_EQ(trackers.size(), inserted) << "an eviction reuses an entry";
    EXPECT_EQ(table.Size(), inserted);
    EXPECT_GT(inserted, 480u) << "half full: few buckets overflow";
    EXPECT_EQ(table.Find(Key(100000), 0), nullptr);
    SeqTracker* t = table.Insert(Key(511), 600, &evicted);
    EXPECT_FALSE(evicted);
    EXPECT_EQ(table.Find(Key(511), 601), t);
}

TEST(TalbAgentFlowTable, ClosedEntriesGoFirstThenTheLeastRecentlyUsed)
{
    FlowTable table(4); // a single bucket
    bool evicted;
    for (uint32_t i = 0; i < 4; ++i)
    {
        table.Insert(Key(i), i, &evicted);
        EXPECT_FALSE(evicted);
    }
    table.Close(Key(2));
    table.Insert(Key(10), 10, &evicted);
    EXPECT_FALSE(evicted) << "a closed entry is no loss";
    EXPECT_EQ(table.Find(Key(2), 11), nullptr);
    EXPECT_NE(table.Find(Key(0), 12), nullptr); // now 1 is the least recently used
    table.Insert(Key(11), 13, &evicted);
    EXPECT_TRUE(evicted);
    EXPECT_EQ(table.Find(Key(1), 14), nullptr);
    EXPECT_NE(table.Find(Key(0), 15), nullptr);
    EXPECT_NE(table.Find(Key(3), 16), nullptr);
    table.Erase(Key(3));
    EXPECT_EQ(table.Find(Key(3), 17), nullptr);
    EXPECT_EQ(table.Size(), 3u);
}

} // namespace
