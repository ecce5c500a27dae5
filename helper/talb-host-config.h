#ifndef TALB_HOST_CONFIG_H
#define TALB_HOST_CONFIG_H

#include "ns3/net-device.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The TCP configuration of talb's hosts: what a Linux training host runs, in ns-3's
 * terms. The scenario runner (TalbScenario), the examples, the simulation benchmark and the
 * test suites all apply it, so they all simulate the same hosts.
 *
 * Apply() sets the attribute defaults of ns3::TcpSocket and ns3::TcpSocketBase
 * (Config::SetDefault): every TCP socket created afterwards, the collectives' channels and the
 * background flows alike, gets
 *  - segments that fill the MTU (SegmentSize = mtu - 52: IPv4 20, TCP 20, timestamps 12);
 *  - send and receive buffers of Linux's autotuning maxima (SndBufSize, RcvBufSize: ns-3's
 *    128 KiB defaults cap a 10-100 Gb/s flow below line rate);
 *  - a data-center retransmission timer (MinRto, ClockGranularity) and a delayed-ACK timeout
 *    below it (DelAckTimeout);
 *  - SACK (Sack) and a short TIME_WAIT (TimeWait).
 *
 * ConfigureNic() sets up a host NIC's transmit queue for the Qdisc attribute: fifo (default)
 * or fq, per-flow fair queueing inside each band as Linux's fq qdisc runs it (the scenario
 * runner calls it for every TCP host: --hostQdisc).
 *
 * Each value is an attribute of this class: change one for a whole run with
 * Config::SetDefault("ns3::TalbHostConfig::SndBufSize", ...) or NS_ATTRIBUTE_DEFAULT before
 * Apply(). NS_ATTRIBUTE_DEFAULT on the ns3::TcpSocket attributes themselves also still wins.
 */
class TalbHostConfig : public Object
{
  public:
    static TypeId GetTypeId();
    TalbHostConfig();
    ~TalbHostConfig() override;

    /// TCP/IP header bytes per segment: SegmentSize = mtu - HEADER_BYTES.
    static const uint32_t HEADER_BYTES = 52;

    /// Set the TCP socket defaults for hosts whose devices have MTU \p mtu (IP packet bytes).
    void Apply(uint32_t mtu) const;
    /// Apply() of a TalbHostConfig with its attribute defaults.
    static void ApplyDefaults(uint32_t mtu);

    /// The host NIC's queueing discipline (Qdisc attribute).
    enum Qdisc
    {
        FIFO, //!< each band of the NIC queue is one FIFO
        FQ    //!< each band is shared among its flows by DRR (Linux's fq)
    };

    /**
     * Set up the transmit queue of host NIC \p dev (a TalbPriorityQueue, before it holds a
     * packet) for the Qdisc attribute; other devices are left alone.
     * \return whether \p dev has a TalbPriorityQueue
     */
    bool ConfigureNic(Ptr<NetDevice> dev) const;

  private:
    uint32_t m_sndBufSize;   //!< SndBufSize attribute
    uint32_t m_rcvBufSize;   //!< RcvBufSize attribute
    Time m_minRto;           //!< MinRto attribute
    Time m_clockGranularity; //!< ClockGranularity attribute
    Time m_delAckTimeout;    //!< DelAckTimeout attribute
    Time m_timeWait;         //!< TimeWait attribute
    bool m_sack;             //!< Sack attribute
    Qdisc m_qdisc;           //!< Qdisc attribute
};

} // namespace ns3

#endif /* TALB_HOST_CONFIG_H */
