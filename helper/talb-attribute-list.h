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
     * Checks \p value for attribute \p name of \p tid without building the object.
     * \return false when \p tid has no such attribute; else \p error is empty or says what is
     * wrong
     */
    static bool Check(TypeId tid,
                      const std::string& name,
                      const std::string& value,
                      std::string* error);

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
