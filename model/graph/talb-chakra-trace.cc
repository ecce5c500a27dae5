#include "talb-chakra-trace.h"

#include "ns3/talb-chakra-et.pb.h"

#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>
#include <zlib.h>

namespace talb
{
namespace graph
{

namespace
{

namespace pb = ChakraProtoMsg;

const char* const NODE_TYPE_NAMES[] = {"INVALID_NODE",
                                       "METADATA_NODE",
                                       "MEM_LOAD_NODE",
                                       "MEM_STORE_NODE",
                                       "COMP_NODE",
                                       "COMM_SEND_NODE",
                                       "COMM_RECV_NODE",
                                       "COMM_COLL_NODE"};

const char* const COMM_TYPE_NAMES[] = {"ALL_REDUCE",
                                       "REDUCE",
                                       "ALL_GATHER",
                                       "GATHER",
                                       "SCATTER",
                                       "BROADCAST",
                                       "ALL_TO_ALL",
                                       "REDUCE_SCATTER",
                                       "REDUCE_SCATTER_BLOCK",
                                       "BARRIER"};

/// Inflates gzip data (every member of it) into \p out. \return an error, or empty
std::string
Gunzip(const std::string& in, std::string* out)
{
    z_stream z{};
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
    {
        return "cannot start zlib";
    }
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    z.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), UINT32_MAX));
    std::size_t fed = z.avail_in;
    char buffer[1 << 16];
    std::string error;
    for (;;)
    {
        z.next_out = reinterpret_cast<Bytef*>(buffer);
        z.avail_out = sizeof(buffer);
        int rc = inflate(&z, Z_NO_FLUSH);
        out->append(buffer, sizeof(buffer) - z.avail_out);
        if (z.avail_in == 0 && fed < in.size())
        {
            std::size_t more = std::min<std::size_t>(in.size() - fed, UINT32_MAX);
            z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + fed));
            z.avail_in = static_cast<uInt>(more);
            fed += more;
        }
        if (rc == Z_STREAM_END)
        {
            if (z.avail_in == 0)
            {
                break;
            }
            inflateReset(&z); // another gzip member follows (as `cat a.gz b.gz` makes)
        }
        else if (rc == Z_BUF_ERROR && z.avail_in == 0)
        {
            error = "gzip data ends early (a truncated .gz file)";
            break;
        }
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
        {
            error = std::string("gzip data is corrupt (") + (z.msg ? z.msg : "zlib error") + ")";
            break;
        }
    }
    inflateEnd(&z);
    return error;
}

/// Reads a varint at \p pos of \p data. \return false when the bytes end first or it is too long
bool
ReadVarint(const std::string& data, std::size_t* pos, uint64_t* value)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7)
    {
        if (*pos >= data.size())
        {
            return false;
        }
        uint8_t b = static_cast<uint8_t>(data[(*pos)++]);
        v |= uint64_t(b & 0x7f) << shift;
        if (!(b & 0x80))
        {
            *value = v;
            return true;
        }
    }
    return false;
}

void
WriteVarint(uint64_t v, std::string* out)
{
    while (v >= 0x80)
    {
        out->push_back(static_cast<char>(v | 0x80));
        v >>= 7;
    }
    out->push_back(static_cast<char>(v));
}

/**
 * \return the integer value of \p attr in [0, max], whatever its integer member; an error
 * naming the attribute when it holds none, a negative value, or one above \p max
 */
