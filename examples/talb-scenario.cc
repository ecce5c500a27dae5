// The talb scenario runner: a leaf-spine fabric, data-parallel training jobs and background
// traffic, run once per load balancer, with a comparison table at the end and flows.csv,
// tensors.csv, iterations.csv and run.json per run. Every parameter: --help.
//
//   talb-scenario --lb=ecmp,talb --out=results/main
//   talb-scenario --config=scenarios/eval/vgg19-bg.cfg --lb=talb --seed=2 --out=/tmp/x
//
// Built against an ns-3 with MPI (scripts/setup-fast.sh --mpi), it also runs distributed:
//   mpirun -np 2 talb-scenario --config=... --lb=talb --mpiSync=window --out=/tmp/x
#include "ns3/talb-scenario.h"

#include "ns3/boolean.h"
#include "ns3/command-line.h"
#include "ns3/config.h"
#include "ns3/system-path.h"
#include "ns3/talb-attribute-list.h"
#include "ns3/talb-event-scheduler.h"
#include "ns3/talb-scenario-parameters.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>

#ifdef NS3_MPI
#include "ns3/global-value.h"
#include "ns3/mpi-interface.h"
#include "ns3/string.h"

#include <mpi.h>
#endif

using namespace ns3;

#ifdef NS3_MPI
namespace
{

/**
 * \return whether this process is one of several started by an MPI launcher (Open MPI's mpirun,
 * or a PMI launcher such as MPICH's or srun). One process alone, under mpirun -np 1 too, runs
 * as without MPI: the sequential simulator, every option.
 */
bool
PartOfDistributedRun()
{
    for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    {
        const char* size = std::getenv(v);
        if (size && std::atoi(size) > 1)
        {
            return true;
        }
    }
    return false;
}

/// Start ns-3's distributed simulator with \p sync and fill in the spec's rank fields.
void
EnableMpi(const std::string& sync, int* argc, char*** argv, TalbScenarioSpec* spec)
{
    GlobalValue::Bind("SimulatorImplementationType",
                      StringValue(sync == "window" ? "ns3::DistributedSimulatorImpl"
                                                   : "ns3::NullMessageSimulatorImpl"));
    MpiInterface::Enable(argc, argv);
    spec->distributed = true;
    spec->rank = MpiInterface::GetSystemId();
    spec->ranks = MpiInterface::GetSize();
    spec->sumOverRanks = [](std::vector<uint64_t>* v) {
        std::vector<uint64_t> out(v->size());
        MPI_Allreduce(v->data(),
                      out.data(),
                      int(v->size()),
                      MPI_UINT64_T,
                      MPI_SUM,
                      MpiInterface::GetCommunicator());
        *v = std::move(out);
    };

    // The done checks run inside simulation events, on a communicator of their own, overlapped
    // by one period: the exchange started at one check is completed at the next.
    struct DoneExchange
    {
        MPI_Comm comm;
        MPI_Request request{MPI_REQUEST_NULL};
        int mine{0};
        int all{0};
    };

    auto exchange = std::make_shared<DoneExchange>();
    MPI_Comm_dup(MpiInterface::GetCommunicator(), &exchange->comm);
    spec->allRanksDone = [exchange](bool localDone, bool last) {
        bool previous = false;
        if (exchange->request != MPI_REQUEST_NULL)
        {
            MPI_Wait(&exchange->request, MPI_STATUS_IGNORE);
            previous = exchange->all != 0;
        }
        if (!last)
        {
            exchange->mine = localDone ? 1 : 0;
            MPI_Iallreduce(&exchange->mine,
                           &exchange->all,
                           1,
                           MPI_INT,
                           MPI_LAND,
                           exchange->comm,
                           &exchange->request);
        }
        return previous;
    };
    spec->gatherOverRanks = [](std::vector<double>* v) {
        MPI_Comm comm = MpiInterface::GetCommunicator();
        int n = int(MpiInterface::GetSize());
        int mine = int(v->size());
        std::vector<int> counts(n);
        MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
        std::vector<int> offsets(n, 0);
        for (int k = 1; k < n; ++k)
        {
            offsets[k] = offsets[k - 1] + counts[k - 1];
        }
        std::vector<double> out(offsets[n - 1] + counts[n - 1]);
        MPI_Allgatherv(v->data(),
                       mine,
                       MPI_DOUBLE,
                       out.data(),
                       counts.data(),
                       offsets.data(),
                       MPI_DOUBLE,
                       comm);
        *v = std::move(out);
    };
}

} // namespace
#endif

