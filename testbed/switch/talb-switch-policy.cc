#include "talb-switch-policy.h"

#include "talb-switch-flags.h"

#include "ns3/talb-lb-core-rps.h"

#include <cstdio>
#include <sstream>

namespace talb
{

namespace
{

constexpr uint32_t kMaxLeaves = 65536; ///< a route's leaf= is below it

/// Configures a policy whose Configure(config) returns bool; names it in the error.
template <class P>
std::unique_ptr<lb::Policy>
Configured(const char* name, const typename P::Config& config, std::string* error)
{
    auto p = std::make_unique<P>();
    if (!p->Configure(config))
    {
        *error = std::string(name) + ": " + P::Check(config);
        return nullptr;
    }
    return p;
}

/// A TaLB version: sized for the ports, its fallback set.
template <class P>
std::unique_ptr<lb::Policy>
TensorAware(const char* name,
            const typename P::Config& config,
            const PolicyContext& context,
            std::string* error)
{
    auto p = std::make_unique<P>();
    if (!p->Configure(config, context.nPorts))
    {
        *error = std::string(name) + ": " + P::Check(config);
        return nullptr;
    }
    p->SetFallback(context.fallback, context.goBackNFallback);
    return p;
}

/// The tensor table's statistics line of a TaLB version (the same fields for both).
std::string
TensorAwareReport(const lb::Policy& policy, int64_t nowNs)
{
    const auto& t = static_cast<const lb::TensorPolicy&>(policy);
    const lb::TensorTableStats& s = t.GetTableStats();
    std::string line = "table";
    char field[64];
    s.ForEach([&](const char* name, uint64_t value) {
        std::snprintf(field, sizeof(field), " %s=%lu", name, value);
        line += field;
    });
    std::snprintf(field, sizeof(field), " held=%u live=%u", t.HeldEntries(), t.LiveEntries(nowNs));
    line += field;
    return line;
}

// The registry: one entry per load balancer, in the order --help lists them.
const std::vector<PolicyKind> kKinds = {
    {"ecmp",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext&, std::string*) {
         auto p = std::make_unique<lb::Ecmp>();
         lb::Ecmp::Config config = o.ecmp;
         config.switchId = o.switchId;
         p->Configure(config);
         return std::unique_ptr<lb::Policy>(std::move(p));
     },
     /* report */ nullptr},
    {"eecmp",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext&, std::string*) {
         // ECMP with RoCEv2's destination queue pair in the hash (the pipeline parses it).
         auto p = std::make_unique<lb::EEcmp>();
         lb::Ecmp::Config config = o.ecmp;
         config.switchId = o.switchId;
         p->Configure(config);
         return std::unique_ptr<lb::Policy>(std::move(p));
     },
     /* report */ nullptr},
    {"pin",
     /* canBeFallback */ false,
     /* needsFallback */ false,
     [](const PolicyOptions&, const PolicyContext&, std::string*) {
         // Meta's path pinning: the uplink follows the destination host's port (hostport=).
         return std::unique_ptr<lb::Policy>(std::make_unique<lb::Pin>());
     },
     /* report */ nullptr,
     /* needsHostPort */ true},
    {"rps",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions&, const PolicyContext&, std::string*) {
         return std::unique_ptr<lb::Policy>(std::make_unique<lb::Rps>());
     },
     /* report */ nullptr},
    {"letflow",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext&, std::string* error) {
         return Configured<lb::LetFlow>("letflow", o.letflow, error);
     },
     /* report */ nullptr},
    {"drill",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext&, std::string* error) {
         return Configured<lb::Drill>("drill", o.drill, error);
     },
     /* report */ nullptr},
    {"presto",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext&, std::string* error) {
         return Configured<lb::Presto>("presto", o.presto, error);
     },
     /* report */ nullptr},
    {"hermes",
     /* canBeFallback */ true,
     /* needsFallback */ false,
     [](const PolicyOptions& o, const PolicyContext& c, std::string* error) {
         // Each uplink is its own path (no switch hears from another); its rate is the port's.
         lb::Hermes::Config config = o.hermes;
         config.portPath.resize(c.nPorts);
         config.portRateBps.resize(c.nPorts);
         for (uint32_t p = 0; p < c.nPorts; ++p)
         {
             config.portPath[p] = p;
             config.portRateBps[p] = c.ports->RateBps(p);
         }
         config.nPaths = c.nPorts;
         config.nLeaves = kMaxLeaves;
         auto p = Configured<lb::Hermes>("hermes", config, error);
         if (p)
         {
             static_cast<lb::Hermes&>(*p).BindRemote(c.remote);
         }
         return p;
     },
     /* report */ nullptr},
    {"talb",
     /* canBeFallback */ false,
     /* needsFallback */ true,
     [](const PolicyOptions& o, const PolicyContext& c, std::string* error) {
         return TensorAware<lb::TensorAwareV2>("talb", o.talb.v2, c, error);
     },
     /* report */ &TensorAwareReport},
    {"talb-v1",
     /* canBeFallback */ false,
     /* needsFallback */ true,
     [](const PolicyOptions& o, const PolicyContext& c, std::string* error) {
         return TensorAware<lb::TensorAwareV1>("talb-v1", o.talb.v1, c, error);
     },
     /* report */ &TensorAwareReport},
};

