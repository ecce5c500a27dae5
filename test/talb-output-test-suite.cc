// Output files: the documented columns, one tensor row per (iteration, tensor), one iteration
// row per (worker, iteration), one flow row per message, written while the simulation runs
// (every row at once with FlushInterval 0, in whole lines every FlushInterval otherwise, and
// all of them when the writer closes).
#include "talb-test-fabric.h"

#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <fstream>
#include <map>
#include <set>
#include <sstream>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/// A CSV file as a header and rows of fields.
struct Csv
{
    std::string header;
    std::vector<std::vector<std::string>> rows;
};

Csv
ReadCsv(const std::string& path)
{
    Csv csv;
    std::ifstream in(path);
    std::getline(in, csv.header);
    std::string line;
    while (std::getline(in, line))
    {
        std::vector<std::string> fields;
        std::istringstream ls(line);
        std::string f;
        while (std::getline(ls, f, ','))
        {
            fields.push_back(f);
        }
        csv.rows.push_back(fields);
    }
    return csv;
}

/// \return whether \p path is empty or ends with a newline (no row cut short)
bool
EndsWithNewline(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return all.empty() || all.back() == '\n';
}

class TalbOutputFilesTestCase : public TestCase
{
  public:
    /// \param flushInterval the writer's FlushInterval (0: every row at once)
    explicit TalbOutputFilesTestCase(Time flushInterval)
        : TestCase("flows, tensors and iterations CSVs: columns, one row per item, FlushInterval " +
                   std::to_string(flushInterval.GetSeconds()) + " s"),
          m_flushInterval(flushInterval)
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const uint32_t n = 3;
        const uint32_t iterations = 3;
        const uint32_t tensors = 4;
        ConfigureTcp(1500);
        NodeContainer hosts = StarFabric(n, DataRate("10Gbps"), MicroSeconds(1));
        TalbTrainingJobHelper helper;
        helper.SetModel(SyntheticModel({20000, 100, 50000, 3000}, 50000, 100000));
        helper.SetJobAttribute("Iterations", UintegerValue(iterations));
        helper.SetJobAttribute("JobId", UintegerValue(2));
        ApplicationContainer apps = helper.Install(hosts);
        Ptr<TalbTrainingJob> job = TalbTrainingJobHelper::GetJob(apps);
        TalbBackgroundTrafficHelper bg(CreateDataDirFilename("data/talb-constant-100k-cdf.txt"),
                                       0.05,
                                       "10Gbps");
        bg.SetStartStop(Seconds(0), MilliSeconds(2));
        ApplicationContainer bgApps = bg.Install(hosts);
        TalbBackgroundTrafficHelper::AssignStreams(bgApps, 1);

        std::string dir = CreateTempDirFilename("talb-output");
        Ptr<TalbOutputWriter> writer =
            CreateObjectWithAttributes<TalbOutputWriter>("FlushInterval",
                                                         TimeValue(m_flushInterval));
        writer->Open(dir);
        writer->SetScheme("testlb");
        writer->SetSeed(42);
        writer->SetIdealFct(DataRate("10Gbps"), MicroSeconds(4), 1448, 54);
        writer->ConnectJob(job);
        writer->ConnectBackground(bgApps);
        // Look at tensors.csv mid-run: every row so far with FlushInterval 0; with a long one,
        // only the first batch (the first row flushes at once).
        std::size_t midRows = 0;
        std::string tensorsPath = SystemPath::Append(dir, "tensors.csv");
        Simulator::Schedule(MilliSeconds(1), [&midRows, &tensorsPath, &job]() {
            if (!job->IsFinished())
            {
                midRows = ReadCsv(tensorsPath).rows.size();
            }
        });
        NS_TEST_ASSERT_MSG_EQ(RunJob(job, Seconds(1)), true, "job did not finish");
        if (m_flushInterval.IsZero())
        {
            NS_TEST_EXPECT_MSG_GT(midRows, 0, "no tensor rows on disk while running");
        }
        else
        {
            // The test runs in far less than the interval: rows wait until the writer closes.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(midRows, 1, "rows written before the interval");
            NS_TEST_EXPECT_MSG_LT(ReadCsv(tensorsPath).rows.size(),
                                  writer->GetTensorRows(),
                                  "every row on disk before the writer closed");
            writer->Dispose();
        }
        for (const char* name : {"flows.csv", "tensors.csv", "iterations.csv"})
        {
            NS_TEST_EXPECT_MSG_EQ(EndsWithNewline(SystemPath::Append(dir, name)),
                                  true,
                                  name << " ends within a row");
        }

