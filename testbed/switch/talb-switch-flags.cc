#include "talb-switch-flags.h"

#include "talb-switch-config.h"
#include "talb-text.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>

namespace talb
{

namespace
{

using Kind = lb::SettingKind;

/// The column where a flag's text starts in --help, and the width it wraps at.
constexpr size_t kTextColumn = 27;
constexpr size_t kWidth = 88;

/// \return \p v as --help and messages write it: whole numbers in full (1073741824), others as
/// %g (0.05)
std::string
Number(double v)
{
    if (v == std::floor(v) && std::fabs(v) < 9e15)
    {
        return std::to_string(static_cast<long long>(v));
    }
    std::ostringstream os;
    os << v;
    return os.str();
}

/// \return \p text in lower case
std::string
Lower(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return text;
}

/// The range of a time flag in whole microseconds: [\p lo, \p hi].
void
MicrosecondRange(const FlagSpec& spec, uint64_t* lo, uint64_t* hi)
{
    *lo = static_cast<uint64_t>(std::ceil(spec.min / 1000));
    *hi = static_cast<uint64_t>(std::floor(spec.max / 1000));
}

/// \return the name of the value of an enumerated flag as the switch spells it
const char*
Spelling(const FlagSpec& spec, double value)
{
    for (uint32_t i = 0; i < spec.spellings.count; ++i)
    {
        if (spec.spellings.values[i].value == static_cast<int>(value))
        {
            return spec.spellings.values[i].flag;
        }
    }
    return "?";
}

/// \return the placeholder of a flag's value in --help
const char*
Placeholder(Kind kind)
{
    switch (kind)
    {
    case Kind::kUnsigned:
    case Kind::kTimeNs:
        return "N";
    case Kind::kReal:
        return "X";
    case Kind::kRateBps:
        return "R";
    case Kind::kEnum:
        return "MODE";
    case Kind::kBool:
        return "BOOL";
    }
    return "V";
}

/// Parses an enumerated flag's \p text: its switch spelling or its attribute's, in any case.
bool
ParseSpelling(const FlagSpec& spec, const std::string& text, double* value)
{
    const std::string v = Lower(text);
    for (uint32_t i = 0; i < spec.spellings.count; ++i)
    {
        const lb::SettingSpelling& s = spec.spellings.values[i];
        if (v == s.flag || v == Lower(s.attribute))
        {
            *value = s.value;
            return true;
        }
    }
    return false;
}

} // namespace

std::string
FlagRangeText(const FlagSpec& spec)
{
    switch (spec.kind)
    {
    case Kind::kUnsigned:
    case Kind::kReal:
        return spec.max >= lb::kNoMax ? ">= " + Number(spec.min)
                                      : Number(spec.min) + ".." + Number(spec.max);
    case Kind::kTimeNs: {
        uint64_t lo;
        uint64_t hi;
        MicrosecondRange(spec, &lo, &hi);
        return std::to_string(lo) + ".." + std::to_string(hi);
    }
    case Kind::kRateBps:
        return "0 or a rate such as 10Gbps";
    case Kind::kEnum: {
        std::string names;
        for (uint32_t i = 0; i < spec.spellings.count; ++i)
        {
            names += std::string(i == 0                          ? ""
                                 : i + 1 == spec.spellings.count ? " or "
                                                                 : ", ") +
                     spec.spellings.values[i].flag;
        }
        return names;
    }
    case Kind::kBool:
        return "true or false";
    }
    return "";
}

std::string
FlagValueText(const FlagSpec& spec, double value)
{
    switch (spec.kind)
    {
    case Kind::kUnsigned:
    case Kind::kReal:
        return Number(value);
    case Kind::kTimeNs:
        return Number(value / 1000);
    case Kind::kRateBps:
        return value == 0 ? "0" : FormatRate(static_cast<uint64_t>(value));
    case Kind::kEnum:
        return Spelling(spec, value);
    case Kind::kBool:
        return value != 0 ? "true" : "false";
    }
    return "";
}

bool
ParseFlagValue(const FlagSpec& spec, const std::string& text, double* value, std::string* error)
{
    bool ok = false;
    uint64_t u = 0;
    switch (spec.kind)
    {
    case Kind::kUnsigned:
        ok = ParseUnsigned(text,
                           static_cast<uint64_t>(spec.min),
                           static_cast<uint64_t>(spec.max),
                           &u);
        *value = static_cast<double>(u);
        break;
    case Kind::kReal:
        ok = ParseReal(text, spec.min, spec.max, value);
        break;
    case Kind::kTimeNs: {
        uint64_t lo;
        uint64_t hi;
        MicrosecondRange(spec, &lo, &hi);
        ok = ParseUnsigned(text, lo, hi, &u);
        *value = static_cast<double>(u) * 1000;
        break;
    }
    case Kind::kRateBps:
        ok = text == "0" || (ParseRate(text, &u) && u <= spec.max);
        *value = text == "0" ? 0 : static_cast<double>(u);
        break;
    case Kind::kEnum:
        ok = ParseSpelling(spec, text, value);
        break;
    case Kind::kBool:
        ok = text == "true" || text == "false" || text == "1" || text == "0";
        *value = text == "true" || text == "1" ? 1 : 0;
        break;
    }
    if (!ok)
    {
        const bool number =
            spec.kind == Kind::kUnsigned || spec.kind == Kind::kReal || spec.kind == Kind::kTimeNs;
        const char* what = !number ? "" : spec.max >= lb::kNoMax ? "a number " : "a number in ";
        *error = spec.name + ": '" + text + "' is not " + what + FlagRangeText(spec);
    }
    return ok;
}

void
WriteFlagUsage(std::ostream& os, const FlagSpec& spec, const std::string& help, double value)
{
    std::string line = "  " + spec.name + "=" + Placeholder(spec.kind);
    line += line.size() < kTextColumn ? std::string(kTextColumn - line.size(), ' ') : "  ";
    std::istringstream words(help + " (" + FlagRangeText(spec) + "; default " +
                             FlagValueText(spec, value) + ")");
    std::string word;
    bool first = true;
    while (words >> word)
    {
        if (!first && line.size() + 1 + word.size() > kWidth)
        {
            os << line << "\n";
            line = std::string(kTextColumn, ' ') + word;
        }
        else
        {
            line += (first ? "" : " ") + word;
        }
        first = false;
    }
    os << line << "\n";
}

} // namespace talb
