#include "talb-aicb-workload.h"

#include "talb-rank-layout.h"

#include <charconv>
#include <fstream>
#include <limits>
#include <ostream>
#include <sstream>

namespace talb
{
namespace graph
{

namespace
{

constexpr uint64_t kMaxTimeNs = std::numeric_limits<int64_t>::max(); // ns-3's largest time

/// The parallelism words, as AICB and ASTRA-sim spell them.
const std::pair<const char*, AicbKind> KINDS[] = {
    {"HYBRID_TRANSFORMER_FWD_IN_BCKWD", AicbKind::kTransformerFwdInBckwd},
    {"HYBRID_TRANSFORMER", AicbKind::kTransformer},
    {"DATA", AicbKind::kData},
    {"MICRO", AicbKind::kMicro},
};

/// The collective names (SimAI's set: ALLREDUCEALLTOALL it misreads, so it is refused here).
const std::pair<const char*, AicbComm> COMMS[] = {
    {"NONE", AicbComm::kNone},
    {"ALLREDUCE", AicbComm::kAllReduce},
    {"ALLGATHER", AicbComm::kAllGather},
    {"REDUCESCATTER", AicbComm::kReduceScatter},
    {"ALLTOALL", AicbComm::kAllToAll},
    {"BROADCAST", AicbComm::kBroadcast},
};

const char* const FIELDS[] = {"name",
                              "reserved",
                              "forward compute time",
                              "forward collective",
                              "forward size",
                              "input-gradient compute time",
                              "input-gradient collective",
                              "input-gradient size",
                              "weight-gradient compute time",
                              "weight-gradient collective",
                              "weight-gradient size",
                              "update time"};
constexpr std::size_t kFields = std::size(FIELDS);

/// \return whether \p text is a whole decimal integer in [0, max]
bool
ParseU64(const std::string& text, uint64_t max, uint64_t* out)
{
    uint64_t v = 0;
    const char* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || p != end || text.empty() || v > max)
    {
        return false;
    }
    *out = v;
    return true;
}

std::vector<std::string>
Words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> words;
    std::string w;
    while (in >> w)
    {
        words.push_back(w);
    }
    return words;
}

/// Reads lines, counting them, skipping blank ones; formats messages.
class LineReader
{
  public:
    LineReader(std::istream& in, const std::string& where)
        : m_in(in),
          m_where(where)
    {
    }

    /// \return false at the end of the input; else the next non-blank line's words
    bool Next(std::vector<std::string>* words)
    {
        std::string line;
        while (std::getline(m_in, line))
        {
            ++m_line;
            *words = Words(line);
            if (!words->empty())
            {
                return true;
            }
        }
        return false;
    }

    uint32_t Line() const
    {
        return m_line;
    }

    /// Sets \p error to "WHERE:LINE: what" and returns false.
    bool Fail(std::string* error, const std::string& what) const
    {
        *error = m_where + ":" + std::to_string(m_line) + ": " + what;
        return false;
    }

    /// Fail() at the end of the input: its last line (1 for an empty file).
    bool FailAtEnd(std::string* error, const std::string& what) const
    {
        *error = m_where + ":" + std::to_string(m_line == 0 ? 1 : m_line) + ": " + what;
        return false;
    }

