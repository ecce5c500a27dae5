#ifndef TALB_ASTRA_SIM_WORKLOAD_H
#define TALB_ASTRA_SIM_WORKLOAD_H

#include "talb-dnn-model.h"

#include "ns3/nstime.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-training
 * \brief Reader and writer of ASTRA-sim 1.0 text workloads with parallelism DATA.
 *
 * Reading makes one tensor per layer, whose bytes are the weight-gradient ALLREDUCE size,
 * forward time the forward compute time and backward time input-gradient + weight-gradient
 * compute time. Errors name the file, the line and the field.
 */
class TalbAstraSimWorkload
{
  public:
    /**
     * Import a workload without aborting.
     * \param path workload file
     * \param cycle duration of one compute-time unit (ASTRA-sim counts cycles; 1ns = 1 GHz)
     * \param bytesPerElement element size the communication sizes were written with
     * \param name model name to give the result
     * \param model receives the model
     * \param error receives "file:line: field 'x': ..." on malformed input
     * \return false on error
     */
    static bool TryRead(const std::string& path,
                        Time cycle,
                        uint32_t bytesPerElement,
                        const std::string& name,
                        TalbDnnModel* model,
                        std::string* error);
    /// TryRead() that aborts with its message.
    static TalbDnnModel Read(const std::string& path,
                             Time cycle,
                             uint32_t bytesPerElement,
                             const std::string& name);
    /**
     * Write \p model as a workload (times from \p compute, rounded to whole cycles; the backward
     * time is split into input-gradient and weight-gradient halves).
     */
    static void Write(const TalbDnnModel& model,
                      const std::string& path,
                      Time cycle,
                      uint32_t bytesPerElement,
                      const TalbComputeModel& compute);
};

} // namespace ns3

#endif /* TALB_ASTRA_SIM_WORKLOAD_H */
