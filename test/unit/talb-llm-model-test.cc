// The LLM workload generator's inputs: model presets and their parameter counts and FLOPs,
// device presets, the job checks, MoE routing and Megatron-style gradient buckets.
#include "ns3/talb-llm-analytic.h"
#include "ns3/talb-llm-grad-buffer.h"
#include "ns3/talb-llm-job.h"
#include "ns3/talb-llm-model.h"
#include "ns3/talb-llm-routing.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <numeric>
#include <string>
#include <vector>

using namespace talb::graph;

namespace
{

LlmModel
Preset(const std::string& name)
{
    LlmModel m;
    std::string error;
    EXPECT_TRUE(LlmModelPreset(name, &m, &error)) << error;
    return m;
}

/// A small Llama-like job that passes every check, for the checks to break one field at a time.
LlmJobConfig
SmallJob()
{
    LlmJobConfig c;
    c.model = Preset("llama3-8b");
    c.model.layers = 4;
    c.model.seqLength = 1024;
    EXPECT_TRUE(LlmDevicePreset("h100-sxm", &c.device, nullptr));
    c.parallelism.tp = 2;
    c.parallelism.pp = 2;
    c.parallelism.dp = 2;
    c.globalBatch = 8;
    return c;
}

std::string
CheckError(const LlmJobConfig& c)
{
    std::string error;
    EXPECT_FALSE(CheckLlmJob(c, &error));
    return error;
}

} // namespace

// Published sizes: Llama 3 (8.03B, 70.55B, 405.85B per its released configurations), Mixtral
// 8x7B (46.70B), GPT-3 175B (174.6B). The other two follow the same formulas.
TEST(TalbLlmModel, PresetParameterCountsMatchPublishedSizes)
{
    EXPECT_EQ(LlmCountParams(Preset("llama3-8b")).Total(), 8030261248ull);
    EXPECT_EQ(LlmCountParams(Preset("llama3-70b")).Total(), 70553706496ull);
    EXPECT_EQ(LlmCountParams(Preset("llama3-405b")).Total(), 405853388800ull);
    EXPECT_EQ(LlmCountParams(Preset("mixtral-8x7b")).Total(), 46702792704ull);
    EXPECT_EQ(LlmCountParams(Preset("gpt3-175b")).Total(), 174604259328ull);
    // 24 (12 h^2 + 13 h) + V h + s h + 2 h with h = 2048, and with h = 5120, 40 layers.
    EXPECT_EQ(LlmCountParams(Preset("gpt3-1.3b")).Total(), 1315723264ull);
    EXPECT_EQ(LlmCountParams(Preset("gpt3-13b")).Total(), 12853386240ull);
}

TEST(TalbLlmModel, LayerPartsOfLlama3And8x7b)
{
    LlmModel m = Preset("llama3-8b");
    EXPECT_EQ(LlmAttentionParams(m), 4096ull * 4096 * 2 + 4096ull * 1024 * 2);
    EXPECT_EQ(LlmDenseMlpParams(m), 3ull * 4096 * 14336);
    EXPECT_EQ(LlmNormParams(m), 4096u);
    LlmParamCounts c = LlmCountParams(m);
    EXPECT_EQ(c.embedding, 128256ull * 4096);
    EXPECT_EQ(c.output, c.embedding); // untied
    EXPECT_EQ(c.norms, 65ull * 4096);
    LlmModel x = Preset("mixtral-8x7b");
    EXPECT_EQ(x.MoeLayers(), 32u);
    EXPECT_EQ(LlmRouterParams(x), 8ull * 4096);
    EXPECT_EQ(LlmCountParams(x).experts, 32ull * 8 * 3 * 4096 * 14336);
    EXPECT_EQ(LlmCountParams(x).mlp, 0u);
    // GPT-3: biases, LayerNorm (2h), tied embedding with learned positions.
    LlmModel g = Preset("gpt3-175b");
    EXPECT_EQ(LlmAttentionParams(g), 4ull * 12288 * 12288 + 4 * 12288);
    EXPECT_EQ(LlmDenseMlpParams(g), 8ull * 12288 * 12288 + 5 * 12288);
    EXPECT_EQ(LlmCountParams(g).output, 0u);
    EXPECT_EQ(LlmCountParams(g).embedding, (50257ull + 2048) * 12288);
}

