#include "talb-chakra-comm-groups.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <set>

namespace talb
{
namespace graph
{

namespace
{

/// A cursor over the text that counts lines for messages.
class JsonCursor
{
  public:
    JsonCursor(const std::string& text, const std::string& where)
        : m_text(text),
          m_where(where)
    {
    }

    /// Skips whitespace; \return the next character, or 0 at the end
    char Peek()
    {
        while (m_pos < m_text.size() &&
               std::string(" \t\r\n").find(m_text[m_pos]) != std::string::npos)
        {
            m_line += m_text[m_pos] == '\n';
            ++m_pos;
        }
        return m_pos < m_text.size() ? m_text[m_pos] : 0;
    }

    bool Expect(char c, const char* what)
    {
        if (Peek() != c)
        {
            return Fail(std::string("expected ") + what);
        }
        ++m_pos;
        return true;
    }

    bool String(std::string* out)
    {
        if (!Expect('"', "a group name in double quotes"))
        {
            return false;
        }
        while (m_pos < m_text.size() && m_text[m_pos] != '"')
        {
            char c = m_text[m_pos++];
            if (c == '\n' || uint8_t(c) < 0x20)
            {
                return Fail("a control character inside a group name");
            }
            if (c == '\\')
            {
                char e = m_pos < m_text.size() ? m_text[m_pos++] : 0;
                if (e != '"' && e != '\\' && e != '/')
                {
                    return Fail("an escape other than \\\" \\\\ \\/ in a group name");
                }
                c = e;
            }
            out->push_back(c);
        }
        if (m_pos >= m_text.size())
        {
            return Fail("the file ends inside a group name");
        }
        ++m_pos;
        return true;
    }

    bool Rank(uint32_t* out)
    {
        Peek();
        uint64_t v = 0;
        std::size_t digits = 0;
        while (m_pos < m_text.size() && m_text[m_pos] >= '0' && m_text[m_pos] <= '9')
        {
            v = v * 10 + uint64_t(m_text[m_pos++] - '0');
            if (++digits > 10)
            {
                break;
            }
        }
        if (digits == 0)
        {
            return Fail("expected a rank (a non-negative integer)");
        }
        if (digits > 10 || v > UINT32_MAX - 1)
        {
            return Fail("rank past 4294967294");
        }
        *out = static_cast<uint32_t>(v);
        return true;
    }

    bool Fail(const std::string& what)
    {
        if (m_error.empty())
        {
            m_error = m_where + ":" + std::to_string(m_line) + ": " + what;
        }
        return false;
    }

    const std::string& Error() const
    {
        return m_error;
    }

  private:
    const std::string& m_text;
    const std::string& m_where;
    std::size_t m_pos{0};
    uint32_t m_line{1};
    std::string m_error;
};

/// The object of groups. \return false with the cursor's error set
bool
ParseGroups(JsonCursor& c, ChakraCommGroups* groups)
{
    std::set<std::string> names;
    if (!c.Expect('{', "'{' (the file is one JSON object of name: [ranks])"))
    {
        return false;
    }
    if (c.Peek() == '}')
    {
        return c.Fail("no groups");
    }
    for (;;)
    {
        std::string name;
        if (!c.String(&name))
        {
            return false;
        }
        if (!names.insert(name).second)
        {
            return c.Fail("group '" + name + "' appears twice");
        }
        std::vector<uint32_t> ranks;
        if (!c.Expect(':', "':' after the group name") ||
            !c.Expect('[', "'[' (a group's ranks are a list)"))
        {
            return false;
        }
        if (c.Peek() == ']')
        {
            return c.Fail("group '" + name + "' has no ranks");
        }
        for (;;)
        {
            uint32_t rank = 0;
            if (!c.Rank(&rank))
            {
                return false;
            }
            if (std::find(ranks.begin(), ranks.end(), rank) != ranks.end())
            {
                return c.Fail("group '" + name + "' lists rank " + std::to_string(rank) + " twice");
            }
            ranks.push_back(rank);
            if (c.Peek() == ',')
            {
                c.Expect(',', "");
                continue;
            }
            if (!c.Expect(']', "',' or ']' after a rank"))
            {
                return false;
            }
            break;
        }
        groups->groups.emplace_back(std::move(name), std::move(ranks));
        if (c.Peek() == ',')
        {
            c.Expect(',', "");
            continue;
        }
        if (!c.Expect('}', "',' or '}' after a group"))
        {
            return false;
        }
        break;
    }
    if (c.Peek() != 0)
    {
        return c.Fail("text after the object");
    }
    return true;
}

} // namespace

bool
ChakraCommGroups::operator==(const ChakraCommGroups& o) const
{
    return groups == o.groups;
}

bool
ReadChakraCommGroups(const std::string& text,
                     const std::string& where,
                     ChakraCommGroups* groups,
                     std::string* error)
{
    *groups = ChakraCommGroups();
    JsonCursor c(text, where);
    if (!ParseGroups(c, groups))
    {
        *groups = ChakraCommGroups();
        *error = c.Error();
        return false;
    }
    return true;
}

bool
ReadChakraCommGroupsFile(const std::string& path, ChakraCommGroups* groups, std::string* error)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
    {
        *groups = ChakraCommGroups();
        *error = path + ": cannot open the file";
        return false;
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return ReadChakraCommGroups(text, path, groups, error);
}

std::string
WriteChakraCommGroups(const ChakraCommGroups& groups)
{
    std::string out = "{";
    for (std::size_t g = 0; g < groups.groups.size(); ++g)
    {
        out += g ? ",\n \"" : "\n \"";
        for (char c : groups.groups[g].first)
        {
            if (c == '"' || c == '\\')
            {
                out += '\\';
            }
            out += c;
        }
        out += "\": [";
        const auto& ranks = groups.groups[g].second;
        for (std::size_t i = 0; i < ranks.size(); ++i)
        {
            out += (i ? ", " : "") + std::to_string(ranks[i]);
        }
        out += "]";
    }
    out += "\n}\n";
    return out;
}

} // namespace graph
} // namespace talb
