#include "talb-server-layout.h"

#include "ns3/abort.h"

namespace ns3
{

TalbServerLayout::TalbServerLayout(uint32_t leaves,
                                   uint32_t hostsPerLeaf,
                                   uint32_t gpusPerServer,
                                   bool railOptimized)
    : m_leaves(leaves),
      m_hostsPerLeaf(hostsPerLeaf),
      m_gpus(gpusPerServer),
      m_rails(railOptimized)
{
    std::string error = Check(leaves, hostsPerLeaf, gpusPerServer, railOptimized);
    NS_ABORT_MSG_UNLESS(error.empty(), "TalbServerLayout: " << error);
}

std::string
TalbServerLayout::Check(uint32_t leaves,
                        uint32_t hostsPerLeaf,
                        uint32_t gpusPerServer,
                        bool railOptimized)
{
    const std::string g = std::to_string(gpusPerServer);
    if (leaves == 0 || hostsPerLeaf == 0)
    {
        return "leaves and hostsPerLeaf must be >= 1";
    }
    if (gpusPerServer == 0)
    {
        return "gpusPerServer must be >= 1";
    }
    if (railOptimized && leaves % gpusPerServer != 0)
    {
        return "railOptimized: leaves (" + std::to_string(leaves) +
               ") is not a multiple of gpusPerServer (" + g +
               "): the leaves form rail groups of gpusPerServer leaves, NIC i of each server on "
               "leaf i of its group";
    }
    if (!railOptimized && hostsPerLeaf % gpusPerServer != 0)
    {
        return "gpusPerServer (" + g + ") does not divide hostsPerLeaf (" +
               std::to_string(hostsPerLeaf) +
               "): without railOptimized, each server's NICs all sit under one leaf";
    }
    return "";
}

uint32_t
TalbServerLayout::GetGpusPerServer() const
{
    return m_gpus;
}

bool
TalbServerLayout::IsRailOptimized() const
{
    return m_rails;
}

uint32_t
TalbServerLayout::GetNHosts() const
{
    return m_leaves * m_hostsPerLeaf;
}

uint32_t
TalbServerLayout::GetNServers() const
{
    return GetNHosts() / m_gpus;
}

uint32_t
TalbServerLayout::CheckHost(uint32_t host, const char* method) const
{
    NS_ABORT_MSG_UNLESS(host < GetNHosts(),
                        "TalbServerLayout::" << method << ": no host " << host << " (of "
                                             << GetNHosts() << ")");
    return host;
}

uint32_t
TalbServerLayout::GetServer(uint32_t host) const
{
    return CheckHost(host, "GetServer") / m_gpus;
}

uint32_t
TalbServerLayout::GetGpu(uint32_t host) const
{
    return CheckHost(host, "GetGpu") % m_gpus;
}

uint32_t
TalbServerLayout::GetHost(uint32_t server, uint32_t gpu) const
{
    NS_ABORT_MSG_UNLESS(server < GetNServers() && gpu < m_gpus,
                        "TalbServerLayout::GetHost: no GPU " << gpu << " of server " << server);
    return server * m_gpus + gpu;
}

std::vector<uint32_t>
TalbServerLayout::GetHostsOfServer(uint32_t server) const
{
    std::vector<uint32_t> hosts;
    for (uint32_t gpu = 0; gpu < m_gpus; ++gpu)
    {
        hosts.push_back(GetHost(server, gpu));
    }
    return hosts;
}

bool
TalbServerLayout::IsSameServer(uint32_t a, uint32_t b) const
{
    return GetServer(a) == GetServer(b);
}

uint32_t
TalbServerLayout::GetLeaf(uint32_t host) const
{
    CheckHost(host, "GetLeaf");
    if (!m_rails)
    {
        return host / m_hostsPerLeaf;
    }
    return (host / m_gpus / m_hostsPerLeaf) * m_gpus + host % m_gpus;
}

uint32_t
TalbServerLayout::GetLeafPort(uint32_t host) const
{
    CheckHost(host, "GetLeafPort");
    return m_rails ? (host / m_gpus) % m_hostsPerLeaf : host % m_hostsPerLeaf;
}

uint32_t
TalbServerLayout::GetHostAt(uint32_t leaf, uint32_t port) const
{
    NS_ABORT_MSG_UNLESS(leaf < m_leaves && port < m_hostsPerLeaf,
                        "TalbServerLayout::GetHostAt: no port " << port << " on leaf " << leaf);
    if (!m_rails)
    {
        return leaf * m_hostsPerLeaf + port;
    }
    uint32_t server = (leaf / m_gpus) * m_hostsPerLeaf + port;
    return server * m_gpus + leaf % m_gpus;
}

} // namespace ns3