std::string
AttrUint(const pb::AttributeProto& attr, uint64_t max, uint64_t* out)
{
    using A = pb::AttributeProto;
    bool isSigned = true;
    int64_t s = 0;
    uint64_t u = 0;
    switch (attr.value_case())
    {
    case A::kInt32Val:
        s = attr.int32_val();
        break;
    case A::kInt64Val:
        s = attr.int64_val();
        break;
    case A::kSint32Val:
        s = attr.sint32_val();
        break;
    case A::kSint64Val:
        s = attr.sint64_val();
        break;
    case A::kSfixed32Val:
        s = attr.sfixed32_val();
        break;
    case A::kSfixed64Val:
        s = attr.sfixed64_val();
        break;
    case A::kUint32Val:
        isSigned = false;
        u = attr.uint32_val();
        break;
    case A::kUint64Val:
        isSigned = false;
        u = attr.uint64_val();
        break;
    case A::kFixed32Val:
        isSigned = false;
        u = attr.fixed32_val();
        break;
    case A::kFixed64Val:
        isSigned = false;
        u = attr.fixed64_val();
        break;
    default:
        return "attribute " + attr.name() + " holds no integer (an integer value is expected)";
    }
    if (isSigned)
    {
        if (s < 0)
        {
            return "attribute " + attr.name() + " is negative (" + std::to_string(s) + ")";
        }
        u = static_cast<uint64_t>(s);
    }
    if (u > max)
    {
        return "attribute " + attr.name() + " is " + std::to_string(u) + ", above " +
               std::to_string(max);
    }
    *out = u;
    return "";
}

/// Copies the attributes talb reads into \p node. \return an error, or empty
std::string
ReadAttributes(const pb::Node& msg, ChakraNode* node)
{
    for (const pb::AttributeProto& attr : msg.attr())
    {
        const std::string& name = attr.name();
        uint64_t v = 0;
        std::string error;
        if (name == "comm_type")
        {
            error = AttrUint(attr, std::size(COMM_TYPE_NAMES) - 1, &v);
            node->commType = static_cast<ChakraCommType>(v);
        }
        else if (name == "comm_size")
        {
            error = AttrUint(attr, UINT64_MAX, &v);
            node->commSize = v;
        }
        else if (name == "comm_priority")
        {
            error = AttrUint(attr, 7, &v);
            if (!error.empty())
            {
                error += " (talb's priorities are 0, most urgent, to 7)";
            }
            node->commPriority = static_cast<uint32_t>(v);
        }
        else if (name == "comm_src" || name == "comm_dst" || name == "comm_tag")
        {
            error = AttrUint(attr, name == "comm_tag" ? UINT32_MAX : UINT32_MAX - 1, &v);
            (name == "comm_src"   ? node->commSrc
             : name == "comm_dst" ? node->commDst
                                  : node->commTag) = static_cast<uint32_t>(v);
        }
        else if (name == "pg_name")
        {
            if (attr.value_case() != pb::AttributeProto::kStringVal &&
                attr.value_case() != pb::AttributeProto::kBytesVal)
            {
                error = "attribute pg_name holds no string";
            }
            node->pgName = attr.value_case() == pb::AttributeProto::kStringVal ? attr.string_val()
                                                                               : attr.bytes_val();
        }
        else if (name == "is_cpu_op")
        {
            // Chakra's tools write a bool; an integer 0 or 1 means the same.
            if (attr.value_case() == pb::AttributeProto::kBoolVal)
            {
                v = attr.bool_val();
            }
            else
            {
                error = AttrUint(attr, 1, &v);
            }
            node->isCpuOp = v != 0;
        }
        if (!error.empty())
        {
            return error;
        }
    }
    return "";
}

/// \return "the message at byte N" for messages
std::string
At(std::size_t offset)
{
    return "the message at byte " + std::to_string(offset);
}

