// talb-switch's configuration file and command line: what they accept, and an error naming the
// file, the line and the fault for everything they refuse.
#include "talb-switch-config.h"
#include "talb-switch-flags.h"
#include "talb-switch-options.h"

#include <cstdio>
#include <gtest/gtest.h>
#include <string>
#include <vector>

using namespace talb;

namespace
{

std::string
Error(const std::string& text)
{
    SwitchConfig c;
    std::string error;
    EXPECT_FALSE(ParseSwitchConfig(text, "leaf.conf", &c, &error)) << text;
    return error;
}

} // namespace

TEST(TalbSwitchConfig, ParsesPortsAndRoutes)
{
    const char* text = "# leaf 0\n"
                       "port 1 net_af_packet1            # host 2\n"
                       "port 0 net_af_packet0 rate=1Gbps\n"
                       "port 2 net_af_packet2 rate=100Mbps ecn=30000 buffer=262144\n"
                       "port 3 3 rate=2.5Gbps\n"
                       "\n"
                       "route 10.250.0.1/32 0 leaf=0\n"
                       "route 10.250.0.2/32 1 leaf=0\n"
                       "route 10.250.0.0/24 2,3\n"
                       "route 0.0.0.0/0 3\n"
                       "route 10.250.1.3/32 2,3 hostport=2 leaf=1\n";
    SwitchConfig c;
    std::string error;
    ASSERT_TRUE(ParseSwitchConfig(text, "leaf.conf", &c, &error)) << error;
    ASSERT_EQ(c.ports.size(), 4u);
    EXPECT_EQ(c.ports[0].device, "net_af_packet0");
    EXPECT_EQ(c.ports[0].rateBps, 1000000000u);
    EXPECT_EQ(c.ports[1].rateBps, 0u);
    EXPECT_EQ(c.ports[1].ecnBytes, -1);
    EXPECT_EQ(c.ports[2].ecnBytes, 30000);
    EXPECT_EQ(c.ports[2].bufferBytes, 262144);
    EXPECT_EQ(c.ports[3].device, "3");
    EXPECT_EQ(c.ports[3].rateBps, 2500000000u);
    ASSERT_EQ(c.routes.size(), 5u);
    EXPECT_EQ(c.routes[4].hostPort, 2u);
    EXPECT_EQ(c.routes[4].leaf, 1u);
    EXPECT_EQ(c.routes[2].hostPort, kNoHostPort);
    EXPECT_EQ(c.routes[0].prefix, 0x0AFA0001u);
    EXPECT_EQ(c.routes[0].length, 32);
    EXPECT_EQ(c.routes[0].leaf, 0u);
    EXPECT_EQ(c.routes[2].ports, (std::vector<uint32_t>{2, 3}));
    EXPECT_EQ(c.routes[2].leaf, kNoLeaf);
    EXPECT_EQ(c.routes[2].line, 9u);
    EXPECT_EQ(c.routes[3].length, 0);
}