  private:
    std::istream& m_in;
    std::string m_where;
    uint32_t m_line{0};
};

/// The header's "key: value" pairs after the parallelism word. \return an error, or empty
std::string
ReadHeader(const std::vector<std::string>& words, AicbWorkload* w)
{
    if (w->kind == AicbKind::kData || w->kind == AicbKind::kMicro)
    {
        return words.size() == 1 ? ""
                                 : "'" + words[1] + "' after " + words[0] +
                                       " (DATA and MICRO stand alone on the first line)";
    }
    for (std::size_t i = 1; i < words.size(); i += 2)
    {
        const std::string& key = words[i];
        if (i + 1 >= words.size())
        {
            return "'" + key + "' without a value";
        }
        const std::string& text = words[i + 1];
        uint64_t v = 0;
        // pp_comm: AICB divides it by tp in Python and may write "1024.0".
        std::string digits = text;
        if (key == "pp_comm:")
        {
            std::size_t dot = digits.find('.');
            if (dot != std::string::npos &&
                digits.find_first_not_of('0', dot + 1) == std::string::npos)
            {
                digits.resize(dot);
            }
        }
        const bool isCount = key == "checkpoints:" || key == "checkpoint_initiates:";
        const uint64_t max = key == "pp_comm:" ? UINT64_MAX : UINT32_MAX;
        if (!ParseU64(digits, max, &v) || (v == 0 && !isCount && key != "pp_comm:"))
        {
            return "'" + key + " " + text + "': not " +
                   (isCount || key == "pp_comm:" ? std::string("an integer >= 0")
                                                 : "an integer in [1, 4294967295]");
        }
        if (key == "model_parallel_NPU_group:")
        {
            w->tp = uint32_t(v);
        }
        else if (key == "ep:" || key == "expert_parallel_npu_group:")
        {
            w->ep = uint32_t(v);
        }
        else if (key == "pp:")
        {
            w->pp = uint32_t(v);
        }
        else if (key == "vpp:")
        {
            w->vpp = uint32_t(v);
        }
        else if (key == "ga:")
        {
            w->ga = uint32_t(v);
        }
        else if (key == "all_gpus:")
        {
            w->allGpus = uint32_t(v);
        }
        else if (key == "pp_comm:")
        {
            w->ppComm = v;
        }
        else if (isCount)
        {
            if (v != 0)
            {
                return "'" + key + " " + text +
                       "': activation recomputation (checkpointed layers) is not modelled";
            }
        }
        else
        {
            return "unknown key '" + key +
                   "' (model_parallel_NPU_group:, ep:, pp:, vpp:, ga:, all_gpus:, "
                   "checkpoints:, checkpoint_initiates:, pp_comm:)";
        }
    }
    return "";
}

/// One column's collective name and size into \p pass. \return an error, or empty
std::string
ReadComm(const std::string& name, const std::string& size, std::size_t field, AicbPass* pass)
{
    std::string base = name;
    pass->group = AicbGroup::kColumn;
    for (const auto& [suffix, group] :
         {std::pair{"_DP_EP", AicbGroup::kDpEp}, std::pair{"_EP", AicbGroup::kEp}})
    {
        std::size_t n = std::char_traits<char>::length(suffix);
        if (base.size() > n && base.compare(base.size() - n, n, suffix) == 0)
        {
            base.resize(base.size() - n);
            pass->group = group;
            break;
        }
    }
    bool known = false;
    for (const auto& [text, comm] : COMMS)
    {
        if (base == text)
        {
            pass->comm = comm;
            known = true;
        }
    }
    if (!known || (pass->comm == AicbComm::kNone && pass->group != AicbGroup::kColumn))
    {
        return std::string(FIELDS[field]) + " '" + name +
               "': unknown (NONE, ALLREDUCE, ALLGATHER, REDUCESCATTER, ALLTOALL, BROADCAST, "
               "each but NONE with an optional _EP or _DP_EP)";
    }
    if (!ParseU64(size, UINT64_MAX, &pass->bytes))
    {
        return std::string(FIELDS[field + 1]) + " '" + size +
               "': not a byte count in [0, 18446744073709551615]";
    }
    if ((pass->comm == AicbComm::kNone) != (pass->bytes == 0))
    {
        return std::string(FIELDS[field + 1]) + " '" + size + "': " +
               (pass->bytes == 0 ? "a collective of 0 bytes (write NONE 0)"
                                 : "a size for no collective (NONE takes 0)");
    }
    return "";
}

/// Adds \p v to \p sum unless it passes \p max. \return false on overflow
bool
AddWithin(uint64_t* sum, uint64_t v, uint64_t max)
{
    if (v > max || *sum > max - v)
    {
        return false;
    }
    *sum += v;
    return true;
}

/// One layer line. \return an error, or empty
std::string
ReadLayer(const std::vector<std::string>& words,
          uint64_t* timeSum,
          uint64_t* byteSum,
          AicbLayer* layer)
{
    if (words.size() != kFields)
    {
        return std::to_string(words.size()) + " fields, a layer line has " +
               std::to_string(kFields) +
               " (name, reserved, then compute time, collective, size for the forward pass, "
               "the input gradient and the weight gradient, then the update time)";
    }
    layer->name = words[0];
    const std::string& r = words[1];
    auto [p, ec] = std::from_chars(r.data(), r.data() + r.size(), layer->reserved);
    if (ec != std::errc() || p != r.data() + r.size())
    {
        return "reserved '" + r + "': not a 64-bit integer";
    }
    AicbPass* passes[] = {&layer->fwd, &layer->ig, &layer->wg};
    uint32_t collectives = 0;
    for (std::size_t k = 0; k < 3; ++k)
    {
        std::size_t f = 2 + 3 * k;
        if (!ParseU64(words[f], kMaxTimeNs, &passes[k]->computeNs))
        {
            return std::string(FIELDS[f]) + " '" + words[f] + "': not a time in ns in [0, " +
                   std::to_string(kMaxTimeNs) + "]";
        }
        std::string why = ReadComm(words[f + 1], words[f + 2], f + 1, passes[k]);
        if (!why.empty())
        {
            return why;
        }
        collectives += passes[k]->comm != AicbComm::kNone;
        if (!AddWithin(byteSum, passes[k]->bytes, UINT64_MAX))
        {
            return std::string(FIELDS[f + 2]) + " '" + words[f + 2] +
                   "': the file's sizes add up to more than 2^64 - 1 bytes";
        }
    }
    if (!ParseU64(words[11], kMaxTimeNs, &layer->updateNs))
    {
        return std::string(FIELDS[11]) + " '" + words[11] + "': not a time in ns in [0, " +
               std::to_string(kMaxTimeNs) + "]";
    }
    uint64_t sum = *timeSum;
    bool ok = true;
    for (AicbPass* pass : passes)
    {
        ok = ok && AddWithin(&sum, pass->computeNs, kMaxTimeNs);
    }
    for (uint32_t c = 0; c < collectives && ok; ++c)
    {
        ok = AddWithin(&sum, layer->updateNs, kMaxTimeNs);
    }
    if (!ok)
    {
        return "the file's compute and update times add up to more than ns-3's largest time, " +
               std::to_string(kMaxTimeNs) + " ns";
    }
    *timeSum = sum;
    return "";
}

} // namespace

