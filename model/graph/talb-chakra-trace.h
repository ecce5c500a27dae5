#ifndef TALB_CHAKRA_TRACE_H
#define TALB_CHAKRA_TRACE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

/**
 * \file
 * \ingroup talb-graph
 * One rank's file of an MLCommons Chakra execution trace (what ASTRA-sim replays), read into
 * plain structs and written back: a varint length, then a GlobalMetadata message; then, to the
 * end of the file, a varint length and a Node message each (the format of Chakra's
 * src/third_party/utils/protoio.cc; the messages are those of model/graph/talb-chakra-et.proto,
 * compiled with protoc at build time). A gzip-compressed file (first bytes 1f 8b) reads the
 * same. Only what talb uses is kept: node id, name, type, dependencies, duration, and the
 * communication attributes; the reader checks each node on its own (types, attribute value
 * types, ranges), the graph builder (talb-chakra-graph.h) checks the nodes together.
 */

namespace talb
{
namespace graph
{

/// Chakra's NodeType (the schema's values).
enum class ChakraNodeType : uint8_t
{
    kMetadata = 1,
    kMemLoad = 2,
    kMemStore = 3,
    kComp = 4,
    kCommSend = 5,
    kCommRecv = 6,
    kCommColl = 7,
};

/// Chakra's CollectiveCommType (the schema's values).
enum class ChakraCommType : uint8_t
{
    kAllReduce = 0,
    kReduce = 1,
    kAllGather = 2,
    kGather = 3,
    kScatter = 4,
    kBroadcast = 5,
    kAllToAll = 6,
    kReduceScatter = 7,
    kReduceScatterBlock = 8,
    kBarrier = 9,
};

/// The most a duration may be: ns-3's largest time, in microseconds.
constexpr uint64_t kChakraMaxDurationMicros = uint64_t(INT64_MAX) / 1000;

/// One Node message, as far as talb reads it.
struct ChakraNode
{
    uint64_t id{0};
    std::string name;
    ChakraNodeType type{ChakraNodeType::kComp};
    std::vector<uint64_t> dataDeps;
    std::vector<uint64_t> ctrlDeps;
    uint64_t durationMicros{0}; //!< duration_micros (COMP, MEM_LOAD, MEM_STORE)
    /// The communication attributes (integer values of any integer attribute type).
    std::optional<ChakraCommType> commType;
    std::optional<uint64_t> commSize;
    std::optional<uint32_t> commPriority; //!< 0 (most urgent) .. 7
    std::optional<uint32_t> commSrc;
    std::optional<uint32_t> commDst;
    std::optional<uint32_t> commTag;
    std::optional<std::string> pgName;
    /// is_cpu_op (bool, or an integer 0 / 1): a host (CPU) operation rather than a GPU kernel
    std::optional<bool> isCpuOp;

    bool operator==(const ChakraNode& o) const;
};

/// One rank's file.
struct ChakraRankTrace
{
    std::string version; //!< GlobalMetadata.version ("0.0.4" as ASTRA-sim's examples)
    std::vector<ChakraNode> nodes;

    bool operator==(const ChakraRankTrace& o) const;
};

/**
 * Read one rank's file from the bytes \p data (gzip-compressed or not).
 * \param where the file's name in messages
 * \param error set to "WHERE: what is wrong" for the file as a whole (cannot decompress, ends
 *        inside a length or a message, a message that does not parse: with its byte offset)
 *        or "WHERE:node ID: what is wrong" for one node (unknown type, an attribute of the
 *        wrong value type or out of range, a duration past ns-3's time)
 * \return false on any problem (\p trace is then empty)
 */
bool ReadChakraRank(const std::string& data,
                    const std::string& where,
                    ChakraRankTrace* trace,
                    std::string* error);

/// ReadChakraRank() of the file \p path (named by its path in messages).
bool ReadChakraRankFile(const std::string& path, ChakraRankTrace* trace, std::string* error);

/// \return \p trace in the format ReadChakraRank() reads (uncompressed)
std::string WriteChakraRank(const ChakraRankTrace& trace);

/**
 * Write \p trace to \p path, gzip-compressed when the path ends in ".gz".
 * \return false with \p error "PATH: why" when the file cannot be written
 */
bool WriteChakraRankFile(const ChakraRankTrace& trace, const std::string& path, std::string* error);

/// \return the schema's name of \p type ("COMP_NODE", ...)
const char* ChakraNodeTypeName(ChakraNodeType type);
/// \return the schema's name of \p type ("ALL_REDUCE", ...)
const char* ChakraCommTypeName(ChakraCommType type);

} // namespace graph
} // namespace talb

#endif /* TALB_CHAKRA_TRACE_H */