TEST(TalbSwitchConfig, ErrorsNameFileLineAndFault)
{
    const std::string p0 = "port 0 a\n";
    EXPECT_EQ(Error("bridge 0 a\n"), "leaf.conf:1: unknown keyword 'bridge' (port, route)");
    EXPECT_EQ(Error("port 16 a\n"), "leaf.conf:1: port '16': the id must be a number in 0..15");
    EXPECT_EQ(Error("port 0\n"),
              "leaf.conf:1: port: expected 'port <id> <device> [rate=R] [ecn=BYTES] "
              "[buffer=BYTES]'");
    EXPECT_EQ(Error(p0 + "port 0 b\n"), "leaf.conf:2: port 0: defined twice (first on line 1)");
    EXPECT_EQ(Error(p0 + "port 1 a\n"),
              "leaf.conf:2: port 1: device 'a' is port 0 already (line 1)");
    EXPECT_EQ(Error("port 0 a rate=fast\n"),
              "leaf.conf:1: port 0: rate 'fast' is not a rate such as 100Mbps or 2.5Gbps");
    EXPECT_EQ(Error("port 0 a speed=1Gbps\n"),
              "leaf.conf:1: port 0: unknown setting 'speed' (rate, ecn, buffer)");
    EXPECT_EQ(Error("port 0 a buffer=100\n"),
              "leaf.conf:1: port 0: buffer '100' is not a byte count in 2048..4294967296");
    EXPECT_EQ(Error("port 0 a ecn\n"), "leaf.conf:1: port 0: 'ecn' is not key=value");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/33 0\n"),
              "leaf.conf:2: route 10.250.0.0/33: not a prefix a.b.c.d/len with len 0..32");
    EXPECT_EQ(Error(p0 + "route 10.250.0.300/24 0\n"),
              "leaf.conf:2: route 10.250.0.300/24: not a prefix a.b.c.d/len with len 0..32");
    EXPECT_EQ(Error(p0 + "route 10.250.0.7/24 0\n"),
              "leaf.conf:2: route 10.250.0.7/24: host bits are set (did you mean "
              "10.250.0.0/24?)");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0,0\n"),
              "leaf.conf:2: route 10.250.0.0/24: port 0 listed twice");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0,x\n"),
              "leaf.conf:2: route 10.250.0.0/24: 'x' is not a port id in 0..15");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0 spine=1\n"),
              "leaf.conf:2: route 10.250.0.0/24: 'spine=1' is not leaf=N or hostport=N (each once) "
              "with N in 0..65535");
    EXPECT_EQ(Error(p0 + "route 10.250.0.5/32 0 leaf=1 leaf=2\n"),
              "leaf.conf:2: route 10.250.0.5/32: 'leaf=2' is not leaf=N or hostport=N (each "
              "once) with N in 0..65535");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0 hostport=1\n"),
              "leaf.conf:2: route 10.250.0.0/24: hostport= names one host's port: the route "
              "must be a /32");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0\nroute 10.250.0.0/24 0\n"),
              "leaf.conf:3: route 10.250.0.0/24: defined twice (first on line 2)");
    EXPECT_EQ(Error(p0 + "route 10.250.0.0/24 0,3\n"),
              "leaf.conf:2: route 10.250.0.0/24: port 3 is not defined");
    EXPECT_EQ(Error("port 1 a\n"),
              "leaf.conf: port ids must be 0..1 without gaps: port 0 is missing");
    EXPECT_EQ(Error("# nothing\n"), "leaf.conf: no port defined");
    SwitchConfig c;
    std::string error;
    EXPECT_FALSE(LoadSwitchConfig("/nonexistent/talb.conf", &c, &error));
    EXPECT_EQ(error, "/nonexistent/talb.conf: cannot read");
}

TEST(TalbSwitchConfig, RatesAndAddresses)
{
    uint64_t bps = 0;
    EXPECT_TRUE(ParseRate("100Mbps", &bps));
    EXPECT_EQ(bps, 100000000u);
    EXPECT_TRUE(ParseRate("2.5Gbps", &bps));
    EXPECT_EQ(bps, 2500000000u);
    EXPECT_TRUE(ParseRate("500kbps", &bps));
    EXPECT_EQ(bps, 500000u);
    EXPECT_TRUE(ParseRate("64bps", &bps));
    EXPECT_EQ(bps, 64u);
    for (const char* bad : {"", "10", "Mbps", "-1Mbps", "1.2.3Gbps", "0Mbps", "1e3Mbps", ".5Gbps"})
    {
        EXPECT_FALSE(ParseRate(bad, &bps)) << bad;
    }
    uint32_t a = 0;
    EXPECT_TRUE(ParseIpv4("10.250.0.1", &a));
    EXPECT_EQ(a, 0x0AFA0001u);
    EXPECT_EQ(FormatIpv4(a), "10.250.0.1");
    for (const char* bad : {"10.250.0", "10.250.0.1.2", "10.250.0.256", "a.b.c.d", "10..0.1"})
    {
        EXPECT_FALSE(ParseIpv4(bad, &a)) << bad;
    }
}