bool
AicbPass::operator==(const AicbPass& o) const
{
    return computeNs == o.computeNs && comm == o.comm && group == o.group && bytes == o.bytes;
}

bool
AicbLayer::operator==(const AicbLayer& o) const
{
    return name == o.name && reserved == o.reserved && fwd == o.fwd && ig == o.ig && wg == o.wg &&
           updateNs == o.updateNs;
}

bool
AicbWorkload::operator==(const AicbWorkload& o) const
{
    return kind == o.kind && tp == o.tp && ep == o.ep && pp == o.pp && vpp == o.vpp && ga == o.ga &&
           allGpus == o.allGpus && ppComm == o.ppComm && layers == o.layers;
}

std::string
AicbCommName(AicbComm comm, AicbGroup group)
{
    std::string name;
    for (const auto& [text, c] : COMMS)
    {
        if (c == comm)
        {
            name = text;
        }
    }
    return name + (group == AicbGroup::kEp ? "_EP" : group == AicbGroup::kDpEp ? "_DP_EP" : "");
}

bool
ReadAicbWorkload(std::istream& in,
                 const std::string& where,
                 AicbWorkload* workload,
                 std::string* error)
{
    *workload = AicbWorkload();
    AicbWorkload w;
    LineReader r(in, where);
    std::vector<std::string> words;
    if (!r.Next(&words))
    {
        return r.FailAtEnd(error,
                           "empty file (expected a first line such as "
                           "HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 1 ...)");
    }
    bool known = false;
    for (const auto& [text, kind] : KINDS)
    {
        if (words[0] == text)
        {
            w.kind = kind;
            known = true;
        }
    }
    if (!known)
    {
        return r.Fail(error,
                      "first word '" + words[0] +
                          "': not an AICB or ASTRA-sim workload (expected "
                          "HYBRID_TRANSFORMER_FWD_IN_BCKWD, HYBRID_TRANSFORMER, DATA or MICRO)");
    }
    std::string why = ReadHeader(words, &w);
    if (!why.empty())
    {
        return r.Fail(error, why);
    }
    if (!r.Next(&words))
    {
        return r.FailAtEnd(error, "truncated: the file ends before the number of layer lines");
    }
    uint64_t count = 0;
    if (words.size() != 1 || !ParseU64(words[0], kAicbMaxLayers, &count) || count == 0)
    {
        return r.Fail(error,
                      "'" + words[0] + (words.size() > 1 ? " ..." : "") +
                          "': expected the number of layer lines alone, in [1, " +
                          std::to_string(kAicbMaxLayers) + "]");
    }
    uint64_t timeSum = 0;
    uint64_t byteSum = 0;
    for (uint64_t i = 0; i < count; ++i)
    {
        if (!r.Next(&words))
        {
            return r.FailAtEnd(error,
                               "truncated: the file ends after " + std::to_string(i) +
                                   " layer lines of the " + std::to_string(count) + " announced");
        }
        AicbLayer layer;
        layer.line = r.Line();
        why = ReadLayer(words, &timeSum, &byteSum, &layer);
        if (!why.empty())
        {
            return r.Fail(error, why);
        }
        if (w.kind == AicbKind::kData &&
            (layer.fwd.comm != AicbComm::kNone || layer.ig.comm != AicbComm::kNone))
        {
            return r.Fail(error,
                          "DATA parallelism communicates weight gradients only: the forward "
                          "and input-gradient collectives must be NONE");
        }
        w.layers.push_back(std::move(layer));
    }
    if (r.Next(&words))
    {
        return r.Fail(error, "more layer lines than the " + std::to_string(count) + " announced");
    }
    *workload = std::move(w);
    return true;
}

