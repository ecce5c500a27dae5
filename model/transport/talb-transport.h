#ifndef TALB_TRANSPORT_H
#define TALB_TRANSPORT_H

#include "talb-message-channel.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/talb-registry.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A transport: how a training job's collective moves its messages between hosts (TCP
 * sockets, an RDMA NIC, ...).
 *
 * A collective asks its transport for one TalbMessageChannel per (sender, receiver) pair it
 * uses, once, before the first operation; the channels then carry framed messages in order and
 * report each delivery. The collectives depend on this interface only, so a transport is one
 * subclass: it implements the private DoConnect() (and, if it needs them, CheckConfig() and
 * DoSetup()),
 * and registers its short name in GetRegistry() with TALB_REGISTER_PLUGIN in its own .cc.
 *
 * The public entry points are non-virtual: Setup() once per job, then Connect() per channel.
 * The transport owns the channels it opened and disposes of them with itself.
 */
class TalbTransport : public Object
{
  public:
    static TypeId GetTypeId();
    TalbTransport();
    ~TalbTransport() override;

    /// \return the family's registry: short transport names and TypeId names to TypeIds
    static TalbRegistry& GetRegistry();

    /**
     * Called once by the job before the first Connect(). Aborts with the transport's message
     * when its attributes are unusable (CheckConfig()).
     * \param port the job's service port: receivers on every host the job uses listen on it
     */
    void Setup(uint16_t port);

    /**
     * Open a channel that carries messages from host \p from to host \p to.
     * \param from sending host (IPv4 address on interface 1: GetHostAddress())
     * \param fromIndex the caller's index of the sender (TalbMessageChannel::GetFrom())
     * \param to receiving host, not \p from
     * \param toIndex the caller's index of the receiver (TalbMessageChannel::GetTo())
     * \param delivered called for every message the receiver has fully received
     * \return the channel, usable at once (messages wait until the connection is up)
     */
    Ptr<TalbMessageChannel> Connect(Ptr<Node> from,
                                    uint32_t fromIndex,
                                    Ptr<Node> to,
                                    uint32_t toIndex,
                                    TalbMessageChannel::DeliveredCallback delivered);

    /// \return the job's service port (valid after Setup())
    uint16_t GetPort() const;
    /// \return the channels opened so far
    uint32_t GetNChannels() const;
    /// \return channel \p i (< GetNChannels()) in the order they were opened
    Ptr<TalbMessageChannel> GetChannel(uint32_t i) const;

    /// \return the host's address on interface 1 (the contract with the topology helpers)
    static Ipv4Address GetHostAddress(Ptr<Node> node);

  protected:
    void DoDispose() override;

    /**
     * For CheckConfig(): record why the configuration is unusable; Setup() aborts with it.
     * \return false
     */
    bool ConfigError(const std::string& message);

    /**
     * For a transport that wraps another (TalbNvlinkTransport): open \p inner's channel from
     * \p from to \p to for the caller, whose Connect() then sets its endpoints and delivery
     * callback and owns it (\p inner does not list it). \p inner must be set up.
     */
    static Ptr<TalbMessageChannel> ConnectThrough(Ptr<TalbTransport> inner,
                                                  Ptr<Node> from,
                                                  Ptr<Node> to);

  private:
    /**
     * Check the attribute values; called once by Setup() before DoSetup().
     * \return false (after ConfigError()) on an unusable configuration
     */
    virtual bool CheckConfig();
    /// Per-job preparation; called once by Setup() after CheckConfig(). Default: nothing.
    virtual void DoSetup();
    /**
     * Open the channel from \p from to \p to for GetPort(). Called by Connect(), which then
     * sets the channel's endpoints and delivery callback (before any event runs).
     */
    virtual Ptr<TalbMessageChannel> DoConnect(Ptr<Node> from, Ptr<Node> to) = 0;

    uint16_t m_port{0};
    bool m_setUp{false};
    std::string m_configError;
    std::vector<Ptr<TalbMessageChannel>> m_channels;
};

/**
 * \ingroup talb-transport
 * \return a key of the IPv4 endpoint \p addr : \p port, for tables of connections
 */
inline uint64_t
TalbEndpointKey(Ipv4Address addr, uint16_t port)
{
    return (uint64_t(addr.Get()) << 16) | port;
}

} // namespace ns3

#endif /* TALB_TRANSPORT_H */
