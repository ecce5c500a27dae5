#include "talb-scenario-config.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/queue-size.h"
#include "ns3/talb-attribute-list.h"
#include "ns3/talb-parse.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace ns3
{

namespace
{

/// \return \p v in the fewest significant digits that read back as \p v (valid JSON)
std::string
JsonNumber(double v)
{
    char text[32];
    for (int digits = 1; digits <= 17; ++digits)
    {
        std::snprintf(text, sizeof(text), "%.*g", digits, v);
        if (std::strtod(text, nullptr) == v)
        {
            break;
        }
    }
    return text;
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

/// \return the edit distance (insertions, deletions, substitutions; case ignored) of \p a, \p b
std::size_t
EditDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            std::size_t above = row[j];
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

/// \return \p v as the shortest text that reads back ("256", "0.5", "1e+06")
std::string
Number(double v)
{
    std::ostringstream os;
    os << v;
    return os.str();
}

} // namespace

TalbScenarioConfig::Range
TalbScenarioConfig::Between(double min, double max, bool maxOpen)
{
    return Range{min, max, maxOpen};
}

TalbScenarioConfig::Range
TalbScenarioConfig::AtLeast(double min)
{
    return Range{min, std::numeric_limits<double>::infinity(), false};
}

void
TalbScenarioConfig::Declare(const std::string& name,
                            Kind kind,
                            const std::string& defaultValue,
                            const std::string& help,
                            const std::string& choices)
{
    NS_ABORT_MSG_IF(kind == NAME || kind == NAMES,
                    "TalbScenarioConfig: '" << name << "': name parameters need a registry");
    Param p{kind, "", Parsed(), help, {}, Range(), nullptr};
    p.choices = kind == CHOICE ? TalbParse::Split(choices, ',') : std::vector<std::string>{};
    Add(name, p, defaultValue);
}

void
TalbScenarioConfig::Declare(const std::string& name,
                            Kind kind,
                            const std::string& defaultValue,
                            const std::string& help,
                            Range range)
{
    NS_ABORT_MSG_UNLESS(kind == UINT || kind == DOUBLE,
                        "TalbScenarioConfig: '" << name << "': only numbers have a range");
    Add(name, Param{kind, "", Parsed(), help, {}, range, nullptr}, defaultValue);
}

void
TalbScenarioConfig::Declare(const std::string& name,
                            Kind kind,
                            const std::string& defaultValue,
                            const std::string& help,
                            const TalbRegistry& registry)
{
    NS_ABORT_MSG_UNLESS(kind == NAME || kind == NAMES,
                        "TalbScenarioConfig: '" << name << "': a registry goes with NAME(S)");
    Add(name, Param{kind, "", Parsed(), help, {}, Range(), &registry}, defaultValue);
}

void
TalbScenarioConfig::Declare(const TalbScenarioConfig& other, const std::string& name)
{
    const Param& p = other.Lookup(name);
    Add(name, p, p.value);
}

const std::vector<std::string>&
TalbScenarioConfig::GetParameterNames() const
{
    return m_order;
}

void
TalbScenarioConfig::Add(const std::string& name, Param param, const std::string& defaultValue)
{
    NS_ABORT_MSG_IF(m_params.count(name), "TalbScenarioConfig: '" << name << "' declared twice");
    m_params[name] = param;
    m_order.push_back(name);
    std::string err = Set(name, defaultValue, "default");
    NS_ABORT_MSG_UNLESS(err.empty(), "TalbScenarioConfig: bad default: " << err);
    m_params[name].given = false;
}

std::string
TalbScenarioConfig::Check(const Param& p, const std::string& value, Parsed* parsed)
{
    QueueSizeValue size;
    std::string error;
    double number = 0;
    switch (p.kind)
    {
    case STRING:
        return "";
    case UINT:
        if (!TalbParse::ParseUint(value, &parsed->integer))
        {
            return "a non-negative integer";
        }
        number = double(parsed->integer);
        break;
    case DOUBLE:
        if (!TalbParse::ParseDouble(value, &parsed->real))
        {
            return "a number";
        }
        number = parsed->real;
        break;
    case BOOL:
        return TalbParse::ParseBool(value, &parsed->flag) ? "" : "true or false";
    case RATE:
        return TalbParse::ParseDataRate(value, &parsed->rate)
                   ? ""
                   : "a positive data rate with its unit, such as 100Gbps or 10Mb/s (a bare "
                     "number is not bit/s here)";
    case TIME:
        return TalbParse::ParseTime(value, &parsed->time)
                   ? ""
                   : "a time with a unit: ns, us, ms or s (e.g. 2us)";
    case SIZE:
        // ns-3's QueueSize parser aborts on text with a blank inside.
        return value.empty() || (!TalbParse::HasBlank(value) &&
                                 size.DeserializeFromString(value, MakeQueueSizeChecker()))
                   ? ""
                   : "a size such as 1MB or 100p";
    case CHOICE:
        for (const auto& c : p.choices)
        {
            if (c == value)
            {
                return "";
            }
        }
        error = "one of:";
        for (const auto& c : p.choices)
        {
            error += " " + c;
        }
        return error;
    case NAME:
    case NAMES:
        return CheckNames(p, value);
    }
    // Numbers: the range.
    const Range& r = p.range;
    if (number < r.min || number > r.max || (r.maxOpen && number >= r.max))
    {
        return "in " + Describe(p);
    }
    return "";
}

std::string
TalbScenarioConfig::CheckNames(const Param& p, const std::string& value)
{
    std::vector<std::string> names =
        p.kind == NAME ? std::vector<std::string>{value} : TalbParse::Split(value, ',');
    std::string what = p.kind == NAME ? "a " + p.registry->GetFamily() + " name"
                                      : "a list of " + p.registry->GetFamily() + " names";
    if (names.empty())
    {
        return what + " (" + p.registry->GetNames() + ")";
    }
    for (const auto& n : names)
    {
        TypeId tid;
        std::string error;
        if (!p.registry->Lookup(n, &tid, &error))
        {
            return what + ": " + error;
        }
    }
    return "";
}

std::string
TalbScenarioConfig::Describe(const Param& p)
{
    std::string text;
    if (p.kind == CHOICE)
    {
        for (size_t i = 0; i < p.choices.size(); ++i)
        {
            text += (i ? "|" : "") + p.choices[i];
        }
    }
    else if (p.kind == NAME || p.kind == NAMES)
    {
        text = p.registry->GetNames() + ", or a TypeId name";
    }
    else if (p.range.min > -std::numeric_limits<double>::infinity() ||
             p.range.max < std::numeric_limits<double>::infinity())
    {
        text =
            "[" + Number(p.range.min) + ", " +
            (p.range.max < std::numeric_limits<double>::infinity() ? Number(p.range.max) : "inf") +
            (p.range.maxOpen ? ")" : "]");
    }
    return text;
}

std::string
TalbScenarioConfig::Set(const std::string& name,
                        const std::string& rawValue,
                        const std::string& origin)
{
    auto it = m_params.find(name);
    if (it == m_params.end())
    {
        return origin + ": unknown parameter '" + name + "'" + Suggest(name);
    }
    Param& p = it->second;
    std::string value = TalbParse::Trim(rawValue);
    Parsed parsed;
    std::string expected = Check(p, value, &parsed);
    if (!expected.empty())
    {
        return origin + ": " + name + "='" + value + "' is not " + expected;
    }
    p.value = value;
    p.parsed = parsed;
    p.given = true;
    return "";
}

std::string
TalbScenarioConfig::Suggest(const std::string& name) const
{
    // The nearest names, as far as a typo goes: a third of the name's letters, at least two.
    std::size_t limit = std::max<std::size_t>(2, name.size() / 3);
    std::vector<std::pair<std::size_t, std::string>> near;
    for (const auto& n : m_order)
    {
        std::size_t d = EditDistance(name, n);
        bool prefix = name.size() >= 3 && n.compare(0, name.size(), name) == 0;
        if (d <= limit || prefix)
        {
            near.emplace_back(prefix ? 0 : d, n);
        }
    }
    std::stable_sort(near.begin(), near.end(), [](const auto& x, const auto& y) {
        return x.first < y.first;
    });
    std::string text;
    for (std::size_t i = 0; i < near.size() && i < 3; ++i)
    {
        text += (i ? ", " : "") + near[i].second;
    }
    std::string all = "--help lists all " + std::to_string(m_order.size());
    return text.empty() ? " (" + all + ")" : " (did you mean " + text + "? " + all + ")";
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
        line = TalbParse::Trim(hash == std::string::npos ? line : line.substr(0, hash));
        if (line.empty())
        {
            continue;
        }
        size_t eq = line.find('=');
        if (eq == std::string::npos)
        {
            return origin + ": expected 'name = value', got '" + line + "'";
        }
        std::string err = Set(TalbParse::Trim(line.substr(0, eq)), line.substr(eq + 1), origin);
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
    // A bare --flag (ns-3 passes an empty value) turns a boolean on, as ns-3's own flags do.
    bool bareFlag = value.empty() && m_params.count(name) && m_params.at(name).kind == BOOL;
    std::string err = Set(name, bareFlag ? "true" : value, "--" + name);
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
        std::string declared = Describe(p);
        if (!declared.empty())
        {
            help += " (" + declared + ")";
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

bool
TalbScenarioConfig::ParseCommandLine(CommandLine& cmd,
                                     int argc,
                                     char* argv[],
                                     const std::function<std::vector<std::string>()>& check)
{
    AddToCommandLine(cmd);
    // ns-3's attributes first: its parser names no range and aborts on malformed numbers.
    std::vector<std::string> errors = TalbAttributeList::CheckCommandLine(argc, argv);
    if (errors.empty())
    {
        cmd.Parse(argc, argv);
        RecordAttributes(argc, argv);
        // Every value is checked before anything is built, so a bad one costs no simulated time.
        errors = TakeErrors();
    }
    if (errors.empty())
    {
        errors = check();
    }
    for (const auto& e : errors)
    {
        std::cerr << cmd.GetName() << ": error: " << e << "\n";
    }
    if (!errors.empty())
    {
        std::cerr << cmd.GetName() << ": nothing was simulated (--help lists the options)\n";
    }
    return errors.empty();
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

bool
TalbScenarioConfig::IsGiven(const std::string& name) const
{
    return Lookup(name).given;
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

std::vector<std::string>
TalbScenarioConfig::GetNames(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == NAMES,
                        "TalbScenarioConfig: " << name << " is not a list of names");
    return TalbParse::Split(Lookup(name).value, ',');
}

uint64_t
TalbScenarioConfig::GetUint(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == UINT,
                        "TalbScenarioConfig: " << name << " is not an integer parameter");
    return Lookup(name).parsed.integer;
}

double
TalbScenarioConfig::GetDouble(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == DOUBLE,
                        "TalbScenarioConfig: " << name << " is not a real parameter");
    return Lookup(name).parsed.real;
}

bool
TalbScenarioConfig::GetBool(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == BOOL,
                        "TalbScenarioConfig: " << name << " is not a bool parameter");
    return Lookup(name).parsed.flag;
}

DataRate
TalbScenarioConfig::GetRate(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == RATE,
                        "TalbScenarioConfig: " << name << " is not a rate parameter");
    return Lookup(name).parsed.rate;
}

Time
TalbScenarioConfig::GetTime(const std::string& name) const
{
    NS_ABORT_MSG_UNLESS(Lookup(name).kind == TIME,
                        "TalbScenarioConfig: " << name << " is not a time parameter");
    return Lookup(name).parsed.time;
}

std::string
TalbScenarioConfig::ToJson() const
{
    std::ostringstream os;
    os << "{";
    for (size_t i = 0; i < m_order.size(); ++i)
    {
        const Param& p = m_params.at(m_order[i]);
        bool number = p.kind == DOUBLE;
        os << (i ? ", " : "") << "\"" << m_order[i] << "\": ";
        if (p.kind == UINT)
        {
            // Canonical JSON numbers: the text as given may be "007" or ".5".
            os << GetUint(m_order[i]);
        }
        else if (number)
        {
            os << JsonNumber(GetDouble(m_order[i]));
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
    for (size_t i = 0; i < m_attributes.size(); ++i)
    {
        os << (m_order.empty() && i == 0 ? "" : ", ") << "\"" << JsonEscape(m_attributes[i].first)
           << "\": \"" << JsonEscape(m_attributes[i].second) << "\"";
    }
    os << "}";
    return os.str();
}

void
TalbScenarioConfig::RecordAttributes(int argc, char* argv[])
{
    auto record = [this](const std::string& name, const std::string& value) {
        for (auto& kv : m_attributes)
        {
            if (kv.first == name)
            {
                kv.second = value;
                return;
            }
        }
        m_attributes.emplace_back(name, value);
    };
    // ns-3 reads NS_ATTRIBUTE_DEFAULT as "ns3::A::B=v;ns3::C::D=w".
    if (const char* env = std::getenv("NS_ATTRIBUTE_DEFAULT"))
    {
        std::istringstream items(env);
        std::string item;
        while (std::getline(items, item, ';'))
        {
            std::string::size_type eq = item.find('=');
            if (eq != std::string::npos && eq > 0)
            {
                record(item.substr(0, eq), item.substr(eq + 1));
            }
        }
    }
    for (int i = 1; i < argc; ++i)
    {
        std::string path;
        std::string value;
        if (TalbAttributeList::SplitCommandLineOption(argv[i], &path, &value))
        {
            record(path, value);
        }
    }
}

} // namespace ns3
