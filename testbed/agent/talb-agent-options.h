/*
 * talb-agent's application options (the arguments after EAL's "--"), parsed without DPDK so
 * that the unit tests cover them.
 */
#ifndef TALB_AGENT_OPTIONS_H
#define TALB_AGENT_OPTIONS_H

#include "talb-tagger.h"

#include <cstdint>
#include <string>

namespace talb
{

struct AgentOptions
{
    std::string hostPort;       ///< --host-port: ethdev port id or device name (required)
    std::string wirePort;       ///< --wire-port: ethdev port id or device name (required)
    TaggerConfig tagger;        ///< --dscp-map, --dscp-only, --mtu, --max-flows
    uint32_t statsInterval = 1; ///< --stats-interval: seconds between stats lines, 0 = none
    uint32_t idleSleepUs = 0;   ///< --idle-sleep-us: sleep when both ports are idle, 0 = poll
    bool help = false;          ///< --help
};

/// \return the usage text for program name prog
std::string AgentUsage(const std::string& prog);

/**
 * Parses argv[1..argc-1]: each argument is --name=value or a --flag.
 * \return true on success; false with *error naming the argument and what is wrong with it
 */
bool ParseAgentOptions(int argc, char** argv, AgentOptions* options, std::string* error);

} // namespace talb

#endif /* TALB_AGENT_OPTIONS_H */