/// One policy's settings as flags: its settings table and its Config in PolicyOptions.
struct FlagGroup
{
    const char* heading; ///< --help's line above its flags
    bool (*parse)(const std::string& name,
                  const std::string& value,
                  PolicyOptions* options,
                  bool* ok,
                  std::string* error);
    void (*usage)(std::ostream& os);
};

/// The flags of settings table \p Table, whose values go to PolicyOptions::*\p Member.
template <class C, C PolicyOptions::*Member, const lb::SettingTable<C>& (*Table)()>
FlagGroup
Flags(const char* heading)
{
    return FlagGroup{
        heading,
        [](const std::string& name,
           const std::string& value,
           PolicyOptions* options,
           bool* ok,
           std::string* error) {
            return ParseTableFlag(Table(), name, value, &(options->*Member), ok, error);
        },
        [](std::ostream& os) { WriteTableUsage(os, Table(), PolicyOptions().*Member); }};
}

// The policies' settings, in the order --help lists them: one entry per settings table.
const FlagGroup kFlagGroups[] = {
    Flags<lb::Ecmp::Config, &PolicyOptions::ecmp, &lb::Ecmp::Settings>("ECMP (ecmp):"),
    Flags<lb::LetFlow::Config, &PolicyOptions::letflow, &lb::LetFlow::Settings>(
        "LetFlow (letflow; the simulator's TalbLetFlowLb attributes):"),
    Flags<lb::Drill::Config, &PolicyOptions::drill, &lb::Drill::Settings>(
        "DRILL (drill; TalbDrillLb's):"),
    Flags<lb::Presto::Config, &PolicyOptions::presto, &lb::Presto::Settings>(
        "Presto (presto; TalbPrestoLb's):"),
    Flags<lb::Hermes::Config, &PolicyOptions::hermes, &lb::Hermes::Settings>(
        "Hermes (hermes; TalbHermesLb's; it senses this switch's own uplinks: queue delay, and\n"
        "the share of packets it marked CE for routes with leaf=):"),
    Flags<lb::TensorAwareConfig, &PolicyOptions::talb, &lb::TensorAwareConfig::Settings>(
        "TaLB (talb is v2, talb-v1 v1; TalbTensorAwareLb's; v2: and v1: say which takes it):"),
};

} // namespace

bool
ParsePolicyFlag(const std::string& name,
                const std::string& value,
                PolicyOptions* options,
                bool* ok,
                std::string* error)
{
    for (const FlagGroup& g : kFlagGroups)
    {
        if (g.parse(name, value, options, ok, error))
        {
            return true;
        }
    }
    return false;
}

void
WritePolicyFlagsUsage(std::ostream& os)
{
    for (const FlagGroup& g : kFlagGroups)
    {
        std::ostringstream flags;
        g.usage(flags);
        if (!flags.str().empty())
        {
            os << g.heading << "\n" << flags.str();
        }
    }
}

