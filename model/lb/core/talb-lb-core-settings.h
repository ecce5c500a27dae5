/*
 * A policy's settings, declared once: one table per core policy, a plain array of rows {ns-3
 * attribute name, switch flag, field of the policy's Config, range, help}. The ns-3 selectors
 * build their TypeId attributes from it (TalbCoreAttributes, model/lb/) and the testbed's
 * switch its --<prefix>-<flag>=value options and their --help lines (testbed/switch/), so a new
 * setting is one row, and the two sides cannot disagree on a name, a default or a range.
 *
 * The default of a setting is the initialiser of its Config field (a default-constructed
 * Config's value): the core needs the field anyway, and nothing else states the value.
 */
#ifndef TALB_LB_CORE_SETTINGS_H
#define TALB_LB_CORE_SETTINGS_H

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>

namespace talb
{
namespace lb
{

/// What a setting's value is, and the unit of its range and default in the table.
enum class SettingKind : uint8_t
{
    kUnsigned, ///< an unsigned integer (ns-3: UintegerValue of the field's width)
    kReal,     ///< a real number (ns-3: DoubleValue)
    kTimeNs,   ///< a duration in ns (ns-3: TimeValue; the switch: whole microseconds)
    kRateBps,  ///< a rate in bit/s (ns-3: DataRateValue; the switch: 10Gbps, or 0)
    kEnum,     ///< one of named values (ns-3: EnumValue; the switch: a word, any case)
    kBool,     ///< true or false (ns-3: BooleanValue)
};

/// One value of an enumerated setting, as each side spells it.
struct SettingSpelling
{
    int value;             ///< the enumerator, as an int
    const char* attribute; ///< the ns-3 attribute's spelling, e.g. "GoBackN"
    const char* flag;      ///< the switch flag's, e.g. "gobackn"
};

/// The values of an enumerated setting, in the order messages and --help list them.
struct SettingSpellings
{
    const SettingSpelling* values{nullptr};
    uint32_t count{0};

    constexpr SettingSpellings() = default;

    template <uint32_t N>
    constexpr SettingSpellings(const SettingSpelling (&v)[N])
        : values(v),
          count(N)
    {
    }
};

/**
 * Where a setting lives in its table's Config \p C: its kind, and a getter and a setter that
 * carry the value as a double (every value a table holds is exact in one: integers below 2^53).
 * Made by UnsignedField<&Config::member>() and its siblings, or MakeField() for a setting that
 * sets several fields (one value shared by two Configs).
 */
template <class C>
struct SettingField
{
    SettingKind kind;
    uint8_t bytes; ///< kUnsigned: the field's width in bytes
    double (*get)(const C& config);
    void (*set)(C& config, double value);
};

/// One setting of a policy.
template <class C>
struct Setting
{
    const char* attribute; ///< the ns-3 attribute's name, e.g. "MaxReorder"
    /// the switch's flag after "--<prefix>-", e.g. "max-reorder"; nullptr: no flag (the
    /// simulator's only; the table says why)
    const char* flag;
    SettingField<C> field; ///< its kind and field; its default is the field's initialiser
    double min;            ///< least value, in the kind's unit (ns, bit/s, 0 or 1 for bools)
    double max;            ///< greatest value, in the same unit
    /// what it does, for the attribute's help and the flag's --help line; "{Name}" refers to
    /// setting Name (each side writes its own name for it)
    const char* help;
    SettingSpellings spellings{}; ///< kEnum: the values and their spellings
};

/// A policy's settings: its rows and the prefix of its switch flags.
template <class C>
struct SettingTable
{
    const char* prefix; ///< the switch's flags are --<prefix>-<flag>
    const Setting<C>* rows;
    uint32_t size;

    template <uint32_t N>
    constexpr SettingTable(const char* p, const Setting<C> (&r)[N])
        : prefix(p),
          rows(r),
          size(N)
    {
    }

    /// \p other's rows under the flag prefix \p p (a policy that shares another's settings)
    constexpr SettingTable(const char* p, const SettingTable& other)
        : prefix(p),
          rows(other.rows),
          size(other.size)
    {
    }

    const Setting<C>* begin() const
    {
        return rows;
    }

    const Setting<C>* end() const
    {
        return rows + size;
    }

