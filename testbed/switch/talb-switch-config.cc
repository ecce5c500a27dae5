#include "talb-switch-config.h"

#include "talb-text.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

namespace talb
{

namespace
{

/// One line's parser: fields, and an error that names file, line and the line's subject.
class Line
{
  public:
    Line(const std::string& name, uint32_t number, std::string* error)
        : m_name(name),
          m_number(number),
          m_error(error)
    {
    }

    bool Fail(const std::string& what)
    {
        *m_error = m_name + ":" + std::to_string(m_number) + ": " + what;
        return false;
    }

  private:
    std::string m_name;
    uint32_t m_number;
    std::string* m_error;
};

bool
ParsePortLine(const std::vector<std::string>& f, Line& line, uint32_t number, SwitchConfig* c)
{
    if (f.size() < 3)
    {
        return line.Fail("port: expected 'port <id> <device> [rate=R] [ecn=BYTES] [buffer=BYTES]'");
    }
    PortSpec p;
    p.line = number;
    uint64_t id;
    if (!ParseUnsigned(f[1], 0, kMaxSwitchPorts - 1, &id))
    {
        return line.Fail("port '" + f[1] + "': the id must be a number in 0.." +
                         std::to_string(kMaxSwitchPorts - 1));
    }
    p.id = static_cast<uint32_t>(id);
    p.device = f[2];
    std::string subject = "port " + f[1];
    for (size_t i = 3; i < f.size(); ++i)
    {
        size_t eq = f[i].find('=');
        std::string key = f[i].substr(0, eq);
        std::string value = eq == std::string::npos ? "" : f[i].substr(eq + 1);
        uint64_t v;
        if (eq == std::string::npos)
        {
            return line.Fail(subject + ": '" + f[i] + "' is not key=value");
        }
        if (key == "rate")
        {
            if (!ParseRate(value, &p.rateBps) || p.rateBps == 0)
            {
                return line.Fail(subject + ": rate '" + value +
                                 "' is not a rate such as 100Mbps or 2.5Gbps");
            }
        }
        else if (key == "ecn" || key == "buffer")
        {
            if (!ParseUnsigned(value, 0, 1ull << 32, &v) || (key == "buffer" && v < 2048))
            {
                return line.Fail(subject + ": " + key + " '" + value + "' is not a byte count in " +
                                 (key == "buffer" ? "2048" : "0") + "..4294967296");
            }
            (key == "ecn" ? p.ecnBytes : p.bufferBytes) = static_cast<int64_t>(v);
        }
        else
        {
            return line.Fail(subject + ": unknown setting '" + key + "' (rate, ecn, buffer)");
        }
    }
    if (p.id < c->ports.size() && !c->ports[p.id].device.empty())
    {
        return line.Fail(subject + ": defined twice (first on line " +
                         std::to_string(c->ports[p.id].line) + ")");
    }
    for (const PortSpec& other : c->ports)
    {
        if (other.device == p.device)
        {
            return line.Fail(subject + ": device '" + p.device + "' is port " +
                             std::to_string(other.id) + " already (line " +
                             std::to_string(other.line) + ")");
        }
    }
    if (c->ports.size() <= p.id)
    {
        c->ports.resize(p.id + 1);
    }
    c->ports[p.id] = p;
    return true;
}

bool
ParseRouteLine(const std::vector<std::string>& f, Line& line, uint32_t number, SwitchConfig* c)
{
    if (f.size() < 3 || f.size() > 5)
    {
        return line.Fail("route: expected 'route <a.b.c.d>/<len> <port>[,<port>...] [leaf=N] "
                         "[hostport=N]'");
    }
    RouteSpec r;
    r.line = number;
    std::string subject = "route " + f[1];
    size_t slash = f[1].find('/');
    uint64_t len;
    if (slash == std::string::npos || !ParseIpv4(f[1].substr(0, slash), &r.prefix) ||
        !ParseUnsigned(f[1].substr(slash + 1), 0, 32, &len))
    {
        return line.Fail(subject + ": not a prefix a.b.c.d/len with len 0..32");
    }
    r.length = static_cast<uint8_t>(len);
    uint32_t mask = len == 0 ? 0 : ~0u << (32 - len);
    if ((r.prefix & ~mask) != 0)
    {
        return line.Fail(subject + ": host bits are set (did you mean " +
                         FormatIpv4(r.prefix & mask) + "/" + std::to_string(len) + "?)");
    }
    std::set<uint32_t> seen;
    for (const std::string& item : Split(f[2], ','))
    {
        uint64_t port;
        if (!ParseUnsigned(item, 0, kMaxSwitchPorts - 1, &port))
        {
            return line.Fail(subject + ": '" + item + "' is not a port id in 0.." +
                             std::to_string(kMaxSwitchPorts - 1));
        }
        if (!seen.insert(static_cast<uint32_t>(port)).second)
        {
            return line.Fail(subject + ": port " + item + " listed twice");
        }
        r.ports.push_back(static_cast<uint32_t>(port));
    }
    for (size_t k = 3; k < f.size(); ++k)
    {
        uint64_t n;
        const bool leaf = f[k].rfind("leaf=", 0) == 0 && r.leaf == kNoLeaf;
        const bool hostPort = f[k].rfind("hostport=", 0) == 0 && r.hostPort == kNoHostPort;
        if (!(leaf || hostPort) || !ParseUnsigned(f[k].substr(leaf ? 5 : 9), 0, 65535, &n))
        {
            return line.Fail(subject + ": '" + f[k] +
                             "' is not leaf=N or hostport=N (each once) with N in 0..65535");
        }
        (leaf ? r.leaf : r.hostPort) = static_cast<uint32_t>(n);
    }
    if (r.hostPort != kNoHostPort && r.length != 32)
    {
        return line.Fail(subject + ": hostport= names one host's port: the route must be a /32");
    }
    for (const RouteSpec& other : c->routes)
    {
        if (other.prefix == r.prefix && other.length == r.length)
        {
            return line.Fail(subject + ": defined twice (first on line " +
                             std::to_string(other.line) + ")");
        }
    }
    if (c->routes.size() == kMaxRoutes)
    {
        return line.Fail(subject + ": more than " + std::to_string(kMaxRoutes) + " routes");
    }
    c->routes.push_back(r);
    return true;
}

} // namespace

std::string
FormatRate(uint64_t bps)
{
    const struct
    {
        const char* unit;
        uint64_t scale;
    } units[] = {{"Gbps", 1000000000}, {"Mbps", 1000000}, {"kbps", 1000}};

    for (const auto& u : units)
    {
        if (bps > 0 && bps % u.scale == 0)
        {
            return std::to_string(bps / u.scale) + u.unit;
        }
    }
    return std::to_string(bps) + "bps";
}

bool
ParseRate(const std::string& text, uint64_t* bps)
{
    static const struct
    {
        const char* unit;
        double scale;
    } units[] = {{"Gbps", 1e9}, {"Mbps", 1e6}, {"kbps", 1e3}, {"Kbps", 1e3}, {"bps", 1}};

    for (const auto& u : units)
    {
        std::string unit = u.unit;
        if (text.size() > unit.size() &&
            text.compare(text.size() - unit.size(), unit.size(), unit) == 0)
        {
            std::string number = text.substr(0, text.size() - unit.size());
            if (number.find_first_not_of("0123456789.") != std::string::npos ||
                number.find_first_of("0123456789") != 0)
            {
                return false;
            }
            double v = 0;
            if (!ParseReal(number, 0, 1e13, &v))
            {
                return false;
            }
            double r = std::round(v * u.scale);
            if (!(r >= 1) || r > 1e13)
            {
                return false;
            }
            *bps = static_cast<uint64_t>(r);
            return true;
        }
    }
    return false;
}

std::string
FormatIpv4(uint32_t address)
{
    return std::to_string(address >> 24) + "." + std::to_string(address >> 16 & 0xff) + "." +
           std::to_string(address >> 8 & 0xff) + "." + std::to_string(address & 0xff);
}

bool
ParseIpv4(const std::string& text, uint32_t* address)
{
    std::vector<std::string> parts = Split(text, '.');
    if (parts.size() != 4)
    {
        return false;
    }
    uint32_t a = 0;
    for (const std::string& p : parts)
    {
        uint64_t v;
        if (p.size() > 3 || !ParseUnsigned(p, 0, 255, &v))
        {
            return false;
        }
        a = (a << 8) | static_cast<uint32_t>(v);
    }
    *address = a;
    return true;
}

bool
ParseSwitchConfig(const std::string& text,
                  const std::string& name,
                  SwitchConfig* config,
                  std::string* error)
{
    SwitchConfig c;
    std::istringstream in(text);
    std::string raw;
    uint32_t number = 0;
    while (std::getline(in, raw))
    {
        ++number;
        std::string content = raw.substr(0, raw.find('#'));
        std::istringstream words(content);
        std::vector<std::string> f;
        std::string w;
        while (words >> w)
        {
            f.push_back(w);
        }
        if (f.empty())
        {
            continue;
        }
        Line line(name, number, error);
        if (f[0] == "port")
        {
            if (!ParsePortLine(f, line, number, &c))
            {
                return false;
            }
        }
        else if (f[0] == "route")
        {
            if (!ParseRouteLine(f, line, number, &c))
            {
                return false;
            }
        }
        else
        {
            return line.Fail("unknown keyword '" + f[0] + "' (port, route)");
        }
    }
    if (c.ports.empty())
    {
        *error = name + ": no port defined";
        return false;
    }
    for (uint32_t id = 0; id < c.ports.size(); ++id)
    {
        if (c.ports[id].device.empty())
        {
            *error = name + ": port ids must be 0.." + std::to_string(c.ports.size() - 1) +
                     " without gaps: port " + std::to_string(id) + " is missing";
            return false;
        }
    }
    for (const RouteSpec& r : c.routes)
    {
        for (uint32_t p : r.ports)
        {
            if (p >= c.ports.size())
            {
                *error = name + ":" + std::to_string(r.line) + ": route " + FormatIpv4(r.prefix) +
                         "/" + std::to_string(r.length) + ": port " + std::to_string(p) +
                         " is not defined";
                return false;
            }
        }
    }
    *config = c;
    return true;
}

bool
LoadSwitchConfig(const std::string& path, SwitchConfig* config, std::string* error)
{
    std::ifstream in(path);
    if (!in)
    {
        *error = path + ": cannot read";
        return false;
    }
    std::ostringstream text;
    text << in.rdbuf();
    return ParseSwitchConfig(text.str(), path, config, error);
}

} // namespace talb