bool
ReadAicbWorkloadFile(const std::string& path, AicbWorkload* workload, std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *workload = AicbWorkload();
        *error = path + ": cannot open the file";
        return false;
    }
    return ReadAicbWorkload(in, path, workload, error);
}

void
WriteAicbWorkload(const AicbWorkload& w, std::ostream& out)
{
    for (const auto& [text, kind] : KINDS)
    {
        if (kind == w.kind)
        {
            out << text;
        }
    }
    if (w.kind == AicbKind::kTransformer || w.kind == AicbKind::kTransformerFwdInBckwd)
    {
        out << " model_parallel_NPU_group: " << w.tp << " ep: " << w.ep << " pp: " << w.pp
            << " vpp: " << w.vpp << " ga: " << w.ga;
        if (w.allGpus != 0)
        {
            out << " all_gpus: " << w.allGpus;
        }
        out << " checkpoints: 0 checkpoint_initiates: 0 pp_comm: " << w.ppComm;
    }
    out << "\n" << w.layers.size() << "\n";
    for (const AicbLayer& l : w.layers)
    {
        out << l.name << "\t" << l.reserved;
        for (const AicbPass* p : {&l.fwd, &l.ig, &l.wg})
        {
            out << "\t" << p->computeNs << "\t" << AicbCommName(p->comm, p->group) << "\t"
                << p->bytes;
        }
        out << "\t" << l.updateNs << "\n";
    }
}

