#ifndef TALB_SCENARIO_CONFIG_H
#define TALB_SCENARIO_CONFIG_H

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/talb-registry.h"

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The parameters of a talb scenario, declared once, set from a config file and/or the
 * command line, validated before anything is simulated, and written to run.json.
 *
 * Each parameter is declared once: a name, a kind (string, integer, real, bool, data rate,
 * time, queue size, one of a fixed set of choices, or names of a plug-in family's registry), a
 * default, an optional range for numbers, and one line of help. Every value is parsed and
 * checked against its declaration once, when it is set (the getters return what was parsed),
 * and --help shows the declaration (choices, names, range, default). Config files hold `name =
 * value` lines (`#` starts a comment); the command line overrides the file. Every error names where
 * the bad value came from (file:line or --name) and what is wrong.
 */
class TalbScenarioConfig
{
  public:
    /// What a parameter holds.
    enum Kind
    {
        STRING, //!< any text
        UINT,   //!< a non-negative integer
        DOUBLE, //!< a real number
        BOOL,   //!< true or false
        RATE,   //!< a data rate: 10Gbps
        TIME,   //!< a time with its unit: 2us
        SIZE,   //!< a queue size, 1MB or 100p; empty means the helper's default
        CHOICE, //!< one of a fixed comma-separated set
        NAME,   //!< one name of a plug-in family (short or TypeId name)
        NAMES   //!< a comma-separated list of such names, at least one
    };

    /// The allowed interval of a UINT or DOUBLE parameter.
    struct Range
    {
        double min{-std::numeric_limits<double>::infinity()};
        double max{std::numeric_limits<double>::infinity()};
        bool maxOpen{false}; //!< max itself is excluded: [min, max)
    };

    /// \return [min, max], or [min, max) with \p maxOpen
    static Range Between(double min, double max, bool maxOpen = false);
    /// \return [min, infinity)
    static Range AtLeast(double min);

    /// Declares a parameter; \p choices is the allowed set for CHOICE (comma-separated).
    void Declare(const std::string& name,
                 Kind kind,
                 const std::string& defaultValue,
                 const std::string& help,
                 const std::string& choices = "");
    /// Declares a UINT or DOUBLE parameter whose values must lie in \p range.
    void Declare(const std::string& name,
                 Kind kind,
                 const std::string& defaultValue,
                 const std::string& help,
                 Range range);
    /// Declares a NAME or NAMES parameter checked against \p registry (which outlives this).
    void Declare(const std::string& name,
                 Kind kind,
                 const std::string& defaultValue,
                 const std::string& help,
                 const TalbRegistry& registry);
    /// Declares \p name as \p other declares it, with \p other's current value as its default.
    void Declare(const TalbScenarioConfig& other, const std::string& name);

    /// \return the declared names, in declaration order
    const std::vector<std::string>& GetParameterNames() const;

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

    /**
     * The examples' start: registers the parameters on \p cmd, parses \p argv, then, when every
     * value was good on its own, asks \p check for the errors of values taken together. Each
     * error is printed as "PROGRAM: error: ..." on stderr, followed by a line saying that nothing
     * was simulated.
     * \return whether every value was good (if not, the program exits with status 2)
     */
    bool ParseCommandLine(CommandLine& cmd,
                          int argc,
                          char* argv[],
                          const std::function<std::vector<std::string>()>& check);

    bool Has(const std::string& name) const;
    /// \return whether \p name was given a value (config file, command line or Set()), as
    /// opposed to keeping its default
    bool IsGiven(const std::string& name) const;
    std::string GetString(const std::string& name) const;
    /// \return the items of a NAMES parameter
    std::vector<std::string> GetNames(const std::string& name) const;
    uint64_t GetUint(const std::string& name) const;
    double GetDouble(const std::string& name) const;
    bool GetBool(const std::string& name) const;
    DataRate GetRate(const std::string& name) const;
    Time GetTime(const std::string& name) const;

    /**
     * Record the ns-3 attribute defaults the program was given, NS_ATTRIBUTE_DEFAULT's and then
     * \p argv's --ns3::Type::Name=Value (the later value of a name wins, as ns-3 applies them),
     * so that ToJson() lists them among the parameters under their full names: runs that
     * differ only in one (a sweep over it) are told apart.
     */
    void RecordAttributes(int argc, char* argv[]);

    /// All parameters, then the recorded attributes, as a JSON object (`"name": value`),
    /// numbers unquoted (attributes as given, quoted).
    std::string ToJson() const;

  private:
    /// A value as its kind reads it (the field of the parameter's kind is set).
    struct Parsed
    {
        uint64_t integer{0};
        double real{0};
        bool flag{false};
        DataRate rate;
        Time time;
    };

    /// One declaration and the current value.
    struct Param
    {
        Kind kind;
        std::string value; //!< as given (trimmed)
        Parsed parsed;     //!< value, parsed when it was set
        std::string help;
        std::vector<std::string> choices;
        Range range;
        const TalbRegistry* registry{nullptr};
        bool given{false}; //!< set by Set(), not only declared
    };

    void Add(const std::string& name, Param param, const std::string& defaultValue);
    /**
     * Parses \p value as \p p's kind into \p parsed and checks it against the declaration.
     * \return what \p value should have been for \p p ("a number"), or empty when it is valid
     */
    static std::string Check(const Param& p, const std::string& value, Parsed* parsed);
    /// Check() of NAME and NAMES parameters: every name known to the registry.
    static std::string CheckNames(const Param& p, const std::string& value);
    /// \return the declaration as --help shows it: choices, names, range, default
    static std::string Describe(const Param& p);

    /// \return " (did you mean ...? ...)": the declared names nearest \p name, for errors
    std::string Suggest(const std::string& name) const;
    const Param& Lookup(const std::string& name) const;
    bool OnCommandLine(const std::string& name, const std::string& value);
    bool OnConfigFile(const std::string& path);

    std::map<std::string, Param> m_params;
    std::vector<std::string> m_order; //!< declaration order, for --help and run.json
    std::vector<std::string> m_errors;
    /// RecordAttributes: (full name, value), in the order first given
    std::vector<std::pair<std::string, std::string>> m_attributes;
};

} // namespace ns3

#endif /* TALB_SCENARIO_CONFIG_H */
