// The Chakra execution-trace reader and writer (model/graph/talb-chakra-trace.h), its
// communicator-group file (talb-chakra-comm-groups.h) and the graph built from a trace
// (talb-chakra-graph.h): round trips, ASTRA-sim's microbenchmark traces, the graph's nodes,
// groups, dependencies and iterations, and one message per kind of bad input naming the file,
// the rank, the node and what is wrong.
#include "ns3/talb-chakra-comm-groups.h"
#include "ns3/talb-chakra-graph.h"
#include "ns3/talb-chakra-trace.h"
#include "ns3/talb-exec-graph.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <vector>
#include <zlib.h>

using namespace talb::graph;
namespace fs = std::filesystem;

namespace
{

ChakraNode
Comp(uint64_t id, uint64_t micros, std::vector<uint64_t> deps = {})
{
    ChakraNode n;
    n.id = id;
    n.name = "comp" + std::to_string(id);
    n.type = ChakraNodeType::kComp;
    n.durationMicros = micros;
    n.dataDeps = std::move(deps);
    return n;
}

ChakraNode
Coll(uint64_t id, ChakraCommType type, uint64_t size, std::vector<uint64_t> deps = {})
{
    ChakraNode n;
    n.id = id;
    n.name = "coll" + std::to_string(id);
    n.type = ChakraNodeType::kCommColl;
    n.commType = type;
    n.commSize = size;
    n.dataDeps = std::move(deps);
    return n;
}

ChakraNode
P2p(uint64_t id, bool send, uint32_t peer, uint64_t size, uint32_t tag)
{
    ChakraNode n;
    n.id = id;
    n.type = send ? ChakraNodeType::kCommSend : ChakraNodeType::kCommRecv;
    (send ? n.commDst : n.commSrc) = peer;
    n.commSize = size;
    n.commTag = tag;
    return n;
}

/// A trace of \p ranks ranks, each with the nodes \p make(rank) gives (files named t.R.et).
ChakraTrace
Trace(uint32_t ranks, const std::function<std::vector<ChakraNode>(uint32_t)>& make)
{
    ChakraTrace t;
    for (uint32_t r = 0; r < ranks; ++r)
    {
        ChakraRankTrace rank;
        rank.version = "0.0.4";
        rank.nodes = make(r);
        t.ranks.push_back(rank);
        t.files.push_back("t." + std::to_string(r) + ".et");
    }
    return t;
}

Graph
Build(const ChakraTrace& t,
      const ChakraCommGroups* groups = nullptr,
      uint32_t iterations = 1,
      bool waitForCtrlDeps = false)
{
    Graph g;
    std::string error;
    ChakraRun run;
    run.iterations = iterations;
    run.waitForCtrlDeps = waitForCtrlDeps;
    EXPECT_TRUE(BuildChakraGraph(t, groups, "g.json", run, "t", &g, &error)) << error;
    EXPECT_EQ(Validate(g, "t"), std::vector<std::string>());
    return g;
}

std::string
BuildError(const ChakraTrace& t,
           const ChakraCommGroups* groups = nullptr,
           bool waitForCtrlDeps = false)
{
    Graph g;
    std::string error;
    ChakraRun run;
    run.waitForCtrlDeps = waitForCtrlDeps;
    EXPECT_FALSE(BuildChakraGraph(t, groups, "g.json", run, "t", &g, &error));
    EXPECT_EQ(g.nRanks, 0u);
    return error;
}

std::string
ReadError(const std::string& bytes)
{
    ChakraRankTrace t;
    std::string error;
    EXPECT_FALSE(ReadChakraRank(bytes, "r.et", &t, &error));
    EXPECT_TRUE(t.nodes.empty());
    return error;
}

/// A fresh folder under the system's temporary one, removed at the end of the test.
struct TempDir
{
    TempDir()
        : path(fs::temp_directory_path() /
               ("talb-chakra-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name()))
    {
        fs::remove_all(path);
        fs::create_directories(path);
    }

    ~TempDir()
    {
        fs::remove_all(path);
    }

    fs::path path;
};

std::string
Gzip(const std::string& data)
{
    uLongf size = compressBound(data.size()) + 32;
    std::string out(size, '\0');
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = data.size();
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = size;
    deflate(&z, Z_FINISH);
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
}

/// Protobuf's encoding by hand, for messages the writer cannot make.
std::string
Varint(uint64_t v)
{
    std::string out;
    for (; v >= 0x80; v >>= 7)
    {
        out.push_back(static_cast<char>(v | 0x80));
    }
    out.push_back(static_cast<char>(v));
    return out;
}

std::string
VarField(uint32_t field, uint64_t v)
{
    return Varint(field << 3) + Varint(v);
}

std::string
LenField(uint32_t field, const std::string& body)
{
    return Varint(field << 3 | 2) + Varint(body.size()) + body;
}

/// A file of one COMM_COLL_NODE (id 4) with one attribute named \p name holding \p value.
std::string
OneAttribute(const std::string& name, const std::string& value)
{
    const std::string meta = LenField(1, "0.0.4");
    const std::string node =
        VarField(1, 4) + VarField(3, 7) + LenField(10, LenField(1, name) + value);
    return Varint(meta.size()) + meta + Varint(node.size()) + node;
}

} // namespace

TEST(ChakraTrace, RoundTripKeepsEveryFieldAndAttribute)
{
    ChakraRankTrace t;
    t.version = "0.0.4";
    t.nodes.push_back(Comp(7, 12, {}));
    t.nodes.back().ctrlDeps = {3};
    t.nodes.back().isCpuOp = true;
    ChakraNode c = Coll(3, ChakraCommType::kBroadcast, 1u << 20);
    c.isCpuOp = false;
    c.commPriority = 2;
    c.commSrc = 5;
    c.pgName = "tp0";
    t.nodes.push_back(c);
    ChakraNode s = P2p(9, true, 4, 1ull << 40, 0xFFFFFFF0u); // a tag past int32: written unsigned
    s.commSize = UINT64_MAX;                                 // past int64: written unsigned
    t.nodes.push_back(s);
    ChakraNode m;
    m.id = 10;
    m.type = ChakraNodeType::kMemLoad;
    m.durationMicros = kChakraMaxDurationMicros;
    t.nodes.push_back(m);
    const std::string bytes = WriteChakraRank(t);
    ChakraRankTrace back;
    std::string error;
    ASSERT_TRUE(ReadChakraRank(bytes, "r.et", &back, &error)) << error;
    EXPECT_EQ(back, t);
    ASSERT_TRUE(ReadChakraRank(Gzip(bytes), "r.et.gz", &back, &error)) << error;
    EXPECT_EQ(back, t);
    // Two gzip members (as `cat a.gz b.gz` makes) read as their concatenation.
    const std::string half = bytes.substr(0, 20);
    ASSERT_TRUE(ReadChakraRank(Gzip(half) + Gzip(bytes.substr(20)), "r.et.gz", &back, &error))
        << error;
    EXPECT_EQ(back, t);

    TempDir dir;
    for (const char* name : {"x.0.et", "x.0.et.gz"})
    {
        const std::string path = (dir.path / name).string();
        ASSERT_TRUE(WriteChakraRankFile(t, path, &error)) << error;
        ASSERT_TRUE(ReadChakraRankFile(path, &back, &error)) << error;
        EXPECT_EQ(back, t);
    }
}

TEST(ChakraTrace, IntegerAttributesOfAnyIntegerTypeRead)
{
    // Fields 7 int32, 9 int64, 11 uint32, 13 uint64, 15 sint32 (zigzag), 17 sint64.
    for (const std::string& value : {VarField(7, 64),
                                     VarField(9, 64),
                                     VarField(11, 64),
                                     VarField(13, 64),
                                     VarField(15, 128),
                                     VarField(17, 128)})
    {
        ChakraRankTrace back;
        std::string error;
        ASSERT_TRUE(ReadChakraRank(OneAttribute("comm_size", value), "r.et", &back, &error))
            << error;
        EXPECT_EQ(back.nodes[0].commSize, 64u);
    }
    // is_cpu_op: Chakra's tools write a bool (field 27); an integer 0 or 1 reads alike.
    for (const auto& [value, cpu] : {std::pair{VarField(27, 1), true},
                                     {VarField(27, 0), false},
                                     {VarField(9, 1), true},
                                     {VarField(7, 0), false}})
    {
        ChakraRankTrace back;
        std::string error;
        ASSERT_TRUE(ReadChakraRank(OneAttribute("is_cpu_op", value), "r.et", &back, &error))
            << error;
        EXPECT_EQ(back.nodes[0].isCpuOp, std::optional<bool>(cpu));
    }
}

TEST(ChakraTrace, AstraSimMicrobenchmarksBuildOneCollectiveOnAllRanks)
{
    const std::pair<const char*, CollType> colls[] = {{"all_reduce", CollType::kAllReduce},
                                                      {"all_gather", CollType::kAllGather},
                                                      {"reduce_scatter", CollType::kReduceScatter},
                                                      {"all_to_all", CollType::kAllToAll}};
    for (const auto& [name, type] : colls)
    {
        for (uint32_t n : {4u, 8u, 16u})
        {
            const std::string prefix = std::string(TALB_SOURCE_DIR) +
                                       "/test/data/chakra/microbenchmarks/" + name + "/" +
                                       std::to_string(n) + "npus_1MB/" + name;
            ChakraTrace t;
            std::string error;
            ASSERT_TRUE(ReadChakraTrace(prefix, 64, &t, &error)) << error;
            ASSERT_EQ(t.ranks.size(), n) << prefix;
            EXPECT_EQ(t.ranks[0].version, "0.0.4");
            Graph g;
            ASSERT_TRUE(BuildChakraGraph(t, nullptr, "", ChakraRun(), prefix, &g, &error)) << error;
            EXPECT_TRUE(Validate(g, prefix).empty());
            ASSERT_EQ(g.groups.size(), 1u);
            EXPECT_EQ(g.groups[0].name, "all");
            EXPECT_EQ(g.groups[0].ranks.size(), n);
            for (uint32_t r = 0; r < n; ++r)
            {
                ASSERT_EQ(g.ranks[r].size(), 1u);
                const Node& node = g.ranks[r][0];
                EXPECT_EQ(node.kind, NodeKind::kCollective);
                EXPECT_EQ(node.coll, type);
                // comm_size is 1 MiB; an all-gather's is each rank's part of the output.
                EXPECT_EQ(node.bytes, (1u << 20) * (type == CollType::kAllGather ? n : 1));
                EXPECT_EQ(node.priority, kPriorityByRule);
                EXPECT_EQ(node.tensor, 0u);
            }
        }
    }
}

TEST(ChakraTrace, WrittenMicrobenchmarksReadBackFromFiles)
{
    // The writer's traces for 4, 8 and 16 ranks, plain and gzip-compressed, as files.
    TempDir dir;
    for (uint32_t n : {4u, 8u, 16u})
    {
        for (const char* ext : {".et", ".et.gz"})
        {
            const std::string prefix = (dir.path / ("ar" + std::to_string(n) + ext)).string();
            ChakraTrace t = Trace(n, [](uint32_t) {
                return std::vector<ChakraNode>{Coll(0, ChakraCommType::kAllReduce, 1u << 20)};
            });
            std::string error;
            for (uint32_t r = 0; r < n; ++r)
            {
                ASSERT_TRUE(
                    WriteChakraRankFile(t.ranks[r], prefix + "." + std::to_string(r) + ext, &error))
                    << error;
            }
            ChakraTrace back;
            ASSERT_TRUE(ReadChakraTrace(prefix, 64, &back, &error)) << error;
            ASSERT_EQ(back.ranks.size(), n);
            EXPECT_EQ(back.ranks, t.ranks);
            EXPECT_EQ(back.files[n - 1], prefix + "." + std::to_string(n - 1) + ext);
        }
    }
}

TEST(ChakraTrace, NodesKindsDependenciesAndMetadataPassThrough)
{
    ChakraTrace t = Trace(2, [](uint32_t) {
        ChakraNode meta;
        meta.id = 1;
        meta.type = ChakraNodeType::kMetadata;
        ChakraNode load;
        load.id = 2;
        load.type = ChakraNodeType::kMemLoad;
        load.durationMicros = 3;
        load.ctrlDeps = {1};
        ChakraNode store;
        store.id = 6;
        store.type = ChakraNodeType::kMemStore;
        ChakraNode coll = Coll(5, ChakraCommType::kAllReduce, 4096, {4});
        coll.commPriority = 1;
        ChakraNode host = Comp(3, 7, {1});
        host.isCpuOp = true;
        // Listed out of order: the graph is in dependency order, the file's where free.
        return std::vector<ChakraNode>{coll, Comp(4, 10, {2}), meta, load, host, store};
    });
    Graph g = Build(t);
    ASSERT_EQ(g.ranks[0].size(), 5u); // the metadata node is gone
    const auto& n = g.ranks[0];
    // Ready first: store (file position 5)? No: positions 2 (meta), 5 (store) are roots; the
    // metadata node goes, its dependents (load, comp 3) become roots in file order.
    EXPECT_EQ(n[0].kind, NodeKind::kMemory); // load: 3 us
    EXPECT_EQ(n[0].durationNs, 3000u);
    EXPECT_TRUE(n[0].deps.empty());
    EXPECT_EQ(n[1].kind, NodeKind::kCompute); // comp 4 after load
    EXPECT_EQ(n[1].durationNs, 10000u);
    EXPECT_EQ(n[1].deps, std::vector<uint32_t>{0});
    EXPECT_EQ(n[2].kind, NodeKind::kCollective); // coll 5 after comp 4
    EXPECT_EQ(n[2].deps, std::vector<uint32_t>{1});
    EXPECT_EQ(n[2].priority, 1);
    EXPECT_EQ(n[2].bytes, 4096u);
    EXPECT_EQ(g.labels[n[2].label], "coll5");
    EXPECT_EQ(n[3].durationNs, 7000u); // comp 3, a CPU operation: the host's stream
    EXPECT_TRUE(n[3].host);
    EXPECT_FALSE(n[1].host);
    EXPECT_FALSE(n[0].host);
    EXPECT_EQ(n[4].kind, NodeKind::kMemory); // the store: no time
    EXPECT_EQ(n[4].durationNs, 0u);
}

TEST(ChakraTrace, ControlDependenciesCountOnlyWhereTheRunWaitsForThem)
{
    // As PyTorch's converter writes them: ctrl_deps name the calling operator (node 1, which
    // encloses node 2), and node 3's caller (9) was not kept in the file.
    ChakraTrace t = Trace(1, [](uint32_t) {
        ChakraNode callee = Comp(2, 5);
        callee.ctrlDeps = {1};
        ChakraNode orphan = Comp(3, 5);
        orphan.ctrlDeps = {9};
        return std::vector<ChakraNode>{Comp(1, 5), callee, orphan};
    });
    Graph g = Build(t); // Chakra's feeder (and ASTRA-sim) read data_deps only
    ASSERT_EQ(g.ranks[0].size(), 3u);
    for (const Node& n : g.ranks[0])
    {
        EXPECT_TRUE(n.deps.empty());
    }
    EXPECT_EQ(BuildError(t, nullptr, true),
              "t.0.et:rank 0:node 3: control dependency on node 9, which the file does not have");
    t.ranks[0].nodes.pop_back();
    g = Build(t, nullptr, 1, true);
    ASSERT_EQ(g.ranks[0].size(), 2u);
    EXPECT_EQ(g.ranks[0][1].deps, std::vector<uint32_t>{0});
}

TEST(ChakraTrace, ACollectivesHostCallWithoutCommTypeIsHostTime)
{
    // As an older PyTorch converter wrote them: the c10d call (a CPU operation, COMM_COLL_NODE
    // without comm_type) launches the kernel node, which carries the collective.
    ChakraTrace t = Trace(2, [](uint32_t) {
        ChakraNode call = Coll(1, ChakraCommType::kAllReduce, 0);
        call.commType.reset();
        call.commSize.reset();
        call.isCpuOp = true;
        call.durationMicros = 85;
        call.name = "c10d::allreduce_(0)";
        ChakraNode kernel = Coll(2, ChakraCommType::kAllReduce, 4096, {1});
        kernel.isCpuOp = false;
        return std::vector<ChakraNode>{call, kernel};
    });
    Graph g = Build(t);
    ASSERT_EQ(g.ranks[0].size(), 2u);
    EXPECT_EQ(g.ranks[0][0].kind, NodeKind::kCompute);
    EXPECT_TRUE(g.ranks[0][0].host);
    EXPECT_EQ(g.ranks[0][0].durationNs, 85000u);
    EXPECT_EQ(g.labels[g.ranks[0][0].label], "c10d::allreduce_(0)");
    EXPECT_EQ(g.ranks[0][1].kind, NodeKind::kCollective);
    EXPECT_EQ(g.ranks[0][1].bytes, 4096u);
    // On the GPU (or unmarked) it is still a collective without its type: refused.
    t.ranks[1].nodes[0].isCpuOp = false;
    EXPECT_EQ(BuildError(t), "t.1.et:rank 1:node 1: COMM_COLL_NODE without comm_type");
}

TEST(ChakraTrace, CollectivesOnAGroupAreChainedAndNumbered)
{
    ChakraCommGroups groups;
    groups.groups = {{"even", {0, 2}}, {"odd", {3, 1}}};
    ChakraTrace t = Trace(4, [](uint32_t r) {
        ChakraNode a = Coll(10, ChakraCommType::kAllGather, 100);
        a.pgName = r % 2 ? "odd" : "even";
        ChakraNode b = Coll(11, ChakraCommType::kBroadcast, 64);
        b.pgName = a.pgName;
        b.commSrc = r % 2 ? 1 : 2; // the root: a global rank of the group
        ChakraNode c = Coll(12, ChakraCommType::kBarrier, 5); // barriers move nothing
        return std::vector<ChakraNode>{a, b, c};
    });
    Graph g = Build(t, &groups);
    ASSERT_EQ(g.groups.size(), 3u);
    EXPECT_EQ(g.groups[0].name, "even");
    EXPECT_EQ(g.groups[1].name, "all");
    EXPECT_EQ(g.groups[2].name, "odd");
    EXPECT_EQ(g.groups[2].ranks, (std::vector<uint32_t>{3, 1}));
    const auto& n = g.ranks[1];
    EXPECT_EQ(n[0].bytes, 200u); // all-gather: comm_size x 2 ranks
    EXPECT_EQ(n[1].coll, CollType::kBroadcast);
    EXPECT_EQ(n[1].root, 1u);                       // rank 1 is position 1 of "odd"
    EXPECT_EQ(g.ranks[0][1].root, 1u);              // rank 2 is position 1 of "even"
    EXPECT_EQ(n[1].deps, std::vector<uint32_t>{0}); // the previous one on the group
    EXPECT_EQ(n[2].coll, CollType::kBarrier);
    EXPECT_EQ(n[2].bytes, 0u);
    // Tensor ids: instance k of the groups in order of first use: even 0-1, all 2, odd 3-4.
    EXPECT_EQ(g.ranks[0][0].tensor, 0u);
    EXPECT_EQ(g.ranks[0][1].tensor, 1u);
    EXPECT_EQ(g.ranks[0][2].tensor, 2u);
    EXPECT_EQ(n[0].tensor, 3u);
    EXPECT_EQ(n[1].tensor, 4u);
}

TEST(ChakraTrace, SendsAndReceivesMatchByTag)
{
    ChakraTrace t = Trace(2, [](uint32_t r) {
        if (r == 0)
        {
            return std::vector<ChakraNode>{P2p(1, true, 1, 500, 7), P2p(2, true, 1, 300, 8)};
        }
        return std::vector<ChakraNode>{P2p(1, false, 0, 300, 8), P2p(2, false, 0, 500, 7)};
    });
    Graph g = Build(t);
    EXPECT_EQ(g.ranks[0][0].kind, NodeKind::kSend);
    EXPECT_EQ(g.ranks[0][0].peer, 1u);
    EXPECT_EQ(g.ranks[0][0].tag, 7u);
    EXPECT_EQ(g.ranks[1][1].kind, NodeKind::kRecv);
    EXPECT_EQ(g.ranks[1][1].tensor, g.ranks[0][0].tensor);
    EXPECT_EQ(g.ranks[1][0].tensor, g.ranks[0][1].tensor);
    EXPECT_NE(g.ranks[0][0].tensor, g.ranks[0][1].tensor);
    // Two sends on one channel: the second waits for the first (the receives likewise).
    ChakraTrace two = Trace(2, [](uint32_t r) {
        return std::vector<ChakraNode>{P2p(1, r == 0, 1 - r, 64, 0), P2p(2, r == 0, 1 - r, 64, 0)};
    });
    Graph g2 = Build(two);
    EXPECT_EQ(g2.ranks[0][1].deps, std::vector<uint32_t>{0});
    EXPECT_EQ(g2.ranks[1][1].deps, std::vector<uint32_t>{0});
}

TEST(ChakraTrace, IterationsRepeatTheTraceAfterARankFinishedIt)
{
    ChakraTrace t = Trace(2, [](uint32_t) {
        return std::vector<ChakraNode>{Comp(1, 5),
                                       Coll(2, ChakraCommType::kAllReduce, 64, {1}),
                                       Comp(3, 5)};
    });
    Graph g = Build(t, nullptr, 3);
    EXPECT_EQ(g.iterations, 3u);
    const auto& n = g.ranks[0];
    ASSERT_EQ(n.size(), 3u + 2 * 4u);
    // Iteration 1: its start node waits for iteration 0's last nodes (2 and 3, index 1 and 2);
    // the roots of iteration 1 wait for it.
    EXPECT_EQ(n[3].iteration, 1u);
    EXPECT_EQ(n[3].durationNs, 0u);
    EXPECT_EQ(g.labels[n[3].label], "iteration start");
    EXPECT_EQ(n[3].deps, (std::vector<uint32_t>{1, 2}));
    EXPECT_EQ(n[4].deps, std::vector<uint32_t>{3});
    EXPECT_EQ(n[5].deps, std::vector<uint32_t>{4});
    EXPECT_EQ(n[6].deps, std::vector<uint32_t>{3});
    EXPECT_EQ(n[5].tensor, n[1].tensor);
    EXPECT_EQ(n[10].iteration, 2u);
}

TEST(ChakraTrace, CommGroupsRoundTripAndErrors)
{
    ChakraCommGroups g;
    g.groups = {{"0", {0, 1, 2, 3}}, {"dp \"x\"", {7, 4}}};
    ChakraCommGroups back;
    std::string error;
    ASSERT_TRUE(ReadChakraCommGroups(WriteChakraCommGroups(g), "g.json", &back, &error)) << error;
    EXPECT_EQ(back, g);
    ASSERT_TRUE(
        ReadChakraCommGroups(" {\"1\":[4,5] , \"a\\/b\" : [ 0 ]}\n", "g.json", &back, &error))
        << error;
    EXPECT_EQ(back.groups[1].first, "a/b");
    const std::pair<const char*, const char*> bad[] = {
        {"", "g.json:1: expected '{'"},
        {"{}", "g.json:1: no groups"},
        {"{\"a\": [1], \n\"a\": [2]}", "g.json:2: group 'a' appears twice"},
        {"{\"a\": []}", "group 'a' has no ranks"},
        {"{\"a\": [1, 1]}", "group 'a' lists rank 1 twice"},
        {"{\"a\": [-1]}", "expected a rank (a non-negative integer)"},
        {"{\"a\": [4294967295]}", "rank past 4294967294"},
        {"{\"a\": [1] \"b\": [2]}", "expected ',' or '}' after a group"},
        {"{\"a\": [1]} x", "text after the object"},
        {"{\"a", "the file ends inside a group name"},
        {"{a: [1]}", "expected a group name in double quotes"},
    };
    for (const auto& [text, message] : bad)
    {
        EXPECT_FALSE(ReadChakraCommGroups(text, "g.json", &back, &error)) << text;
        EXPECT_NE(error.find(message), std::string::npos) << text << " -> " << error;
        EXPECT_TRUE(back.groups.empty());
    }
    EXPECT_FALSE(ReadChakraCommGroupsFile("/nonexistent/g.json", &back, &error));
    EXPECT_EQ(error, "/nonexistent/g.json: cannot open the file");
}

TEST(ChakraTrace, BadBytesNameTheFileAndWhatIsWrong)
{
    ChakraRankTrace t;
    t.version = "0.0.4";
    t.nodes.push_back(Coll(4, ChakraCommType::kAllReduce, 1u << 20));
    const std::string good = WriteChakraRank(t);
    EXPECT_EQ(ReadError(""), "r.et: empty file (a rank's file starts with its GlobalMetadata)");
    const std::size_t at = 1 + uint8_t(good[0]); // the node's length prefix, after the metadata
    EXPECT_EQ(ReadError(good.substr(0, good.size() - 1)),
              "r.et: the message at byte " + std::to_string(at) + " is " +
                  std::to_string(uint8_t(good[at])) + " bytes long but the file has " +
                  std::to_string(good.size() - at - 2) +
                  " left (truncated, or not a Chakra trace)");
    EXPECT_EQ(ReadError(good + char(0x80)),
              "r.et: the file ends inside the length of the message at byte " +
                  std::to_string(good.size()) + " (truncated, or not a Chakra trace)");
    EXPECT_EQ(ReadError(std::string("\x02\xff\xff", 3)),
              "r.et: the message at byte 0 is not a GlobalMetadata message");
    EXPECT_EQ(ReadError(good + std::string("\x02\x0f\x00", 3)),
              "r.et: the message at byte " + std::to_string(good.size()) +
                  " is not a Node message");
    const std::string gz = Gzip(good);
    EXPECT_EQ(ReadError(gz.substr(0, gz.size() - 6)),
              "r.et: gzip data ends early (a truncated .gz file)");
    std::string corrupt = gz;
    corrupt[12] ^= 0x55;
    EXPECT_NE(ReadError(corrupt).find("r.et: gzip data is corrupt"), std::string::npos);

    auto node = [&](const std::function<void(ChakraNode*)>& edit) {
        ChakraRankTrace copy = t;
        edit(&copy.nodes[0]);
        return ReadError(WriteChakraRank(copy));
    };
    // Node types outside the schema's runnable set: written as raw values.
    EXPECT_EQ(node([](ChakraNode* n) { n->type = static_cast<ChakraNodeType>(0); }),
              "r.et:node 4: node type 0 (INVALID_NODE) is not one talb runs (METADATA, "
              "MEM_LOAD, MEM_STORE, COMP, COMM_SEND, COMM_RECV, COMM_COLL)");
    EXPECT_NE(node([](ChakraNode* n) {
                  n->type = static_cast<ChakraNodeType>(9);
              }).find("r.et:node 4: node type 9 is not one talb runs"),
              std::string::npos);
    EXPECT_EQ(node([](ChakraNode* n) { n->durationMicros = kChakraMaxDurationMicros + 1; }),
              "r.et:node 4: duration_micros 9223372036854776 passes ns-3's largest time "
              "(9223372036854775 us)");
    EXPECT_EQ(node([](ChakraNode* n) { n->commPriority = 8; }),
              "r.et:node 4: attribute comm_priority is 8, above 7 (talb's priorities are 0, most "
              "urgent, to 7)");
    EXPECT_EQ(node([](ChakraNode* n) { n->commType = static_cast<ChakraCommType>(10); }),
              "r.et:node 4: attribute comm_type is 10, above 9");
    EXPECT_EQ(ReadError(OneAttribute("comm_size", VarField(9, uint64_t(-1)))),
              "r.et:node 4: attribute comm_size is negative (-1)");
    EXPECT_EQ(ReadError(OneAttribute("comm_size", LenField(29, "1MB"))),
              "r.et:node 4: attribute comm_size holds no integer (an integer value is expected)");
    EXPECT_EQ(ReadError(OneAttribute("pg_name", VarField(9, 3))),
              "r.et:node 4: attribute pg_name holds no string");
    EXPECT_EQ(ReadError(OneAttribute("is_cpu_op", VarField(9, 2))),
              "r.et:node 4: attribute is_cpu_op is 2, above 1");
    EXPECT_EQ(node([](ChakraNode* n) {
                  n->pgName.reset();
                  n->commSrc = UINT32_MAX;
              }).find("attribute comm_src is 4294967295, above 4294967294"),
              std::string("r.et:node 4: ").size());
    ChakraRankTrace missing;
    std::string error;
    EXPECT_FALSE(ReadChakraRankFile("/nonexistent/t.0.et", &missing, &error));
    EXPECT_EQ(error, "/nonexistent/t.0.et: cannot open the file");
}

TEST(ChakraTrace, BadTracesNameTheFileRankAndNode)
{
    auto one = [](std::vector<ChakraNode> rank1) {
        return Trace(2, [rank1](uint32_t r) {
            return r == 1 ? rank1
                          : std::vector<ChakraNode>{Coll(1, ChakraCommType::kAllReduce, 64)};
        });
    };
    const std::string at = "t.1.et:rank 1:node ";
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64, {9})})),
              at + "1: data dependency on node 9, which the file does not have");
    ChakraNode ctrl = Coll(1, ChakraCommType::kAllReduce, 64);
    ctrl.ctrlDeps = {1};
    EXPECT_EQ(BuildError(one({ctrl}), nullptr, true), at + "1: depends on itself");
    EXPECT_EQ(BuildError(one({Comp(5, 1, {7}),
                              Comp(6, 1, {5}),
                              Comp(7, 1, {6}),
                              Coll(1, ChakraCommType::kAllReduce, 64)})),
              at + "5: on a dependency cycle (waits for: 5 -> 7 -> 6 -> 5)");
    EXPECT_EQ(BuildError(one({Comp(1, 1), Coll(1, ChakraCommType::kAllReduce, 64)})),
              at + "1: the node id appears twice in the file");
    ChakraNode noType = Coll(1, ChakraCommType::kAllReduce, 64);
    noType.commType.reset();
    EXPECT_EQ(BuildError(one({noType})), at + "1: COMM_COLL_NODE without comm_type");
    ChakraNode noSize = Coll(1, ChakraCommType::kAllReduce, 64);
    noSize.commSize.reset();
    EXPECT_EQ(BuildError(one({noSize})), at + "1: ALL_REDUCE without comm_size");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllGather, UINT64_MAX / 2 + 1)})),
              at + "1: comm_size 9223372036854775808 x 2 ranks (the ALL_GATHER output buffer) "
                   "passes 64 bits");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 65)})),
              at + "1: collective #0 on group 'all' is all_reduce of 65 bytes, but rank 0's "
                   "(node 1) is all_reduce of 64 bytes");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64),
                              Coll(2, ChakraCommType::kAllReduce, 64)})),
              "t.1.et:rank 1: issues 2 collectives on group 'all' but rank 0 issues 1 (every "
              "member issues each)");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64), P2p(2, true, 2, 8, 0)})),
              at + "2: comm_dst 2 out of range (the trace has 2 ranks)");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64), P2p(2, true, 1, 8, 0)})),
              at + "2: COMM_SEND_NODE to its own rank");
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64), P2p(2, true, 0, 8, 0)})),
              at + "2: send with no matching receive on rank 0 (tag 0)");
    ChakraNode recv = P2p(2, false, 0, 8, 0);
    recv.commSrc.reset();
    EXPECT_EQ(BuildError(one({Coll(1, ChakraCommType::kAllReduce, 64), recv})),
              at + "2: COMM_RECV_NODE without comm_src");

    ChakraNode pg = Coll(1, ChakraCommType::kAllReduce, 64);
    pg.pgName = "tp";
    EXPECT_EQ(BuildError(one({pg})),
              at + "1: pg_name 'tp' but no communicator-group file was given");
    ChakraCommGroups groups;
    groups.groups = {{"tp", {0, 5}}, {"solo", {0}}};
    EXPECT_EQ(BuildError(one({pg}), &groups),
              at + "1: pg_name 'tp': g.json puts rank 5 in it, but the trace has 2 ranks");
    pg.pgName = "solo";
    EXPECT_EQ(BuildError(one({pg}), &groups), at + "1: rank 1 is not in group 'solo' of g.json");
    pg.pgName = "dp";
    EXPECT_EQ(BuildError(one({pg}), &groups), at + "1: pg_name 'dp' is not a group of g.json");
    ChakraNode rooted = Coll(1, ChakraCommType::kReduce, 64);
    rooted.commDst = 7;
    EXPECT_EQ(BuildError(one({rooted})), at + "1: comm_dst 7 (the root) is not in group 'all'");

    // Missing, doubled and gapped rank files.
    TempDir dir;
    const std::string prefix = (dir.path / "x").string();
    ChakraTrace read;
    std::string error;
    EXPECT_FALSE(ReadChakraTrace(prefix, 64, &read, &error));
    EXPECT_EQ(
        error,
        prefix + ": no file " + prefix +
            ".0.et (or .et.gz): a trace has one file per rank, PREFIX.0.et, PREFIX.1.et, ...");
    ChakraRankTrace r0;
    r0.nodes.push_back(Comp(1, 1));
    ASSERT_TRUE(WriteChakraRankFile(r0, prefix + ".0.et", &error));
    ASSERT_TRUE(WriteChakraRankFile(r0, prefix + ".2.et.gz", &error));
    EXPECT_FALSE(ReadChakraTrace(prefix, 64, &read, &error));
    EXPECT_EQ(error,
              prefix + ": rank 1's file " + prefix + ".1.et is missing, but " + prefix +
                  ".2.et exists");
    ASSERT_TRUE(WriteChakraRankFile(r0, prefix + ".1.et", &error));
    ASSERT_TRUE(ReadChakraTrace(prefix, 64, &read, &error)) << error;
    EXPECT_EQ(read.ranks.size(), 3u);
    EXPECT_FALSE(ReadChakraTrace(prefix, 2, &read, &error));
    EXPECT_EQ(error, prefix + ": more than 2 ranks");
    ASSERT_TRUE(WriteChakraRankFile(r0, prefix + ".1.et.gz", &error));
    EXPECT_FALSE(ReadChakraTrace(prefix, 64, &read, &error));
    EXPECT_EQ(error,
              prefix + ": rank 1 has two files, " + prefix + ".1.et and " + prefix +
                  ".1.et.gz (keep one)");
    // A truncated rank file: the reader's message, with the file's path.
    fs::remove(prefix + ".1.et.gz");
    std::string bytes = WriteChakraRank(r0);
    std::ofstream(prefix + ".1.et", std::ios::binary) << bytes.substr(0, bytes.size() - 2);
    EXPECT_FALSE(ReadChakraTrace(prefix, 64, &read, &error));
    EXPECT_EQ(error.find(prefix + ".1.et: the message at byte "), 0u) << error;
    EXPECT_TRUE(read.ranks.empty());
}
