#ifndef TALB_DNN_MODEL_H
#define TALB_DNN_MODEL_H

#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief One gradient tensor of a DNN model, in forward (input-to-output) order.
 */
struct TalbTensorSpec
{
    std::string name;              //!< e.g. "layer1.0.conv1.weight"; no commas or whitespace
    std::string kind;              //!< informational: conv, fc, bn_gamma, ...
    std::string shape;             //!< informational: "64x3x7x7"
    uint64_t params{0};            //!< number of elements (> 0)
    uint64_t fwdFlopsPerSample{0}; //!< forward FLOPs for one sample (2 per multiply-accumulate)
    std::string layer;             //!< layer group; tensors of one layer are consecutive
    int64_t fwdTimeNs{-1};         //!< explicit forward time (ns) for the batch; -1: from FLOPs
    int64_t bwdTimeNs{-1};         //!< explicit backward time (ns) for the batch; -1: from FLOPs
};

/**
 * \ingroup talb-training
 * \brief How long a tensor's forward and backward computation takes on one worker.
 *
 * forward = FLOPs per sample x batch size / effective device rate; backward = BackwardFactor x
 * forward (2 by default: the input gradient and the weight gradient each cost about one
 * forward). Tensors with explicit times (model file fwd_ns / bwd_ns, ASTRA-sim import) use them
 * instead. The presets are effective training rates calibrated from published ResNet50 v1.5
 * single-GPU throughput (data/README.md).
 */
struct TalbComputeModel
{
    uint32_t batchSize{32};      //!< samples per worker per iteration
    double flopsPerSecond{9e12}; //!< effective device rate
    double backwardFactor{2.0};  //!< backward time / forward time

    /// \return whether \p preset names a device preset
    static bool HasPreset(const std::string& preset);
    /// \return the rate (FLOP/s) of a named preset; aborts listing the valid names
    static double PresetRate(const std::string& preset);
    /// \return the preset names, comma separated
    static std::string PresetNames();
};

/**
 * \ingroup talb-training
 * \brief A DNN model: an ordered list of gradient tensors with their compute cost.
 *
 * Built from the compiled-in zoo (TalbModelZoo), a model file (TalbModelFile, format
 * "talb-model-file v1", see doc/talb-generator.rst) or an ASTRA-sim 1.0 DATA workload
 * (TalbAstraSimWorkload). Layers are the distinct layer groups in tensor order; a tensor's
 * priority is its layer's position quantised to TALB_NUM_PRIORITIES classes, the input layer most
 * urgent (0): talb_layer_priority() of talb-wire.h, the rule the testbed's trainer shares.
 */
class TalbDnnModel
{
  public:
    TalbDnnModel() = default;
    explicit TalbDnnModel(const std::string& name);

    /// Append a tensor (after the existing ones); aborts on an empty name or zero params.
    void AddTensor(const TalbTensorSpec& tensor);

    const std::string& GetName() const;
    uint32_t GetNTensors() const;
    const TalbTensorSpec& GetTensor(uint32_t i) const;
    /// \return whether a tensor is called \p name (O(tensors))
    bool HasTensor(const std::string& name) const;
    uint64_t GetTotalParams() const;
    /// \return the number of layer groups
    uint32_t GetNLayers() const;
    /// \return the index of tensor i's layer group, 0 = closest to the input
    uint32_t GetLayerIndex(uint32_t i) const;
    /// \return talb_layer_priority(layer index, layers): 0 (input side) .. 7
    uint8_t GetPriority(uint32_t i) const;

    Time GetForwardTime(uint32_t i, const TalbComputeModel& compute) const;
    Time GetBackwardTime(uint32_t i, const TalbComputeModel& compute) const;

  private:
    std::string m_name;
    std::vector<TalbTensorSpec> m_tensors;
    std::vector<uint32_t> m_layerIndex; //!< per tensor
    uint32_t m_nLayers{0};
};

} // namespace ns3

#endif /* TALB_DNN_MODEL_H */