namespace
{

/// Run every load balancer of \p spec; distributed, rank 0 alone prints. \return exit status
int
Main(const TalbScenarioSpec& spec)
{
    std::ostream silent(nullptr);
    std::ostream& log = spec.rank == 0 ? std::cerr : silent;
    std::ostream& table = spec.rank == 0 ? std::cout : silent;
    for (const auto& w : TalbScenarioReport::Warnings(spec))
    {
        log << "talb-scenario: warning: " << w << "\n";
    }
    std::vector<TalbScenario::Result> results;
    for (const auto& balancer : spec.balancers)
    {
        const std::string& lb = balancer.name;
        std::string out = spec.out;
        if (spec.balancers.size() > 1)
        {
            out = SystemPath::Append(out, lb);
        }
        log << "talb-scenario: running " << lb << " -> " << out << "\n";
        results.push_back(TalbScenario::Run(spec, balancer, out));
        if (!results.back().outputError.empty())
        {
            log << "talb-scenario: error: " << results.back().outputError
                << " (exit status 4; the table below holds what was measured)\n";
        }
        if (TalbScenario::Interrupted())
        {
            log << "talb-scenario: interrupted; " << out
                << " holds what was measured (run.json says complete: false)\n";
            TalbScenarioReport::PrintTable(results, table);
            return 130;
        }
        const auto& r = results.back();
        if (!r.outputError.empty())
        {
            continue;
        }
        log << "talb-scenario: " << lb << " done: " << r.simSeconds << " s simulated in "
            << r.wallSeconds << " s wall, " << r.events << " events, " << r.deliveredPackets
            << " packets delivered";
        if (spec.distributed)
        {
            // The figures that decide how far a partition scales: work and cross-rank traffic
            // per lookahead window (lookahead = linkDelay).
            double windows = r.simSeconds / spec.fabric.linkDelay.GetSeconds();
            log << " (" << spec.ranks << " ranks, " << r.runCpuSeconds
                << " s CPU in all; per lookahead window of " << spec.fabric.linkDelay.As(Time::US)
                << ": " << r.events / windows << " events, " << r.remotePacketHops / windows
                << " packets between ranks)";
        }
        log << "\n";
        for (const auto& w : TalbScenarioReport::RunWarnings(r))
        {
            log << "talb-scenario: warning: " << w << "\n";
        }
    }
    TalbScenarioReport::PrintTable(results, table);
    int status = 0;
    for (const auto& r : results)
    {
        if (!r.outputError.empty())
        {
            status = 4;
        }
        else if (TalbScenarioReport::CutByStopTime(spec, r))
        {
            log << "talb-scenario: error: " << r.scheme << " finished " << r.Progress()
                << " before stopTime (" << spec.stopTime.As(Time::S)
                << "): the run is incomplete (exit status 3)\n";
            status = std::max(status, 3);
        }
        else if (!r.Finished())
        {
            log << "talb-scenario: warning: " << r.scheme << " finished " << r.Progress()
                << " within duration (" << spec.duration.As(Time::S) << ")\n";
        }
    }
    return status;
}

/// Prints the errors once (rank 0: under MPI every rank has the same ones).
void
ReportErrors(const std::vector<std::string>& errors, uint32_t rank)
{
    if (rank != 0)
    {
        return;
    }
    for (const auto& e : errors)
    {
        std::cerr << "talb-scenario: error: " << e << "\n";
    }
    std::cerr << "talb-scenario: nothing was simulated (--help lists the parameters)\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    TalbScenarioConfig config;
    TalbScenarioParameters::Declare(config);
    CommandLine cmd(__FILE__);
    cmd.Usage(
        "Runs a talb scenario once per load balancer in --lb and prints a comparison "
        "table (tensor-message and background FCT, iteration time, speedup over the "
        "first lb). Parameters come from --config=FILE ('name = value' lines) and/or "
        "--name=value options; later ones win. Outputs: see doc/talb.rst, 'Outputs'. "
        "Exit status: 0 done, 2 bad input (nothing simulated), 3 stopTime reached before "
        "the jobs finished (outputs hold what was measured), 4 an output could not be written "
        "(e.g. its folder was removed during the run), 130 interrupted. The table's " +
        TalbScenarioReport::Legend());
    config.AddToCommandLine(cmd);
    std::string eventScheduler;
    TalbEventScheduler::AddOption(cmd, &eventScheduler);
#ifdef NS3_MPI
    std::string mpiSync = "nullmsg";
    cmd.AddValue(
        "mpiSync",
        "under mpirun -np N > 1: how the ranks synchronise (conservative, lookahead = linkDelay): "
        "nullmsg (null messages between neighbouring ranks) or window (granted time "
        "window: all ranks agree on each window with one reduction)",
        mpiSync);
#endif
    // ns-3's own attributes (--ns3::Type::Name=Value) checked first, so that a value out of
    // range is named with its range instead of ns-3's bare "Invalid command-line argument".
    std::vector<std::string> attributeErrors = TalbAttributeList::CheckCommandLine(argc, argv);
    if (!attributeErrors.empty())
    {
        ReportErrors(attributeErrors, 0);
        return 2;
    }
    cmd.Parse(argc, argv);
    config.RecordAttributes(argc, argv);

    std::vector<std::string> errors = config.TakeErrors();
    std::string schedulerError = TalbEventScheduler::Select(eventScheduler);
    if (!schedulerError.empty())
    {
        errors.push_back(schedulerError);
    }
    TalbScenarioSpec spec;
    if (errors.empty())
    {
        spec.Parse(config, &errors);
    }
    Config::SetDefault("ns3::TalbOutputWriter::FctTxt", BooleanValue(config.GetBool("fctTxt")));
    Config::SetDefault("ns3::TalbOutputWriter::PathsCsv", BooleanValue(config.GetBool("pathsCsv")));
#ifdef NS3_MPI
    bool mpi = PartOfDistributedRun();
    if (mpi && mpiSync != "nullmsg" && mpiSync != "window")
    {
        errors.push_back("mpiSync: '" + mpiSync + "' is neither nullmsg nor window");
    }
    if (mpi && errors.empty())
    {
        EnableMpi(mpiSync, &argc, &argv, &spec);
        for (const auto& e : spec.CheckPartition())
        {
            errors.push_back(e);
        }
        if (!errors.empty())
        {
            // Rank 0 reports before the collective shutdown: a rank that exits 2 first makes
            // mpirun kill the others, and the report would be lost.
            ReportErrors(errors, spec.rank);
            MpiInterface::Disable();
            return 2;
        }
    }
#endif
    if (!errors.empty())
    {
        ReportErrors(errors, spec.rank);
        return 2;
    }
    int rc = Main(spec);
#ifdef NS3_MPI
    if (spec.distributed)
    {
        MpiInterface::Disable();
    }
#endif
    return rc;
}