/// ReadChakraRank() on decompressed bytes; \p trace filled as far as it got.
std::string
ParseRank(const std::string& data, const std::string& where, ChakraRankTrace* trace)
{
    std::size_t pos = 0;
    bool first = true;
    pb::GlobalMetadata meta;
    pb::Node msg;
    if (data.empty())
    {
        return where + ": empty file (a rank's file starts with its GlobalMetadata)";
    }
    while (pos < data.size())
    {
        const std::size_t start = pos;
        uint64_t length = 0;
        if (!ReadVarint(data, &pos, &length))
        {
            return where + ": the file ends inside the length of " + At(start) +
                   " (truncated, or not a Chakra trace)";
        }
        if (length > data.size() - pos)
        {
            return where + ": " + At(start) + " is " + std::to_string(length) +
                   " bytes long but the file has " + std::to_string(data.size() - pos) +
                   " left (truncated, or not a Chakra trace)";
        }
        if (length > uint64_t(std::numeric_limits<int>::max()))
        {
            return where + ": " + At(start) + " is over 2 GiB (protobuf's limit)";
        }
        const char* body = data.data() + pos;
        pos += length;
        if (first)
        {
            first = false;
            if (!meta.ParseFromArray(body, static_cast<int>(length)))
            {
                return where + ": " + At(start) + " is not a GlobalMetadata message";
            }
            trace->version = meta.version();
            continue;
        }
        msg.Clear();
        if (!msg.ParseFromArray(body, static_cast<int>(length)))
        {
            return where + ": " + At(start) + " is not a Node message";
        }
        ChakraNode node;
        node.id = msg.id();
        const std::string prefix = where + ":node " + std::to_string(node.id) + ": ";
        if (msg.type() < int(ChakraNodeType::kMetadata) ||
            msg.type() > int(ChakraNodeType::kCommColl))
        {
            return prefix + "node type " + std::to_string(msg.type()) +
                   (msg.type() == 0 ? " (INVALID_NODE)" : "") +
                   " is not one talb runs (METADATA, MEM_LOAD, MEM_STORE, COMP, COMM_SEND, "
                   "COMM_RECV, COMM_COLL)";
        }
        node.type = static_cast<ChakraNodeType>(msg.type());
        node.name = msg.name();
        node.dataDeps.assign(msg.data_deps().begin(), msg.data_deps().end());
        node.ctrlDeps.assign(msg.ctrl_deps().begin(), msg.ctrl_deps().end());
        node.durationMicros = msg.duration_micros();
        if (node.durationMicros > kChakraMaxDurationMicros)
        {
            return prefix + "duration_micros " + std::to_string(node.durationMicros) +
                   " passes ns-3's largest time (" + std::to_string(kChakraMaxDurationMicros) +
                   " us)";
        }
        std::string error = ReadAttributes(msg, &node);
        if (!error.empty())
        {
            return prefix + error;
        }
        trace->nodes.push_back(std::move(node));
    }
    return "";
}

} // namespace

bool
ChakraNode::operator==(const ChakraNode& o) const
{
    return id == o.id && name == o.name && type == o.type && dataDeps == o.dataDeps &&
           ctrlDeps == o.ctrlDeps && durationMicros == o.durationMicros && commType == o.commType &&
           commSize == o.commSize && commPriority == o.commPriority && commSrc == o.commSrc &&
           commDst == o.commDst && commTag == o.commTag && pgName == o.pgName &&
           isCpuOp == o.isCpuOp;
}

bool
ChakraRankTrace::operator==(const ChakraRankTrace& o) const
{
    return version == o.version && nodes == o.nodes;
}

bool
ReadChakraRank(const std::string& data,
               const std::string& where,
               ChakraRankTrace* trace,
               std::string* error)
{
    *trace = ChakraRankTrace();
    std::string inflated;
    const std::string* bytes = &data;
    if (data.size() >= 2 && uint8_t(data[0]) == 0x1f && uint8_t(data[1]) == 0x8b)
    {
        std::string why = Gunzip(data, &inflated);
        if (!why.empty())
        {
            *error = where + ": " + why;
            return false;
        }
        bytes = &inflated;
    }
    *error = ParseRank(*bytes, where, trace);
    if (!error->empty())
    {
        *trace = ChakraRankTrace();
        return false;
    }
    return true;
}