namespace
{

bool
Parse(std::vector<std::string> args, SwitchOptions* o, std::string* error)
{
    args.insert(args.begin(), "talb-switch");
    std::vector<char*> argv;
    for (std::string& a : args)
    {
        argv.push_back(a.data());
    }
    return ParseSwitchOptions(static_cast<int>(argv.size()), argv.data(), o, error);
}

std::string
OptionError(std::vector<std::string> args)
{
    SwitchOptions o;
    std::string error;
    EXPECT_FALSE(Parse(args, &o, &error));
    return error;
}

} // namespace

TEST(TalbSwitchOptions, DefaultsAndEveryOption)
{
    SwitchOptions o;
    std::string error;
    ASSERT_TRUE(Parse({"--config=leaf.conf"}, &o, &error)) << error;
    EXPECT_EQ(o.policy.name, "ecmp");
    EXPECT_EQ(o.pipeline.labels, LabelSource::kOption);
    EXPECT_EQ(o.pipeline.egress.ecnThresholdBytes, 97500u);
    EXPECT_TRUE(o.pipeline.egress.ecn);
    EXPECT_EQ(o.idleSleepUs, 0u);
    SwitchOptions p;
    ASSERT_TRUE(Parse({"--config=x",
                       "--lb=talb",
                       "--labels=dscp",
                       "--fallback=drill",
                       "--gobackn-fallback=none",
                       "--seed=9",
                       "--switch-id=3",
                       "--flowlet-timeout-us=50",
                       "--flowlet-pick=least-queued",
                       "--drill-samples=3",
                       "--drill-memory=2",
                       "--talb-high-threshold=2",
                       "--talb-move-margin=3000",
                       "--talb-idle-timeout-us=500",
                       "--ecn-threshold=30000",
                       "--no-ecn",
                       "--buffer=65536",
                       "--band-scheduling=dwrr",
                       "--strict-bands=2",
                       "--band-weights=1,1,2,2,4,4,8,8",
                       "--line-rate=1Gbps",
                       "--burst-us=200",
                       "--mtu=9000",
                       "--stats-interval=0",
                       "--idle-sleep-us=50"},
                      &p,
                      &error))
        << error;
    EXPECT_EQ(p.policy.name, "talb");
    EXPECT_EQ(p.pipeline.labels, LabelSource::kDscp);
    EXPECT_EQ(p.policy.fallback, "drill");
    EXPECT_EQ(p.policy.goBackNFallback, "none");
    EXPECT_EQ(p.policy.seed, 9u);
    EXPECT_EQ(p.policy.switchId, 3u);
    EXPECT_EQ(p.policy.letflow.timeoutNs, 50000);
    EXPECT_EQ(p.policy.letflow.pick, lb::LetFlow::Pick::kLeastQueued);
    EXPECT_EQ(p.policy.drill.samples, 3u);
    EXPECT_EQ(p.policy.drill.memory, 2u);
    EXPECT_EQ(p.policy.talb.v2.highThreshold, 2);
    EXPECT_EQ(p.policy.talb.v1.highThreshold, 2);
    EXPECT_EQ(p.policy.talb.v2.highMoveMarginBytes, 3000);
    EXPECT_EQ(p.policy.talb.v1.moveMarginBytes, 3000);
    EXPECT_EQ(p.policy.talb.v2.idleTimeoutNs, 500000);
    EXPECT_EQ(p.policy.talb.v1.idleTimeoutNs, 500000);
    EXPECT_EQ(p.pipeline.egress.ecnThresholdBytes, 30000u);
    EXPECT_FALSE(p.pipeline.egress.ecn);
    EXPECT_EQ(p.pipeline.egress.bufferBytes, 65536u);
    EXPECT_FALSE(o.pipeline.egress.dwrrBands);
    EXPECT_TRUE(p.pipeline.egress.dwrrBands);
    EXPECT_EQ(p.pipeline.egress.strictBands, 2u);
    EXPECT_EQ(p.pipeline.egress.bandWeights[7], 8u);
    EXPECT_EQ(p.pipeline.egress.bandWeights[0], 1u);
    EXPECT_EQ(p.pipeline.lineRateBps, 1000000000u);
    EXPECT_EQ(p.pipeline.shaperBurstUs, 200u);
    EXPECT_EQ(p.mtu, 9000u);
    EXPECT_EQ(p.pipeline.maxFrameBytes, 9022u);
    EXPECT_EQ(p.statsInterval, 0u);
    EXPECT_EQ(p.idleSleepUs, 50u);
    SwitchOptions h;
    EXPECT_TRUE(Parse({"--help"}, &h, &error));
    EXPECT_TRUE(h.help);
    EXPECT_NE(SwitchUsage("talb-switch").find("--idle-sleep-us"), std::string::npos);
}

