/*
 * talb-switch's configuration file: its ports and its routes, parsed without DPDK. Every error
 * names the file and line and what is wrong ("leaf0.conf:7: route 10.250.0.0/24: port 5 is
 * not defined").
 *
 *   # comment
 *   port <id> <device> [rate=<rate>] [ecn=<bytes>] [buffer=<bytes>]
 *   route <a.b.c.d>/<len> <port>[,<port>...] [leaf=<n>] [hostport=<n>]
 *
 * Port ids are 0..N-1, each defined once, in any order; <device> is an ethdev port id or a
 * device name from the EAL's --vdev/-a arguments (net_af_packet0, 0000:3b:00.0). rate shapes
 * the port's egress (100Mbps, 2.5Gbps; default: unshaped), ecn overrides the ECN marking
 * threshold and buffer the port's buffer (bytes). A route sends a destination prefix to one
 * port, or to several, among which the load balancer chooses per packet; the longest prefix
 * wins. leaf names the leaf the prefix lives under (for policies that care; default unknown);
 * hostport, on a host's /32, the port it hangs from under that leaf (pin pins by it).
 */
#ifndef TALB_SWITCH_CONFIG_H
#define TALB_SWITCH_CONFIG_H

#include <cstdint>
#include <string>
#include <vector>

namespace talb
{

constexpr uint32_t kMaxSwitchPorts = 16;
constexpr uint32_t kMaxRoutes = 4096;
constexpr uint32_t kNoLeaf = UINT32_MAX;
constexpr uint32_t kNoHostPort = UINT32_MAX;

struct PortSpec
{
    uint32_t id = 0;
    std::string device;       ///< ethdev port id or device name
    uint64_t rateBps = 0;     ///< egress shaping rate, 0 = unshaped (line rate)
    int64_t ecnBytes = -1;    ///< ECN marking threshold, -1 = the command line's default
    int64_t bufferBytes = -1; ///< egress buffer, -1 = the command line's default
    uint32_t line = 0;        ///< where it was defined
};

struct RouteSpec
{
    uint32_t prefix = 0; ///< host order, host bits zero
    uint8_t length = 0;  ///< 0..32
    std::vector<uint32_t> ports;
    uint32_t leaf = kNoLeaf;
    uint32_t hostPort = kNoHostPort; ///< the destination host's port under its leaf (a /32)
    uint32_t line = 0;
};

struct SwitchConfig
{
    std::vector<PortSpec> ports; ///< indexed by port id
    std::vector<RouteSpec> routes;
};

/**
 * Parses a configuration's text. \p name is what error messages call the file.
 * \return true on success; false with *error = "name:line: what is wrong"
 */
bool ParseSwitchConfig(const std::string& text,
                       const std::string& name,
                       SwitchConfig* config,
                       std::string* error);

/// Reads and parses the file at \p path (errors as ParseSwitchConfig, or "path: cannot read").
bool LoadSwitchConfig(const std::string& path, SwitchConfig* config, std::string* error);

/// Parses a rate such as 100Mbps, 2.5Gbps, 500kbps, 1000bps. \return false when malformed
bool ParseRate(const std::string& text, uint64_t* bps);

/// \return \p bps as ParseRate() reads it, in the largest unit that divides it (10Gbps)
std::string FormatRate(uint64_t bps);

/// Parses a dotted IPv4 address into host order. \return false when malformed
bool ParseIpv4(const std::string& text, uint32_t* address);

/// \return \p address (host order) as a.b.c.d
std::string FormatIpv4(uint32_t address);

} // namespace talb

#endif /* TALB_SWITCH_CONFIG_H */
