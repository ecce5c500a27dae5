/*
 * Fuzz target: the ASTRA-sim 1.0 workload reader (model/training/talb-astra-sim-workload.h),
 * the import of ASTRA-sim 1.0 DATA-parallel workloads.
 *
 * The first input byte picks the reader's parameters (bits 0-1: 1, 2, 4 or 8 bytes per
 * element; bits 2-3: a cycle of 1 ns, 3 ns, 1 us or 1 ms); the rest is the file.
 *
 * Invariants:
 *  - reading never aborts: malformed text gives an error "PATH:LINE: ..." with LINE within the
 *    file;
 *  - an accepted workload has as many tensors as it declares layers, of distinct names, each
 *    with params x bytes per element = its ALLREDUCE size and non-negative forward and backward
 *    times that are the compute-time fields times the cycle;
 *  - an accepted workload written back with Write() reads back with the same names and sizes,
 *    and times within one cycle.
 */
#include "talb-fuzz.h"

#include "ns3/talb-astra-sim-workload.h"

#include <cmath>
#include <set>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    static talb::fuzz::TempFile file(".txt");
    static talb::fuzz::TempFile copy(".txt");
    if (size == 0)
    {
        return 0;
    }
    const uint32_t bytesPerElement = 1u << (data[0] & 3);
    const ns3::Time cycles[] = {ns3::NanoSeconds(1),
                                ns3::NanoSeconds(3),
                                ns3::MicroSeconds(1),
                                ns3::MilliSeconds(1)};
    const ns3::Time cycle = cycles[(data[0] >> 2) & 3];
    std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    file.Write(text.data(), text.size());

    ns3::TalbDnnModel model;
    std::string error;
    if (!ns3::TalbAstraSimWorkload::TryRead(file.Path(),
                                            cycle,
                                            bytesPerElement,
                                            "fuzz",
                                            &model,
                                            &error))
    {
        talb::fuzz::CheckErrorAt(error, file.Path(), text);
        TALB_FUZZ_CHECK(model.GetNTensors() == 0);
        return 0;
    }
    TALB_FUZZ_CHECK(model.GetName() == "fuzz" && model.GetNTensors() > 0);
    std::set<std::string> names;
    for (uint32_t i = 0; i < model.GetNTensors(); ++i)
    {
        const ns3::TalbTensorSpec& t = model.GetTensor(i);
        TALB_FUZZ_CHECK(names.insert(t.name).second);
        TALB_FUZZ_CHECK(t.params > 0 && t.params <= UINT64_MAX / bytesPerElement);
        TALB_FUZZ_CHECK(t.fwdTimeNs >= 0 && t.bwdTimeNs >= 0);
        TALB_FUZZ_CHECK(t.fwdTimeNs % cycle.GetNanoSeconds() == 0);
        TALB_FUZZ_CHECK(t.bwdTimeNs % cycle.GetNanoSeconds() == 0);
    }

    ns3::TalbComputeModel compute;
    ns3::TalbAstraSimWorkload::Write(model, copy.Path(), cycle, bytesPerElement, compute);
    ns3::TalbDnnModel again;
    TALB_FUZZ_CHECK(ns3::TalbAstraSimWorkload::TryRead(copy.Path(),
                                                       cycle,
                                                       bytesPerElement,
                                                       "fuzz",
                                                       &again,
                                                       &error));
    TALB_FUZZ_CHECK(again.GetNTensors() == model.GetNTensors());
    for (uint32_t i = 0; i < model.GetNTensors(); ++i)
    {
        const ns3::TalbTensorSpec& a = model.GetTensor(i);
        const ns3::TalbTensorSpec& b = again.GetTensor(i);
        TALB_FUZZ_CHECK(a.name == b.name && a.params == b.params);
        // Write() rounds each time to whole cycles (the times read are whole cycles already).
        double tolerance =
            cycle.GetNanoSeconds() + 1e-15 * (double(a.fwdTimeNs) + double(a.bwdTimeNs));
        TALB_FUZZ_CHECK(std::fabs(double(a.fwdTimeNs) - double(b.fwdTimeNs)) <= tolerance);
        TALB_FUZZ_CHECK(std::fabs(double(a.bwdTimeNs) - double(b.bwdTimeNs)) <= tolerance);
    }
    return 0;
}