TEST(TalbSwitchOptions, ErrorsNameTheArgument)
{
    EXPECT_EQ(OptionError({}), "--config is required");
    EXPECT_EQ(OptionError({"--config"}), "--config: needs a value (--config=...)");
    EXPECT_EQ(OptionError({"--config=x", "--frobnicate"}), "unknown argument '--frobnicate'");
    EXPECT_EQ(
        OptionError({"--config=x", "--lb=conga"}),
        "--lb: 'conga' is not one of ecmp, eecmp, pin, rps, letflow, drill, presto, hermes, talb, "
        "talb-v1");
    EXPECT_EQ(OptionError({"--config=x", "--fallback=talb"}),
              "--fallback: 'talb' is not one of ecmp, eecmp, rps, letflow, drill, presto, hermes");
    EXPECT_EQ(
        OptionError({"--config=x", "--gobackn-fallback=talb"}),
        "--gobackn-fallback: 'talb' is not one of none, ecmp, eecmp, rps, letflow, drill, presto, "
        "hermes");
    EXPECT_EQ(OptionError({"--config=x", "--gobackn-fallback"}),
              "--gobackn-fallback: needs a value (--gobackn-fallback=...)");
    EXPECT_EQ(OptionError({"--config=x", "--labels=tag"}), "--labels: 'tag' is not option or dscp");
    EXPECT_EQ(OptionError({"--config=x", "--drill-samples=17"}),
              "--drill-samples: '17' is not a number in 1..16");
    EXPECT_EQ(OptionError({"--config=x", "--idle-sleep-us=-1"}),
              "--idle-sleep-us: '-1' is not a number in 0..10000");
    EXPECT_EQ(OptionError({"--config=x", "--line-rate=fast"}),
              "--line-rate: 'fast' is not a rate such as 10Gbps");
    EXPECT_EQ(OptionError({"--config=x", "--mtu"}), "--mtu: needs a value (--mtu=...)");
    EXPECT_EQ(OptionError({"--config=x", "--band-scheduling=wrr"}),
              "--band-scheduling: 'wrr' is not strict or dwrr");
    EXPECT_EQ(OptionError({"--config=x", "--strict-bands=9"}),
              "--strict-bands: '9' is not a number in 0..8");
    EXPECT_EQ(OptionError({"--config=x", "--band-weights=1,1,1"}),
              "--band-weights: '1,1,1' is not eight weights 1..1000, one per band");
    EXPECT_EQ(OptionError({"--config=x", "--band-weights=1,1,1,1,1,1,1,0"}),
              "--band-weights: '1,1,1,1,1,1,1,0' is not eight weights 1..1000, one per band");
}

