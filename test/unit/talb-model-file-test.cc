// Model files, ASTRA-sim import and flow-size CDFs: round trips and errors with line numbers.
#include "ns3/talb-astra-sim-workload.h"
#include "ns3/talb-dnn-model.h"
#include "ns3/talb-flow-size-cdf.h"
#include "ns3/talb-model-file.h"
#include "ns3/talb-model-zoo.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <unistd.h>

using namespace ns3;

namespace
{

std::string
WriteTemp(const std::string& name, const std::string& text)
{
    // Names prefixed by the process id: ctest runs test cases (and other checkouts' runs) in
    // parallel.
    std::string path = testing::TempDir() + "/" + std::to_string(getpid()) + "-" + name;
    std::ofstream(path) << text;
    return path;
}

void
ExpectSameTensors(const TalbDnnModel& a, const TalbDnnModel& b)
{
    ASSERT_EQ(a.GetName(), b.GetName());
    ASSERT_EQ(a.GetNTensors(), b.GetNTensors());
    for (uint32_t i = 0; i < a.GetNTensors(); ++i)
    {
        const TalbTensorSpec& x = a.GetTensor(i);
        const TalbTensorSpec& y = b.GetTensor(i);
        EXPECT_EQ(x.name, y.name);
        EXPECT_EQ(x.kind, y.kind);
        EXPECT_EQ(x.shape, y.shape);
        EXPECT_EQ(x.params, y.params);
        EXPECT_EQ(x.fwdFlopsPerSample, y.fwdFlopsPerSample);
        EXPECT_EQ(x.layer, y.layer);
        EXPECT_EQ(x.fwdTimeNs, y.fwdTimeNs);
        EXPECT_EQ(x.bwdTimeNs, y.bwdTimeNs);
        EXPECT_EQ(a.GetLayerIndex(i), b.GetLayerIndex(i));
    }
}

TEST(TalbModelFile, ZooRoundTrips)
{
    std::vector<TalbDnnModel> zoo;
    for (const auto& n : TalbModelZoo::GetNames())
    {
        zoo.push_back(TalbModelZoo::Get(n));
    }
    // One tensor with explicit times too.
    TalbDnnModel timed("timed");
    TalbTensorSpec t;
    t.name = "w";
    t.layer = "l0";
    t.params = 7;
    t.fwdTimeNs = 1234;
    t.bwdTimeNs = 0;
    timed.AddTensor(t);
    zoo.push_back(timed);
    std::string path = testing::TempDir() + "/" + std::to_string(getpid()) + "-zoo-roundtrip.csv";
    TalbModelFile::Write(path, zoo);
    std::vector<TalbDnnModel> back = TalbModelFile::Read(path);
    ASSERT_EQ(back.size(), zoo.size());
    for (std::size_t i = 0; i < zoo.size(); ++i)
    {
        ExpectSameTensors(zoo[i], back[i]);
    }
    ExpectSameTensors(TalbModelZoo::Resolve(path + "#vgg19"), zoo[1]);
}

TEST(TalbModelFile, MinimalFileWithExplicitTimes)
{
    std::string path = WriteTemp("minimal.csv",
                                 "# talb-model-file v1\n"
                                 "# a comment, then a header in another order\n"
                                 "tensor,model,params,layer_group,fwd_ns\n"
                                 "a,m,10,l1,100\n"
                                 "\n"
                                 "b,m,20,l2,300\n");
    TalbDnnModel m = TalbModelZoo::Resolve(path);
    ASSERT_EQ(m.GetNTensors(), 2u);
    TalbComputeModel c;
    EXPECT_EQ(m.GetForwardTime(1, c), NanoSeconds(300));
    EXPECT_EQ(m.GetBackwardTime(1, c), NanoSeconds(600)); // BackwardFactor 2
    EXPECT_EQ(m.GetNLayers(), 2u);
}

struct BadFile
{
    std::string text;
    const char* error; // expected message after the path
};

TEST(TalbModelFile, MalformedFilesNameLineAndField)
{
    const BadFile cases[] = {
        {"model,tensor\n", ":1: first line must be '# talb-model-file v1'"},
        {"# talb-model-file v2\n", ":1: unsupported version"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops,layer_group\n",
         ":2: field 'fwd_flops': unknown column"},
        {"# talb-model-file v1\nmodel,tensor,fwd_ns,layer_group\n",
         ":2: field 'params': required column missing"},
        {"# talb-model-file v1\nmodel,tensor,params,layer_group\n",
         ":2: field 'fwd_flops_per_sample': need fwd_flops_per_sample or fwd_ns"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,a,10,5,l\n"
         "m,b,ten,5,l\n",
         ":4: field 'params': 'ten' is not a positive integer"},
        {"# talb-model-file "
         "v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\n\nm,a,0,5,l\n",
         ":4: field 'params': '0' is not a positive integer"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,a,1,-5,l\n",
         ":3: field 'fwd_flops_per_sample': '-5' is not a non-negative integer"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,a,1,5\n",
         ":3: 4 fields, the header has 5"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,a,1,5,l\n"
         "m,a,1,5,l\n",
         ":4: field 'tensor': 'a' appears twice in m"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,,1,5,l\n",
         ":3: field 'tensor': '' must be a non-empty word"},
        // Found by fuzz:model-file: written back, a model named "#m" starts a comment line.
        {"# talb-model-file v1\ntensor,model,params,fwd_ns,layer_group\nt,#m,1,5,l\n",
         ":3: field 'model': '#m' must be a non-empty word, not starting with '#'"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\nm,a,1,5,l\n"
         "n,b,1,5,l\nm,c,1,5,l\n",
         ":5: field 'model': rows of model 'm' are not consecutive"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group,bwd_ns\n"
         "m,a,1,5,l,9\n",
         ":3: field 'bwd_ns': given without fwd_ns"},
        {"# talb-model-file v1\nmodel,tensor,params,fwd_flops_per_sample,layer_group\n",
         ":2: no tensors"},
    };
    int k = 0;
    for (const auto& c : cases)
    {
        std::string path = WriteTemp("bad" + std::to_string(k++) + ".csv", c.text);
        std::vector<TalbDnnModel> models;
        std::string error;
        EXPECT_FALSE(TalbModelFile::TryRead(path, &models, &error)) << c.text;
        EXPECT_EQ(error.rfind(path + c.error, 0), 0u) << "got: " << error;
    }
    std::string error;
    std::vector<TalbDnnModel> models;
    EXPECT_FALSE(TalbModelFile::TryRead("/nonexistent/m.csv", &models, &error));
    EXPECT_NE(error.find("/nonexistent/m.csv:0: cannot open"), std::string::npos);
}

TEST(TalbModelFile, LoadFileAbortsWithTheError)
{
    std::string path = WriteTemp("abort.csv", "# talb-model-file v1\nmodel,tensor\n");
    EXPECT_DEATH(TalbModelFile::Read(path), "abort.csv:2: field 'params': required column");
}

TEST(TalbAstraSim, ExportImportRoundTrip)
{
    TalbDnnModel m = TalbModelZoo::Get("resnet50");
    TalbComputeModel c;
    std::string path = testing::TempDir() + "/" + std::to_string(getpid()) + "-resnet50.astra";
    TalbAstraSimWorkload::Write(m, path, NanoSeconds(1), 2, c);
    TalbDnnModel back = TalbAstraSimWorkload::Read(path, NanoSeconds(1), 2, "resnet50");
    ASSERT_EQ(back.GetNTensors(), m.GetNTensors());
    for (uint32_t i = 0; i < m.GetNTensors(); ++i)
    {
        EXPECT_EQ(back.GetTensor(i).name, m.GetTensor(i).name);
        EXPECT_EQ(back.GetTensor(i).params, m.GetTensor(i).params);
        EXPECT_EQ(back.GetForwardTime(i, c), m.GetForwardTime(i, c));
        EXPECT_EQ(back.GetBackwardTime(i, c), m.GetBackwardTime(i, c));
    }
}

TEST(TalbAstraSim, TimeUnitsAreExplicit)
{
    std::string path = WriteTemp("two.astra",
                                 "DATA\n2\n"
                                 "conv1 -1 1000 NONE 0 300 NONE 0 200 ALLREDUCE 4096 10\n"
                                 "\n"
                                 "fc -1 50 NONE 0 20 NONE 0 30 ALLREDUCE 800 10\n");
    // 1 cycle = 1 ns (1 GHz) or 2 ns (500 MHz)
    TalbDnnModel ghz = TalbAstraSimWorkload::Read(path, NanoSeconds(1), 4, "w");
    TalbDnnModel slow = TalbAstraSimWorkload::Read(path, NanoSeconds(2), 2, "w");
    TalbComputeModel c;
    EXPECT_EQ(ghz.GetForwardTime(0, c), NanoSeconds(1000));
    EXPECT_EQ(ghz.GetBackwardTime(0, c), NanoSeconds(500));
    EXPECT_EQ(ghz.GetTensor(0).params, 1024u);
    EXPECT_EQ(ghz.GetTensor(1).params, 200u);
    EXPECT_EQ(slow.GetForwardTime(0, c), NanoSeconds(2000));
    EXPECT_EQ(slow.GetBackwardTime(1, c), NanoSeconds(100));
    EXPECT_EQ(slow.GetTensor(0).params, 2048u);
}

TEST(TalbAstraSim, MalformedFilesNameLineAndField)
{
    const BadFile cases[] = {
        {"MODEL\n1\n", ":1: field 'parallelism': 'MODEL': only DATA"},
        {"DATA\nx\n", ":2: field 'layers': 'x' is not a positive integer"},
        {"DATA\n2\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 0\n",
         ":3: field 'layers': the file declares 2 layers but has 1"},
        {"DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8\n", ":3: 11 fields, a layer line has 12"},
        {"DATA\n1\nl -1 1.5 NONE 0 1 NONE 0 1 ALLREDUCE 8 0\n",
         ":3: field 'forward compute time': '1.5' is not a non-negative integer"},
        {"DATA\n1\nl -1 1 ALLGATHER 0 1 NONE 0 1 ALLREDUCE 8 0\n",
         ":3: field 'forward communication type': 'ALLGATHER'"},
        {"DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLTOALL 8 0\n",
         ":3: field 'weight grad communication type': 'ALLTOALL': expected ALLREDUCE"},
        {"DATA\n1\n\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 6 0\n",
         ":4: field 'weight grad communication size': '6' is not a positive multiple of 4"},
        {"DATA\n1\nl -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 0\nm -1 1 NONE 0 1 NONE 0 1 ALLREDUCE 8 "
         "0\n",
         ":4: field 'layers': more layer lines than the declared count"},
        // Found by fuzz:astra-sim: an empty file named line 0; a huge compute time overflowed
        // ns-3's time (undefined behaviour) instead of being refused.
        {"", ":1: field 'parallelism': empty file"},
        {"DATA\n1\nl -1 1 NONE 0 5000000000000000000 NONE 0 5000000000000000000 ALLREDUCE 8 0\n",
         ":3: field 'weight grad compute time': '5000000000000000000' cycles"},
    };
    int k = 0;
    for (const auto& c : cases)
    {
        std::string path = WriteTemp("bad" + std::to_string(k++) + ".astra", c.text);
        TalbDnnModel m;
        std::string error;
        EXPECT_FALSE(TalbAstraSimWorkload::TryRead(path, NanoSeconds(1), 4, "x", &m, &error));
        EXPECT_EQ(error.rfind(path + c.error, 0), 0u) << "got: " << error;
    }
}

TEST(TalbFlowSizeCdf, ShippedCdfsLoadAndSampleTheirMean)
{
    for (const char* name : {"websearch-cdf.txt", "fbhadoop-cdf.txt"})
    {
        TalbFlowSizeCdf cdf = TalbFlowSizeCdf::Load(std::string(TALB_SOURCE_DIR) + "/data/" + name);
        std::mt19937_64 rng(1);
        std::uniform_real_distribution<double> u(0, 1);
        double sum = 0;
        const int samples = 2000000;
        for (int i = 0; i < samples; ++i)
        {
            sum += cdf.Sample(u(rng));
        }
        EXPECT_NEAR(sum / samples, cdf.GetMean(), 0.02 * cdf.GetMean()) << name;
    }
    TalbFlowSizeCdf web =
        TalbFlowSizeCdf::Load(std::string(TALB_SOURCE_DIR) + "/data/websearch-cdf.txt");
    EXPECT_EQ(web.Sample(0.0), 1u);       // first point: 0 bytes, clamped to 1
    EXPECT_EQ(web.Sample(0.15), 10000u);  // a point: 10 kB at 15 %
    EXPECT_EQ(web.Sample(0.175), 15000u); // halfway to 20 kB at 20 %
    EXPECT_EQ(web.Sample(1.0), 30000000u);
}

TEST(TalbFlowSizeCdf, MalformedFilesNameLineAndField)
{
    const BadFile cases[] = {
        {"0 0\n100 50\n", ":2: field 'cumulative_percent': the last point must be 100"},
        {"0 0\n100 50 7\n", ":2: expected two fields"},
        {"0 0\nabc 50\n", ":2: field 'size_bytes': 'abc' is not a non-negative number"},
        {"0 0\n100 150\n", ":2: field 'cumulative_percent': '150' is not in [0, 100]"},
        {"100 0\n50 100\n", ":2: field 'size_bytes': sizes must not decrease"},
        {"0 50\n100 10\n", ":2: field 'cumulative_percent': percents must not decrease"},
    };
    int k = 0;
    for (const auto& c : cases)
    {
        std::string path = WriteTemp("bad" + std::to_string(k++) + ".cdf", c.text);
        TalbFlowSizeCdf cdf;
        std::string error;
        EXPECT_FALSE(TalbFlowSizeCdf::TryLoad(path, &cdf, &error));
        EXPECT_EQ(error.rfind(path + c.error, 0), 0u) << "got: " << error;
    }
}

} // namespace
