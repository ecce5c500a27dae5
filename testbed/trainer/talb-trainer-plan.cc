// Host-side plan of the CUDA/NCCL trainer: see talb-trainer-plan.h.
#include "talb-trainer-plan.h"

#include "talb-text.h"
#include "talb-wire.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace talb
{

namespace
{

const uint32_t kBytesPerElement = 4; // fp32 gradients

int
Fail(const std::string& what)
{
    std::fprintf(stderr, "talb-trainer: %s\n", what.c_str());
    PrintTrainerUsage(stderr);
    return 2;
}

} // namespace

void
PrintTrainerUsage(std::FILE* out)
{
    std::fprintf(
        out,
        "usage: TALB_RANK=R TALB_WORLD=N talb-trainer --id-file=F [options]\n"
        "\n"
        "Data-parallel training job on one GPU per rank: per-tensor gradient buffers of a zoo\n"
        "model, forward and backward kernels sized by the layer FLOPs, and one ncclAllReduce per\n"
        "tensor (or bucket) in wait-free backprop order, each tagged for the talb net plugin.\n"
        "\n"
        "  --id-file=F          ncclUniqueId exchange: rank 0 writes F (F.tmp + rename), others\n"
        "                       wait for it (required; a path all ranks see)\n"
        "  --model=NAME         alexnet | vgg19 | resnet50 (default resnet50)\n"
        "  --zoo=FILE           per-tensor sizes (default data/model-zoo-tensors.csv)\n"
        "  --iterations=N       training iterations (default 20)\n"
        "  --batch=B            samples per GPU; kernel work is 3 x fwd FLOPs x B (default 32)\n"
        "  --compute-scale=X    divide kernel FLOPs by X > 0 (default 1)\n"
        "  --bucket-bytes=B     fuse gradients into all-reduces of >= B bytes (default 0: one\n"
        "                       per tensor)\n"
        "  --job=J              job id, top 8 bits of tensor ids, 0..255 (default 1)\n"
        "  --scheme=NAME        value of the CSV scheme column (default wfbp)\n"
        "  --seed=S             value of the CSV seed column and data seed (default 1)\n"
        "  --device=D           CUDA device (default TALB_RANK %% device count)\n"
        "  --no-tag             do not label collectives\n"
        "  --id-timeout=SEC     wait for the id file (default 120)\n"
        "  --tensor-csv=F       per-tensor rows (default tensors-rank{rank}.csv)\n"
        "  --iteration-csv=F    per-iteration rows (default iterations-rank{rank}.csv)\n"
        "  --help               this text\n"
        "Environment: TALB_RANK (0..N-1) and TALB_WORLD (N >= 1) are required; "
        "NCCL_NET_PLUGIN=talb\n"
        "loads libnccl-net-talb.so (see testbed/README.md).\n");
}

// One flat branch per option of PrintTrainerUsage(): long, but read as a table.
int
ParseTrainerArgs(int argc, char** argv, TrainerOptions* o)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        if (a == "--help" || a == "-h")
        {
            PrintTrainerUsage(stdout);
            return 1;
        }
    }
    for (int i = 1; i < argc; ++i)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        std::string key = a.substr(0, eq);
        std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
        bool hasVal = eq != std::string::npos && !val.empty();
        uint64_t u = 0;
        bool ok = hasVal;
        if (a == "--no-tag")
        {
            o->tag = false;
            ok = true;
        }
        else if (key == "--id-file")
        {
            o->idFile = val;
        }
        else if (key == "--model")
        {
            o->model = val;
            ok = ok && (val == "alexnet" || val == "vgg19" || val == "resnet50");
        }
        else if (key == "--zoo")
        {
            o->zoo = val;
        }
        else if (key == "--iterations")
        {
            ok = ok && ParseUnsigned(val, 0, 1000000, &u) && u > 0;
            o->iterations = static_cast<uint32_t>(u);
        }
        else if (key == "--batch")
        {
            ok = ok && ParseUnsigned(val, 0, 65536, &u) && u > 0;
            o->batch = static_cast<uint32_t>(u);
        }
        else if (key == "--compute-scale")
        {
            ok = ok && ParseReal(val, 0, 1e12, &o->computeScale) && o->computeScale > 0 &&
                 o->computeScale < 1e12;
        }
        else if (key == "--bucket-bytes")
        {
            ok = ok && ParseUnsigned(val, 0, uint64_t{1} << 40, &o->bucketBytes);
        }
        else if (key == "--job")
        {
            ok = ok && ParseUnsigned(val, 0, 255, &u);
            o->job = static_cast<uint32_t>(u);
        }
        else if (key == "--scheme")
        {
            o->scheme = val;
            ok = ok && val.find(',') == std::string::npos;
        }
        else if (key == "--seed")
        {
            ok = ok && ParseUnsigned(val, 0, UINT64_MAX, &o->seed);
        }
        else if (key == "--device")
        {
            ok = ok && ParseUnsigned(val, 0, 1024, &u);
            o->device = static_cast<int>(u);
        }
        else if (key == "--id-timeout")
        {
            ok = ok && ParseUnsigned(val, 0, 86400, &u) && u > 0;
            o->idTimeout = static_cast<uint32_t>(u);
        }
        else if (key == "--tensor-csv")
        {
            o->tensorCsv = val;
        }
        else if (key == "--iteration-csv")
        {
            o->iterationCsv = val;
        }
        else
        {
            return Fail("unknown option '" + a + "'");
        }
        if (!ok)
        {
            return Fail("bad value in '" + a + "'");
        }
    }
    if (o->idFile.empty())
    {
        return Fail("--id-file=F is required");
    }
    const char* rank = std::getenv("TALB_RANK");
    const char* world = std::getenv("TALB_WORLD");
    uint64_t r = 0;
    uint64_t w = 0;
    if (world == nullptr || !ParseUnsigned(world, 0, 1u << 20, &w) || w == 0)
    {
        return Fail("TALB_WORLD must be set to the number of ranks (>= 1)");
    }
    if (rank == nullptr || !ParseUnsigned(rank, 0, w - 1, &r))
    {
        return Fail("TALB_RANK must be set to this process's rank, 0.." + std::to_string(w - 1));
    }
    o->rank = static_cast<int>(r);
    o->world = static_cast<int>(w);
    return 0;
}