TEST(TalbLlmModel, MoeEveryKthLayerFollowsMegatron)
{
    LlmModel m = Preset("mixtral-8x7b");
    m.layers = 5;
    m.moeLayerFreq = 2;
    EXPECT_TRUE(m.IsMoeLayer(0));
    EXPECT_FALSE(m.IsMoeLayer(1));
    EXPECT_TRUE(m.IsMoeLayer(4));
    EXPECT_EQ(m.MoeLayers(), 3u);
}

// 3 x the forward FLOPs per token is Megatron-LM's num_floating_point_operations per token:
// 12 L h^2 ((1 + g/n + s/(2h)) q/h + (f/h) k c/2) + 6 h V (its causal count), plus the router.
TEST(TalbLlmModel, ForwardFlopsMatchMegatronsFormula)
{
    for (const char* name : {"llama3-70b", "gpt3-175b", "mixtral-8x7b"})
    {
        LlmModel m = Preset(name);
        double h = m.hidden, L = m.layers, s = m.seqLength, V = m.vocab;
        double q = double(m.heads) * m.HeadDim();
        double f = m.experts ? m.moeFfnHidden : m.ffnHidden;
        double k = m.experts ? m.topK : 1;
        double gated = m.gatedMlp ? 1.5 : 1;
        double megatron =
            12 * L * h * h *
                ((1 + double(m.kvHeads) / m.heads + s / h * 0.5) * q / h + f / h * k * gated) +
            6 * h * V;
        double router = 3 * L * 2 * h * m.experts;
        LlmFlops flops = LlmForwardFlopsPerToken(m);
        EXPECT_DOUBLE_EQ(3.0 * flops.Total(), megatron + router) << name;
        EXPECT_EQ(flops.bf16 - 2 * uint64_t(h) * m.vocab -
                      uint64_t(L) * 2 * uint64_t(h) * m.experts,
                  uint64_t(L) * 2 * m.seqLength * uint64_t(q))
            << name;
    }
}

TEST(TalbLlmModel, UnknownPresetListsValidNames)
{
    LlmModel m;
    std::string error;
    EXPECT_FALSE(LlmModelPreset("gpt5", &m, &error));
    EXPECT_NE(error.find("'gpt5'"), std::string::npos) << error;
    for (const std::string& name : LlmModelPresetNames())
    {
        EXPECT_NE(error.find(name), std::string::npos) << error;
    }
    LlmDevice d;
    EXPECT_FALSE(LlmDevicePreset("tpu", &d, &error));
    EXPECT_NE(error.find("h100-sxm, h200-sxm, b200"), std::string::npos) << error;
    LlmPrecision p;
    EXPECT_FALSE(LlmPrecisionFromName("fp4", &p, &error));
    EXPECT_NE(error.find("bf16, fp8"), std::string::npos) << error;
}

TEST(TalbLlmModel, ModelChecksNameTheField)
{
    struct Case
    {
        void (*breakIt)(LlmModel&);
        const char* field;
    };

    const Case cases[] = {
        {[](LlmModel& m) { m.layers = 0; }, "'layers'"},
        {[](LlmModel& m) { m.heads = 30; }, "'heads'"},
        {[](LlmModel& m) { m.kvHeads = 3; }, "'kvHeads'"},
        {[](LlmModel& m) { m.ffnHidden = 0; }, "'ffnHidden'"},
        {[](LlmModel& m) { m.experts = 4; }, "'moeFfnHidden'"},
        {[](LlmModel& m) { m.experts = 4, m.moeFfnHidden = 8, m.topK = 5; }, "'topK'"},
        {[](LlmModel& m) { m.experts = 4, m.moeFfnHidden = 8, m.topK = 1, m.routingSkew = -1; },
         "'routingSkew'"},
    };
    for (const Case& c : cases)
    {
        LlmModel m = Preset("llama3-8b");
        c.breakIt(m);
        std::string error;
        EXPECT_FALSE(CheckLlmModel(m, &error)) << c.field;
        EXPECT_NE(error.find(c.field), std::string::npos) << error;
    }
}

