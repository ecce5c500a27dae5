#include "talb-attribute-list.h"

#include "ns3/abort.h"
#include "ns3/nstime.h"
#include "ns3/string.h"
#include "ns3/talb-parse.h"

#include <sstream>

namespace ns3
{

namespace
{

/// \return \p t in the largest unit that keeps it whole, "5ms" where ns-3 writes "+5e+06ns"
std::string
CompactTime(Time t)
{
    const int64_t ns = t.GetNanoSeconds();
    for (const auto& [unit, perUnit] :
         {std::pair<const char*, int64_t>{"s", 1000000000}, {"ms", 1000000}, {"us", 1000}})
    {
        if (ns != 0 && ns % perUnit == 0)
        {
            return std::to_string(ns / perUnit) + unit;
        }
    }
    return std::to_string(ns) + "ns";
}

/// \return " (a real number from 0 to 1)" and the like, from a double checker's
/// underlying-type text ("double 0:1"; open ends are +-max double)
std::string
DoubleRange(const std::string& information)
{
    // ns-3's double checker writes "double MIN:MAX" with std::to_string, so an open end is a
    // 309-digit number: name the ends a user can act on instead.
    std::string::size_type space = information.find(' ');
    std::string::size_type colon = information.rfind(':');
    double lo;
    double hi;
    if (space == std::string::npos || colon == std::string::npos || colon < space ||
        !TalbParse::ParseDouble(information.substr(space + 1, colon - space - 1), &lo) ||
        !TalbParse::ParseDouble(information.substr(colon + 1), &hi))
    {
        return " (" + information + ")";
    }
    const double open = 1e300; // DoubleChecker's defaults are +-max double
    auto text = [](double x) {
        std::ostringstream os;
        os << x;
        return os.str();
    };
    if (lo <= -open && hi >= open)
    {
        return " (a real number)";
    }
    if (hi >= open)
    {
        return " (a real number, at least " + text(lo) + ")";
    }
    if (lo <= -open)
    {
        return " (a real number, at most " + text(hi) + ")";
    }
    return " (a real number from " + text(lo) + " to " + text(hi) + ")";
}

} // namespace

std::string
TalbAttributeList::Parse(const std::string& text, Pairs* out)
{
    for (const auto& kv : TalbParse::Split(text, ';'))
    {
        std::string::size_type eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
        {
            return "'" + kv + "' is not Name=Value";
        }
        out->emplace_back(TalbParse::Trim(kv.substr(0, eq)), TalbParse::Trim(kv.substr(eq + 1)));
    }
    return "";
}

std::string
TalbAttributeList::ToText(const Pairs& pairs)
{
    std::string text;
    for (const auto& kv : pairs)
    {
        text += (text.empty() ? "" : ";") + kv.first + "=" + kv.second;
    }
    return text;
}

std::string
TalbAttributeList::DefaultOf(TypeId tid, const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_UNLESS(tid.LookupAttributeByName(name, &info),
                        tid.GetName() << " has no attribute " << name);
    if (const auto* time = dynamic_cast<const TimeValue*>(PeekPointer(info.initialValue)))
    {
        return CompactTime(time->Get());
    }
    return info.initialValue->SerializeToString(info.checker);
}

bool
TalbAttributeList::Check(TypeId tid,
                         const std::string& name,
                         const std::string& value,
                         std::string* error)
{
    TypeId::AttributeInformation info;
    if (!tid.LookupAttributeByName(name, &info))
    {
        return false;
    }
    // ns-3's parsers of numbers and times abort on malformed text: check the text with the
    // module's parsers first, then the value with the attribute's own checker (its range).
    const std::string type = info.checker->GetValueTypeName();
    std::string digits = value.substr(!value.empty() && value[0] == '-' ? 1 : 0);
    uint64_t u;
    double d;
    Time t;
    bool ok = type == "ns3::TimeValue"       ? TalbParse::ParseTime(value, &t)
              : type == "ns3::UintegerValue" ? TalbParse::ParseUint(value, &u)
              : type == "ns3::IntegerValue"  ? TalbParse::ParseUint(digits, &u)
              : type == "ns3::DoubleValue"   ? TalbParse::ParseDouble(value, &d)
                                             : true;
    // ... and they abort on text with a blank inside, which only strings may hold.
    ok = ok && (type == "ns3::StringValue" || !TalbParse::HasBlank(value)) &&
         info.checker->CreateValidValue(StringValue(value)) != nullptr;
    *error = ok ? "" : name + "='" + value + "' is not a valid value for " + tid.GetName();
    if (!ok && (type == "ns3::UintegerValue" || type == "ns3::IntegerValue"))
    {
        // Say the range: ns-3's integer checkers write "uint32_t 1:64".
        *error += " (" + info.checker->GetUnderlyingTypeInformation() + ")";
    }
    if (!ok && type == "ns3::DoubleValue")
    {
        *error += DoubleRange(info.checker->GetUnderlyingTypeInformation());
    }
    if (!ok && type == "ns3::EnumValue")
    {
        // ns-3's enum checkers write the names as "Random|LeastQueued".
        *error += " (one of " + info.checker->GetUnderlyingTypeInformation() + ")";
    }
    return true;
}

bool
TalbAttributeList::SplitCommandLineOption(const std::string& arg,
                                          std::string* path,
                                          std::string* value)
{
    std::string::size_type eq = arg.find('=');
    if (arg.rfind("--ns3::", 0) != 0 || eq == std::string::npos)
    {
        return false;
    }
    *path = arg.substr(2, eq - 2);
    *value = arg.substr(eq + 1);
    return true;
}

std::string
TalbAttributeList::CheckCommandLineOption(const std::string& arg)
{
    std::string path;
    std::string value;
    if (!SplitCommandLineOption(arg, &path, &value))
    {
        return "";
    }
    std::string::size_type sep = path.rfind("::");
    if (sep == std::string::npos || sep == 0)
    {
        return "";
    }
    std::string type = path.substr(0, sep);
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(type, &tid))
    {
        return "";
    }
    std::string error;
    if (!Check(tid, path.substr(sep + 2), value, &error) || error.empty())
    {
        return "";
    }
    return "--" + path + ": " + error;
}

std::vector<std::string>
TalbAttributeList::CheckCommandLine(int argc, char* argv[])
{
    std::vector<std::string> errors;
    for (int i = 1; i < argc; ++i)
    {
        std::string error = CheckCommandLineOption(argv[i]);
        if (!error.empty())
        {
            errors.push_back(error);
        }
    }
    return errors;
}

void
TalbAttributeList::CheckPlugin(const TalbRegistry& registry,
                               const std::string& name,
                               const Pairs& pairs,
                               const std::string& where,
                               std::vector<std::string>* errors)
{
    TypeId tid;
    std::string error;
    if (!registry.Lookup(name, &tid, &error))
    {
        errors->push_back(where + error);
        return;
    }
    for (const auto& kv : pairs)
    {
        if (!Check(tid, kv.first, kv.second, &error))
        {
            errors->push_back(where + tid.GetName() + " has no attribute '" + kv.first + "'");
        }
        else if (!error.empty())
        {
            errors->push_back(where + error);
        }
    }
}

} // namespace ns3