bool
CheckPolicyOptions(const PolicyOptions& options, std::string* error)
{
    const lb::Hermes::Config& h = options.hermes;
    const auto& hermes = lb::Hermes::Settings();
    if (h.delayLowNs > h.delayHighNs)
    {
        *error = FlagOf(hermes, "DelayLow") + ": " + std::to_string(h.delayLowNs / 1000) +
                 " exceeds " + FlagOf(hermes, "DelayHigh") + " " +
                 std::to_string(h.delayHighNs / 1000);
        return false;
    }
    const lb::TensorAwareV2::Config& t = options.talb.v2;
    const auto& talb = lb::TensorAwareConfig::Settings();
    const std::string table = FlagOf(talb, "TableSize");
    if ((t.tableSize & (t.tableSize - 1)) != 0)
    {
        *error = table + ": " + std::to_string(t.tableSize) + " is not a power of two";
        return false;
    }
    if (t.probeLimit > t.tableSize)
    {
        *error = FlagOf(talb, "ProbeLimit") + ": " + std::to_string(t.probeLimit) +
                 " exceeds the table size " + std::to_string(t.tableSize);
        return false;
    }
    const bool pace = t.windowMode == lb::TensorAwareV2::WindowMode::kPace;
    const std::string active = FlagOf(talb, "ActiveWindow");
    const std::string longestFlag = pace ? FlagOf(talb, "MaxActiveWindow") : active;
    if (pace && t.maxActiveWindowNs < t.activeWindowNs)
    {
        *error = longestFlag + ": " + std::to_string(t.maxActiveWindowNs / 1000) + " is below " +
                 active + " " + std::to_string(t.activeWindowNs / 1000);
        return false;
    }
    const int64_t longest = pace ? t.maxActiveWindowNs : t.activeWindowNs;
    if (t.stallTimeoutNs > 0 && t.stallTimeoutNs <= longest)
    {
        *error = FlagOf(talb, "StallTimeout") + ": " + std::to_string(t.stallTimeoutNs / 1000) +
                 " is not above " + longestFlag + " " + std::to_string(longest / 1000);
        return false;
    }
    return true;
}

const std::vector<PolicyKind>&
PolicyKinds()
{
    return kKinds;
}

const PolicyKind*
FindPolicyKind(const std::string& name)
{
    for (const PolicyKind& k : kKinds)
    {
        if (name == k.name)
        {
            return &k;
        }
    }
    return nullptr;
}

std::string
PolicyNames(bool fallbacks)
{
    std::string names;
    for (const PolicyKind& k : kKinds)
    {
        if (!fallbacks || k.canBeFallback)
        {
            names += (names.empty() ? "" : ", ") + std::string(k.name);
        }
    }
    return names;
}

std::unique_ptr<lb::Policy>
PolicySet::MakeFallback(const char* option,
                        const std::string& name,
                        const PolicyOptions& options,
                        const PolicyContext& context,
                        std::string* error)
{
    const PolicyKind* kind = FindPolicyKind(name);
    if (!kind || !kind->canBeFallback)
    {
        *error = std::string(option) + ": '" + name + "' is not one of " + PolicyNames(true);
        return nullptr;
    }
    std::unique_ptr<lb::Policy> p = kind->make(options, context, error);
    if (!p)
    {
        *error = std::string(option) + ": " + *error;
    }
    return p;
}

bool
PolicySet::Build(const PolicyOptions& options,
                 uint32_t nPorts,
                 const lb::PortView* ports,
                 const lb::RemoteView* remote,
                 lb::Events* events,
                 std::string* error)
{
    m_kind = FindPolicyKind(options.name);
    if (!m_kind)
    {
        *error = "unknown load balancer '" + options.name + "' (" + PolicyNames() + ")";
        return false;
    }
    m_random = std::make_unique<lb::SplitMixRandom>(options.seed);
    m_fallbackRandom = std::make_unique<lb::SplitMixRandom>(options.seed + 1);
    PolicyContext context;
    context.nPorts = nPorts;
    context.ports = ports;
    context.remote = remote;
    if (m_kind->needsFallback)
    {
        m_fallback = MakeFallback("fallback", options.fallback, options, context, error);
        if (!m_fallback)
        {
            return false;
        }
        m_fallback->Bind(ports, m_fallbackRandom.get(), events);
        context.fallback = m_fallback.get();
        if (options.goBackNFallback != "none")
        {
            m_goBackNRandom = std::make_unique<lb::SplitMixRandom>(options.seed + 2);
            m_goBackNFallback =
                MakeFallback("gobackn-fallback", options.goBackNFallback, options, context, error);
            if (!m_goBackNFallback)
            {
                return false;
            }
            m_goBackNFallback->Bind(ports, m_goBackNRandom.get(), events);
            context.goBackNFallback = m_goBackNFallback.get();
        }
    }
    m_main = m_kind->make(options, context, error);
    if (!m_main)
    {
        return false;
    }
    m_main->Bind(ports, m_random.get(), events);
    return true;
}

std::string
PolicySet::Report(int64_t nowNs) const
{
    return m_kind && m_kind->report ? m_kind->report(*m_main, nowNs) : std::string();
}

} // namespace talb
