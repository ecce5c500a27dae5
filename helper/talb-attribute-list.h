#ifndef TALB_ATTRIBUTE_LIST_H
#define TALB_ATTRIBUTE_LIST_H

#include "ns3/talb-registry.h"
#include "ns3/type-id.h"

#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief Attribute settings of a plug-in as the runner's parameters write them (Name=Value
 * pairs), checked against the plug-in's TypeId before anything is built.
 */
class TalbAttributeList
{
  public:
    /// Name and value of one attribute, as text.
    typedef std::vector<std::pair<std::string, std::string>> Pairs;

    /**
     * Parses "Name=Value;..." into \p out (appending).
     * \return an error naming the bad item, or empty
     */
    static std::string Parse(const std::string& text, Pairs* out);

    /// \return \p pairs as Parse() reads them, Name=Value;...
    static std::string ToText(const Pairs& pairs);

    /**
     * \return the current default of \p tid's attribute \p name (Config::SetDefault and
     * --ns3::Type::Name options included), as its checker writes it, a time in its largest
     * whole unit (5ms); aborts when \p tid has no such attribute (a programming error, not an
     * input)
     */
    static std::string DefaultOf(TypeId tid, const std::string& name);

    /**
     * Checks \p value for attribute \p name of \p tid without building the object.
     * \return false when \p tid has no such attribute; else \p error is empty or says what is
     * wrong
     */
    static bool Check(TypeId tid,
                      const std::string& name,
                      const std::string& value,
                      std::string* error);

    /**
     * Checks an ns-3 attribute option of a command line, --ns3::Type::Name=Value, as Check()
     * does: ns-3's own parser answers a value outside the
     * attribute's range with "Invalid command-line argument" and no reason, and aborts on
     * malformed numbers.
     * \return an error naming the option, the value and the attribute's range; empty when the
     * value is valid, or when \p arg is no such option or names no known type and attribute
     * (ns-3's parser then answers)
     */
    static std::string CheckCommandLineOption(const std::string& arg);
    /**
     * Split an ns-3 attribute option, --ns3::Type::Name=Value.
     * \return false when \p arg is no such option; else true, with \p path "ns3::Type::Name"
     * and \p value "Value"
     */
    static bool SplitCommandLineOption(const std::string& arg,
                                       std::string* path,
                                       std::string* value);
    /// \return CheckCommandLineOption()'s error for each of argv[1..argc-1] that has one
    static std::vector<std::string> CheckCommandLine(int argc, char* argv[]);

    /**
     * Checks every pair of \p pairs against the plug-in \p name of \p registry; each problem is
     * one message in \p errors, prefixed with \p where.
     */
    static void CheckPlugin(const TalbRegistry& registry,
                            const std::string& name,
                            const Pairs& pairs,
                            const std::string& where,
                            std::vector<std::string>* errors);
};

} // namespace ns3

#endif /* TALB_ATTRIBUTE_LIST_H */
