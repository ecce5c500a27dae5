// talb-trainer: a data-parallel training job on one GPU per rank whose gradients have the
// per-tensor sizes of a zoo model. Each iteration runs forward kernels layer by layer (each
// waits for its own tensor's previous all-reduce), then backward kernels from the last layer;
// as soon as a tensor's (or bucket's) gradient kernel is done, the communication stream issues
// its ncclAllReduce, labelled for the talb net plugin. CUDA events time everything; rows go to
// CSVs with the simulator's columns. See PrintTrainerUsage (--help) and testbed/README.md.
#include "talb-tensor.h"
#include "talb-trainer-plan.h"

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <fstream>
#include <nccl.h>
#include <string>
#include <thread>
#include <vector>

namespace
{

// Every CUDA and NCCL call goes through these: a failure names the call and exits 1.
#define CUDA_CHECK(call)                                                                           \
    do                                                                                             \
    {                                                                                              \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
        {                                                                                          \
            std::fprintf(stderr,                                                                   \
                         "talb-trainer: %s:%d: %s failed: %s\n",                                   \
                         __FILE__,                                                                 \
                         __LINE__,                                                                 \
                         #call,                                                                    \
                         cudaGetErrorString(e_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

#define NCCL_CHECK(call)                                                                           \
    do                                                                                             \
    {                                                                                              \
        ncclResult_t r_ = (call);                                                                  \
        if (r_ != ncclSuccess)                                                                     \
        {                                                                                          \
            std::fprintf(stderr,                                                                   \
                         "talb-trainer: %s:%d: %s failed: %s\n",                                   \
                         __FILE__,                                                                 \
                         __LINE__,                                                                 \
                         #call,                                                                    \
                         ncclGetErrorString(r_));                                                  \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

// Backward-like work: every element of `out` gets the result of `inner` dependent FMAs, so the
// kernel's run time follows the FLOPs it was given and its output depends on all of them.
__global__ void
BurnKernel(float* out, uint64_t n, uint32_t inner, float seed)
{
    const uint64_t stride = static_cast<uint64_t>(gridDim.x) * blockDim.x;
    for (uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += stride)
    {
        float a = seed + static_cast<float>(i & 1023) * 1e-4f;
        for (uint32_t k = 0; k < inner; ++k)
        {
            a = fmaf(a, 0.999f, 1e-3f);
        }
        out[i] = a;
    }
}

const uint64_t kScratchElems = uint64_t{1} << 22; // forward activations (16 MiB)
const uint32_t kMaxInner = 1u << 20;

// Launches `flops` worth of FMAs over n elements of out.
void
Burn(cudaStream_t s, float* out, uint64_t n, double flops, float seed)
{
    double fmas = flops / 2.0;
    double perElem = fmas / static_cast<double>(n);
    uint32_t inner = perElem < 1           ? 1
                     : perElem > kMaxInner ? kMaxInner
                                           : static_cast<uint32_t>(perElem);
    uint64_t blocks = (n + 255) / 256;
    unsigned grid = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
    BurnKernel<<<grid, 256, 0, s>>>(out, n, inner, seed);
    CUDA_CHECK(cudaGetLastError());
}

// Rank 0 publishes the NCCL id through a file (written to F.tmp, then renamed); others wait.
void
ExchangeId(const talb::TrainerOptions& o, ncclUniqueId* id)
{
    if (o.rank == 0)
    {
        NCCL_CHECK(ncclGetUniqueId(id));
        std::string tmp = o.idFile + ".tmp";
        FILE* f = std::fopen(tmp.c_str(), "wb");
        if (f == nullptr || std::fwrite(id, sizeof(*id), 1, f) != 1 || std::fclose(f) != 0 ||
            std::rename(tmp.c_str(), o.idFile.c_str()) != 0)
        {
            std::fprintf(stderr,
                         "talb-trainer: cannot write %s: %s\n",
                         o.idFile.c_str(),
                         std::strerror(errno));
            std::exit(1);
        }
        return;
    }
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.idTimeout);
    while (std::chrono::steady_clock::now() < deadline)
    {
        std::ifstream in(o.idFile, std::ios::binary);
        if (in && in.read(reinterpret_cast<char*>(id), sizeof(*id)) && in.gcount() == sizeof(*id))
        {
            return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::fprintf(stderr,
                 "talb-trainer: rank %d: no NCCL id in %s after %u s (is rank 0 running?)\n",
                 o.rank,
                 o.idFile.c_str(),
                 o.idTimeout);
    std::exit(1);
}

FILE*
OpenCsv(const std::string& path, const char* header)
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (f == nullptr)
    {
        std::fprintf(stderr,
                     "talb-trainer: --tensor-csv/--iteration-csv: cannot write %s: %s\n",
                     path.c_str(),
                     std::strerror(errno));
        std::exit(2);
    }
    std::fprintf(f, "%s\n", header);
    std::fflush(f);
    return f;
}

// One iteration's events. Two sets alternate, so iteration i is read while i+1 runs.
struct IterationEvents
{
    cudaEvent_t start, end;
    std::vector<cudaEvent_t> kernelStart, kernelEnd; // forward then backward, 2 per tensor
    std::vector<cudaEvent_t> ready;                  // per tensor
    std::vector<cudaEvent_t> done;                   // per bucket
};

void
CreateEvents(IterationEvents* e, size_t tensors, size_t buckets)
{
    CUDA_CHECK(cudaEventCreate(&e->start));
    CUDA_CHECK(cudaEventCreate(&e->end));
    e->kernelStart.resize(2 * tensors);
    e->kernelEnd.resize(2 * tensors);
    e->ready.resize(tensors);
    e->done.resize(buckets);
    for (auto* v : {&e->kernelStart, &e->kernelEnd, &e->ready, &e->done})
    {
        for (auto& ev : *v)
        {
            CUDA_CHECK(cudaEventCreate(&ev));
        }
    }
}

int64_t
ElapsedNs(cudaEvent_t from, cudaEvent_t to)
{
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, from, to));
    return static_cast<int64_t>(static_cast<double>(ms) * 1e6);
}

} // namespace

int
main(int argc, char** argv)
{
    talb::TrainerOptions o;
    int rc = talb::ParseTrainerArgs(argc, argv, &o);
    if (rc != 0)
    {
        return rc == 1 ? 0 : rc;
    }
    talb::ModelPlan plan;
    std::string error;
    if (!talb::LoadModel(o.zoo, o.model, &plan, &error))
    {
        std::fprintf(stderr, "talb-trainer: %s\n", error.c_str());
        return 2;
    }
    talb::PlanBuckets(&plan, o.bucketBytes);
    const size_t nT = plan.tensors.size();
    const size_t nB = plan.buckets.size();

    // The outputs are command-line values too: refused (exit 2) before any GPU work.
    FILE* tcsv =
        OpenCsv(talb::ExpandRank(o.tensorCsv, o.rank),
                "job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed");
    FILE* icsv =
        OpenCsv(talb::ExpandRank(o.iterationCsv, o.rank),
                "job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed");

    int devices = 0;
    CUDA_CHECK(cudaGetDeviceCount(&devices));
    int device = o.device >= 0 ? o.device : o.rank % devices;
    CUDA_CHECK(cudaSetDevice(device));

    ncclUniqueId id;
    ExchangeId(o, &id);
    ncclComm_t comm;
    NCCL_CHECK(ncclCommInitRank(&comm, o.world, id, o.rank));
    std::printf("talb-trainer: rank %d/%d on device %d: %s, %zu tensors, %" PRIu64
                " parameters, %zu all-reduces per iteration, tagging %s\n",
                o.rank,
                o.world,
                device,
                o.model.c_str(),
                nT,
                plan.totalParams,
                nB,
                o.tag ? "on" : "off");

    float* grads = nullptr;
    float* scratch = nullptr;
    CUDA_CHECK(cudaMalloc(&grads, plan.totalParams * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&scratch, kScratchElems * sizeof(float)));
    int lowPrio = 0;
    int highPrio = 0;
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&lowPrio, &highPrio));
    cudaStream_t compute, net;
    CUDA_CHECK(cudaStreamCreateWithPriority(&compute, cudaStreamNonBlocking, lowPrio));
    CUDA_CHECK(cudaStreamCreateWithPriority(&net, cudaStreamNonBlocking, highPrio));
    cudaEvent_t t0;
    CUDA_CHECK(cudaEventCreate(&t0));
    IterationEvents ev[2];
    CreateEvents(&ev[0], nT, nB);
    CreateEvents(&ev[1], nT, nB);


    auto writeRows = [&](uint32_t it) {
        IterationEvents& e = ev[it % 2];
        CUDA_CHECK(cudaEventSynchronize(e.end));
        int64_t compute_ns = 0;
        for (size_t k = 0; k < 2 * nT; ++k)
        {
            compute_ns += ElapsedNs(e.kernelStart[k], e.kernelEnd[k]);
        }
        for (const auto& t : plan.tensors)
        {
            int64_t ready = ElapsedNs(t0, e.ready[t.index]);
            int64_t done = ElapsedNs(t0, e.done[t.bucket]);
            std::fprintf(tcsv,
                         "%u,%u,%u,%s,%" PRIu64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64
                         ",%s,%" PRIu64 "\n",
                         o.job,
                         it,
                         t.index,
                         t.name.c_str(),
                         t.params * 4,
                         t.priority,
                         ready,
                         done,
                         done - ready,
                         o.scheme.c_str(),
                         o.seed);
        }
        int64_t start = ElapsedNs(t0, e.start);
        int64_t end = ElapsedNs(t0, e.end);
        int64_t exposed = end - start - compute_ns;
        std::fprintf(icsv,
                     "%u,%d,%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRIu64 "\n",
                     o.job,
                     o.rank,
                     it,
                     start,
                     end,
                     compute_ns,
                     exposed > 0 ? exposed : 0,
                     o.scheme.c_str(),
                     o.seed);
        std::fflush(tcsv);
        std::fflush(icsv);
        std::printf("talb-trainer: rank %d iteration %u: %.3f ms (compute %.3f ms)\n",
                    o.rank,
                    it,
                    (end - start) / 1e6,
                    compute_ns / 1e6);
    };

    CUDA_CHECK(cudaEventRecord(t0, compute));
    for (uint32_t it = 0; it < o.iterations; ++it)
    {
        IterationEvents& e = ev[it % 2];
        IterationEvents& prev = ev[(it + 1) % 2];
        CUDA_CHECK(cudaEventRecord(e.start, compute));
        // Forward, input to output: a layer waits for its own previous all-reduce only.
        for (const auto& t : plan.tensors)
        {
            if (it > 0)
            {
                CUDA_CHECK(cudaStreamWaitEvent(compute, prev.done[t.bucket], 0));
            }
            CUDA_CHECK(cudaEventRecord(e.kernelStart[t.index], compute));
            double flops = static_cast<double>(t.fwdFlopsPerSample) * o.batch / o.computeScale;
            uint64_t n = t.params < kScratchElems ? t.params : kScratchElems;
            Burn(compute, scratch, n, flops, static_cast<float>(o.seed + it));
            CUDA_CHECK(cudaEventRecord(e.kernelEnd[t.index], compute));
        }
        // 8< wfbp-loop
        // Backward, output to input; each bucket's all-reduce starts when its last gradient is in.
        for (size_t k = 0; k < nT; ++k)
        {
            const talb::Tensor& t = plan.tensors[nT - 1 - k];
            CUDA_CHECK(cudaEventRecord(e.kernelStart[nT + t.index], compute));
            double flops =
                2.0 * static_cast<double>(t.fwdFlopsPerSample) * o.batch / o.computeScale;
            Burn(compute, grads + t.offset, t.params, flops, static_cast<float>(o.rank + 1));
            CUDA_CHECK(cudaEventRecord(e.kernelEnd[nT + t.index], compute));
            CUDA_CHECK(cudaEventRecord(e.ready[t.index], compute));
            const talb::Bucket& b = plan.buckets[t.bucket];
            if (t.index != b.first)
            {
                continue; // the bucket still waits for lower layers
            }
            CUDA_CHECK(cudaStreamWaitEvent(net, e.ready[t.index], 0));
            if (o.tag)
            {
                // Queued now, made current when the stream reaches this collective.
                const talb::Tensor& head = plan.tensors[b.first];
                if (talb_enqueue_tensor(talb_make_tensor_id(o.job, head.index), head.priority) < 0)
                {
                    std::fprintf(stderr, "talb-trainer: label queue full\n");
                    return 1;
                }
                CUDA_CHECK(cudaLaunchHostFunc(net, talb_activate_next_host_fn, nullptr));
            }
            NCCL_CHECK(ncclAllReduce(grads + b.offset,
                                     grads + b.offset,
                                     b.count,
                                     ncclFloat,
                                     ncclSum,
                                     comm,
                                     net));
            CUDA_CHECK(cudaEventRecord(e.done[t.bucket], net));
        }
        // >8 wfbp-loop
        // The iteration ends when its last all-reduce and its compute are both done.
        CUDA_CHECK(cudaStreamWaitEvent(compute, e.done[nB - 1], 0));
        CUDA_CHECK(cudaEventRecord(e.end, compute));
        if (it > 0)
        {
            writeRows(it - 1);
        }
    }
    writeRows(o.iterations - 1);
    CUDA_CHECK(cudaStreamSynchronize(net));
    CUDA_CHECK(cudaStreamSynchronize(compute));

    std::fclose(tcsv);
    std::fclose(icsv);
    NCCL_CHECK(ncclCommDestroy(comm));
    CUDA_CHECK(cudaFree(grads));
    CUDA_CHECK(cudaFree(scratch));
    return 0;
}
