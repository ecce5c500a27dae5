#include "talb-scenario-config.h"

#include "ns3/abort.h"
#include "ns3/callback.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <sstream>

namespace ns3
{

namespace
{

std::string
Trim(const std::string& s)
{
    size_t b = s.find_first_not_of(" \t\r");
    size_t e = s.find_last_not_of(" \t\r");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

bool
ParseUint(const std::string& s, uint64_t* out)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    errno = 0;
    *out = std::strtoull(s.c_str(), nullptr, 10);
    return errno == 0;
}

bool
ParseDouble(const std::string& s, double* out)
{
    char* end = nullptr;
    errno = 0;
    *out = std::strtod(s.c_str(), &end);
    return !s.empty() && end == s.c_str() + s.size() && errno == 0;
}

bool
ParseBool(const std::string& s, bool* out)
{
    if (s == "1" || s == "true" || s == "yes" || s == "on")
    {
        *out = true;
        return true;
    }
    if (s == "0" || s == "false" || s == "no" || s == "off")
    {
        *out = false;
        return true;
    }
    return false;
}

std::string
JsonEscape(const std::string& s)
{
    std::ostringstream os;
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            os << '\\' << c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        }
        else
        {
            os << c;
        }
    }
    return os.str();
}

} // namespace

std::vector<std::string>
TalbScenarioConfig::Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, sep))
    {
        item = Trim(item);
        if (!item.empty())
        {
            out.push_back(item);
        }
    }
    return out;
}

bool
TalbScenarioConfig::ParseTime(const std::string& text, Time* out)
{
    static const struct
    {
        const char* unit;
        double seconds;
    } units[] = {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}};

    for (const auto& u : units)
    {
        size_t n = std::string(u.unit).size();
        if (text.size() > n && text.compare(text.size() - n, n, u.unit) == 0)
        {
            double v;
            std::string number = text.substr(0, text.size() - n);
            // "1ms" also ends in "s": only accept when the number part is a plain number.
            if (ParseDouble(number, &v) && v >= 0)
            {
                *out = Seconds(v * u.seconds);
                return true;
            }
        }
    }
    return false;
}

void
TalbScenarioConfig::Declare(const std::string& name,
                            Kind kind,
                            const std::string& defaultValue,
                            const std::string& help,
                            const std::string& choices)
{
    NS_ABORT_MSG_IF(m_params.count(name), "TalbScenarioConfig: '" << name << "' declared twice");
    m_params[name] =
        Param{kind, "", help, kind == CHOICE ? Split(choices, ',') : std::vector<std::string>{}};
    m_order.push_back(name);
    std::string err = Set(name, defaultValue, "default");
    NS_ABORT_MSG_UNLESS(err.empty(), "TalbScenarioConfig: bad default: " << err);
}

std::string
TalbScenarioConfig::Set(const std::string& name,
                        const std::string& rawValue,
                        const std::string& origin)
{
    auto it = m_params.find(name);
    if (it == m_params.end())
    {
        std::ostringstream os;
        os << origin << ": unknown parameter '" << name << "' (valid:";
        for (const auto& n : m_order)
        {
            os << " " << n;
        }
        os << ")";
        return os.str();
    }
    Param& p = it->second;
    std::string value = Trim(rawValue);
    std::string expected;
    uint64_t u;
    double d;
    bool b;
    Time t;
    DataRateValue rate;
    switch (p.kind)
    {
    case STRING:
        break;
    case UINT:
        if (!ParseUint(value, &u))
        {
            expected = "a non-negative integer";
        }
        break;
    case DOUBLE:
        if (!ParseDouble(value, &d))
        {
            expected = "a number";
        }
        break;
    case BOOL:
        if (!ParseBool(value, &b))
        {
            expected = "true or false";
        }
        break;
    case RATE:
        if (!rate.DeserializeFromString(value, MakeDataRateChecker()))
        {
            expected = "a data rate such as 100Gbps or 10Mb/s";
        }
        break;
    case TIME:
        if (!ParseTime(value, &t))
        {
            expected = "a time with a unit: ns, us, ms or s (e.g. 2us)";
        }
        break;
    case CHOICE: {
        bool ok = false;
        for (const auto& c : p.choices)
        {
            ok = ok || c == value;
        }
        if (!ok)
        {
            expected = "one of:";
            for (const auto& c : p.choices)
            {
                expected += " " + c;
            }
        }
        break;
    }
    }
    if (!expected.empty())
    {
        return origin + ": " + name + "='" + value + "' is not " + expected;
    }
    p.value = value;
    return "";
}

