// The talb scenario runner: a leaf-spine fabric, data-parallel training jobs and background
// traffic, run once per load balancer, with a comparison table at the end and flows.csv,
// tensors.csv, iterations.csv and run.json per run. Every parameter: --help.
//
//   talb-scenario --lb=ecmp,talb --out=results/main
//   talb-scenario --config=scenarios/eval/vgg19-bg.cfg --lb=talb --seed=2 --out=/tmp/x
#include "ns3/talb-scenario.h"

#include "ns3/command-line.h"
#include "ns3/system-path.h"

#include <iostream>

using namespace ns3;

int
main(int argc, char* argv[])
{
    TalbScenarioConfig config;
    TalbScenario::DeclareParameters(config);
    CommandLine cmd(__FILE__);
    cmd.Usage("Runs a talb scenario once per load balancer in --lb and prints a comparison "
              "table (tensor-message and background FCT, iteration time, speedup over the "
              "first lb). Parameters come from --config=FILE ('name = value' lines) and/or "
              "--name=value options; later ones win. Outputs: see doc/talb.rst, 'Outputs'.");
    config.AddToCommandLine(cmd);
    cmd.Parse(argc, argv);

    std::vector<std::string> errors = config.TakeErrors();
    TalbScenario::Spec spec;
    if (errors.empty())
    {
        TalbScenario::Parse(config, &spec, &errors);
    }
    if (!errors.empty())
    {
        for (const auto& e : errors)
        {
            std::cerr << "talb-scenario: error: " << e << "\n";
        }
        std::cerr << "talb-scenario: nothing was simulated (--help lists the parameters)\n";
        return 2;
    }

    const std::vector<std::string>& lbs = spec.lbs;
    std::vector<TalbScenario::Result> results;
    for (const auto& lb : lbs)
    {
        std::string out = spec.out;
        if (lbs.size() > 1)
        {
            out = SystemPath::Append(out, lb);
        }
        std::cerr << "talb-scenario: running " << lb << " -> " << out << "\n";
        results.push_back(TalbScenario::Run(spec, lb, out));
        if (TalbScenario::Interrupted())
        {
            std::cerr << "talb-scenario: interrupted; " << out
                      << " holds what was measured (run.json says complete: false)\n";
            TalbScenario::PrintTable(results, std::cout);
            return 130;
        }
        const auto& r = results.back();
        std::cerr << "talb-scenario: " << lb << " done: " << r.simSeconds << " s simulated in "
                  << r.wallSeconds << " s wall, " << r.events << " events, " << r.deliveredPackets
                  << " packets delivered\n";
    }
    TalbScenario::PrintTable(results, std::cout);
    for (const auto& r : results)
    {
        if (r.iterationsDone != r.iterationsExpected)
        {
            std::cerr << "talb-scenario: warning: " << r.scheme << " finished " << r.iterationsDone
                      << " of " << r.iterationsExpected << " worker-iterations before stopTime\n";
        }
    }
    return 0;
}