TEST(TalbLlmDevice, PresetsAndComputeTime)
{
    LlmDevice h100;
    ASSERT_TRUE(LlmDevicePreset("h100-sxm", &h100, nullptr));
    EXPECT_DOUBLE_EQ(h100.bf16Flops, 989.4e12); // dense, half the datasheet's sparse figure
    EXPECT_DOUBLE_EQ(LlmPeakFlops(h100, LlmPrecision::kFp8), 1978.9e12);
    // 989.4e9 FLOPs at half the BF16 peak: 2 ms; FP8 linear layers twice as fast.
    EXPECT_EQ(LlmComputeNs(h100, LlmPrecision::kBf16, 0.5, 989400000000ull, 0), 2000000u);
    EXPECT_EQ(LlmComputeNs(h100, LlmPrecision::kFp8, 0.5, 0, 989400000000ull), 2000000u);
    EXPECT_EQ(LlmMemoryNs(h100, 3350000000ull), 1000000u); // 3.35 GB at 3.35 TB/s
    LlmDevice b200;
    ASSERT_TRUE(LlmDevicePreset("b200", &b200, nullptr));
    EXPECT_DOUBLE_EQ(b200.fp8Flops, 4500e12);
    EXPECT_EQ(LlmDevicePresetNames().size(), 4u);
}

TEST(TalbLlmJob, TheSmallJobIsValid)
{
    LlmJobShape s;
    std::string error;
    ASSERT_TRUE(MakeLlmJobShape(SmallJob(), &s, &error)) << error;
    EXPECT_EQ(s.microBatches, 4u);
    EXPECT_EQ(s.layersPerStage, 2u);
    EXPECT_EQ(s.paddedVocab, 128256u); // already a multiple of 128 x 2
    EXPECT_EQ(s.bucketParams, 40000000u);
    EXPECT_EQ(s.routedTokens, 512u);
}

TEST(TalbLlmJob, ChecksNameTheField)
{
    struct Case
    {
        void (*breakIt)(LlmJobConfig&);
        const char* field;
    };

    const Case cases[] = {
        {[](LlmJobConfig& c) { c.parallelism.tp = 3; }, "'heads'"},
        {[](LlmJobConfig& c) { c.parallelism.tp = 16; }, "'kvHeads'"},
        {[](LlmJobConfig& c) { c.parallelism.pp = 3; }, "'layers'"},
        {[](LlmJobConfig& c) { c.globalBatch = 7; }, "'globalBatch'"},
        {[](LlmJobConfig& c) { c.microBatch = 0; }, "'microBatch'"},
        {[](LlmJobConfig& c) { c.parallelism.cp = 2; }, "'cp'"},
        {[](LlmJobConfig& c) { c.parallelism.ep = 2; }, "'ep'"},
        {[](LlmJobConfig& c) { c.parallelism.order = "tp-dp-pp"; }, "parallelism:"},
        {[](LlmJobConfig& c) { c.model.seqLength = 1025; }, "'seqLength'"},
        {[](LlmJobConfig& c) { c.mfu = 0; }, "'mfu'"},
        {[](LlmJobConfig& c) { c.gradBytes = 3; }, "'gradBytes'"},
        {[](LlmJobConfig& c) { c.iterations = 0; }, "'iterations'"},
        {[](LlmJobConfig& c) { c.zero3 = true; }, "'zero3'"},
        {[](LlmJobConfig& c) { c.device = LlmDevice(); }, "'bf16Flops'"},
        {[](LlmJobConfig& c) {
             LlmDevicePreset("a100-sxm", &c.device, nullptr);
             c.precision = LlmPrecision::kFp8;
         },
         "'precision'"},
        {[](LlmJobConfig& c) {
             c.model = Preset("mixtral-8x7b");
             c.model.layers = 4;
             c.parallelism.ep = 2;
             c.sequenceParallel = false;
         },
         "'sequenceParallel'"},
        {[](LlmJobConfig& c) {
             c.model = Preset("mixtral-8x7b");
             c.model.layers = 4;
             c.parallelism.dp = 6;
             c.parallelism.ep = 3;
             c.globalBatch = 12;
         },
         "'experts'"},
        {[](LlmJobConfig& c) {
             c.model = Preset("mixtral-8x7b");
             c.model.layers = 4;
             c.moePadToCapacity = true;
         },
         "'moePadToCapacity'"},
    };
    for (const Case& c : cases)
    {
        LlmJobConfig config = SmallJob();
        c.breakIt(config);
        std::string error = CheckError(config);
        EXPECT_NE(error.find(c.field), std::string::npos) << c.field << ": " << error;
    }
}

