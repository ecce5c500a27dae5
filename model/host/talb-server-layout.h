#ifndef TALB_SERVER_LAYOUT_H
#define TALB_SERVER_LAYOUT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-host
 * \brief Where the GPUs of a leaf-spine fabric's servers sit: which server and GPU a host is,
 * and which leaf port its NIC is wired to.
 *
 * Every host of the fabric is one GPU with its own NIC; a server is gpusPerServer consecutive
 * hosts: host h is GPU h mod G of server h / G (G = gpusPerServer). The hosts keep the
 * fabric's numbering (node order, addresses); only their wiring to the leaves depends on the
 * layout:
 *  - one leaf per server (railOptimized false, the default): host h under leaf h / hostsPerLeaf,
 *    port h mod hostsPerLeaf, as in a fabric without servers. G must divide hostsPerLeaf, so
 *    that a server's NICs all sit under one leaf.
 *  - rail-optimized (railOptimized true): the leaves form rail groups of G consecutive leaves;
 *    NIC (GPU) i of every server of a group is on leaf i of the group (rail i), so GPU i of
 *    every server of the group reaches GPU i of every other one through one leaf. Group g holds
 *    the hostsPerLeaf servers g x hostsPerLeaf ...; server s's GPU i sits on leaf
 *    (s / hostsPerLeaf) x G + i, port s mod hostsPerLeaf. G must divide leaves.
 *
 * With G = 1 both layouts are the fabric without servers. Plain C++: no simulation state.
 */
class TalbServerLayout
{
  public:
    /// A fabric of 1 leaf x 1 host, one GPU per server.
    TalbServerLayout() = default;
    /**
     * The layout of \p leaves x \p hostsPerLeaf hosts in servers of \p gpusPerServer GPUs.
     * Aborts with Check()'s message when the sizes do not fit.
     */
    TalbServerLayout(uint32_t leaves,
                     uint32_t hostsPerLeaf,
                     uint32_t gpusPerServer,
                     bool railOptimized);

    /**
     * \return an empty string when the sizes make a layout, else what is wrong, naming the
     * parameter (gpusPerServer, hostsPerLeaf or leaves) as the talb programs spell it
     */
    static std::string Check(uint32_t leaves,
                             uint32_t hostsPerLeaf,
                             uint32_t gpusPerServer,
                             bool railOptimized);

    uint32_t GetGpusPerServer() const;
    bool IsRailOptimized() const;
    /// \return leaves x hostsPerLeaf
    uint32_t GetNHosts() const;
    /// \return GetNHosts() / gpusPerServer
    uint32_t GetNServers() const;

    /// \return the server of host \p host
    uint32_t GetServer(uint32_t host) const;
    /// \return the GPU index (0 .. gpusPerServer - 1) of host \p host within its server
    uint32_t GetGpu(uint32_t host) const;
    /// \return the host that is GPU \p gpu of server \p server
    uint32_t GetHost(uint32_t server, uint32_t gpu) const;
    /// \return the hosts of server \p server, GPU 0 first
    std::vector<uint32_t> GetHostsOfServer(uint32_t server) const;
    /// \return whether hosts \p a and \p b are GPUs of one server
    bool IsSameServer(uint32_t a, uint32_t b) const;

    /// \return the leaf host \p host's NIC is wired to
    uint32_t GetLeaf(uint32_t host) const;
    /// \return the port of that leaf (0 .. hostsPerLeaf - 1) leading to host \p host
    uint32_t GetLeafPort(uint32_t host) const;
    /// \return the host behind port \p port (< hostsPerLeaf) of leaf \p leaf
    uint32_t GetHostAt(uint32_t leaf, uint32_t port) const;

  private:
    /// Aborts unless \p host is a host of the layout.
    uint32_t CheckHost(uint32_t host, const char* method) const;

    uint32_t m_leaves{1};
    uint32_t m_hostsPerLeaf{1};
    uint32_t m_gpus{1};
    bool m_rails{false};
};

} // namespace ns3

#endif /* TALB_SERVER_LAYOUT_H */