TEST(TalbSwitchOptions, TalbIsV2WithTheSimulatorsDefaultsAndEveryV2Option)
{
    SwitchOptions o;
    std::string error;
    ASSERT_TRUE(Parse({"--config=x", "--lb=talb"}, &o, &error)) << error;
    EXPECT_EQ(o.policy.fallback, "drill");          // TalbTensorAwareLb's Fallback
    EXPECT_EQ(o.policy.goBackNFallback, "letflow"); // and its GoBackNFallback
    const lb::TensorAwareV2::Config core;
    EXPECT_EQ(o.policy.talb.v2.highThreshold, core.highThreshold);
    EXPECT_EQ(o.policy.talb.v2.highMoveMarginBytes, core.highMoveMarginBytes);
    EXPECT_EQ(o.policy.talb.v2.lowMoveMarginBytes, core.lowMoveMarginBytes);
    EXPECT_EQ(o.policy.talb.v2.marginRateBps, core.marginRateBps);
    EXPECT_EQ(o.policy.talb.v2.maxReorderBytes, core.maxReorderBytes);
    EXPECT_EQ(o.policy.talb.v2.safeMoves, core.safeMoves);
    EXPECT_EQ(o.policy.talb.v2.safeSlackNs, core.safeSlackNs);
    EXPECT_EQ(o.policy.talb.v2.minMoveIntervalNs, core.minMoveIntervalNs);
    EXPECT_EQ(o.policy.talb.v2.activeWindowNs, core.activeWindowNs);
    EXPECT_EQ(o.policy.talb.v2.windowMode, core.windowMode);
    EXPECT_EQ(o.policy.talb.v2.paceFactor, core.paceFactor);
    EXPECT_EQ(o.policy.talb.v2.maxActiveWindowNs, core.maxActiveWindowNs);
    EXPECT_EQ(o.policy.talb.v2.stallTimeoutNs, core.stallTimeoutNs);
    EXPECT_EQ(o.policy.talb.v2.spray, core.spray);
    EXPECT_EQ(o.policy.talb.v2.sprayQueue, core.sprayQueue);
    EXPECT_EQ(o.policy.talb.v2.tableSize, core.tableSize);
    EXPECT_EQ(o.policy.talb.v2.roceGoBackN, core.roceGoBackN);
    SwitchOptions p;
    ASSERT_TRUE(Parse({"--config=x",
                       "--lb=talb",
                       "--talb-low-move-margin=90000",
                       "--talb-move-margin-rate=25Gbps",
                       "--talb-max-reorder=0",
                       "--talb-safe-moves=Always",
                       "--talb-roce-gobackn=false",
                       "--talb-spray=WithUntagged",
                       "--talb-spray-queue=AtOrAbove",
                       "--talb-spray-paths=Fastest",
                       "--talb-safe-move-slack-us=200",
                       "--talb-min-move-interval-us=0",
                       "--talb-active-window-us=250",
                       "--talb-active-window-mode=Pace",
                       "--talb-pace-factor=1.5",
                       "--talb-max-active-window-us=1500",
                       "--talb-stall-timeout-us=3000",
                       "--talb-table-size=1024",
                       "--talb-probe-limit=16",
                       "--talb-flow-slots=32"},
                      &p,
                      &error))
        << error;
    EXPECT_EQ(p.policy.talb.v2.lowMoveMarginBytes, 90000);
    EXPECT_EQ(p.policy.talb.v2.marginRateBps, 25000000000u);
    EXPECT_EQ(p.policy.talb.v2.maxReorderBytes, 0);
    EXPECT_EQ(p.policy.talb.v2.safeMoves, lb::TensorAwareV2::SafeMoves::kAlways);
    EXPECT_FALSE(p.policy.talb.v2.roceGoBackN);
    EXPECT_EQ(p.policy.talb.v2.spray, lb::TensorAwareV2::Spray::kWithUntagged);
    EXPECT_EQ(p.policy.talb.v2.sprayQueue, lb::TensorAwareV2::SprayQueue::kAtOrAbove);
    EXPECT_EQ(p.policy.talb.v2.sprayPaths, lb::TensorAwareV2::SprayPaths::kFastest);
    EXPECT_EQ(p.policy.talb.v2.safeSlackNs, 200000);
    EXPECT_EQ(p.policy.talb.v2.minMoveIntervalNs, 0);
    EXPECT_EQ(p.policy.talb.v2.activeWindowNs, 250000);
    EXPECT_EQ(p.policy.talb.v2.windowMode, lb::TensorAwareV2::WindowMode::kPace);
    EXPECT_EQ(p.policy.talb.v2.paceFactor, 1.5);
    EXPECT_EQ(p.policy.talb.v2.maxActiveWindowNs, 1500000);
    EXPECT_EQ(p.policy.talb.v2.stallTimeoutNs, 3000000);
    EXPECT_EQ(p.policy.talb.v2.tableSize, 1024u);
    EXPECT_EQ(p.policy.talb.v1.tableSize, 1024u);
    EXPECT_EQ(p.policy.talb.v2.probeLimit, 16u);
    EXPECT_EQ(p.policy.talb.v1.probeLimit, 16u);
    EXPECT_EQ(p.policy.talb.v2.flowSlots, 32u);
    SwitchOptions n;
    ASSERT_TRUE(Parse({"--config=x", "--lb=talb-v1", "--talb-safe-moves=never"}, &n, &error));
    EXPECT_EQ(n.policy.name, "talb-v1");
    EXPECT_EQ(n.policy.talb.v2.safeMoves, lb::TensorAwareV2::SafeMoves::kNever);
    SwitchOptions z;
    ASSERT_TRUE(Parse({"--config=x", "--lb=talb", "--talb-move-margin-rate=0"}, &z, &error));
    EXPECT_EQ(z.policy.talb.v2.marginRateBps, 0u);
}

