// TalbParse: the module's one set of text parsers.
#include "ns3/talb-parse.h"

#include <gtest/gtest.h>

using ns3::TalbParse;

namespace
{

TEST(TalbParse, SplitsTrimsAndDropsEmptyItems)
{
    EXPECT_EQ(TalbParse::Split(" a, b ,,c ,", ','), (std::vector<std::string>{"a", "b", "c"}));
    EXPECT_TRUE(TalbParse::Split("", ';').empty());
    EXPECT_EQ(TalbParse::Split("a,,b,", ',', true), (std::vector<std::string>{"a", "", "b", ""}));
    EXPECT_EQ(TalbParse::Split("", ',', true), (std::vector<std::string>{""}));
    EXPECT_EQ(TalbParse::Trim(" \tx y\r "), "x y");
}

TEST(TalbParse, ParsesUnsignedIntegersInRange)
{
    uint64_t v = 7;
    EXPECT_TRUE(TalbParse::ParseUint("0", &v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(TalbParse::ParseUint("18446744073709551615", &v));
    EXPECT_EQ(v, UINT64_MAX);
    for (const char* bad : {"", "-1", "+1", "1.0", "1e3", " 1", "12a", "18446744073709551616"})
    {
        v = 7;
        EXPECT_FALSE(TalbParse::ParseUint(bad, &v)) << bad;
        EXPECT_EQ(v, 7u) << "output untouched on " << bad;
    }
    EXPECT_TRUE(TalbParse::ParseUint("2", &v, 2, 4));
    EXPECT_FALSE(TalbParse::ParseUint("1", &v, 2, 4));
    EXPECT_FALSE(TalbParse::ParseUint("5", &v, 2, 4));
}

TEST(TalbParse, ParsesFiniteReals)
{
    double d = 0;
    EXPECT_TRUE(TalbParse::ParseDouble("1.5", &d));
    EXPECT_DOUBLE_EQ(d, 1.5);
    EXPECT_TRUE(TalbParse::ParseDouble("-2e-3", &d));
    EXPECT_DOUBLE_EQ(d, -2e-3);
    for (const char* bad : {"", "x", "1.5x", "inf", "nan", " 1", "1e999"})
    {
        EXPECT_FALSE(TalbParse::ParseDouble(bad, &d)) << bad;
    }
}

TEST(TalbParse, ParsesBooleans)
{
    bool b = false;
    EXPECT_TRUE(TalbParse::ParseBool("yes", &b));
    EXPECT_TRUE(b);
    EXPECT_TRUE(TalbParse::ParseBool("0", &b));
    EXPECT_FALSE(b);
    EXPECT_FALSE(TalbParse::ParseBool("True", &b));
}

TEST(TalbParse, ParsesTimesWithTheirUnit)
{
    ns3::Time t;
    ASSERT_TRUE(TalbParse::ParseTime("1.5ms", &t));
    EXPECT_EQ(t, ns3::MicroSeconds(1500));
    ASSERT_TRUE(TalbParse::ParseTime("20ns", &t));
    EXPECT_EQ(t, ns3::NanoSeconds(20));
    ASSERT_TRUE(TalbParse::ParseTime("2s", &t));
    EXPECT_EQ(t, ns3::Seconds(2));
    ASSERT_TRUE(TalbParse::ParseTime("3us", &t));
    EXPECT_EQ(t, ns3::MicroSeconds(3));
    // Zero is zero in any unit; other bare numbers are refused ("5" below).
    ASSERT_TRUE(TalbParse::ParseTime("0", &t));
    EXPECT_EQ(t, ns3::Seconds(0));
    // Beyond what ns-3's 64-bit nanoseconds hold (~292 years).
    for (const char* bad :
         {"ms", "-1s", "1 hour", "5", "00", "0.0", "1.5m", "", "1e10s", "1e300ns"})
    {
        EXPECT_FALSE(TalbParse::ParseTime(bad, &t)) << bad;
    }
}

TEST(TalbParse, ParsesPositiveDataRatesWithoutAborting)
{
    ns3::DataRate r;
    ASSERT_TRUE(TalbParse::ParseDataRate("10Gbps", &r));
    EXPECT_EQ(r.GetBitRate(), 10000000000ull);
    ASSERT_TRUE(TalbParse::ParseDataRate("1MB/s", &r));
    EXPECT_EQ(r.GetBitRate(), 8000000ull);
    for (const char* bad :
         {"10 Gbps", "5k = 1", "0Gbps", "Gbps", "", "10Gbps\n", "40", "2.5", "1e9"})
    {
        EXPECT_FALSE(TalbParse::ParseDataRate(bad, &r)) << bad;
    }
    EXPECT_EQ(r.GetBitRate(), 8000000ull); // untouched on failure
}

TEST(TalbParse, FormatsFileErrors)
{
    EXPECT_EQ(TalbParse::ErrorAt("m.csv", 4, "params", "'ten' is not a positive integer"),
              "m.csv:4: field 'params': 'ten' is not a positive integer");
    EXPECT_EQ(TalbParse::ErrorAt("m.csv", 0, "", "cannot open"), "m.csv:0: cannot open");
}

} // namespace
