// The trainer's host-side plan: zoo rows, priorities by layer group (the simulator's rule), WFBP
// buckets.
#include "talb-trainer-plan.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <unistd.h>

namespace
{

std::string
WriteZoo(const std::string& rows)
{
    std::string path = ::testing::TempDir() + "talb-plan-zoo-" + std::to_string(getpid()) + ".csv";
    std::ofstream(path) << "model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group\n"
                        << rows;
    return path;
}

talb::ModelPlan
Load(const std::string& rows, const std::string& model)
{
    talb::ModelPlan plan;
    std::string error;
    EXPECT_TRUE(talb::LoadModel(WriteZoo(rows), model, &plan, &error)) << error;
    return plan;
}

const char* kTiny = "m,l0.w,conv,x,100,1000,g0\n"
                    "m,l0.b,conv_bias,x,10,0,g0\n"
                    "other,z,fc,x,5,5,g\n"
                    "m,l1.w,fc,x,300,600,g1\n"
                    "m,l1.b,fc_bias,x,30,0,g1\n";

TEST(TalbTrainerPlan, LoadsOnlyTheModelsRowsInOrder)
{
    talb::ModelPlan plan = Load(kTiny, "m");
    ASSERT_EQ(plan.tensors.size(), 4u);
    EXPECT_EQ(plan.tensors[2].name, "l1.w");
    EXPECT_EQ(plan.tensors[2].index, 2u);
    EXPECT_EQ(plan.tensors[2].fwdFlopsPerSample, 600u);
    EXPECT_EQ(plan.totalParams, 440u);
}

TEST(TalbTrainerPlan, OneBucketPerTensorInBackwardOrder)
{
    talb::ModelPlan plan = Load(kTiny, "m");
    talb::PlanBuckets(&plan, 0);
    ASSERT_EQ(plan.buckets.size(), 4u);
    // Backward order: the last tensor is first in the buffer and first to be reduced.
    EXPECT_EQ(plan.buckets[0].first, 3u);
    EXPECT_EQ(plan.tensors[3].offset, 0u);
    EXPECT_EQ(plan.tensors[2].offset, 30u);
    EXPECT_EQ(plan.tensors[0].offset, 340u);
    EXPECT_EQ(plan.buckets[3].first, 0u);
    EXPECT_EQ(plan.buckets[3].count, 100u);
    // Priority by layer group (g0, g1), 8 classes, input side most urgent: the simulator's rule.
    EXPECT_EQ(plan.layers, 2u);
    EXPECT_EQ(plan.tensors[0].priority, 0);
    EXPECT_EQ(plan.tensors[1].priority, 0);
    EXPECT_EQ(plan.tensors[2].priority, 4);
    EXPECT_EQ(plan.tensors[3].priority, 4);
}

TEST(TalbTrainerPlan, BucketsCloseOnceTheyReachTheByteThreshold)
{
    talb::ModelPlan plan = Load(kTiny, "m");
    talb::PlanBuckets(&plan, 1000); // 250 floats
    // Backward: l1.b (30) + l1.w (300) = 330 >= 250 closes; l0.b (10) + l0.w (100) is the rest.
    ASSERT_EQ(plan.buckets.size(), 2u);
    EXPECT_EQ(plan.buckets[0].first, 2u);
    EXPECT_EQ(plan.buckets[0].last, 3u);
    EXPECT_EQ(plan.buckets[0].count, 330u);
    EXPECT_EQ(plan.buckets[1].offset, 330u);
    EXPECT_EQ(plan.tensors[0].bucket, 1u);
    EXPECT_EQ(plan.tensors[3].bucket, 0u);
}

TEST(TalbTrainerPlan, RejectsMalformedRowsWithFileAndLine)
{
    talb::ModelPlan plan;
    std::string error;
    EXPECT_FALSE(talb::LoadModel(WriteZoo("m,a,conv,x,0,1,g\n"), "m", &plan, &error));
    EXPECT_NE(error.find(":2: params '0'"), std::string::npos) << error;
    EXPECT_FALSE(talb::LoadModel(WriteZoo("m,a,conv\n"), "m", &plan, &error));
    EXPECT_NE(error.find("expected 7 fields, got 3"), std::string::npos) << error;
    EXPECT_FALSE(talb::LoadModel(WriteZoo(kTiny), "absent", &plan, &error));
    EXPECT_NE(error.find("no rows for model 'absent'"), std::string::npos) << error;
}

TEST(TalbTrainerPlan, ZooTotalsMatchTheTorchvisionModels)
{
    std::string path = std::string(TALB_SOURCE_DIR) + "/data/model-zoo-tensors.csv";
    if (!std::ifstream(path))
    {
        GTEST_SKIP() << path << " not in this checkout";
    }
    const std::pair<const char*, uint64_t> models[] = {{"alexnet", 61100840},
                                                       {"vgg19", 143667240},
                                                       {"resnet50", 25557032}};
    for (const auto& [name, total] : models)
    {
        talb::ModelPlan plan;
        std::string error;
        ASSERT_TRUE(talb::LoadModel(path, name, &plan, &error)) << error;
        EXPECT_EQ(plan.totalParams, total) << name;
        talb::PlanBuckets(&plan, 25u << 20);
        uint64_t sum = 0;
        for (const auto& b : plan.buckets)
        {
            EXPECT_EQ(b.offset, sum);
            sum += b.count;
        }
        EXPECT_EQ(sum, total);
        EXPECT_EQ(plan.tensors.front().priority, 0);
        EXPECT_EQ(plan.tensors.back().priority, 7);
        // Tensors of one layer group share a priority; priorities never decrease.
        for (size_t i = 1; i < plan.tensors.size(); ++i)
        {
            const talb::Tensor& a = plan.tensors[i - 1];
            const talb::Tensor& b = plan.tensors[i];
            EXPECT_LE(a.priority, b.priority) << name << " " << b.name;
            if (a.layer == b.layer)
            {
                EXPECT_EQ(a.priority, b.priority) << name << " " << b.name;
            }
        }
    }
}

TEST(TalbTrainerPlan, ResNet50LayerGroupsMatchTheSimulatorsLabels)
{
    std::string path = std::string(TALB_SOURCE_DIR) + "/data/model-zoo-tensors.csv";
    if (!std::ifstream(path))
    {
        GTEST_SKIP() << path << " not in this checkout";
    }
    // The module's unit test pins ResNet50 at 18 layer groups (stem, 16 blocks, fc): the same
    // CSV must give the trainer the same groups, hence the same labels.
    talb::ModelPlan plan;
    std::string error;
    ASSERT_TRUE(talb::LoadModel(path, "resnet50", &plan, &error)) << error;
    talb::PlanBuckets(&plan, 0);
    EXPECT_EQ(plan.layers, 18u);
    for (const auto& t : plan.tensors)
    {
        EXPECT_EQ(t.priority, t.layer * 8 / 18) << t.name;
    }
}

TEST(TalbTrainerPlan, RankPlaceholderExpands)
{
    EXPECT_EQ(talb::ExpandRank("out/t-{rank}-{rank}.csv", 3), "out/t-3-3.csv");
    EXPECT_EQ(talb::ExpandRank("plain.csv", 3), "plain.csv");
}

} // namespace