namespace
{

/// The groups of one kind a workload uses, and each rank's.
struct GroupSet
{
    std::vector<uint32_t> ofRank; //!< rank -> index into Graph::groups, Node::kNone: size 1
};

/// Builds the graph of BuildAicbGraph(), rank by rank.
class AicbBuilder
{
  public:
    AicbBuilder(const AicbWorkload& w, uint32_t layers, Graph* g)
        : m_w(w),
          m_layers(layers),
          m_g(g)
    {
    }

    /// Adds the groups of \p set (kind \p prefix) to the graph; size-1 groups get none.
    void AddGroups(const char* prefix,
                   CommClass cls,
                   const std::vector<std::vector<uint32_t>>& groups,
                   GroupSet* set)
    {
        set->ofRank.assign(m_g->nRanks, Node::kNone);
        for (std::size_t i = 0; i < groups.size(); ++i)
        {
            if (groups[i].size() < 2)
            {
                continue;
            }
            for (uint32_t r : groups[i])
            {
                set->ofRank[r] = static_cast<uint32_t>(m_g->groups.size());
            }
            m_g->groups.push_back(Group{prefix + std::to_string(i), cls, groups[i]});
        }
    }

    /// Emits one rank's nodes for every iteration.
    void BuildRank(uint32_t rank, uint32_t iterations)
    {
        m_rank = rank;
        m_nodes = &m_g->ranks[rank];
        m_last = Node::kNone;
        std::vector<uint32_t> wgDone(m_layers, Node::kNone);
        for (uint32_t it = 0; it < iterations; ++it)
        {
            m_it = it;
            if (m_w.kind == AicbKind::kMicro)
            {
                for (uint32_t l = 0; l < m_layers; ++l)
                {
                    Comm(l, 2, m_w.layers[l].wg);
                }
                continue;
            }
            for (uint32_t l = 0; l < m_layers; ++l)
            {
                Compute(l, "fwd", m_w.layers[l].fwd.computeNs, wgDone[l]);
                Comm(l, 0, m_w.layers[l].fwd);
            }
            for (uint32_t l = m_layers; l-- > 0;)
            {
                const AicbLayer& layer = m_w.layers[l];
                Compute(l, "ig", layer.ig.computeNs, Node::kNone);
                Comm(l, 1, layer.ig);
                Compute(l, "wg", layer.wg.computeNs, Node::kNone);
                // The weight-gradient collective overlaps what follows: off the chain.
                uint32_t chain = m_last;
                Comm(l, 2, layer.wg);
                wgDone[l] = m_last == chain ? Node::kNone : m_last;
                m_last = chain;
            }
        }
    }

    GroupSet tp;   //!< tensor-parallel groups
    GroupSet dp;   //!< data-parallel groups
    GroupSet ep;   //!< expert-parallel groups (_EP)
    GroupSet dpEp; //!< expert-data-parallel groups (_DP_EP)

  private:
    uint32_t Emit(Node n, uint32_t extraDep)
    {
        n.iteration = m_it;
        for (uint32_t d : {m_last, extraDep})
        {
            if (d != Node::kNone && (n.deps.empty() || n.deps[0] != d))
            {
                n.deps.push_back(d);
            }
        }
        m_nodes->push_back(std::move(n));
        m_last = static_cast<uint32_t>(m_nodes->size() - 1);
        return m_last;
    }

    void Compute(uint32_t layer, const char* what, uint64_t ns, uint32_t extraDep)
    {
        if (ns == 0 && extraDep == Node::kNone)
        {
            return;
        }
        Node n;
        n.kind = NodeKind::kCompute;
        n.layer = layer;
        n.durationNs = ns;
        n.label = m_g->Label(m_w.layers[layer].name + "." + what);
        Emit(std::move(n), extraDep);
    }

