/*
 * talb-switch's application options (the arguments after EAL's "--"), parsed without DPDK so
 * that the unit tests cover them.
 */
#ifndef TALB_SWITCH_OPTIONS_H
#define TALB_SWITCH_OPTIONS_H

#include "talb-switch-pipeline.h"
#include "talb-switch-policy.h"

#include <cstdint>
#include <string>

namespace talb
{

struct SwitchOptions
{
    std::string config;         ///< --config: the ports and routes file (required)
    PipelineConfig pipeline;    ///< --labels, --ecn-threshold, --no-ecn, --buffer, ...
    PolicyOptions policy;       ///< --lb, --fallback, --seed, --switch-id, policy knobs
    uint32_t mtu = 1500;        ///< --mtu: the ports' MTU
    uint32_t statsInterval = 1; ///< --stats-interval: seconds between stats lines, 0 = none
    uint32_t idleSleepUs = 0;   ///< --idle-sleep-us: 0 busy-polls
    bool help = false;          ///< --help
};

/// \return the usage text for program name prog
std::string SwitchUsage(const std::string& prog);

/**
 * Parses argv[1..argc-1]: each argument is --name=value or a --flag.
 * \return true on success; false with *error naming the argument and what is wrong with it
 */
bool ParseSwitchOptions(int argc, char** argv, SwitchOptions* options, std::string* error);

} // namespace talb

#endif /* TALB_SWITCH_OPTIONS_H */
