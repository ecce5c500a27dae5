#ifndef TALB_SCENARIO_CONFIG_H
#define TALB_SCENARIO_CONFIG_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"

#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb
 * \brief The parameters of a talb scenario, declared once, set from a config file and/or the
 * command line, validated before anything is simulated, and written to run.json.
 *
 * Each parameter has a name, a kind (string, integer, real, bool, data rate, time, or one of a
 * fixed set of choices), a default and one line of help; CommandLine's --help lists them all.
 * Config files hold `name = value` lines (`#` starts a comment); the command line overrides the
 * file. Every error names where the bad value came from (file:line or --name) and what is wrong.
 */
class TalbScenarioConfig
{
  public:
    enum Kind
    {
        STRING,
        UINT,
        DOUBLE,
        BOOL,
        RATE,
        TIME,
        CHOICE
    };

    /// Declares a parameter; \p choices is the allowed set for CHOICE (comma-separated).
    void Declare(const std::string& name,
                 Kind kind,
                 const std::string& defaultValue,
                 const std::string& help,
                 const std::string& choices = "");

    /**
     * Sets a declared parameter after checking its value.
     * \param origin where the value came from, for messages ("file.cfg:12", "--leaves")
     * \return an empty string, or the error message
     */
    std::string Set(const std::string& name, const std::string& value, const std::string& origin);

    /// Reads `name = value` lines; returns the first error (with file:line) or an empty string.
    std::string LoadFile(const std::string& path);

    /**
     * Registers --config=FILE and one --name=value per parameter. A bad value stops parsing
     * with its message, via NS_FATAL_ERROR-free reporting: errors are collected and returned by
     * TakeErrors() so the caller can print them and exit cleanly.
     */
    void AddToCommandLine(CommandLine& cmd);
    std::vector<std::string> TakeErrors();

    bool Has(const std::string& name) const;
    std::string GetString(const std::string& name) const;
    uint64_t GetUint(const std::string& name) const;
    double GetDouble(const std::string& name) const;
    bool GetBool(const std::string& name) const;
    DataRate GetRate(const std::string& name) const;
    Time GetTime(const std::string& name) const;

    /// All parameters as a JSON object (`"name": value`), numbers unquoted.
    std::string ToJson() const;

    /// Splits \p text at \p sep, trims blanks and tabs, and drops empty items.
    static std::vector<std::string> Split(const std::string& text, char sep);

    /// Parses "1.5ms", "20us", "3s", "100ns" (the unit is required); false if malformed.
    static bool ParseTime(const std::string& text, Time* out);

  private:
    struct Param
    {
        Kind kind;
        std::string value;
        std::string help;
        std::vector<std::string> choices;
    };

    const Param& Lookup(const std::string& name) const;
    bool OnCommandLine(const std::string& name, const std::string& value);
    bool OnConfigFile(const std::string& path);

    std::map<std::string, Param> m_params;
    std::vector<std::string> m_order; //!< declaration order, for --help and run.json
    std::vector<std::string> m_errors;
};

} // namespace ns3

#endif /* TALB_SCENARIO_CONFIG_H */
