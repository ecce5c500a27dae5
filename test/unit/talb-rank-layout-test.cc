// Megatron-core's rank layout (model/graph/talb-rank-layout.h) without ns-3.
//
// The expected groups are worked out by hand from Megatron-core's rule (its RankGenerator and
// generate_masked_orthogonal_rank_groups): the order lists dimensions fastest-varying first, a
// rank is the mixed-radix number of its coordinates, and the groups of some dimensions are the
// ranks that agree on every other coordinate, groups enumerated by those other coordinates
// (fastest first), members by the grouped ones. For expert layers dp is listed as ep and
// dp / ep side by side in the order's place. Some cases are the examples of Megatron-core's
// own documentation (16 GPUs with tp 2 and pp 4; tp 2, dp 3, pp 4; tp 4 with cp 2).
#include "ns3/talb-rank-layout.h"

#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

using namespace talb::graph;

namespace
{

using Groups = std::vector<std::vector<uint32_t>>;
using Coords = std::array<uint32_t, static_cast<size_t>(Dim::kCount)>;

RankLayout
Layout(uint32_t tp,
       uint32_t cp,
       uint32_t ep,
       uint32_t dp,
       uint32_t pp,
       const std::string& order = "tp-cp-ep-dp-pp")
{
    Parallelism p;
    p.tp = tp;
    p.cp = cp;
    p.ep = ep;
    p.dp = dp;
    p.pp = pp;
    p.order = order;
    RankLayout layout;
    std::string error;
    EXPECT_TRUE(RankLayout::Make(p, &layout, &error)) << error;
    return layout;
}

std::string
MakeError(const Parallelism& p)
{
    RankLayout layout;
    std::string error;
    EXPECT_FALSE(RankLayout::Make(p, &layout, &error));
    return error;
}

TEST(TalbRankLayout, NumbersSixteenRanksWithTp2Pp4Dp2AsMegatronDoes)
{
    // rank = t + 2 d + 4 p
    const RankLayout l = Layout(2, 1, 1, 2, 4);
    EXPECT_EQ(l.World(), 16u);
    EXPECT_EQ(l.Groups({Dim::kTp}),
              (Groups{{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}, {10, 11}, {12, 13}, {14, 15}}));
    EXPECT_EQ(l.Groups({Dim::kDp}),
              (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
    EXPECT_EQ(l.Groups({Dim::kPp}),
              (Groups{{0, 4, 8, 12}, {1, 5, 9, 13}, {2, 6, 10, 14}, {3, 7, 11, 15}}));
    // Megatron's model-parallel group (tp-pp).
    EXPECT_EQ(l.Groups({Dim::kTp, Dim::kPp}),
              (Groups{{0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15}}));
}

TEST(TalbRankLayout, NumbersTp2Dp3Pp4AsMegatronsExample)
{
    // rank = t + 2 d + 6 p
    const RankLayout l = Layout(2, 1, 1, 3, 4);
    EXPECT_EQ(l.Groups({Dim::kDp}),
              (Groups{{0, 2, 4},
                      {1, 3, 5},
                      {6, 8, 10},
                      {7, 9, 11},
                      {12, 14, 16},
                      {13, 15, 17},
                      {18, 20, 22},
                      {19, 21, 23}}));
}

TEST(TalbRankLayout, PutsContextParallelRanksBesideTensorParallelOnes)
{
    // rank = t + 4 c
    const RankLayout l = Layout(4, 2, 1, 1, 1);
    EXPECT_EQ(l.Groups({Dim::kCp}), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    EXPECT_EQ(l.Groups({Dim::kTp}), (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}}));
    EXPECT_EQ(l.Groups({Dim::kTp, Dim::kCp}), (Groups{{0, 1, 2, 3, 4, 5, 6, 7}}));
}

TEST(TalbRankLayout, FollowsAnotherOrder)
{
    // tp-pp-dp (Megatron's alternative order): rank = t + 2 p + 4 d
    const RankLayout l = Layout(2, 1, 1, 2, 2, "tp-cp-ep-pp-dp");
    EXPECT_EQ(l.Groups({Dim::kDp}), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
    EXPECT_EQ(l.Groups({Dim::kPp}), (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}}));
    EXPECT_EQ(l.Coord(6, Dim::kPp), 1u);
    EXPECT_EQ(l.Coord(6, Dim::kDp), 1u);
}

TEST(TalbRankLayout, CarvesExpertsOutOfDataParallelRanks)
{
    // tp 2, ep 2, dp 4, pp 2: rank = t + 2 e + 4 d' + 8 p, with d = e + 2 d'
    const RankLayout l = Layout(2, 1, 2, 4, 2);
    EXPECT_EQ(l.World(), 16u);
    EXPECT_EQ(l.Groups({Dim::kEp}),
              (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
    EXPECT_EQ(l.ExpertDataGroups(),
              (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
    EXPECT_EQ(l.Groups({Dim::kDp}),
              (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
    EXPECT_EQ(l.Groups({Dim::kDp, Dim::kEp}), l.Groups({Dim::kDp}));
    EXPECT_EQ(l.Groups({Dim::kTp, Dim::kEp}),
              (Groups{{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 10, 11}, {12, 13, 14, 15}}));
    EXPECT_EQ(l.Groups({Dim::kPp}),
              (Groups{{0, 8}, {1, 9}, {2, 10}, {3, 11}, {4, 12}, {5, 13}, {6, 14}, {7, 15}}));
    // Rank 6 = t 0, e 1, d' 1: d = 3. Rank 4 = e 0, d' 1: d = 2.
    EXPECT_EQ(l.Coord(6, Dim::kDp), 3u);
    EXPECT_EQ(l.Coord(6, Dim::kEp), 1u);
    EXPECT_EQ(l.ExpertDataCoord(6), 1u);
    EXPECT_EQ(l.Coord(4, Dim::kEp), 0u);
    EXPECT_EQ(l.ExpertDataCoord(4), 1u);
}

TEST(TalbRankLayout, StridesExpertsWhenDpComesBeforeEp)
{
    // tp-cp-dp-ep-pp: rank = t + 2 d' + 4 e + 8 p, with d = d' + 2 e
    const RankLayout l = Layout(2, 1, 2, 4, 2, "tp-cp-dp-ep-pp");
    EXPECT_EQ(l.Groups({Dim::kEp}),
              (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}, {8, 12}, {9, 13}, {10, 14}, {11, 15}}));
    EXPECT_EQ(l.ExpertDataGroups(),
              (Groups{{0, 2}, {1, 3}, {4, 6}, {5, 7}, {8, 10}, {9, 11}, {12, 14}, {13, 15}}));
    // The dense numbering is the same as with ep before dp.
    EXPECT_EQ(l.Groups({Dim::kDp}),
              (Groups{{0, 2, 4, 6}, {1, 3, 5, 7}, {8, 10, 12, 14}, {9, 11, 13, 15}}));
    // Rank 4 = d' 0, e 1: d = 2, e = d / (dp / ep).
    EXPECT_EQ(l.Coord(4, Dim::kDp), 2u);
    EXPECT_EQ(l.Coord(4, Dim::kEp), 1u);
    EXPECT_EQ(l.ExpertDataCoord(4), 0u);
}

TEST(TalbRankLayout, ReportsSizesAsGiven)
{
    const RankLayout l = Layout(2, 3, 2, 4, 5);
    EXPECT_EQ(l.World(), 120u);
    EXPECT_EQ(l.Size(Dim::kTp), 2u);
    EXPECT_EQ(l.Size(Dim::kCp), 3u);
    EXPECT_EQ(l.Size(Dim::kEp), 2u);
    EXPECT_EQ(l.Size(Dim::kDp), 4u);
    EXPECT_EQ(l.Size(Dim::kPp), 5u);
}

TEST(TalbRankLayout, RankOfInvertsCoord)
{
    for (const char* order : {"tp-cp-ep-dp-pp", "pp-dp-ep-cp-tp", "cp-tp-dp-ep-pp"})
    {
        const RankLayout l = Layout(2, 3, 2, 4, 5, order);
        for (uint32_t rank = 0; rank < l.World(); ++rank)
        {
            Coords c{};
            for (Dim d : {Dim::kTp, Dim::kCp, Dim::kEp, Dim::kDp, Dim::kPp})
            {
                c[static_cast<size_t>(d)] = l.Coord(rank, d);
                EXPECT_LT(c[static_cast<size_t>(d)], l.Size(d));
            }
            EXPECT_EQ(l.RankOf(c), rank) << order;
            c[static_cast<size_t>(Dim::kEp)] = 1 - c[static_cast<size_t>(Dim::kEp)];
            EXPECT_EQ(l.RankOf(c), rank) << "kEp is ignored by RankOf";
        }
    }
}

TEST(TalbRankLayout, EveryGroupingPartitionsTheWorld)
{
    const RankLayout l = Layout(2, 2, 2, 4, 3, "tp-ep-dp-cp-pp");
    const std::vector<std::vector<Dim>> groupings = {{},
                                                     {Dim::kTp},
                                                     {Dim::kCp},
                                                     {Dim::kEp},
                                                     {Dim::kDp},
                                                     {Dim::kPp},
                                                     {Dim::kTp, Dim::kPp},
                                                     {Dim::kDp, Dim::kCp},
                                                     {Dim::kTp, Dim::kEp, Dim::kPp}};
    for (const auto& dims : groupings)
    {
        Groups groups = l.Groups(dims);
        std::set<uint32_t> seen;
        uint32_t previousFirst = 0;
        for (std::size_t g = 0; g < groups.size(); ++g)
        {
            ASSERT_EQ(groups[g].size(), groups[0].size());
            EXPECT_TRUE(g == 0 || groups[g][0] > previousFirst) << "groups by first rank";
            previousFirst = groups[g][0];
            for (std::size_t k = 0; k < groups[g].size(); ++k)
            {
                EXPECT_TRUE(k == 0 || groups[g][k] > groups[g][k - 1]) << "increasing";
                EXPECT_TRUE(seen.insert(groups[g][k]).second) << "rank in two groups";
            }
        }
        EXPECT_EQ(seen.size(), l.World());
    }
    EXPECT_EQ(l.Groups({}).size(), l.World());
}

TEST(TalbRankLayout, GroupsShareEveryCoordinateOutsideTheirDims)
{
    const RankLayout l = Layout(2, 2, 2, 4, 3, "tp-cp-dp-ep-pp");
    for (const auto& group : l.Groups({Dim::kTp, Dim::kPp}))
    {
        for (uint32_t rank : group)
        {
            EXPECT_EQ(l.Coord(rank, Dim::kCp), l.Coord(group[0], Dim::kCp));
            EXPECT_EQ(l.Coord(rank, Dim::kDp), l.Coord(group[0], Dim::kDp));
        }
    }
    for (const auto& group : l.ExpertDataGroups())
    {
        for (uint32_t rank : group)
        {
            EXPECT_EQ(l.Coord(rank, Dim::kEp), l.Coord(group[0], Dim::kEp));
            EXPECT_EQ(l.Coord(rank, Dim::kTp), l.Coord(group[0], Dim::kTp));
        }
    }
}

TEST(TalbRankLayout, AcceptsTheOrderInAnyCase)
{
    const RankLayout l = Layout(2, 1, 1, 2, 2, "TP-CP-EP-PP-DP");
    EXPECT_EQ(l.Groups({Dim::kDp}), (Groups{{0, 4}, {1, 5}, {2, 6}, {3, 7}}));
}

TEST(TalbRankLayout, DefaultIsOneRank)
{
    const RankLayout l;
    EXPECT_EQ(l.World(), 1u);
    EXPECT_EQ(l.Groups({Dim::kDp}), (Groups{{0}}));
}

TEST(TalbRankLayoutMake, RejectsAZeroSize)
{
    Parallelism p;
    p.cp = 0;
    EXPECT_EQ(MakeError(p), "cp is 0: every size must be >= 1");
}

TEST(TalbRankLayoutMake, RejectsAnEpThatDoesNotDivideDp)
{
    Parallelism p;
    p.dp = 6;
    p.ep = 4;
    EXPECT_EQ(MakeError(p), "ep 4 does not divide dp 6: expert parallelism is carved out of dp");
}

TEST(TalbRankLayoutMake, RejectsAWorldBeyond32Bits)
{
    Parallelism p;
    p.tp = 65536;
    p.dp = 65536;
    EXPECT_EQ(MakeError(p), "world size tp x cp x dp x pp does not fit 32 bits");
    p.dp = 65535; // 2^32 - 2^16 ranks fit
    RankLayout layout;
    EXPECT_TRUE(RankLayout::Make(p, &layout, nullptr));
    EXPECT_EQ(layout.World(), 65536u * 65535u);
}

TEST(TalbRankLayoutMake, RejectsAnUnknownDimension)
{
    Parallelism p;
    p.order = "tp-cp-ep-dp-xp";
    EXPECT_EQ(MakeError(p), "order 'tp-cp-ep-dp-xp': 'xp' is not one of tp, cp, ep, dp, pp");
    p.order = "tp--cp-ep-dp-pp";
    EXPECT_EQ(MakeError(p), "order 'tp--cp-ep-dp-pp': '' is not one of tp, cp, ep, dp, pp");
}

TEST(TalbRankLayoutMake, RejectsADimensionNamedTwiceOrMissing)
{
    Parallelism p;
    p.order = "tp-cp-ep-dp-tp";
    EXPECT_EQ(MakeError(p), "order 'tp-cp-ep-dp-tp': names tp twice");
    p.order = "tp-ep-dp-pp";
    EXPECT_EQ(MakeError(p), "order 'tp-ep-dp-pp': does not name cp (it must name all five)");
}

TEST(TalbRankLayoutMake, RejectsEpAwayFromDpWhenEpIsUsed)
{
    Parallelism p;
    p.ep = 2;
    p.dp = 2;
    p.order = "tp-cp-ep-pp-dp";
    EXPECT_EQ(MakeError(p),
              "order 'tp-cp-ep-pp-dp': ep and dp must be adjacent when ep > 1 (the expert split "
              "of dp)");
    p.ep = 1; // no split: ep may stand anywhere
    RankLayout layout;
    EXPECT_TRUE(RankLayout::Make(p, &layout, nullptr));
}

TEST(TalbRankLayoutMake, LeavesTheLayoutAloneOnFailure)
{
    RankLayout layout = Layout(2, 1, 1, 2, 1);
    Parallelism p;
    p.tp = 0;
    EXPECT_FALSE(RankLayout::Make(p, &layout, nullptr));
    EXPECT_EQ(layout.World(), 4u);
}

} // namespace