std::string
TalbScenarioConfig::LoadFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        return path + ": cannot open config file";
    }
    std::string line;
    unsigned lineno = 0;
    while (std::getline(in, line))
    {
        ++lineno;
        std::string origin = path + ":" + std::to_string(lineno);
        size_t hash = line.find('#');
        line = Trim(hash == std::string::npos ? line : line.substr(0, hash));
        if (line.empty())
        {
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string::npos)
        {
            return origin + ": expected 'name = value', got '" + line + "'";
        }
        std::string err = Set(Trim(line.substr(0, eq)), line.substr(eq + 1), origin);
        if (!err.empty())
        {
            return err;
        }
    }
    return "";
}

bool
TalbScenarioConfig::OnCommandLine(const std::string& name, const std::string& value)
{
    std::string err = Set(name, value, "--" + name);
    if (!err.empty())
    {
        m_errors.push_back(err);
    }
    return true; // keep parsing: all errors are reported together
}

bool
TalbScenarioConfig::OnConfigFile(const std::string& path)
{
    std::string err = LoadFile(path);
    if (!err.empty())
    {
        m_errors.push_back(err);
    }
    return true;
}

void
TalbScenarioConfig::AddToCommandLine(CommandLine& cmd)
{
    cmd.AddValue("config",
                 "config file of 'name = value' lines; options given after it override it",
                 MakeCallback(&TalbScenarioConfig::OnConfigFile, this));
    for (const auto& name : m_order)
    {
        const Param& p = m_params.at(name);
        std::string help = p.help;
        if (p.kind == CHOICE)
        {
            help += " (";
            for (size_t i = 0; i < p.choices.size(); ++i)
            {
                help += (i ? "|" : "") + p.choices[i];
            }
            help += ")";
        }
        help += " [" + p.value + "]";
        cmd.AddValue(name,
                     help,
                     MakeBoundCallback(
                         +[](TalbScenarioConfig* self, std::string n, std::string v) {
                             return self->OnCommandLine(n, v);
                         },
                         this,
                         name));
    }
}

std::vector<std::string>
TalbScenarioConfig::TakeErrors()
{
    std::vector<std::string> errors;
    errors.swap(m_errors);
    return errors;
}

bool
TalbScenarioConfig::Has(const std::string& name) const
{
    return m_params.count(name) != 0;
}

const TalbScenarioConfig::Param&
TalbScenarioConfig::Lookup(const std::string& name) const
{
    auto it = m_params.find(name);
    NS_ABORT_MSG_IF(it == m_params.end(), "TalbScenarioConfig: no parameter '" << name << "'");
    return it->second;
}

std::string
TalbScenarioConfig::GetString(const std::string& name) const
{
    return Lookup(name).value;
}

uint64_t
TalbScenarioConfig::GetUint(const std::string& name) const
{
    uint64_t v = 0;
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == UINT && ParseUint(Lookup(name).value, &v),
                        "TalbScenarioConfig: " << name << " is not an integer parameter");
    return v;
}

double
TalbScenarioConfig::GetDouble(const std::string& name) const
{
    double v = 0;
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == DOUBLE && ParseDouble(Lookup(name).value, &v),
                        "TalbScenarioConfig: " << name << " is not a real parameter");
    return v;
}

bool
TalbScenarioConfig::GetBool(const std::string& name) const
{
    bool v = false;
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == BOOL && ParseBool(Lookup(name).value, &v),
                        "TalbScenarioConfig: " << name << " is not a bool parameter");
    return v;
}

DataRate
TalbScenarioConfig::GetRate(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == RATE,
                        "TalbScenarioConfig: " << name << " is not a rate parameter");
    return DataRate(Lookup(name).value);
}

Time
TalbScenarioConfig::GetTime(const std::string& name) const
{
    Time t;
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == TIME && ParseTime(Lookup(name).value, &t),
                        "TalbScenarioConfig: " << name << " is not a time parameter");
    return t;
}

std::string
TalbScenarioConfig::ToJson() const
{
    std::ostringstream os;
    os << "{";
    for (size_t i = 0; i < m_order.size(); ++i)
    {
        const Param& p = m_params.at(m_order[i]);
        bool number = p.kind == UINT || p.kind == DOUBLE;
        os << (i ? ", " : "") << "\"" << m_order[i] << "\": ";
        if (number)
        {
            os << p.value;
        }
        else if (p.kind == BOOL)
        {
            os << (GetBool(m_order[i]) ? "true" : "false");
        }
        else
        {
            os << "\"" << JsonEscape(p.value) << "\"";
        }
    }
    os << "}";
    return os.str();
}

} // namespace ns3