TEST(TalbSwitchOptions, BadV2AndHermesValuesNameTheOption)
{
    EXPECT_EQ(OptionError({"--config=x", "--talb-max-reorder=lots"}),
              "--talb-max-reorder: 'lots' is not a number in 0..1073741824");
    EXPECT_EQ(OptionError({"--config=x", "--talb-move-margin-rate=fast"}),
              "--talb-move-margin-rate: 'fast' is not 0 or a rate such as 10Gbps");
    EXPECT_EQ(OptionError({"--config=x", "--talb-move-margin-rate"}),
              "--talb-move-margin-rate: needs a value (--talb-move-margin-rate=...)");
    EXPECT_EQ(OptionError({"--config=x", "--talb-active-window-us=0"}),
              "--talb-active-window-us: '0' is not a number in 1..10000000");
    EXPECT_EQ(
        OptionError({"--config=x", "--talb-safe-moves=sometimes"}),
        "--talb-safe-moves: 'sometimes' is not gobackn-unless-untagged, gobackn, always or never");
    EXPECT_EQ(OptionError({"--config=x", "--talb-safe-moves"}),
              "--talb-safe-moves: needs a value (--talb-safe-moves=...)");
    EXPECT_EQ(OptionError({"--config=x", "--talb-table-size=1000"}),
              "--talb-table-size: 1000 is not a power of two");
    EXPECT_EQ(OptionError({"--config=x", "--talb-table-size=8", "--talb-probe-limit=16"}),
              "--talb-probe-limit: 16 exceeds the table size 8");
    EXPECT_EQ(OptionError({"--config=x", "--talb-flow-slots=65"}),
              "--talb-flow-slots: '65' is not a number in 1..64");
    EXPECT_EQ(OptionError({"--config=x", "--talb-stall-timeout-us=100"}),
              "--talb-stall-timeout-us: 100 is not above --talb-active-window-us 100");
    EXPECT_EQ(OptionError({"--config=x", "--talb-spray=sometimes"}),
              "--talb-spray: 'sometimes' is not contended, withuntagged, always, never, "
              "shareddestination or crowded");
    EXPECT_EQ(OptionError({"--config=x", "--talb-spray-queue=some"}),
              "--talb-spray-queue: 'some' is not allwhenshared, all, atorabove, atorabovethenall "
              "or atorabovewithroom");
    EXPECT_EQ(OptionError({"--config=x", "--talb-spray-paths=slowest"}),
              "--talb-spray-paths: 'slowest' is not rate or fastest");
    EXPECT_EQ(OptionError({"--config=x", "--talb-active-window-mode=adaptive"}),
              "--talb-active-window-mode: 'adaptive' is not fixed or pace");
    EXPECT_EQ(OptionError({"--config=x", "--talb-pace-factor=0.5"}),
              "--talb-pace-factor: '0.5' is not a number in 1..1000");
    EXPECT_EQ(
        OptionError(
            {"--config=x", "--talb-active-window-mode=pace", "--talb-max-active-window-us=50"}),
        "--talb-max-active-window-us: 50 is below --talb-active-window-us 100");
    EXPECT_EQ(OptionError(
                  {"--config=x", "--talb-active-window-mode=pace", "--talb-stall-timeout-us=500"}),
              "--talb-stall-timeout-us: 500 is not above --talb-max-active-window-us 1000");
    EXPECT_EQ(OptionError({"--config=x", "--hermes-ecn-threshold=1.5"}),
              "--hermes-ecn-threshold: '1.5' is not a number in 0..1");
    EXPECT_EQ(OptionError({"--config=x", "--hermes-delay-low-us=50"}),
              "--hermes-delay-low-us: 50 exceeds --hermes-delay-high-us 40");
    EXPECT_EQ(OptionError({"--config=x", "--presto-flowcell-bytes=0"}),
              "--presto-flowcell-bytes: '0' is not a number in 1..1073741824");
}

