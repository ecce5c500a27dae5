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
