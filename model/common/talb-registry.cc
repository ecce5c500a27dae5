#include "talb-registry.h"

#include "ns3/abort.h"
#include "ns3/string.h"

namespace ns3
{

TalbRegistry::TalbRegistry(const std::string& family, TypeId base)
    : m_family(family),
      m_base(base)
{
}

bool
TalbRegistry::Add(const std::string& shortName, TypeId tid)
{
    NS_ABORT_MSG_IF(shortName.empty() || shortName.find_first_of(",; =") != std::string::npos,
                    "TalbRegistry: '" << shortName << "' is not a usable " << m_family << " name");
    NS_ABORT_MSG_UNLESS(tid.IsChildOf(m_base),
                        "TalbRegistry: " << tid.GetName() << " is not a " << m_base.GetName());
    auto inserted = m_byShortName.emplace(shortName, tid);
    NS_ABORT_MSG_IF(!inserted.second && inserted.first->second != tid,
                    "TalbRegistry: " << m_family << " name '" << shortName << "' is taken by "
                                     << inserted.first->second.GetName());
    return true;
}

bool
TalbRegistry::Lookup(const std::string& name, TypeId* tid, std::string* error) const
{
    auto it = m_byShortName.find(name);
    if (it != m_byShortName.end())
    {
        *tid = it->second;
        return true;
    }
    TypeId found;
    if (TypeId::LookupByNameFailSafe(name, &found) && found.IsChildOf(m_base) &&
        found.HasConstructor())
    {
        *tid = found;
        return true;
    }
    std::string why;
    if (TypeId::LookupByNameFailSafe(name, &found))
    {
        why = found == m_base || found.IsChildOf(m_base)
                  ? " (an abstract " + m_base.GetName() + ")"
                  : " (a " + found.GetParent().GetName() + ", not a " + m_base.GetName() + ")";
    }
    *error = "unknown " + m_family + " '" + name + "'" + why + ": valid names are " + GetNames() +
             " or the TypeId name of a " + m_base.GetName() + " subclass";
    return false;
}

TypeId
TalbRegistry::Get(const std::string& name) const
{
    TypeId tid;
    std::string error;
    NS_ABORT_MSG_UNLESS(Lookup(name, &tid, &error), error);
    return tid;
}

std::vector<std::string>
TalbRegistry::GetShortNames() const
{
    std::vector<std::string> names;
    for (const auto& kv : m_byShortName)
    {
        names.push_back(kv.first);
    }
    return names;
}

std::string
TalbRegistry::GetNames() const
{
    std::string out;
    for (const auto& kv : m_byShortName)
    {
        out += (out.empty() ? "" : ", ") + kv.first;
    }
    return out;
}

std::string
TalbRegistry::GetShortName(TypeId tid) const
{
    for (const auto& kv : m_byShortName)
    {
        if (kv.second == tid)
        {
            return kv.first;
        }
    }
    return tid.GetName();
}

const std::string&
TalbRegistry::GetFamily() const
{
    return m_family;
}

namespace
{

/// A StringValue checker that accepts the names a registry resolves.
class RegistryNameChecker : public StringChecker
{
  public:
    RegistryNameChecker(const TalbRegistry* registry, bool orEmpty)
        : m_registry(registry),
          m_orEmpty(orEmpty)
    {
    }

    bool Check(const AttributeValue& value) const override
    {
        const auto* v = dynamic_cast<const StringValue*>(&value);
        TypeId tid;
        std::string error;
        return v && ((m_orEmpty && v->Get().empty()) || m_registry->Lookup(v->Get(), &tid, &error));
    }

    std::string GetValueTypeName() const override
    {
        return "ns3::StringValue";
    }

    bool HasUnderlyingTypeInformation() const override
    {
        return true;
    }

    std::string GetUnderlyingTypeInformation() const override
    {
        return m_registry->GetFamily() + " name: " + m_registry->GetNames() + " or a TypeId name" +
               (m_orEmpty ? " (or empty)" : "");
    }

    Ptr<AttributeValue> Create() const override
    {
        return ns3::Create<StringValue>();
    }

    bool Copy(const AttributeValue& source, AttributeValue& destination) const override
    {
        const auto* src = dynamic_cast<const StringValue*>(&source);
        auto* dst = dynamic_cast<StringValue*>(&destination);
        if (!src || !dst)
        {
            return false;
        }
        *dst = *src;
        return true;
    }

  private:
    const TalbRegistry* m_registry;
    bool m_orEmpty;
};

} // namespace

Ptr<const AttributeChecker>
MakeRegistryNameChecker(const TalbRegistry& registry, bool orEmpty)
{
    return Ptr<const AttributeChecker>(new RegistryNameChecker(&registry, orEmpty), false);
}

} // namespace ns3