bool
LoadModel(const std::string& path, const std::string& model, ModelPlan* plan, std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot open (pass --zoo=FILE)";
        return false;
    }
    std::string line;
    const std::string header = "model,tensor,kind,shape,params,fwd_flops_per_sample,layer_group";
    if (!std::getline(in, line) || line.substr(0, header.size()) != header)
    {
        *error = path + ":1: header is not '" + header + "'";
        return false;
    }
    plan->tensors.clear();
    plan->totalParams = 0;
    plan->layers = 0;
    std::string lastLayer;
    for (int lineNo = 2; std::getline(in, line); ++lineNo)
    {
        if (!line.empty() && line.back() == '\r')
        {
            line.pop_back();
        }
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> f = Split(line, ',');
        std::string where = path + ":" + std::to_string(lineNo) + ": ";
        if (f.size() != 7)
        {
            *error = where + "expected 7 fields, got " + std::to_string(f.size());
            return false;
        }
        if (f[0] != model)
        {
            continue;
        }
        Tensor t;
        t.index = static_cast<uint32_t>(plan->tensors.size());
        t.name = f[1];
        if (!ParseUnsigned(f[4], 0, uint64_t{1} << 34, &t.params) || t.params == 0)
        {
            *error = where + "params '" + f[4] + "' is not a positive integer";
            return false;
        }
        if (!ParseUnsigned(f[5], 0, UINT64_MAX / 65536 / 3, &t.fwdFlopsPerSample))
        {
            *error = where + "fwd_flops_per_sample '" + f[5] + "' is not an integer";
            return false;
        }
        if (plan->tensors.empty() || f[6] != lastLayer)
        {
            ++plan->layers;
            lastLayer = f[6];
        }
        t.layer = plan->layers - 1;
        t.priority = 0;
        t.bucket = 0;
        t.offset = 0;
        plan->totalParams += t.params;
        plan->tensors.push_back(t);
    }
    if (plan->tensors.empty())
    {
        *error = path + ": no rows for model '" + model + "'";
        return false;
    }
    if (plan->tensors.size() > (1u << 24))
    {
        *error = path + ": more tensors than a 24-bit tensor index holds";
        return false;
    }
    return true;
}

void
PlanBuckets(ModelPlan* plan, uint64_t bucketBytes)
{
    const size_t n = plan->tensors.size();
    plan->buckets.clear();
    uint64_t offset = 0;
    for (size_t k = 0; k < n; ++k)
    {
        Tensor& t = plan->tensors[n - 1 - k]; // backward order: last layer first
        t.priority = talb_layer_priority(t.layer, plan->layers);
        if (plan->buckets.empty() || bucketBytes == 0 ||
            talb_gradient_bytes(plan->buckets.back().count, kBytesPerElement) >= bucketBytes)
        {
            plan->buckets.push_back(Bucket{t.index, t.index, offset, 0});
        }
        Bucket& b = plan->buckets.back();
        b.first = t.index;
        b.count += t.params;
        t.bucket = static_cast<uint32_t>(plan->buckets.size() - 1);
        t.offset = offset;
        offset += t.params;
    }
}

std::string
ExpandRank(const std::string& pattern, int rank)
{
    std::string out = pattern;
    const std::string key = "{rank}";
    for (size_t p = out.find(key); p != std::string::npos; p = out.find(key, p))
    {
        out.replace(p, key.size(), std::to_string(rank));
    }
    return out;
}

} // namespace talb
