// talb-agent's command line: accepted forms, defaults, and a clear error for each bad input.
#include "talb-agent-options.h"
#include "talb-text.h"

#include <gtest/gtest.h>
#include <vector>

namespace
{

using namespace talb;

bool
Parse(std::vector<std::string> args, AgentOptions* out, std::string* error)
{
    args.insert(args.begin(), "talb-agent");
    std::vector<char*> argv;
    for (auto& a : args)
    {
        argv.push_back(a.data());
    }
    return ParseAgentOptions(static_cast<int>(argv.size()), argv.data(), out, error);
}

TEST(TalbAgentOptions, DefaultsAndEveryOption)
{
    AgentOptions o;
    std::string error;
    ASSERT_TRUE(Parse({"--host-port=net_tap0", "--wire-port=1"}, &o, &error)) << error;
    EXPECT_EQ(o.hostPort, "net_tap0");
    EXPECT_EQ(o.wirePort, "1");
    EXPECT_EQ(o.statsInterval, 1u);
    EXPECT_EQ(o.tagger.mtu, 1500u);
    EXPECT_EQ(o.tagger.maxFlows, 4096u);
    EXPECT_FALSE(o.tagger.dscpOnly);
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        EXPECT_EQ(o.tagger.dscp[p], talb_dscp_from_priority(p));
    }

    AgentOptions a;
    ASSERT_TRUE(Parse({"--host-port=0",
                       "--wire-port=net_af_packet1",
                       "--dscp-map=0,1,2,3,4,5,6,63",
                       "--dscp-only",
                       "--mtu=9000",
                       "--max-flows=100",
                       "--stats-interval=0",
                       "--idle-sleep-us=50"},
                      &a,
                      &error))
        << error;
    EXPECT_EQ(a.tagger.dscp[7], 63);
    EXPECT_EQ(a.tagger.dscp[1], 1);
    EXPECT_TRUE(a.tagger.dscpOnly);
    EXPECT_EQ(a.tagger.mtu, 9000u);
    EXPECT_EQ(a.tagger.maxFlows, 100u);
    EXPECT_EQ(a.statsInterval, 0u);
    EXPECT_EQ(a.idleSleepUs, 50u);
    EXPECT_EQ(o.idleSleepUs, 0u); // busy-polls by default

    AgentOptions h;
    EXPECT_TRUE(Parse({"--help"}, &h, &error));
    EXPECT_TRUE(h.help);
    EXPECT_NE(AgentUsage("talb-agent").find("--dscp-map"), std::string::npos);
}

TEST(TalbAgentOptions, RejectsBadInputNamingIt)
{
    struct Case
    {
        std::vector<std::string> args;
        std::string mention;
    };

    const std::vector<Case> cases = {
        {{"--wire-port=1"}, "--host-port and --wire-port are required"},
        {{"--host-port=1", "--wire-port=1"}, "same port"},
        {{"--host-port=0", "--wire-port=1", "--mtu=abc"}, "--mtu: 'abc'"},
        {{"--host-port=0", "--wire-port=1", "--mtu=67"}, "--mtu"},
        {{"--host-port=0", "--wire-port=1", "--mtu"}, "--mtu: needs a value"},
        {{"--host-port=0", "--wire-port=1", "--max-flows=0"}, "--max-flows"},
        {{"--host-port=0", "--wire-port=1", "--stats-interval=-1"}, "--stats-interval"},
        {{"--host-port=0", "--wire-port=1", "--idle-sleep-us=10001"},
         "--idle-sleep-us: '10001' is not a number in 0..10000"},
        {{"--host-port=0", "--wire-port=1", "--dscp-map=1,2,3"}, "exactly 8"},
        {{"--host-port=0", "--wire-port=1", "--dscp-map=1,2,3,4,5,6,7,8,9"}, "more than 8"},
        {{"--host-port=0", "--wire-port=1", "--dscp-map=1,2,3,4,5,6,7,64"}, "value 7 ('64')"},
        {{"--host-port=0", "--wire-port=1", "--dscp-map=1,2,3,4,5,6,7,"}, "exactly 8"},
        {{"--host-port=0", "--wire-port=1", "--dscp-map=1,,3,4,5,6,7,8"}, "value 1"},
        {{"--host-port=0", "--wire-port=1", "--bogus"}, "unknown argument '--bogus'"},
        {{"--host-port=", "--wire-port=1"}, "empty port"},
    };
    for (const Case& c : cases)
    {
        AgentOptions o;
        std::string error;
        EXPECT_FALSE(Parse(c.args, &o, &error)) << c.mention;
        EXPECT_NE(error.find(c.mention), std::string::npos)
            << "error '" << error << "' should mention '" << c.mention << "'";
    }
}

TEST(TalbAgentOptions, PortIdsAndNames)
{
    EXPECT_EQ(ParsePortId("0"), 0);
    EXPECT_EQ(ParsePortId("17"), 17);
    EXPECT_EQ(ParsePortId("65534"), 65534);
    EXPECT_EQ(ParsePortId("65535"), -1);
    EXPECT_EQ(ParsePortId("net_tap0"), -1);
    EXPECT_EQ(ParsePortId(""), -1);
}

} // namespace
