#include "talb-lb-core-settings.h"

#include <cstring>

namespace talb
{
namespace lb
{

std::string
ExpandHelp(const char* help, const std::function<std::string(const std::string&)>& name)
{
    std::string out;
    for (const char* c = help; *c; ++c)
    {
        const char* close = *c == '{' ? std::strchr(c, '}') : nullptr;
        if (!close)
        {
            out += *c;
            continue;
        }
        out += name(std::string(c + 1, close));
        c = close;
    }
    return out;
}

} // namespace lb
} // namespace talb
