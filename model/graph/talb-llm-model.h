#ifndef TALB_LLM_MODEL_H
#define TALB_LLM_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * A transformer language model as the LLM workload generator sees it: its shapes, exact
 * parameter counts and forward FLOPs, with published presets. Plain C++ (no ns-3).
 */

namespace talb
{
namespace graph
{

/// The normalisation of a transformer layer.
enum class LlmNorm : uint8_t
{
    kLayerNorm, ///< weight and bias (2 h parameters), GPT-3
    kRmsNorm,   ///< weight only (h parameters), Llama, Mixtral
};

/**
 * A decoder-only transformer: L layers of attention and MLP, each behind a pre-norm, between
 * the word embedding and the output layer. Layer i (0-based) is a mixture-of-experts layer when
 * experts > 0 and i % moeLayerFreq == 0 (Megatron-LM's --moe-layer-freq); its MLP is then
 * `experts` MLPs of moeFfnHidden behind a linear router picking topK of them per token.
 */
struct LlmModel
{
    std::string name;
    uint32_t layers{0};
    uint32_t hidden{0};    ///< h
    uint32_t ffnHidden{0}; ///< the dense MLP's inner size f
    uint32_t heads{0};     ///< query heads; head size h / heads
    uint32_t kvHeads{0};   ///< key-value heads (grouped-query attention); heads: multi-head
    uint32_t seqLength{0}; ///< s, tokens per sample
    uint32_t vocab{0};     ///< V, before the job pads it (LlmJobConfig::vocabDivisibleBy)
    bool gatedMlp{false};  ///< SwiGLU: three f x h matrices instead of two
    bool linearBias{false};
    LlmNorm norm{LlmNorm::kLayerNorm};
    bool learnedPositions{false}; ///< s x h position embedding (GPT); false: rotary (none)
    bool tiedEmbeddings{false};   ///< the output layer reuses the word embedding
    // Mixture of experts (experts == 0: dense).
    uint32_t experts{0};
    uint32_t topK{0};
    double capacityFactor{
        0}; ///< tokens an expert takes per source rank over its fair share; 0: dropless
    uint32_t moeFfnHidden{0}; ///< each expert's inner size
    uint32_t moeLayerFreq{1};
    double routingSkew{0}; ///< Zipf exponent of expert popularity (0: uniform); LlmExpertTokens

    /// \return h / heads
    uint32_t HeadDim() const;
    /// \return whether transformer layer \p layer (0-based) is a mixture-of-experts layer
    bool IsMoeLayer(uint32_t layer) const;
    /// \return the number of mixture-of-experts layers
    uint32_t MoeLayers() const;
};

/**
 * Exact parameter counts of one layer part, unsharded. With d = h / heads, q = heads d,
 * k = kvHeads d and n = 2h (LayerNorm) or h (RMSNorm):
 *   attention  h (q + 2k) + q h            [+ (q + 2k) + h biases]
 *   dense MLP  (2 or 3 gated) h f          [+ (f or 2f gated) + h biases]
 *   one expert (2 or 3 gated) h f_e        [+ (f_e or 2 f_e) + h biases]
 *   router     experts h
 *   norm       n (each layer has two, the model one more at the end)
 */
uint64_t LlmAttentionParams(const LlmModel& m);
uint64_t LlmDenseMlpParams(const LlmModel& m);
uint64_t LlmExpertParams(const LlmModel& m);
uint64_t LlmRouterParams(const LlmModel& m);
uint64_t LlmNormParams(const LlmModel& m);

/// A model's parameters by part (unsharded); Total() is the published model size.
struct LlmParamCounts
{
    uint64_t embedding{0}; ///< V h word embedding (+ s h learned positions)
    uint64_t attention{0}; ///< every layer's attention
    uint64_t mlp{0};       ///< dense layers' MLPs
    uint64_t router{0};    ///< MoE layers' routers
    uint64_t experts{0};   ///< MoE layers' experts, all of them
    uint64_t norms{0};     ///< two per layer and the final one
    uint64_t output{0};    ///< V h, 0 when tied to the embedding

    uint64_t Total() const;
};

/// \return \p m's parameters with vocabulary \p vocab (0: m.vocab; the job passes its padded one)
LlmParamCounts LlmCountParams(const LlmModel& m, uint32_t vocab = 0);

/**
 * Forward FLOPs per token, at 2 FLOPs per multiply-accumulate (Megatron-LM's
 * num_floating_point_operations divided by 3, plus the router): per layer
 *   linear     2 h (q + 2k) + 2 q h  +  dense: 2 c h f  |  MoE: topK 2 c h f_e
 *   bf16       2 s q (Q K^T and the weighted sum of values over the causal half of the s x s
 *              positions, as FlashAttention computes them)  +  MoE: 2 h experts (router)
 * with c = 3 gated, 2 otherwise; plus 2 h V for the logits (bf16). Norms, softmax and
 * element-wise work are not counted. FP8 training runs only the transformer layers' linear
 * layers in FP8 (Transformer Engine); attention scores, router and logits stay in BF16.
 */
struct LlmFlops
{
    uint64_t linear{0}; ///< QKV, projection, MLP and expert matrices (FP8-capable)
    uint64_t bf16{0};   ///< attention scores, router and logits (BF16 always)

    uint64_t Total() const;
};

/// \return \p m's forward FLOPs per token with vocabulary \p vocab (0: m.vocab)
LlmFlops LlmForwardFlopsPerToken(const LlmModel& m, uint32_t vocab = 0);

/**
 * \return false, with \p error naming the field, unless every size is positive where needed,
 * heads divides hidden, kvHeads divides heads, and a MoE model has 1 <= topK <= experts, an
 * expert size, moeLayerFreq >= 1, capacityFactor >= 0 and a finite routingSkew >= 0
 */
bool CheckLlmModel(const LlmModel& m, std::string* error);

/// \return the preset names: gpt3-1.3b, gpt3-13b, gpt3-175b, llama3-8b, llama3-70b, ...
std::vector<std::string> LlmModelPresetNames();

/**
 * Set \p model to the preset \p name (see doc/talb-generator.rst for the sources).
 * \return false, with \p error listing the valid names, for an unknown name
 */
bool LlmModelPreset(const std::string& name, LlmModel* model, std::string* error);

} // namespace graph
} // namespace talb

#endif /* TALB_LLM_MODEL_H */
