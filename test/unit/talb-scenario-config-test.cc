// TalbScenarioConfig: typed parameters, config files and command-line overrides, clear errors.
#include "ns3/talb-scenario-config.h"
#include "ns3/talb-scenario-parameters.h"

#include <cstdio>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <unistd.h>

using ns3::TalbScenarioConfig;
using ns3::TalbScenarioParameters;

namespace
{

TalbScenarioConfig
MakeConfig()
{
    TalbScenarioConfig c;
    c.Declare("leaves", TalbScenarioConfig::UINT, "4", "leaf switches");
    c.Declare("load", TalbScenarioConfig::DOUBLE, "0.3", "background load");
    c.Declare("rate", TalbScenarioConfig::RATE, "100Gbps", "host link rate");
    c.Declare("delay", TalbScenarioConfig::TIME, "1us", "link delay");
    c.Declare("lb", TalbScenarioConfig::CHOICE, "ecmp", "selector", "ecmp,talb");
    c.Declare("progress", TalbScenarioConfig::BOOL, "false", "progress bar");
    c.Declare("name", TalbScenarioConfig::STRING, "a \"q\"", "a label");
    return c;
}

std::string
WriteTemp(const std::string& text)
{
    // One file per process: ctest runs test cases (and other checkouts' runs) in parallel.
    std::string path = testing::TempDir() + "talb-config-test-" + std::to_string(getpid()) + ".cfg";
    std::ofstream(path) << text;
    return path;
}

TEST(TalbScenarioConfig, DefaultsAreTyped)
{
    TalbScenarioConfig c = MakeConfig();
    EXPECT_EQ(c.GetUint("leaves"), 4u);
    EXPECT_DOUBLE_EQ(c.GetDouble("load"), 0.3);
    EXPECT_EQ(c.GetRate("rate").GetBitRate(), 100000000000ull);
    EXPECT_EQ(c.GetTime("delay"), ns3::MicroSeconds(1));
    EXPECT_EQ(c.GetString("lb"), "ecmp");
    EXPECT_FALSE(c.GetBool("progress"));
}

TEST(TalbScenarioConfig, RejectsBadValuesNamingTheOrigin)
{
    TalbScenarioConfig c = MakeConfig();
    EXPECT_NE(c.Set("leaves", "-2", "--leaves").find("--leaves: leaves='-2' is not a non-negative"),
              std::string::npos);
    EXPECT_NE(c.Set("load", "lots", "x").find("is not a number"), std::string::npos);
    EXPECT_NE(c.Set("rate", "fast", "x").find("data rate"), std::string::npos);
    EXPECT_NE(c.Set("delay", "5", "x").find("with a unit"), std::string::npos);
    EXPECT_NE(c.Set("lb", "conga", "x").find("one of: ecmp talb"), std::string::npos);
    EXPECT_NE(c.Set("progres", "1", "x").find("unknown parameter 'progres'"), std::string::npos);
    // A typo is answered with the nearest names, not every name.
    EXPECT_EQ(c.Set("progres", "1", "f.cfg:3"),
              "f.cfg:3: unknown parameter 'progres' (did you mean progress? --help lists all " +
                  std::to_string(c.GetParameterNames().size()) + ")");
    // A prefix first, then the names a typo away (at most three).
    EXPECT_NE(c.Set("lea", "1", "x").find("(did you mean leaves, load, lb? "), std::string::npos);
    EXPECT_EQ(c.Set("zzzzzzzzzz", "1", "x").find("did you mean"), std::string::npos);
    // A rejected value leaves the old one in place.
    EXPECT_EQ(c.GetUint("leaves"), 4u);
    EXPECT_EQ(c.GetString("lb"), "ecmp");
}

TEST(TalbScenarioConfig, ChecksTheDeclaredRange)
{
    TalbScenarioConfig c;
    c.Declare("leaves",
              TalbScenarioConfig::UINT,
              "4",
              "leaves",
              TalbScenarioConfig::Between(1, 256));
    c.Declare("load",
              TalbScenarioConfig::DOUBLE,
              "0.1",
              "load",
              TalbScenarioConfig::Between(0, 1, true));
    EXPECT_EQ(c.Set("leaves", "256", "x"), "");
    EXPECT_NE(c.Set("leaves", "0", "--leaves").find("leaves='0' is not in [1, 256]"),
              std::string::npos);
    EXPECT_NE(c.Set("leaves", "257", "x").find("[1, 256]"), std::string::npos);
    EXPECT_EQ(c.Set("load", "0.99", "x"), "");
    EXPECT_NE(c.Set("load", "1", "x").find("is not in [0, 1)"), std::string::npos);
    EXPECT_NE(c.Set("load", "-0.1", "x").find("is not in [0, 1)"), std::string::npos);
    EXPECT_EQ(c.GetUint("leaves"), 256u);
    EXPECT_DOUBLE_EQ(c.GetDouble("load"), 0.99);
}

TEST(TalbScenarioConfig, ChecksSizes)
{
    TalbScenarioConfig c;
    c.Declare("queue", TalbScenarioConfig::SIZE, "", "queue (empty: default)");
    EXPECT_EQ(c.Set("queue", "1MB", "x"), "");
    EXPECT_EQ(c.Set("queue", "100p", "x"), "");
    EXPECT_NE(c.Set("queue", "big", "x").find("a size such as 1MB or 100p"), std::string::npos);
}

TEST(TalbScenarioConfig, LoadsFilesAndReportsTheLine)
{
    TalbScenarioConfig c = MakeConfig();
    EXPECT_EQ(c.LoadFile(WriteTemp("# comment\nleaves = 8  # inline\n\nlb=talb\n")), "");
    EXPECT_EQ(c.GetUint("leaves"), 8u);
    EXPECT_EQ(c.GetString("lb"), "talb");

    std::string path = WriteTemp("leaves = 2\nthis line has no equals\n");
    std::string err = c.LoadFile(path);
    EXPECT_NE(err.find(path + ":2: expected 'name = value'"), std::string::npos) << err;
    path = WriteTemp("load = 0.5\ndelay = soon\n");
    err = c.LoadFile(path);
    EXPECT_NE(err.find(path + ":2: delay='soon'"), std::string::npos) << err;
    EXPECT_NE(c.LoadFile("/nonexistent/x.cfg").find("cannot open"), std::string::npos);
}

TEST(TalbScenarioConfig, CommandLineOverridesTheFileAndCollectsErrors)
{
    TalbScenarioConfig c = MakeConfig();
    ns3::CommandLine cmd;
    c.AddToCommandLine(cmd);
    std::string cfg = "--config=" + WriteTemp("leaves = 8\nload = 0.1\n");
    std::vector<std::string> args = {"prog", cfg, "--load=0.7", "--lb=nope", "--rate=1Gbps"};
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    cmd.Parse(static_cast<int>(argv.size()), argv.data());
    EXPECT_EQ(c.GetUint("leaves"), 8u);
    EXPECT_DOUBLE_EQ(c.GetDouble("load"), 0.7);
    EXPECT_EQ(c.GetRate("rate").GetBitRate(), 1000000000ull);
    std::vector<std::string> errors = c.TakeErrors();
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_NE(errors[0].find("--lb: lb='nope'"), std::string::npos) << errors[0];
}

TEST(TalbScenarioConfig, WritesJsonWithTypedValues)
{
    TalbScenarioConfig c = MakeConfig();
    EXPECT_EQ(c.ToJson(),
              "{\"leaves\": 4, \"load\": 0.3, \"rate\": \"100Gbps\", \"delay\": \"1us\", "
              "\"lb\": \"ecmp\", \"progress\": false, \"name\": \"a \\\"q\\\"\"}");
}

TEST(TalbScenarioConfig, JsonNumbersAreCanonicalWhateverTheTextGiven)
{
    // Found by fuzz:scenario-config: ".5" and "007" are numbers to the parsers but not JSON.
    TalbScenarioConfig c = MakeConfig();
    EXPECT_EQ(c.Set("load", ".5", "--load"), "");
    EXPECT_EQ(c.Set("leaves", "007", "--leaves"), "");
    EXPECT_EQ(c.ToJson().rfind("{\"leaves\": 7, \"load\": 0.5, ", 0), 0u) << c.ToJson();
    EXPECT_EQ(c.Set("load", "1e-300", "--load"), "");
    EXPECT_NE(c.ToJson().find("\"load\": 1e-300,"), std::string::npos) << c.ToJson();
}

TEST(TalbScenarioConfig, RatesWithABlankOrZeroAreRefusedNotAborted)
{
    // Found by fuzz:scenario-config: ns-3's DataRate attribute parser aborts on "5k = 1".
    TalbScenarioConfig c = MakeConfig();
    for (const char* bad : {"5k = 1", "10 Gbps", "0bps", "fast", ""})
    {
        EXPECT_NE(c.Set("rate", bad, "--rate").find("--rate"), std::string::npos) << bad;
    }
    EXPECT_EQ(c.Set("rate", "2.5Gbps", "--rate"), "");
    EXPECT_EQ(c.GetRate("rate").GetBitRate(), 2500000000ull);
}

TEST(TalbScenarioConfig, DeclaresAParameterAsAnotherConfigDoes)
{
    TalbScenarioConfig c = MakeConfig();
    EXPECT_EQ(c.Set("leaves", "7", "--leaves"), "");
    TalbScenarioConfig d;
    d.Declare(c, "leaves");
    d.Declare(c, "lb");
    EXPECT_EQ(d.GetParameterNames(), (std::vector<std::string>{"leaves", "lb"}));
    // The other's current value is the default; kind and choices come along.
    EXPECT_EQ(d.GetUint("leaves"), 7u);
    EXPECT_NE(d.Set("leaves", "x", "--leaves").find("not a non-negative integer"),
              std::string::npos);
    EXPECT_NE(d.Set("lb", "conga", "--lb").find("one of: ecmp talb"), std::string::npos);
    EXPECT_FALSE(d.Has("rate"));
}

TEST(TalbScenarioParameters, GroupsDeclareEveryParameterInTheRunnersOrder)
{
    // talb-scenario's --help and run.json list the parameters group by group.
    TalbScenarioConfig all;
    TalbScenarioParameters::Declare(all);
    std::vector<std::string> grouped;
    for (auto g : {TalbScenarioParameters::FABRIC,
                   TalbScenarioParameters::BALANCERS,
                   TalbScenarioParameters::HOSTS,
                   TalbScenarioParameters::TRANSPORT,
                   TalbScenarioParameters::TRAINING,
                   TalbScenarioParameters::BACKGROUND,
                   TalbScenarioParameters::RUN})
    {
        TalbScenarioConfig c;
        TalbScenarioParameters::Declare(c, g);
        for (const auto& name : c.GetParameterNames())
        {
            // Declared alone, a parameter has the runner's default.
            EXPECT_EQ(c.GetString(name), all.GetString(name)) << name;
            grouped.push_back(name);
        }
    }
    EXPECT_EQ(grouped, all.GetParameterNames());
    EXPECT_EQ(grouped.front(), "leaves");
    EXPECT_EQ(grouped.back(), "out");
}

TEST(TalbScenarioParameters, ANameHasOneDefaultInEveryProgram)
{
    // Names whose defaults differed between talb-scenario and the examples before one
    // declaration served them all: each has the runner's now.
    TalbScenarioConfig c;
    TalbScenarioParameters::Declare(
        c,
        {"fabricRate", "hostRate", "mtu", "bgLoad", "placement", "iterations", "lb", "seed"});
    EXPECT_EQ(c.GetRate("fabricRate").GetBitRate(), 10000000000ull);
    EXPECT_EQ(c.GetRate("hostRate").GetBitRate(), 10000000000ull);
    EXPECT_EQ(c.GetUint("mtu"), 9000u);
    EXPECT_EQ(c.Set("mtu", "9216", "--mtu"), ""); // the largest MTU is 9216 everywhere
    EXPECT_NE(c.Set("mtu", "9217", "--mtu"), "");
    EXPECT_DOUBLE_EQ(c.GetDouble("bgLoad"), 0.1);
    EXPECT_EQ(c.GetString("placement"), "spread");
    EXPECT_EQ(c.GetUint("iterations"), 3u);
    EXPECT_EQ(c.GetNames("lb"), (std::vector<std::string>{"ecmp", "talb"}));
    EXPECT_EQ(c.GetUint("seed"), 1u);
}

} // namespace
