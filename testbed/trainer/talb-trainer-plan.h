// Host-side plan of the CUDA/NCCL trainer: its command line, the model's gradient tensors read
// from the zoo CSV, priorities and buckets. No CUDA here, so it builds and is tested without a GPU.
#ifndef TALB_TRAINER_PLAN_H
#define TALB_TRAINER_PLAN_H

#include <cstdint>
#include <string>
#include <vector>

namespace talb
{

struct TrainerOptions
{
    std::string model = "resnet50";
    std::string zoo = "data/model-zoo-tensors.csv";
    std::string idFile;                               // ncclUniqueId exchange (required)
    std::string tensorCsv = "tensors-rank{rank}.csv"; // {rank} is replaced by the rank
    std::string iterationCsv = "iterations-rank{rank}.csv";
    std::string scheme = "wfbp";
    uint32_t iterations = 20;
    uint32_t batch = 32;       // samples per GPU, scales the compute kernels
    double computeScale = 1.0; // divides the kernels' FLOPs
    uint64_t bucketBytes = 0;  // 0: one all-reduce per tensor
    uint32_t job = 1;          // job id in the tensor ids (0..255)
    uint64_t seed = 1;
    int device = -1; // -1: rank % visible devices
    bool tag = true;
    uint32_t idTimeout = 120; // seconds to wait for the id file
    int rank = -1;            // TALB_RANK
    int world = -1;           // TALB_WORLD
};

// Parses argv and TALB_RANK/TALB_WORLD. Returns 0 (run), 1 (--help printed), or 2 after
// printing the error and the usage to stderr.
int ParseTrainerArgs(int argc, char** argv, TrainerOptions* o);
void PrintTrainerUsage(std::FILE* out);

struct Tensor
{
    uint32_t index; // position in the model, 0 = closest to the input
    std::string name;
    uint64_t params;
    uint64_t fwdFlopsPerSample;
    uint32_t layer;   // layer group index (layer_group column), 0 = closest to the input
    uint8_t priority; // talb_layer_priority(layer, layers): 0 = most urgent
    uint32_t bucket;  // all-reduce that carries it
    uint64_t offset;  // element offset in the flat gradient buffer (backward order)
};

struct Bucket
{
    uint32_t first;  // lowest tensor index in the bucket (its label)
    uint32_t last;   // highest tensor index (ready first in backward order)
    uint64_t offset; // element offset of the bucket in the gradient buffer
    uint64_t count;  // elements
};

struct ModelPlan
{
    std::vector<Tensor> tensors;
    std::vector<Bucket> buckets; // in issue (backward) order
    uint64_t totalParams = 0;
    uint32_t layers = 0; // distinct layer groups, consecutive in tensor order
};

// Reads the model's rows from the zoo CSV (columns model,tensor,kind,shape,params,
// fwd_flops_per_sample,layer_group). Returns false with a "file:line: what" message in *error.
bool LoadModel(const std::string& path,
               const std::string& model,
               ModelPlan* plan,
               std::string* error);

// Assigns priorities and buckets. Priorities follow the simulator's rule, talb_layer_priority() of
// talb-wire.h: a tensor's layer group quantised to 8 classes, so the testbed and the simulator
// label a model's tensors alike. Buckets: backward order, a bucket closes once it holds
// >= bucketBytes (talb_gradient_bytes of 4-byte gradients); bucketBytes 0 gives one bucket per
// tensor.
void PlanBuckets(ModelPlan* plan, uint64_t bucketBytes);

std::string ExpandRank(const std::string& pattern, int rank);

} // namespace talb

#endif