bool
ReadChakraRankFile(const std::string& path, ChakraRankTrace* trace, std::string* error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        *trace = ChakraRankTrace();
        *error = path + ": cannot open the file";
        return false;
    }
    std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad())
    {
        *trace = ChakraRankTrace();
        *error = path + ": cannot read the file";
        return false;
    }
    return ReadChakraRank(data, path, trace, error);
}

std::string
WriteChakraRank(const ChakraRankTrace& trace)
{
    std::string out;
    std::string body;
    pb::GlobalMetadata meta;
    meta.set_version(trace.version);
    meta.SerializeToString(&body);
    WriteVarint(body.size(), &out);
    out += body;
    pb::Node msg;
    for (const ChakraNode& node : trace.nodes)
    {
        msg.Clear();
        msg.set_id(node.id);
        msg.set_name(node.name);
        msg.set_type(int(node.type));
        for (uint64_t d : node.ctrlDeps)
        {
            msg.add_ctrl_deps(d);
        }
        for (uint64_t d : node.dataDeps)
        {
            msg.add_data_deps(d);
        }
        msg.set_duration_micros(node.durationMicros);
        // As Chakra's tools write them: int64 for type and size, int32 for the others.
        auto add = [&msg](const char* name) {
            pb::AttributeProto* a = msg.add_attr();
            a->set_name(name);
            return a;
        };
        if (node.commType)
        {
            add("comm_type")->set_int64_val(int64_t(*node.commType));
        }
        if (node.commSize)
        {
            // Sizes past int64 are written unsigned: the reader takes either.
            if (*node.commSize > uint64_t(INT64_MAX))
            {
                add("comm_size")->set_uint64_val(*node.commSize);
            }
            else
            {
                add("comm_size")->set_int64_val(int64_t(*node.commSize));
            }
        }
        for (auto [name, value] : {std::pair{"comm_priority", node.commPriority},
                                   {"comm_src", node.commSrc},
                                   {"comm_dst", node.commDst},
                                   {"comm_tag", node.commTag}})
        {
            if (value)
            {
                // int32 holds what the reader accepts except tags past 2^31: those go unsigned.
                if (*value > uint32_t(INT32_MAX))
                {
                    add(name)->set_uint32_val(*value);
                }
                else
                {
                    add(name)->set_int32_val(int32_t(*value));
                }
            }
        }
        if (node.pgName)
        {
            add("pg_name")->set_string_val(*node.pgName);
        }
        if (node.isCpuOp)
        {
            add("is_cpu_op")->set_bool_val(*node.isCpuOp);
        }
        body.clear();
        msg.SerializeToString(&body);
        WriteVarint(body.size(), &out);
        out += body;
    }
    return out;
}

bool
WriteChakraRankFile(const ChakraRankTrace& trace, const std::string& path, std::string* error)
{
    const std::string data = WriteChakraRank(trace);
    if (path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0)
    {
        gzFile f = gzopen(path.c_str(), "wb");
        bool ok = f && gzwrite(f, data.data(), static_cast<unsigned>(data.size())) ==
                           static_cast<int>(data.size());
        ok = (f && gzclose(f) == Z_OK) && ok;
        if (!ok)
        {
            *error = path + ": cannot write the file";
        }
        return ok;
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), static_cast<std::streamsize>(data.size()));
    out.close();
    if (!out)
    {
        *error = path + ": cannot write the file";
        return false;
    }
    return true;
}

const char*
ChakraNodeTypeName(ChakraNodeType type)
{
    auto i = static_cast<std::size_t>(type);
    return i < std::size(NODE_TYPE_NAMES) ? NODE_TYPE_NAMES[i] : "?";
}

const char*
ChakraCommTypeName(ChakraCommType type)
{
    auto i = static_cast<std::size_t>(type);
    return i < std::size(COMM_TYPE_NAMES) ? COMM_TYPE_NAMES[i] : "?";
}

} // namespace graph
} // namespace talb