        // The contract's column lists, spelled out here independently of the writer.
        Csv flows = ReadCsv(SystemPath::Append(dir, "flows.csv"));
        Csv tensorCsv = ReadCsv(tensorsPath);
        Csv iters = ReadCsv(SystemPath::Append(dir, "iterations.csv"));
        NS_TEST_EXPECT_MSG_EQ(
            flows.header,
            "src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,"
            "ideal_fct_ns,slowdown,job,iteration,tensor,priority,kind,scheme,seed",
            "flows.csv columns");
        NS_TEST_EXPECT_MSG_EQ(tensorCsv.header.rfind("job,iteration,tensor,name,bytes,priority,"
                                                     "ready_ns,done_ns,comm_ns,scheme,seed",
                                                     0),
                              0,
                              "tensors.csv columns");
        NS_TEST_EXPECT_MSG_EQ(iters.header,
                              "job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,"
                              "scheme,seed",
                              "iterations.csv columns");

        // tensors.csv: every (iteration, tensor) exactly once; comm = done - ready.
        std::set<std::pair<int, int>> seen;
        for (const auto& r : tensorCsv.rows)
        {
            NS_TEST_ASSERT_MSG_EQ(r.size(), 12, "tensors.csv fields");
            NS_TEST_EXPECT_MSG_EQ(r[0], "2", "job");
            NS_TEST_EXPECT_MSG_EQ(seen.insert({std::stoi(r[1]), std::stoi(r[2])}).second,
                                  true,
                                  "duplicate tensor row");
            NS_TEST_EXPECT_MSG_EQ(std::stoll(r[8]),
                                  std::stoll(r[7]) - std::stoll(r[6]),
                                  "comm_ns = done - ready");
            NS_TEST_EXPECT_MSG_EQ(r[3], "t" + r[2], "name");
            NS_TEST_EXPECT_MSG_EQ(r[9], "testlb", "scheme");
            NS_TEST_EXPECT_MSG_EQ(r[10], "42", "seed");
        }
        NS_TEST_EXPECT_MSG_EQ(seen.size(), iterations * tensors, "tensor rows");

        // iterations.csv: every (worker, iteration) once; exposed = end - start - compute.
        std::set<std::pair<int, int>> workerIters;
        int64_t compute = job->GetIterationComputeTime().GetNanoSeconds();
        for (const auto& r : iters.rows)
        {
            NS_TEST_ASSERT_MSG_EQ(r.size(), 9, "iterations.csv fields");
            workerIters.insert({std::stoi(r[1]), std::stoi(r[2])});
            NS_TEST_EXPECT_MSG_EQ(std::stoll(r[5]), compute, "compute_ns");
            NS_TEST_EXPECT_MSG_EQ(std::stoll(r[6]),
                                  std::stoll(r[4]) - std::stoll(r[3]) - compute,
                                  "exposed_comm_ns");
            NS_TEST_EXPECT_MSG_GT_OR_EQ(std::stoll(r[6]), 0, "negative exposed communication");
        }
        NS_TEST_EXPECT_MSG_EQ(iters.rows.size(), n * iterations, "iteration rows");
        NS_TEST_EXPECT_MSG_EQ(workerIters.size(), n * iterations, "distinct iteration rows");

        // flows.csv: one row per ring message (2(N-1) per worker, tensor and iteration) plus the
        // background flows.
        uint64_t tensorRows = 0;
        uint64_t bgRows = 0;
        for (const auto& r : flows.rows)
        {
            NS_TEST_ASSERT_MSG_EQ(r.size(), 16, "flows.csv fields");
            int64_t fct = std::stoll(r[6]);
            int64_t ideal = std::stoll(r[7]);
            NS_TEST_EXPECT_MSG_EQ_TOL(std::stod(r[8]), double(fct) / ideal, 1e-5, "slowdown");
            if (r[13] == "tensor")
            {
                ++tensorRows;
                NS_TEST_EXPECT_MSG_EQ(r[9], "2", "job");
                NS_TEST_EXPECT_MSG_LT(std::stoi(r[11]), int(tensors), "tensor index");
            }
            else
            {
                NS_TEST_EXPECT_MSG_EQ(r[13], "background", "kind");
                NS_TEST_EXPECT_MSG_EQ(r[9] + r[10] + r[11] + r[12], "-1-1-1-1", "background ids");
                ++bgRows;
            }
        }
        NS_TEST_EXPECT_MSG_EQ(tensorRows, iterations * tensors * n * 2 * (n - 1), "message rows");
        NS_TEST_EXPECT_MSG_GT(bgRows, 0, "background rows");
        NS_TEST_EXPECT_MSG_EQ(writer->GetFlowRows(), flows.rows.size(), "rows counted");
    }

    Time m_flushInterval;
};

class TalbOutputTestSuite : public TestSuite
{
  public:
    TalbOutputTestSuite()
        : TestSuite("talb-output", UNIT)
    {
        AddTestCase(new TalbOutputFilesTestCase(Seconds(0)), TestCase::QUICK);
        AddTestCase(new TalbOutputFilesTestCase(Hours(1)), TestCase::QUICK);
    }
};

static TalbOutputTestSuite g_talbOutputTestSuite;

} // namespace