    /// \return the row of attribute \p attribute, or nullptr
    const Setting<C>* Find(const std::string& attribute) const
    {
        for (const Setting<C>& s : *this)
        {
            if (attribute == s.attribute)
            {
                return &s;
            }
        }
        return nullptr;
    }
};

/// A chain of data members from a Config to a field: Path<&C::member>, or
/// Path<&C::inner, &Inner::member> for a field of a Config inside the table's.
template <auto... Members>
struct Path
{
    template <class C>
    static decltype(auto) Of(C& config)
    {
        return (config.*....*Members);
    }
};

namespace detail
{

/// The class a pointer to data member belongs to.
template <class M>
struct MemberOf;

template <class C, class T>
struct MemberOf<T C::*>
{
    using Class = C;
};

template <class T>
double
ToDouble(T value)
{
    if constexpr (std::is_enum_v<T>)
    {
        return static_cast<double>(static_cast<int>(value));
    }
    else
    {
        return static_cast<double>(value);
    }
}

template <class T>
void
Assign(T& field, double value)
{
    if constexpr (std::is_enum_v<T>)
    {
        field = static_cast<T>(static_cast<int>(value));
    }
    else if constexpr (std::is_same_v<T, bool>)
    {
        field = value != 0;
    }
    else
    {
        field = static_cast<T>(value);
    }
}

template <class C, class First, class... Rest>
double
Get(const C& config)
{
    return ToDouble(First::Of(config));
}

template <class C, class... Paths>
void
Set(C& config, double value)
{
    (Assign(Paths::Of(config), value), ...);
}

/// \return true when a field of type \p T can hold a setting of kind \p K
template <SettingKind K, class T>
constexpr bool
Holds()
{
    switch (K)
    {
    case SettingKind::kUnsigned:
        return std::is_integral_v<T> && std::is_unsigned_v<T> && !std::is_same_v<T, bool>;
    case SettingKind::kReal:
        return std::is_same_v<T, double>;
    case SettingKind::kTimeNs:
        return std::is_same_v<T, int64_t>;
    case SettingKind::kRateBps:
        return std::is_same_v<T, uint64_t>;
    case SettingKind::kEnum:
        return std::is_enum_v<T>;
    case SettingKind::kBool:
        return std::is_same_v<T, bool>;
    }
    return false;
}

} // namespace detail

/**
 * \return the field of kind \p K that the paths \p Paths lead to from a \p C: read from the
 * first, written to all (a setting two Configs inside \p C share)
 */
template <SettingKind K, class C, class First, class... Rest>
constexpr SettingField<C>
MakeField()
{
    using T = std::remove_reference_t<decltype(First::Of(std::declval<C&>()))>;
    static_assert(detail::Holds<K, T>(), "the field's type does not hold this kind of setting");
    static_assert(
        (detail::Holds<K, std::remove_reference_t<decltype(Rest::Of(std::declval<C&>()))>>() &&
         ...),
        "a shared setting's fields hold one kind");
    return {K,
            static_cast<uint8_t>(sizeof(T)),
            &detail::Get<C, First, Rest...>,
            &detail::Set<C, First, Rest...>};
}

/// \return the unsigned setting held in data member \p M of its Config
template <auto M>
constexpr auto
UnsignedField()
{
    return MakeField<SettingKind::kUnsigned,
                     typename detail::MemberOf<decltype(M)>::Class,
                     Path<M>>();
}

/// \return the real setting held in data member \p M of its Config
template <auto M>
constexpr auto
RealField()
{
    return MakeField<SettingKind::kReal, typename detail::MemberOf<decltype(M)>::Class, Path<M>>();
}

/// \return the duration (ns) held in data member \p M of its Config
template <auto M>
constexpr auto
TimeField()
{
    return MakeField<SettingKind::kTimeNs,
                     typename detail::MemberOf<decltype(M)>::Class,
                     Path<M>>();
}

/// \return the rate (bit/s) held in data member \p M of its Config
template <auto M>
constexpr auto
RateField()
{
    return MakeField<SettingKind::kRateBps,
                     typename detail::MemberOf<decltype(M)>::Class,
                     Path<M>>();
}

/// \return the enumerated setting held in data member \p M of its Config
template <auto M>
constexpr auto
EnumField()
{
    return MakeField<SettingKind::kEnum, typename detail::MemberOf<decltype(M)>::Class, Path<M>>();
}

/// \return the boolean setting held in data member \p M of its Config
template <auto M>
constexpr auto
BoolField()
{
    return MakeField<SettingKind::kBool, typename detail::MemberOf<decltype(M)>::Class, Path<M>>();
}

/// The longest duration a setting takes, 10 s (the switch's flags, in us: up to 10000000).
constexpr double kMaxTimeNs = 1e10;

/// The largest value a table writes for "no upper bound" of a real setting.
constexpr double kNoMax = std::numeric_limits<double>::max();

/**
 * \return \p help with each "{Name}" replaced by \p name(Name): the way a side (ns-3's
 * attribute help, the switch's --help) refers to another setting
 */
std::string ExpandHelp(const char* help,
                       const std::function<std::string(const std::string&)>& name);

/// \return \p value is within \p setting's range (and, for kEnum, one of its values)
template <class C>
bool
InRange(const Setting<C>& setting, double value)
{
    if (setting.field.kind == SettingKind::kEnum)
    {
        for (uint32_t i = 0; i < setting.spellings.count; ++i)
        {
            if (setting.spellings.values[i].value == static_cast<int>(value))
            {
                return true;
            }
        }
        return false;
    }
    return value >= setting.min && value <= setting.max;
}

} // namespace lb
} // namespace talb

#endif /* TALB_LB_CORE_SETTINGS_H */
