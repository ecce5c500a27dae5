#ifndef TALB_PARSE_H
#define TALB_PARSE_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-common
 * \brief The module's one set of text parsers: lists, integers, reals, booleans, times, and the
 * "file:line: field 'x': what" error format of every file reader.
 *
 * Every parser takes the whole text (no leading or trailing junk, no sign on unsigned values),
 * never throws or aborts, and leaves its output untouched when it returns false.
 */
class TalbParse
{
  public:
    /// \return \p text without leading and trailing blanks, tabs and carriage returns
    static std::string Trim(const std::string& text);

    /**
     * Split \p text at \p sep and trim every item.
     * \param keepEmpty keep empty items (CSV fields); otherwise they are dropped (lists such as
     * "a, b,,c")
     */
    static std::vector<std::string> Split(const std::string& text,
                                          char sep,
                                          bool keepEmpty = false);

    /// Parse a decimal integer in [\p min, \p max]: digits only, overflow-checked.
    static bool ParseUint(const std::string& text,
                          uint64_t* out,
                          uint64_t min = 0,
                          uint64_t max = std::numeric_limits<uint64_t>::max());
    /// Parse a finite real number ("1.5", "2e-3").
    static bool ParseDouble(const std::string& text, double* out);
    /// Parse 1/true/yes/on or 0/false/no/off.
    static bool ParseBool(const std::string& text, bool* out);
    /// Parse a non-negative time with its unit: "100ns", "20us", "1.5ms", "3s"; or "0".
    static bool ParseTime(const std::string& text, Time* out);
    /**
     * Parse a positive data rate with its unit: "10Gbps", "2.5GB/s", "100Mb/s". A number
     * without a unit is refused (ns-3 would read "40" as 40 bit/s). (ns-3's own DataRate
     * parsing aborts on text with a blank inside: this one refuses it.)
     */
    static bool ParseDataRate(const std::string& text, DataRate* out);
    /// \return true when \p text holds a blank, tab, CR or LF (ns-3's attribute parsers abort
    /// on such text)
    static bool HasBlank(const std::string& text);

    /**
     * \return "path:line: field 'field': message" (", field 'field'" left out when \p field is
     * empty): the error format of every file the module reads
     */
    static std::string ErrorAt(const std::string& path,
                               uint32_t line,
                               const std::string& field,
                               const std::string& message);
};

} // namespace ns3

#endif /* TALB_PARSE_H */
