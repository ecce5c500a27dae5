#ifndef TALB_CORE_ATTRIBUTES_H
#define TALB_CORE_ATTRIBUTES_H

#include "ns3/attribute.h"
#include "ns3/object-base.h"
#include "ns3/talb-lb-core-settings.h"
#include "ns3/type-id.h"

#include <string>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief The ns-3 attributes of a decision-core policy's settings (talb::lb::SettingTable), the
 * way ns-3's AddAttribute chain is built in one place per class: one attribute per row, named
 * and explained by the row, its default the field's in a default-constructed Config, its
 * checker from the row's range, its value the field of the owner's Config member.
 *
 * Kinds map to values: unsigned to UintegerValue (of the field's width), real to DoubleValue,
 * time to TimeValue, rate to DataRateValue, enum to EnumValue (the rows' ns-3 spellings), bool
 * to BooleanValue.
 */
class TalbCoreAttributes
{
  public:
    /**
     * Adds an attribute to \p tid for every row of \p table.
     * \param config the owner's member that holds the values
     * \param changed the owner's method called after every set (a running policy retunes), or
     *        nullptr
     * \return \p tid (a TypeId is a handle: its attributes live in ns-3's TypeId database)
     */
    template <class Owner, class C>
    static TypeId Add(TypeId tid,
                      const talb::lb::SettingTable<C>& table,
                      C Owner::*config,
                      void (Owner::*changed)() = nullptr);

    /// \return \p value as an attribute value of \p kind (as a row stores it: ns, bit/s, ...)
    static Ptr<AttributeValue> MakeValue(talb::lb::SettingKind kind, double value);
    /// Reads \p value, of \p kind, as a row stores it into \p out. \return false: wrong type
    static bool ReadValue(talb::lb::SettingKind kind, const AttributeValue& value, double* out);
    /// Writes \p value, of \p kind, into \p out. \return false: wrong type
    static bool WriteValue(talb::lb::SettingKind kind, double value, AttributeValue& out);

  private:
    /// Adds the attribute of \p help (expanded), \p field, \p min, \p max, \p spellings, with
    /// \p initial and \p accessor.
    static void AddOne(TypeId tid,
                       const char* name,
                       const char* help,
                       talb::lb::SettingKind kind,
                       uint8_t bytes,
                       double min,
                       double max,
                       const talb::lb::SettingSpellings& spellings,
                       double initial,
                       Ptr<const AttributeAccessor> accessor);

    /// The accessor of one row: the field of the owner's Config member.
    template <class Owner, class C>
    class Accessor : public AttributeAccessor
    {
      public:
        Accessor(const talb::lb::Setting<C>& setting, C Owner::*config, void (Owner::*changed)())
            : m_setting(setting),
              m_config(config),
              m_changed(changed)
        {
        }

        bool Set(ObjectBase* object, const AttributeValue& value) const override
        {
            Owner* owner = dynamic_cast<Owner*>(object);
            double v;
            if (!owner || !ReadValue(m_setting.field.kind, value, &v))
            {
                return false;
            }
            m_setting.field.set(owner->*m_config, v);
            if (m_changed)
            {
                (owner->*m_changed)();
            }
            return true;
        }

        bool Get(const ObjectBase* object, AttributeValue& value) const override
        {
            const Owner* owner = dynamic_cast<const Owner*>(object);
            return owner &&
                   WriteValue(m_setting.field.kind, m_setting.field.get(owner->*m_config), value);
        }

        bool HasGetter() const override
        {
            return true;
        }

        bool HasSetter() const override
        {
            return true;
        }

      private:
        const talb::lb::Setting<C>& m_setting;
        C Owner::*m_config;
        void (Owner::*m_changed)();
    };
};

template <class Owner, class C>
TypeId
TalbCoreAttributes::Add(TypeId tid,
                        const talb::lb::SettingTable<C>& table,
                        C Owner::*config,
                        void (Owner::*changed)())
{
    const C defaults{};
    for (const talb::lb::Setting<C>& s : table)
    {
        AddOne(tid,
               s.attribute,
               s.help,
               s.field.kind,
               s.field.bytes,
               s.min,
               s.max,
               s.spellings,
               s.field.get(defaults),
               Create<Accessor<Owner, C>>(s, config, changed));
    }
    return tid;
}

} // namespace ns3

#endif /* TALB_CORE_ATTRIBUTES_H */
