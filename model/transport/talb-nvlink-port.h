#ifndef TALB_NVLINK_PORT_H
#define TALB_NVLINK_PORT_H

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A GPU's port on its server's intra-server interconnect (NVLink with NVSwitch): what
 * TalbNvlinkTransport sends through between two GPUs of one server, without packets.
 *
 * TalbLeafSpineHelper aggregates one to every host of a fabric of servers (GpusPerServer > 1);
 * a host without one has no such interconnect. The port serializes the GPU's egress at
 * DataRate: a message of B bytes handed over at t starts when the port finished the previous
 * one (or at t) and arrives Latency after its last byte left. The interconnect is
 * non-blocking (every GPU reaches every other at DataRate at once, as through NVSwitch), so
 * egress is the only queue modelled: two GPUs sending to one receiver at once each get
 * DataRate (the receiver's ingress is not a bottleneck; see the doc's limitations).
 */
class TalbNvlinkPort : public Object
{
  public:
    static TypeId GetTypeId();
    TalbNvlinkPort();

    /// DataRate's default, as text: an H100/H200 SXM GPU's NVLink 4, 450 GB/s each way.
    static constexpr const char* DEFAULT_RATE = "3600Gbps";
    /// Latency's default, as text (see the doc: a round figure, not a measurement).
    static constexpr const char* DEFAULT_LATENCY = "1us";

    ~TalbNvlinkPort() override;

    /// Set the port's identity: GPU \p gpu of server \p server, host address \p address.
    void SetGpu(uint32_t server, uint32_t gpu, Ipv4Address address);
    uint32_t GetServer() const;
    uint32_t GetGpu() const;
    /// \return the host's address (the flow records' src or dst)
    Ipv4Address GetAddress() const;
    DataRate GetDataRate() const;
    Time GetLatency() const;

    /**
     * Take \p bytes for sending now: they leave after what the port still sends.
     * \return when their last byte arrives at the peer GPU (absolute simulated time)
     */
    Time Transmit(uint64_t bytes);

    /// \return bytes handed to Transmit() so far
    uint64_t GetTxBytes() const;

  private:
    DataRate m_rate;
    Time m_latency;
    uint32_t m_server{0};
    uint32_t m_gpu{0};
    Ipv4Address m_address;
    Time m_busyUntil; //!< when the last byte taken so far leaves
    uint64_t m_txBytes{0};
};

} // namespace ns3

#endif /* TALB_NVLINK_PORT_H */
