/*
 * Fuzz target: the flow-size CDF reader (model/traffic/talb-flow-size-cdf.h), the text format of
 * --bgCdf files.
 *
 * Invariants:
 *  - parsing never aborts: malformed text gives an error that starts with "NAME:LINE: ", LINE
 *    at most the number of lines read;
 *  - an accepted CDF samples sizes of at least 1 byte and at most its largest size (rounded),
 *    non-decreasing in the quantile, and has a finite mean within its size range;
 *  - an accepted CDF written back as text (17 significant digits) parses again, or is refused
 *    only for a last percent that the round trip moved off 100.
 */
#include "talb-fuzz.h"

#include "ns3/talb-flow-size-cdf.h"

#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string name = "fuzz.cdf";
    std::string text(reinterpret_cast<const char*>(data), size);
    std::istringstream in(text);
    ns3::TalbFlowSizeCdf cdf;
    std::string error;
    if (!ns3::TalbFlowSizeCdf::TryParse(in, name, &cdf, &error))
    {
        TALB_FUZZ_CHECK(error.compare(0, name.size() + 1, name + ":") == 0);
        size_t colon = error.find(": ", name.size() + 1);
        TALB_FUZZ_CHECK(colon != std::string::npos);
        std::string line = error.substr(name.size() + 1, colon - name.size() - 1);
        TALB_FUZZ_CHECK(!line.empty() && line.find_first_not_of("0123456789") == std::string::npos);
        size_t lines = 0;
        for (char c : text)
        {
            lines += c == '\n';
        }
        TALB_FUZZ_CHECK(std::stoul(line) <= lines + 1);
        TALB_FUZZ_CHECK(cdf.IsEmpty());
        return 0;
    }
    TALB_FUZZ_CHECK(!cdf.IsEmpty());
    const auto& points = cdf.GetPoints();
    double largest = points.back().first;
    uint64_t most = std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(largest)));
    double mean = cdf.GetMean();
    TALB_FUZZ_CHECK(std::isfinite(mean) && mean >= 0 && mean <= largest * (1 + 1e-12));

    std::ostringstream back;
    back.precision(17);
    for (const auto& p : points)
    {
        back << p.first << ' ' << p.second * 100 << '\n';
    }
    std::istringstream again(back.str());
    ns3::TalbFlowSizeCdf copy;
    std::string copyError;
    bool reparsed = ns3::TalbFlowSizeCdf::TryParse(again, name, &copy, &copyError);
    // Percent -> fraction -> percent may round the last point off 100: then it must say so.
    TALB_FUZZ_CHECK(reparsed || copyError.find("the last point must be 100") != std::string::npos ||
                    copyError.find("percents must not decrease") != std::string::npos);

    uint64_t previous = 0;
    for (int i = 0; i <= 64; ++i)
    {
        double u = i / 64.0;
        uint64_t s = cdf.Sample(u);
        TALB_FUZZ_CHECK(s >= 1 && s <= most);
        TALB_FUZZ_CHECK(s >= previous);
        previous = s;
    }
    return 0;
}
