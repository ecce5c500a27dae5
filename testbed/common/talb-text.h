// The testbed's one set of text parsers (command-line values, CSV fields), shared by the agent,
// its tools and benchmark, the NCCL harness and the trainer. Header-only, no dependency beyond
// the C++ library. Every parser takes the whole text (no sign, no blanks, no trailing junk) and
// leaves its output untouched when it returns false.
#ifndef TALB_TEXT_H
#define TALB_TEXT_H

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

namespace talb
{

/// Parses a decimal integer in [lo, hi]: digits only, overflow-checked.
inline bool
ParseUnsigned(const std::string& text, uint64_t lo, uint64_t hi, uint64_t* out)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno != 0 || v < lo || v > hi)
    {
        return false;
    }
    *out = v;
    return true;
}

/// Parses a finite real number in [lo, hi].
inline bool
ParseReal(const std::string& text, double lo, double hi, double* out)
{
    if (text.empty() || text.find_first_of(" \t\r\n") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    char* end = nullptr;
    double v = std::strtod(text.c_str(), &end);
    if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < lo || v > hi)
    {
        return false;
    }
    *out = v;
    return true;
}

/// Parses a DPDK port argument: \return the port id when \p text is a decimal number below
/// 65535, else -1 (a device name).
inline int
ParsePortId(const std::string& text)
{
    uint64_t v;
    return ParseUnsigned(text, 0, 65534, &v) ? static_cast<int>(v) : -1;
}

/// Splits \p text at every \p sep, keeping empty fields ("a,,b," gives a, "", b, "").
inline std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::string::size_type start = 0;
    while (true)
    {
        std::string::size_type end = text.find(sep, start);
        out.push_back(text.substr(start, end - start));
        if (end == std::string::npos)
        {
            return out;
        }
        start = end + 1;
    }
}

} // namespace talb

#endif