namespace
{

/// Every flag of \p table is in \p usage, and its default as --help writes it parses back to
/// the default. \return the number of flags
template <class C>
int
ExpectListedWithDefaults(const lb::SettingTable<C>& table,
                         const C& defaults,
                         const std::string& usage)
{
    int n = 0;
    for (const lb::Setting<C>& row : table)
    {
        if (!row.flag)
        {
            continue;
        }
        ++n;
        const FlagSpec spec = SpecOf(table, row);
        EXPECT_NE(usage.find("  " + spec.name + "="), std::string::npos) << spec.name;
        const std::string text = FlagValueText(spec, row.field.get(defaults));
        double value = -1;
        std::string error;
        EXPECT_TRUE(ParseFlagValue(spec, text, &value, &error)) << error;
        EXPECT_EQ(value, row.field.get(defaults)) << spec.name << "=" << text;
    }
    return n;
}

} // namespace

TEST(TalbSwitchOptions, EveryPolicyFlagComesFromItsSettingsTableWithItsDefault)
{
    const std::string usage = SwitchUsage("talb-switch");
    const PolicyOptions d;
    int flags = ExpectListedWithDefaults(lb::Ecmp::Settings(), d.ecmp, usage) +
                ExpectListedWithDefaults(lb::LetFlow::Settings(), d.letflow, usage) +
                ExpectListedWithDefaults(lb::Drill::Settings(), d.drill, usage) +
                ExpectListedWithDefaults(lb::Presto::Settings(), d.presto, usage) +
                ExpectListedWithDefaults(lb::Hermes::Settings(), d.hermes, usage) +
                ExpectListedWithDefaults(lb::TensorAwareConfig::Settings(), d.talb, usage);
    // The policies' flags the switch had before the tables: LetFlow 1, DRILL 2, Presto 2,
    // Hermes 9, TaLB 18 (both versions 5, v2 13); then v2's --talb-roce-gobackn,
    // --talb-flow-slots, --talb-spray-paths, --talb-margin-moves, --talb-spread-retransmits and
    // --talb-crowd-flows-per-port, --talb-last-ends-window and --talb-ended-tie; LetFlow's
    // --flowlet-pick.
    EXPECT_EQ(flags, 41);
    // Defaults and ranges as --help shows them, in the flags' units.
    EXPECT_NE(usage.find("(1..10000000; default 500)"), std::string::npos); // flowlet, us
    EXPECT_NE(usage.find("default 10Gbps"), std::string::npos);             // margin rate
    EXPECT_NE(usage.find("(fixed or pace; default fixed)"), std::string::npos);
    // A flag's value in any case, and the simulator's spelling of an enumeration.
    SwitchOptions o;
    std::string error;
    ASSERT_TRUE(Parse({"--config=x", "--talb-safe-moves=GoBackNUnlessUntagged"}, &o, &error))
        << error;
    EXPECT_EQ(o.policy.talb.v2.safeMoves, lb::TensorAwareV2::SafeMoves::kGoBackNUnlessUntagged);
}
