#ifndef TALB_MODEL_FILE_H
#define TALB_MODEL_FILE_H

#include "talb-dnn-model.h"

#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Reader and writer of talb model files ("talb-model-file v1", doc/talb-generator.rst):
 * CSV rows of gradient tensors, one or more models per file.
 *
 * Errors name the file, the line and the field: "m.csv:4: field 'params': 'ten' is not a
 * positive integer".
 */
class TalbModelFile
{
  public:
    /// The format's version line (the file's first line).
    static const char* const MAGIC;

    /**
     * Read every model of a model file without aborting.
     * \return false with "file:line: field 'x': ..." in \p error on malformed input
     */
    static bool TryRead(const std::string& path,
                        std::vector<TalbDnnModel>* models,
                        std::string* error);
    /// TryRead() that aborts with its message.
    static std::vector<TalbDnnModel> Read(const std::string& path);
    /**
     * Read the model named \p model without aborting.
     * \return false with a message (listing the file's models when absent) in \p error
     */
    static bool TryRead(const std::string& path,
                        const std::string& model,
                        TalbDnnModel* out,
                        std::string* error);
    /// Read one named model of a model file (aborts listing the names when absent).
    static TalbDnnModel Read(const std::string& path, const std::string& model);
    /// Write models as a model file that Read() gives back unchanged.
    static void Write(const std::string& path, const std::vector<TalbDnnModel>& models);
};

} // namespace ns3

#endif /* TALB_MODEL_FILE_H */