    /// The collective of \p pass (column \p column: 0 fwd, 1 ig, 2 wg), then its update time.
    void Comm(uint32_t layer, uint32_t column, const AicbPass& pass)
    {
        if (pass.comm == AicbComm::kNone)
        {
            return;
        }
        const GroupSet* set = pass.group == AicbGroup::kEp     ? &ep
                              : pass.group == AicbGroup::kDpEp ? &dpEp
                              : column == 2                    ? &dp
                                                               : &tp;
        uint32_t group = set->ofRank[m_rank];
        if (group == Node::kNone)
        {
            return; // a group of one rank: nothing moves
        }
        static const CollType types[] = {CollType::kAllReduce,
                                         CollType::kAllReduce,
                                         CollType::kAllGather,
                                         CollType::kReduceScatter,
                                         CollType::kAllToAll,
                                         CollType::kBroadcast};
        static const char* const columns[] = {"fwd", "ig", "wg"};
        Node n;
        n.kind = NodeKind::kCollective;
        n.coll = types[static_cast<int>(pass.comm)];
        n.cls = m_g->groups[group].cls;
        n.group = group;
        n.root = pass.comm == AicbComm::kBroadcast ? 0 : kNoRoot;
        n.layer = layer;
        n.tensor = 3 * layer + column;
        n.bytes = pass.bytes;
        n.label =
            m_g->Label(m_w.layers[layer].name + "." + columns[column] + "." + CollTypeName(n.coll));
        Emit(std::move(n), Node::kNone);
        if (m_w.layers[layer].updateNs > 0)
        {
            Compute(layer, "update", m_w.layers[layer].updateNs, Node::kNone);
        }
    }

    const AicbWorkload& m_w;
    uint32_t m_layers;
    Graph* m_g;
    uint32_t m_rank{0};
    uint32_t m_it{0};
    std::vector<Node>* m_nodes{nullptr};
    uint32_t m_last{Node::kNone}; //!< the node the rank's next operation waits for
};

} // namespace

