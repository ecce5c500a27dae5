// The compiled model zoo against data/model-zoo-tensors.csv, priorities and the compute model.
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-model-zoo.h"

#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

struct CsvRow
{
    std::string model, tensor, kind, shape, layer;
    uint64_t params, flops;
};

/// An independent reader of the data file (the module never reads it).
std::vector<CsvRow>
ReadZooCsv()
{
    std::ifstream in(std::string(TALB_SOURCE_DIR) + "/data/model-zoo-tensors.csv");
    EXPECT_TRUE(in.good());
    std::string line;
    // The file has CRLF line ends.
    auto getline = [&in, &line]() {
        bool ok = bool(std::getline(in, line));
        if (ok && !line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        return ok;
    };
    getline();
    EXPECT_EQ(line, "model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group");
    std::vector<CsvRow> rows;
    while (getline())
    {
        std::istringstream ls(line);
        std::vector<std::string> f;
        std::string x;
        while (std::getline(ls, x, ','))
        {
            f.push_back(x);
        }
        EXPECT_EQ(f.size(), 7u) << line;
        rows.push_back({f[0], f[1], f[2], f[3], f[6], std::stoull(f[4]), std::stoull(f[5])});
    }
    return rows;
}

TEST(TalbModelZoo, CompiledTableMatchesTheDataFile)
{
    std::vector<CsvRow> rows = ReadZooCsv();
    ASSERT_EQ(rows.size(), 215u);
    std::map<std::string, uint32_t> next;
    for (const auto& r : rows)
    {
        TalbDnnModel m = TalbModelZoo::Get(r.model);
        uint32_t i = next[r.model]++;
        ASSERT_LT(i, m.GetNTensors()) << r.model;
        const TalbTensorSpec& t = m.GetTensor(i);
        EXPECT_EQ(t.name, r.tensor);
        EXPECT_EQ(t.kind, r.kind);
        EXPECT_EQ(t.shape, r.shape);
        EXPECT_EQ(t.params, r.params) << r.tensor;
        EXPECT_EQ(t.fwdFlopsPerSample, r.flops) << r.tensor;
        EXPECT_EQ(t.layer, r.layer);
    }
    for (const auto& n : next)
    {
        EXPECT_EQ(TalbModelZoo::Get(n.first).GetNTensors(), n.second) << n.first;
    }
}

TEST(TalbModelZoo, TotalsAreThePublishedOnes)
{
    EXPECT_EQ(TalbModelZoo::GetNames(), (std::vector<std::string>{"alexnet", "vgg19", "resnet50"}));
    EXPECT_EQ(TalbModelZoo::Get("alexnet").GetTotalParams(), 61100840u);
    EXPECT_EQ(TalbModelZoo::Get("vgg19").GetTotalParams(), 143667240u);
    EXPECT_EQ(TalbModelZoo::Get("resnet50").GetTotalParams(), 25557032u);
    EXPECT_EQ(TalbModelZoo::Get("resnet50").GetNTensors(), 161u);
    EXPECT_EQ(TalbModelZoo::Get("vgg19").GetNTensors(), 38u);
    EXPECT_EQ(TalbModelZoo::Get("alexnet").GetNTensors(), 16u);
}

TEST(TalbModelZoo, PriorityFollowsLayerPositionInEightClasses)
{
    TalbDnnModel m = TalbModelZoo::Get("resnet50");
    ASSERT_EQ(m.GetNLayers(), 18u); // stem, 16 bottleneck blocks, fc
    EXPECT_EQ(m.GetPriority(0), 0);
    EXPECT_EQ(m.GetPriority(m.GetNTensors() - 1), 7);
    for (uint32_t i = 1; i < m.GetNTensors(); ++i)
    {
        EXPECT_GE(m.GetPriority(i), m.GetPriority(i - 1));
        EXPECT_EQ(m.GetPriority(i), m.GetLayerIndex(i) * 8 / 18);
    }
    TalbDnnModel a = TalbModelZoo::Get("alexnet"); // 8 layers: one class each
    for (uint32_t i = 0; i < a.GetNTensors(); ++i)
    {
        EXPECT_EQ(a.GetPriority(i), i / 2);
    }
}

TEST(TalbComputeModel, ForwardIsFlopsTimesBatchOverRateBackwardTwice)
{
    TalbDnnModel m = TalbModelZoo::Get("resnet50");
    TalbComputeModel c;
    c.batchSize = 32;
    c.flopsPerSecond = TalbComputeModel::PresetRate("V100-FP32");
    EXPECT_DOUBLE_EQ(c.flopsPerSecond, 9e12);
    double fwd = 0;
    double bwd = 0;
    for (uint32_t i = 0; i < m.GetNTensors(); ++i)
    {
        fwd += m.GetForwardTime(i, c).GetSeconds();
        bwd += m.GetBackwardTime(i, c).GetSeconds();
    }
    // 8.18 GFLOP per image x 32 / 9 TFLOP/s
    EXPECT_NEAR(fwd, 8.178e9 * 32 / 9e12, 1e-5);
    EXPECT_NEAR(bwd, 2 * fwd, 1e-5);
    EXPECT_EQ(m.GetForwardTime(0, c), NanoSeconds(std::llround(236027904.0 * 32 / 9e12 * 1e9)));
    EXPECT_DOUBLE_EQ(TalbComputeModel::PresetRate("A100-AMP"), 61e12);
    EXPECT_EQ(TalbComputeModel::PresetNames(), "V100-FP32, V100-AMP, A100-TF32, A100-AMP");
}

} // namespace
