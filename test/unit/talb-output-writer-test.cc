// TalbOutputWriter: flows.csv rows are exactly what the documented printf format writes, and
// rows still buffered when an error ends the process (NS_ABORT_MSG -> std::terminate) reach
// the files.
#include "ns3/abort.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/talb-output-writer.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace ns3;

namespace
{

std::string
ReadAll(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string
TempFolder(const char* name)
{
    return std::string(::testing::TempDir()) + "/talb-writer-" + name + "-" +
           std::to_string(::getpid());
}

/// The row the writer produced with fprintf before it formatted rows itself.
std::string
PrintfRow(const TalbFlowRecord& r, int64_t ideal, const std::string& scheme, uint64_t seed)
{
    int64_t fct = (r.end - r.start).GetNanoSeconds();
    uint32_t src = r.src.Get();
    uint32_t dst = r.dst.Get();
    char buf[512];
    std::snprintf(buf,
                  sizeof(buf),
                  "%u.%u.%u.%u,%u.%u.%u.%u,%u,%u,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64
                  ",%.6f,%d,%d,%d,%d,%s,%s,%" PRIu64 "\n",
                  src >> 24,
                  (src >> 16) & 0xff,
                  (src >> 8) & 0xff,
                  src & 0xff,
                  dst >> 24,
                  (dst >> 16) & 0xff,
                  (dst >> 8) & 0xff,
                  dst & 0xff,
                  unsigned(r.srcPort),
                  unsigned(r.dstPort),
                  r.sizeBytes,
                  r.start.GetNanoSeconds(),
                  fct,
                  ideal,
                  ideal > 0 ? double(fct) / ideal : 0.0,
                  r.job,
                  r.iteration,
                  r.tensor,
                  r.priority,
                  r.background ? "background" : "tensor",
                  scheme.c_str(),
                  seed);
    return buf;
}

TalbFlowRecord
Record(int64_t startNs, int64_t fctNs, uint64_t size, bool background)
{
    TalbFlowRecord r;
    r.src = Ipv4Address("10.0.3.255");
    r.dst = Ipv4Address("192.168.0.1");
    r.srcPort = 49153;
    r.dstPort = 65535;
    r.sizeBytes = size;
    r.start = NanoSeconds(startNs);
    r.end = NanoSeconds(startNs + fctNs);
    if (!background)
    {
        r.job = 3;
        r.iteration = 12;
        r.tensor = 160;
        r.priority = 0;
    }
    r.background = background;
    return r;
}

TEST(TalbOutputWriter, FlowRowsMatchThePrintfFormat)
{
    std::string dir = TempFolder("format");
    Ptr<TalbOutputWriter> w = CreateObject<TalbOutputWriter>();
    w->Open(dir);
    w->SetScheme("talb");
    w->SetSeed(18446744073709551615ULL);
    const int64_t ideal = 3000; // baseRtt 0, 1 Gb/s: 3000 ns for 375 wire bytes
    w->SetIdealFct(DataRate("1Gbps"), Seconds(0), 1000000, 0);
    std::string expected = std::string(TalbOutputWriter::FLOW_COLUMNS) + "\n";
    // Slowdowns that round up, round half-way, end in zeros, are tiny and are huge.
    for (int64_t fct : {int64_t(0),
                        int64_t(1),
                        int64_t(1000),
                        int64_t(2999),
                        int64_t(3000),
                        int64_t(4500),
                        int64_t(7777777),
                        int64_t(1) << 60})
    {
        for (bool background : {false, true})
        {
            TalbFlowRecord r = Record(123456789012, fct, 375, background);
            w->WriteFlow(r);
            expected += PrintfRow(r, ideal, "talb", 18446744073709551615ULL);
        }
    }
    w->Dispose();
    EXPECT_EQ(ReadAll(dir + "/flows.csv"), expected);
}

TEST(TalbOutputWriter, LinkDropRowsNameTheLinkThePacketAndItsLabel)
{
    std::string dir = TempFolder("drops");
    Ptr<TalbOutputWriter> w = CreateObject<TalbOutputWriter>();
    w->Open(dir);
    w->SetScheme("ecmp");
    w->SetSeed(4);
    TalbLinkDropRecord r;
    r.time = NanoSeconds(450000123);
    r.leaf = 1;
    r.spine = 0;
    r.towardSpine = true;
    r.failed = true;
    r.packet.headers.ipv4 = true;
    r.packet.headers.src = Ipv4Address("10.0.0.5").Get();
    r.packet.headers.dst = Ipv4Address("10.0.0.12").Get();
    r.packet.headers.srcPort = 50123;
    r.packet.headers.dstPort = 4791;
    r.packet.tagged = true;
    r.packet.label.tensor_id = talb_make_tensor_id(2, 160);
    r.packet.label.priority = 3;
    w->WriteLinkDrop(r);
    // An untagged frame that is not IPv4 (a PFC pause) lost at random on the way down.
    TalbLinkDropRecord pause;
    pause.time = NanoSeconds(7);
    pause.leaf = 3;
    pause.spine = 1;
    w->WriteLinkDrop(pause);
    w->Dispose();
    EXPECT_EQ(ReadAll(dir + "/link_drops.csv"),
              std::string(TalbOutputWriter::LINK_DROP_COLUMNS) +
                  "\n450000123,1,0,up,failed,10.0.0.5,50123,10.0.0.12,4791,2,160,3,ecmp,4\n"
                  "7,3,1,down,loss,0.0.0.0,0,0.0.0.0,0,-1,-1,-1,ecmp,4\n");
}

TEST(TalbOutputWriter, MergeFoldersKeepsOneHeaderAndEveryPartsRows)
{
    std::string top = TempFolder("merge");
    std::vector<std::string> parts;
    for (int rank = 0; rank < 2; ++rank)
    {
        parts.push_back(top + "/part" + std::to_string(rank));
        Ptr<TalbOutputWriter> w = CreateObject<TalbOutputWriter>();
        w->Open(parts.back());
        w->SetScheme("talb");
        w->SetIdealFct(DataRate("1Gbps"), Seconds(0), 1000000, 0);
        w->WriteFlow(Record(1000 * (rank + 1), 500, 100, true));
        TalbLinkDropRecord r;
        r.time = NanoSeconds(rank + 1);
        w->WriteLinkDrop(r);
        w->Dispose();
    }
    std::string merged = top + "/run";
    TalbOutputWriter::MergeFolders(parts, merged);
    std::string drops = ReadAll(merged + "/link_drops.csv");
    EXPECT_EQ(drops,
              std::string(TalbOutputWriter::LINK_DROP_COLUMNS) +
                  "\n1,0,0,down,loss,0.0.0.0,0,0.0.0.0,0,-1,-1,-1,talb,1\n"
                  "2,0,0,down,loss,0.0.0.0,0,0.0.0.0,0,-1,-1,-1,talb,1\n");
    std::string flows = ReadAll(merged + "/flows.csv");
    EXPECT_EQ(std::count(flows.begin(), flows.end(), '\n'), 3);
    for (const auto& part : parts)
    {
        EXPECT_FALSE(std::ifstream(part + "/flows.csv")) << part << " removed";
    }
}

TEST(TalbOutputWriterDeathTest, AnAbortWritesThePendingRows)
{
    std::string dir = TempFolder("abort");
    const int rows = 1000;
    EXPECT_DEATH(
        {
            Ptr<TalbOutputWriter> w =
                CreateObjectWithAttributes<TalbOutputWriter>("FlushInterval", TimeValue(Hours(1)));
            w->Open(dir);
            w->SetScheme("ecmp");
            w->SetIdealFct(DataRate("10Gbps"), MicroSeconds(4), 1448, 54);
            for (int i = 0; i < rows; ++i)
            {
                w->WriteFlow(Record(i, 1000, 1448, false));
            }
            NS_ABORT_MSG("an error in the middle of a run");
        },
        "an error in the middle of a run");
    std::string flows = ReadAll(dir + "/flows.csv");
    ASSERT_FALSE(flows.empty());
    EXPECT_EQ(flows.back(), '\n');
    EXPECT_EQ(std::count(flows.begin(), flows.end(), '\n'), rows + 1) << "header and every row";
}

} // namespace
