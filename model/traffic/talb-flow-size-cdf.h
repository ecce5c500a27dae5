#ifndef TALB_FLOW_SIZE_CDF_H
#define TALB_FLOW_SIZE_CDF_H

#include <cstdint>
#include <istream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-traffic
 * \brief A flow-size distribution given as a piecewise-linear CDF, HPCC-style: one
 * "size_bytes cumulative_percent" pair per line, sizes and percents non-decreasing, the last
 * percent 100. Sampling interpolates linearly between points.
 */
class TalbFlowSizeCdf
{
  public:
    TalbFlowSizeCdf() = default;

    /// Read a CDF file; aborts with "file:line: field 'x': ..." on malformed input.
    static TalbFlowSizeCdf Load(const std::string& path);
    /// Like Load, but reports errors in \p error. \return false on error
    static bool TryLoad(const std::string& path, TalbFlowSizeCdf* cdf, std::string* error);
    /**
     * Parses CDF text from \p in; errors read "name:line: ...".
     * \return false on error (then \p cdf is unchanged)
     */
    static bool TryParse(std::istream& in,
                         const std::string& name,
                         TalbFlowSizeCdf* cdf,
                         std::string* error);

    /// \return the size at quantile \p u in [0, 1] (at least 1 byte)
    uint64_t Sample(double u) const;
    /// \return the distribution's mean size in bytes (exact for the piecewise-linear CDF)
    double GetMean() const;
    bool IsEmpty() const;
    /// \return the points: (size in bytes, cumulative fraction in [0, 1]), both non-decreasing
    const std::vector<std::pair<double, double>>& GetPoints() const;

  private:
    std::vector<std::pair<double, double>> m_points; //!< (size, cumulative fraction)
};

} // namespace ns3

#endif /* TALB_FLOW_SIZE_CDF_H */
