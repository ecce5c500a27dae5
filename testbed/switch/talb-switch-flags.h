/*
 * talb-switch's flags of a decision-core policy's settings, read from the policy's settings table
 * (model/lb/core/talb-lb-core-settings.h), the one the simulator's attributes come from: every row
 * with a flag is --<prefix>-<flag>=value, parsed in the row's unit (times in whole microseconds,
 * rates as 10Gbps or 0, enumerations by name in any case) and checked against the row's range,
 * and listed in --help with its range and default.
 */
#ifndef TALB_SWITCH_FLAGS_H
#define TALB_SWITCH_FLAGS_H

#include "ns3/talb-lb-core-settings.h"

#include <ostream>
#include <string>

namespace talb
{

/// What a settings table's flag is, apart from where its value goes.
struct FlagSpec
{
    std::string name;               ///< --<prefix>-<flag>
    lb::SettingKind kind;           ///< what its value is
    double min;                     ///< the row's range, in the row's unit
    double max;                     ///< ...
    lb::SettingSpellings spellings; ///< kEnum: its values
};

/**
 * Parses \p text for the flag \p spec into \p value (in the row's unit: ns, bit/s, ...).
 * \return false with *error naming the flag, the text and what it must be
 */
bool ParseFlagValue(const FlagSpec& spec,
                    const std::string& text,
                    double* value,
                    std::string* error);

/// \return \p value (in the row's unit) as the flag spells it: 500 (us), 10Gbps, pace, 0.05
std::string FlagValueText(const FlagSpec& spec, double value);

/// \return what the flag accepts: 1..10000000, 0..1, fixed or pace, 0 or a rate such as 10Gbps
std::string FlagRangeText(const FlagSpec& spec);

/**
 * Writes the --help entry of a flag: "  --name=V  help (range; default D)", wrapped under a
 * column of its own.
 */
void WriteFlagUsage(std::ostream& os, const FlagSpec& spec, const std::string& help, double value);

/// \return the flag spec of \p row of \p table (its name: --<prefix>-<flag>)
template <class C>
FlagSpec
SpecOf(const lb::SettingTable<C>& table, const lb::Setting<C>& row)
{
    return FlagSpec{std::string("--") + table.prefix + "-" + row.flag,
                    row.field.kind,
                    row.min,
                    row.max,
                    row.spellings};
}

/// \return the flag of attribute \p attribute of \p table ("--talb-table-size"); the attribute
/// itself when it has no flag
template <class C>
std::string
FlagOf(const lb::SettingTable<C>& table, const std::string& attribute)
{
    const lb::Setting<C>* row = table.Find(attribute);
    return row && row->flag ? SpecOf(table, *row).name : attribute;
}

/**
 * Parses flag \p name = \p text into \p config when \p name is a flag of \p table.
 * \return false when it is not one of them (\p *ok untouched); true with \p *ok false and
 * *error set when its value is refused
 */
template <class C>
bool
ParseTableFlag(const lb::SettingTable<C>& table,
               const std::string& name,
               const std::string& text,
               C* config,
               bool* ok,
               std::string* error)
{
    for (const lb::Setting<C>& row : table)
    {
        if (row.flag && SpecOf(table, row).name == name)
        {
            double value;
            *ok = ParseFlagValue(SpecOf(table, row), text, &value, error);
            if (*ok)
            {
                row.field.set(*config, value);
            }
            return true;
        }
    }
    return false;
}

/// Writes the --help entries of \p table's flags, with the defaults of \p defaults; the help
/// names other settings by their flags.
template <class C>
void
WriteTableUsage(std::ostream& os, const lb::SettingTable<C>& table, const C& defaults)
{
    for (const lb::Setting<C>& row : table)
    {
        if (row.flag)
        {
            std::string help = lb::ExpandHelp(row.help, [&table](const std::string& other) {
                return FlagOf(table, other);
            });
            WriteFlagUsage(os, SpecOf(table, row), help, row.field.get(defaults));
        }
    }
}

/// \return true when a row of \p table has a flag
template <class C>
bool
HasFlags(const lb::SettingTable<C>& table)
{
    for (const lb::Setting<C>& row : table)
    {
        if (row.flag)
        {
            return true;
        }
    }
    return false;
}

} // namespace talb

#endif /* TALB_SWITCH_FLAGS_H */