/// Checks first (each with its message), then the groups, then the nodes: one straight line.
bool
BuildAicbGraph(const AicbWorkload& w,
               const AicbRun& run,
               const std::string& where,
               Graph* graph,
               std::string* error)
{
    *graph = Graph();
    auto fail = [&](const std::string& what) {
        *error = where + ": " + what;
        return false;
    };
    const bool hybrid =
        w.kind == AicbKind::kTransformer || w.kind == AicbKind::kTransformerFwdInBckwd;
    if (hybrid && w.pp > 1)
    {
        return fail("pp: " + std::to_string(w.pp) +
                    ": pipeline parallelism is not modelled (SimAI adds it as an analytic "
                    "delay, not traffic); generate the workload with pp 1");
    }
    if (run.layers > w.layers.size())
    {
        return fail("layers=" + std::to_string(run.layers) + " but the file has " +
                    std::to_string(w.layers.size()) + " layer lines");
    }
    if (run.iterations == 0)
    {
        return fail("0 iterations");
    }
    uint32_t ranks = run.ranks != 0 ? run.ranks : w.allGpus;
    if (ranks == 0)
    {
        return fail("the file does not say all_gpus: give the job's ranks (workers=N)");
    }
    if (w.allGpus != 0 && run.ranks != 0 && run.ranks != w.allGpus)
    {
        return fail(std::to_string(run.ranks) + " ranks asked for but the file's all_gpus is " +
                    std::to_string(w.allGpus) +
                    " (leave workers out; regenerate the workload for another size)");
    }
    if (ranks > run.maxRanks)
    {
        return fail(std::to_string(ranks) + " ranks: more than the " +
                    std::to_string(run.maxRanks) +
                    " a workload job may have (regenerate the workload for fewer GPUs)");
    }
    const uint32_t tp = hybrid ? w.tp : 1;
    const uint32_t ep = hybrid ? w.ep : 1;
    if (ranks % tp != 0)
    {
        return fail(std::to_string(ranks) +
                    " ranks are not a multiple of model_parallel_NPU_group " + std::to_string(tp));
    }
    Parallelism p;
    p.tp = tp;
    p.ep = ep;
    p.dp = ranks / tp;
    RankLayout layout;
    std::string why;
    if (!RankLayout::Make(p, &layout, &why))
    {
        return fail(why);
    }
    const uint32_t layers = run.layers != 0 ? run.layers : static_cast<uint32_t>(w.layers.size());
    // Time and bytes grow with the iterations, and the job's bytes with the ranks: they must
    // still fit (the reader checked one pass over the whole file on one rank). Bytes count
    // collectives with nodes only: groups of one rank move nothing.
    const uint32_t sizes[] = {tp, p.dp, ep, p.dp / ep}; // tp, dp, ep, edp groups
    uint64_t time = 0;
    uint64_t bytes = 0;
    for (uint32_t l = 0; l < layers; ++l)
    {
        const AicbLayer& layer = w.layers[l];
        const AicbPass* passes[] = {&layer.fwd, &layer.ig, &layer.wg};
        for (uint32_t c = 0; c < 3; ++c)
        {
            const AicbPass& pass = *passes[c];
            uint32_t kind = pass.group == AicbGroup::kEp     ? 2
                            : pass.group == AicbGroup::kDpEp ? 3
                                                             : (c == 2 ? 1 : 0);
            time += pass.computeNs + (pass.comm != AicbComm::kNone ? layer.updateNs : 0);
            bytes += sizes[kind] > 1 ? pass.bytes : 0;
        }
    }
    if ((time != 0 && run.iterations > kMaxTimeNs / time) ||
        (bytes != 0 && uint64_t(run.iterations) * ranks > UINT64_MAX / bytes))
    {
        return fail(std::to_string(run.iterations) + " iterations of " + std::to_string(ranks) +
                    " ranks: a rank's time, or the job's bytes, pass 64 bits");
    }

    graph->nRanks = ranks;
    graph->iterations = run.iterations;
    graph->ranks.resize(ranks);
    AicbBuilder b(w, layers, graph);
    using Groups = std::vector<std::vector<uint32_t>>;
    bool used[4] = {false, false, false, false}; // tp, dp, ep, edp: only these get groups
    for (uint32_t l = 0; l < layers; ++l)
    {
        const AicbLayer& layer = w.layers[l];
        const AicbPass* passes[] = {&layer.fwd, &layer.ig, &layer.wg};
        for (uint32_t c = 0; c < 3; ++c)
        {
            if (passes[c]->comm != AicbComm::kNone)
            {
                used[passes[c]->group == AicbGroup::kEp     ? 2
                     : passes[c]->group == AicbGroup::kDpEp ? 3
                                                            : (c == 2 ? 1 : 0)] = true;
            }
        }
    }
    b.AddGroups("tp", CommClass::kTensor, used[0] ? layout.Groups({Dim::kTp}) : Groups(), &b.tp);
    b.AddGroups("dp", CommClass::kData, used[1] ? layout.Groups({Dim::kDp}) : Groups(), &b.dp);
    b.AddGroups("ep", CommClass::kExpert, used[2] ? layout.Groups({Dim::kEp}) : Groups(), &b.ep);
    b.AddGroups("edp", CommClass::kData, used[3] ? layout.ExpertDataGroups() : Groups(), &b.dpEp);
    for (uint32_t r = 0; r < ranks; ++r)
    {
        b.BuildRank(r, run.iterations);
    }
    for (const std::string& message : Validate(*graph, where, 1))
    {
        *graph = Graph();
        *error = message;
        return false;
    }
    return true;
}

} // namespace graph
} // namespace talb
