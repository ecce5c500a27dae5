#include "talb-flow-size-cdf.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"
#include "ns3/talb-parse.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace ns3
{

bool
TalbFlowSizeCdf::TryLoad(const std::string& path, TalbFlowSizeCdf* cdf, std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = TalbParse::ErrorAt(path, 0, "", "cannot open the flow-size CDF file");
        return false;
    }
    return TryParse(in, path, cdf, error);
}

bool
TalbFlowSizeCdf::TryParse(std::istream& in,
                          const std::string& path,
                          TalbFlowSizeCdf* cdf,
                          std::string* error)
{
    auto fail = [&](uint32_t line, const std::string& field, const std::string& msg) {
        *error = TalbParse::ErrorAt(path, line, field, msg);
        return false;
    };
    TalbFlowSizeCdf c;
    std::string line;
    uint32_t lineNo = 0;
    while (std::getline(in, line))
    {
        ++lineNo;
        std::istringstream ls(line);
        std::string sizeText;
        std::string pctText;
        if (!(ls >> sizeText))
        {
            continue; // blank line
        }
        if (sizeText[0] == '#')
        {
            continue;
        }
        std::string extra;
        if (!(ls >> pctText) || (ls >> extra))
        {
            return fail(lineNo, "", "expected two fields: size_bytes cumulative_percent");
        }
        double size = 0;
        if (!TalbParse::ParseDouble(sizeText, &size) || size < 0)
        {
            return fail(lineNo, "size_bytes", "'" + sizeText + "' is not a non-negative number");
        }
        double pct = 0;
        if (!TalbParse::ParseDouble(pctText, &pct) || pct < 0 || pct > 100)
        {
            return fail(lineNo, "cumulative_percent", "'" + pctText + "' is not in [0, 100]");
        }
        if (!c.m_points.empty())
        {
            if (size < c.m_points.back().first)
            {
                return fail(lineNo, "size_bytes", "sizes must not decrease");
            }
            if (pct / 100 < c.m_points.back().second)
            {
                return fail(lineNo, "cumulative_percent", "percents must not decrease");
            }
        }
        c.m_points.emplace_back(size, pct / 100);
    }
    if (c.m_points.empty())
    {
        return fail(lineNo, "", "no points");
    }
    if (c.m_points.back().second != 1.0)
    {
        return fail(lineNo, "cumulative_percent", "the last point must be 100");
    }
    *cdf = c;
    return true;
}

TalbFlowSizeCdf
TalbFlowSizeCdf::Load(const std::string& path)
{
    TalbFlowSizeCdf cdf;
    std::string error;
    if (!TryLoad(path, &cdf, &error))
    {
        NS_FATAL_ERROR(error);
    }
    return cdf;
}

bool
TalbFlowSizeCdf::IsEmpty() const
{
    return m_points.empty();
}

const std::vector<std::pair<double, double>>&
TalbFlowSizeCdf::GetPoints() const
{
    return m_points;
}

uint64_t
TalbFlowSizeCdf::Sample(double u) const
{
    NS_ASSERT(!m_points.empty());
    // First point whose cumulative fraction reaches u; interpolate from its predecessor.
    auto it =
        std::lower_bound(m_points.begin(),
                         m_points.end(),
                         u,
                         [](const std::pair<double, double>& p, double v) { return p.second < v; });
    double size;
    if (it == m_points.begin())
    {
        size = it->first;
    }
    else
    {
        if (it == m_points.end())
        {
            --it;
        }
        auto prev = it - 1;
        double span = it->second - prev->second;
        double f = span > 0 ? (u - prev->second) / span : 1.0;
        // Rounding can carry prev + f * (next - prev) past next for sizes beyond 2^53.
        size = std::min(it->first, prev->first + f * (it->first - prev->first));
    }
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(size)));
}

double
TalbFlowSizeCdf::GetMean() const
{
    double mean = m_points.front().first * m_points.front().second;
    for (std::size_t i = 1; i < m_points.size(); ++i)
    {
        double mass = m_points[i].second - m_points[i - 1].second;
        // Halved before adding: two sizes near the largest double would overflow their sum.
        mean += mass * (m_points[i].first / 2 + m_points[i - 1].first / 2);
    }
    return mean;
}

} // namespace ns3
