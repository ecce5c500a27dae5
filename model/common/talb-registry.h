#ifndef TALB_REGISTRY_H
#define TALB_REGISTRY_H

#include "ns3/attribute.h"
#include "ns3/type-id.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-common
 * \brief The names of one plug-in family: load balancers, communication schedulers,
 * collectives or transports.
 *
 * Every family base owns one registry (its static GetRegistry()). A plug-in registers its own
 * short name in its .cc with TALB_REGISTER_PLUGIN, next to NS_OBJECT_ENSURE_REGISTERED, so no
 * base class names its subclasses. Lookup() accepts a short name or the TypeId name of any
 * constructible subclass of the family (IsChildOf), never aborts, and answers a bad name with a
 * message listing the valid ones: helpers, the scenario's validation and --help all go through
 * it.
 */
class TalbRegistry
{
  public:
    /**
     * \param family what one member is called in messages, e.g. "load balancer"
     * \param base the family's abstract base
     */
    TalbRegistry(const std::string& family, TypeId base);

    /**
     * Register \p tid under \p shortName. Called at load time by TALB_REGISTER_PLUGIN; aborts
     * on a name registered twice or a type outside the family (programming errors).
     * \return true
     */
    bool Add(const std::string& shortName, TypeId tid);

    /**
     * Resolve a short name or a TypeId name ("ns3::TalbEcmpLb") of the family.
     * \param name what the user wrote
     * \param tid receives the TypeId on success
     * \param error receives, on failure, a message naming \p name and listing the valid names
     * \return whether \p name names a constructible member of the family
     */
    bool Lookup(const std::string& name, TypeId* tid, std::string* error) const;
    /// Lookup() for callers where a bad name is a programming error: aborts with its message.
    TypeId Get(const std::string& name) const;

    /// \return the registered short names, sorted
    std::vector<std::string> GetShortNames() const;
    /// \return the registered short names, sorted, comma-separated (for --help and messages)
    std::string GetNames() const;
    /// \return the short name \p tid is registered under, or its TypeId name when it has none
    std::string GetShortName(TypeId tid) const;
    /// \return the family's name, e.g. "load balancer"
    const std::string& GetFamily() const;

  private:
    std::string m_family;
    TypeId m_base;
    std::map<std::string, TypeId> m_byShortName; //!< sorted: messages list names in order
};

/**
 * \ingroup talb-common
 * \return a checker for StringValue attributes that name a member of \p registry's family (a
 * short name or a TypeId name), so a bad name fails where attributes are checked (ObjectFactory,
 * the scenario's validation) instead of when the object is first used; \p orEmpty: the empty
 * string too (an attribute whose empty value means "none")
 */
Ptr<const AttributeChecker> MakeRegistryNameChecker(const TalbRegistry& registry,
                                                    bool orEmpty = false);

} // namespace ns3

/**
 * \ingroup talb-common
 * Register \p Class (a subclass of \p Base) under \p shortName in \p Base's registry when the
 * library loads. Use at namespace scope in the subclass's .cc, like NS_OBJECT_ENSURE_REGISTERED.
 */
#define TALB_REGISTER_PLUGIN(Base, Class, shortName)                                               \
    [[maybe_unused]] static const bool g_talbPluginRegistered##Class =                             \
        Base::GetRegistry().Add(shortName, Class::GetTypeId())

#endif /* TALB_REGISTRY_H */
