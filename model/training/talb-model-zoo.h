#ifndef TALB_MODEL_ZOO_H
#define TALB_MODEL_ZOO_H

#include "talb-dnn-model.h"

#include <cstddef>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief The built-in models: AlexNet, VGG19 (no BN) and ResNet50 v1.5 with the exact per-tensor
 * parameter counts and forward FLOPs of the torchvision definitions.
 *
 * The table is compiled in (model/training/talb-model-zoo-table.cc, generated from
 * data/model-zoo-tensors.csv by scripts/gen-model-zoo.py), so no data file is read at run time.
 */
class TalbModelZoo
{
  public:
    /// \return the zoo's model names, in table order: alexnet, vgg19, resnet50
    static std::vector<std::string> GetNames();
    /// \return whether \p name is a zoo model
    static bool Has(const std::string& name);
    /// \return the named model; aborts listing the valid names when it is not in the zoo
    static TalbDnnModel Get(const std::string& name);

    /**
     * Resolve a model specification without aborting: a zoo name, or "PATH" / "PATH#MODEL" of a
     * model file (the file's only model, or the named one).
     * \return false with a message in \p error (naming the zoo's models, or file:line: field)
     */
    static bool TryResolve(const std::string& spec, TalbDnnModel* model, std::string* error);
    /// TryResolve() that aborts with its message.
    static TalbDnnModel Resolve(const std::string& spec);

  private:
    /// One row of the compiled table (the CSV's columns).
    struct Row
    {
        const char* model;
        const char* tensor;
        const char* kind;
        const char* shape;
        unsigned long long params;
        unsigned long long fwdFlopsPerSample;
        const char* layer;
    };

    /// \return the compiled table (generated file); \p count receives its length
    static const Row* GetRows(std::size_t* count);
};

} // namespace ns3

#endif /* TALB_MODEL_ZOO_H */