TEST(TalbLlmRouting, UniformWithoutSkew)
{
    LlmModel m = Preset("mixtral-8x7b");
    std::vector<uint64_t> t = LlmExpertTokens(m, 1000, 1, 7, false);
    EXPECT_EQ(t, std::vector<uint64_t>(8, 250)); // 1000 tokens x top-2 / 8
    std::vector<double> p = LlmExpertPopularity(m, 1, 7);
    EXPECT_DOUBLE_EQ(p[3], 0.125);
}

TEST(TalbLlmRouting, SkewKeepsTheTotalCapsAndIsSeeded)
{
    LlmModel m = Preset("mixtral-8x7b");
    m.routingSkew = 2;
    std::vector<uint64_t> a = LlmExpertTokens(m, 1000, 3, 7, false);
    EXPECT_EQ(std::accumulate(a.begin(), a.end(), uint64_t(0)), 2000u);
    // Zipf 2 over 8 experts gives the hottest 65 % of 2000: capped at the 1000 tokens there are.
    EXPECT_EQ(*std::max_element(a.begin(), a.end()), 1000u);
    EXPECT_EQ(a, LlmExpertTokens(m, 1000, 3, 7, false));
    EXPECT_NE(a, LlmExpertTokens(m, 1000, 3, 8, false)); // another seed, other hot experts
    EXPECT_NE(a, LlmExpertTokens(m, 1000, 4, 7, false)); // another layer too
    m.routingSkew = 0.5;
    std::vector<uint64_t> b = LlmExpertTokens(m, 1000, 3, 7, false);
    std::vector<uint64_t> sorted = b;
    std::sort(sorted.rbegin(), sorted.rend());
    EXPECT_LT(sorted[0], 1000u);
    EXPECT_GT(sorted[0], sorted[7]);
    EXPECT_EQ(std::accumulate(b.begin(), b.end(), uint64_t(0)), 2000u);
}

TEST(TalbLlmRouting, CapacityDropsAndPads)
{
    LlmModel m = Preset("mixtral-8x7b");
    m.routingSkew = 1;
    m.capacityFactor = 1.25; // capacity ceil(1.25 x 2000 / 8) = 313
    std::vector<uint64_t> dropped = LlmExpertTokens(m, 1000, 1, 1, false);
    m.capacityFactor = 0;
    std::vector<uint64_t> all = LlmExpertTokens(m, 1000, 1, 1, false);
    for (size_t e = 0; e < all.size(); ++e)
    {
        EXPECT_EQ(dropped[e], std::min<uint64_t>(all[e], 313)) << e;
    }
    m.capacityFactor = 1.25;
    EXPECT_EQ(LlmExpertTokens(m, 1000, 1, 1, true), std::vector<uint64_t>(8, 313));
}

