#include "talb-parse.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace ns3
{

std::string
TalbParse::Trim(const std::string& text)
{
    std::string::size_type b = text.find_first_not_of(" \t\r");
    if (b == std::string::npos)
    {
        return "";
    }
    std::string::size_type e = text.find_last_not_of(" \t\r");
    return text.substr(b, e - b + 1);
}

std::vector<std::string>
TalbParse::Split(const std::string& text, char sep, bool keepEmpty)
{
    std::vector<std::string> out;
    std::string::size_type start = 0;
    while (true)
    {
        std::string::size_type end = text.find(sep, start);
        std::string item = Trim(text.substr(start, end - start));
        if (keepEmpty || !item.empty())
        {
            out.push_back(item);
        }
        if (end == std::string::npos)
        {
            return out;
        }
        start = end + 1;
    }
}

bool
TalbParse::ParseUint(const std::string& text, uint64_t* out, uint64_t min, uint64_t max)
{
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    if (errno != 0 || v < min || v > max)
    {
        return false;
    }
    *out = v;
    return true;
}

bool
TalbParse::ParseDouble(const std::string& text, double* out)
{
    if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    {
        return false;
    }
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || errno != 0 || !std::isfinite(v))
    {
        return false;
    }
    *out = v;
    return true;
}

bool
TalbParse::ParseBool(const std::string& text, bool* out)
{
    if (text == "1" || text == "true" || text == "yes" || text == "on")
    {
        *out = true;
        return true;
    }
    if (text == "0" || text == "false" || text == "no" || text == "off")
    {
        *out = false;
        return true;
    }
    return false;
}

bool
TalbParse::ParseTime(const std::string& text, Time* out)
{
    static const struct
    {
        const char* unit;
        double seconds;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};

    // Zero needs no unit ("StallTimeout=0" turns a rule off, as ns-3 itself reads it); any
    // other bare number is refused rather than guessed to be seconds.
    if (text == "0")
    {
        *out = Seconds(0);
        return true;
    }
    for (const auto& u : units)
    {
        std::string::size_type n = std::string(u.unit).size();
        if (text.size() > n && text.compare(text.size() - n, n, u.unit) == 0)
        {
            double v;
            // "1ms" also ends in "s": only accept when the number part is a plain number.
            // Beyond ~292 years a time does not fit ns-3's 64-bit nanoseconds.
            if (ParseDouble(text.substr(0, text.size() - n), &v) && v >= 0 && v * u.seconds < 9.2e9)
            {
                *out = Seconds(v * u.seconds);
                return true;
            }
        }
    }
    return false;
}

bool
TalbParse::HasBlank(const std::string& text)
{
    return text.find_first_of(" \t\r\n\v\f") != std::string::npos;
}

bool
TalbParse::ParseDataRate(const std::string& text, DataRate* out)
{
    // ns-3 reads a bare number as bit/s: "40" meant as 40 Gb/s would become 40 bit/s.
    if (text.empty() || HasBlank(text) || std::isdigit(static_cast<unsigned char>(text.back())) ||
        text.back() == '.')
    {
        return false;
    }
    std::istringstream in(text);
    DataRate rate;
    in >> rate;
    if (in.fail() || rate.GetBitRate() == 0)
    {
        return false;
    }
    *out = rate;
    return true;
}

std::string
TalbParse::ErrorAt(const std::string& path,
                   uint32_t line,
                   const std::string& field,
                   const std::string& message)
{
    std::ostringstream os;
    os << path << ":" << line << ": ";
    if (!field.empty())
    {
        os << "field '" << field << "': ";
    }
    os << message;
    return os.str();
}

} // namespace ns3