// Megatron-core's buffers: the enumerated tensors add up to the closed form; buckets close at
// the bucket size, pad to lcm(dp, 128) with the distributed optimizer, keep a shared
// embedding alone, and later stages have one bucket.
TEST(TalbLlmGradBuffer, BucketsFollowMegatronCore)
{
    LlmJobConfig c = SmallJob();
    c.model = Preset("gpt3-1.3b");
    c.model.layers = 4;
    c.parallelism.dp = 3;
    c.globalBatch = 12;
    c.bucketParams = 20000000;
    LlmJobShape s;
    ASSERT_TRUE(MakeLlmJobShape(c, &s, nullptr));
    EXPECT_EQ(s.paddedVocab, 50432u); // 50257 up to a multiple of 256
    for (uint32_t stage = 0; stage < 2; ++stage)
    {
        LlmStageBuffers b = LlmMakeStageBuffers(c, s, stage);
        uint64_t dense = 0, expert = 0, params = 0;
        LlmStageParamCounts(c, s, stage, &dense, &expert);
        for (const LlmParamTensor& p : b.params)
        {
            params += p.elements;
        }
        EXPECT_EQ(params, dense);
        EXPECT_EQ(expert, 0u);
        EXPECT_TRUE(b.buckets[1].empty());
        uint64_t inBuckets = 0;
        for (size_t i = 0; i < b.buckets[0].size(); ++i)
        {
            const LlmBucket& k = b.buckets[0][i];
            inBuckets += k.params;
            EXPECT_EQ(k.elements % 384, 0u); // lcm(3, 128)
            EXPECT_GE(k.elements, k.params);
            // Every first-stage bucket is full but the last two (the one the shared embedding
            // closed early, and the embedding's own).
            if (stage == 0 && i + 2 < b.buckets[0].size())
            {
                EXPECT_GE(k.params, c.bucketParams) << i;
            }
        }
        EXPECT_EQ(inBuckets, dense);
        // Stage 0: the shared embedding's own bucket comes last; stage 1: one bucket holding the
        // output layer's copy too (its own bucket, as Megatron-core splits shared params off).
        const LlmBucket& last = b.buckets[0].back();
        EXPECT_TRUE(b.params[last.lastParam].sharedEmbedding || stage == 1);
        if (stage == 0)
        {
            EXPECT_EQ(last.params, uint64_t(s.paddedVocab) * 2048 / 2);
            EXPECT_GT(b.buckets[0].size(), 2u);
        }
        else
        {
            EXPECT_EQ(b.buckets[0].size(), 2u);
        }
    }
    // Without the distributed optimizer: no padding, no separate embedding bucket.
    c.distributedOptimizer = false;
    LlmStageBuffers b = LlmMakeStageBuffers(c, s, 1);
    ASSERT_EQ(b.buckets[0].size(), 1u);
    EXPECT_EQ(b.buckets[0][0].elements, b.buckets[0][0].params);
}

TEST(TalbLlmGradBuffer, ExpertParamsHaveTheirOwnBuffer)
{
    LlmJobConfig c = SmallJob();
    c.model = Preset("mixtral-8x7b");
    c.model.layers = 4;
    c.parallelism.dp = 4;
    c.parallelism.ep = 2;
    c.globalBatch = 8;
    LlmJobShape s;
    ASSERT_TRUE(MakeLlmJobShape(c, &s, nullptr));
    for (uint32_t stage = 0; stage < 2; ++stage)
    {
        LlmStageBuffers b = LlmMakeStageBuffers(c, s, stage);
        uint64_t dense = 0, expert = 0, sums[2] = {0, 0};
        LlmStageParamCounts(c, s, stage, &dense, &expert);
        for (const LlmParamTensor& p : b.params)
        {
            sums[p.expert] += p.elements;
        }
        EXPECT_EQ(sums[0], dense);
        EXPECT_EQ(sums[1], expert);
        // 2 layers x 4 local experts x 3 x 4096 x 14336 / tp
        EXPECT_EQ(expert, 2ull * 4 * 3 * 4096 * 14336 / 2);
        for (const LlmBucket& k : b.buckets[1])
        {
            EXPECT_EQ(k.elements % 128, 0u); // lcm(dp / ep = 2, 128)
        }
    }
}
