/*
 * One port of talb-switch as the pipeline and the decision core see it: its egress queue, its
 * shaper, its DRE and its link state. The decision core reads queue bytes (per band),
 * utilisation and rate through SwitchPortView.
 */
#ifndef TALB_SWITCH_PORT_H
#define TALB_SWITCH_PORT_H

#include "talb-egress-queue.h"
#include "talb-token-bucket.h"

#include "ns3/talb-lb-core-dre.h"
#include "ns3/talb-lb-core.h"

#include <cstdint>

namespace talb
{

struct SwitchPort
{
    EgressQueue queue;
    TokenBucket shaper;
    lb::Dre dre;            ///< bytes forwarded to the port, decayed (added at the decision)
    uint64_t rateBps = 0;   ///< shaped rate, or the link's speed: the DRE's capacity
    bool up = true;         ///< a down port is never a candidate
    uint64_t heldBytes = 0; ///< dequeued, not yet accepted by the device (the DPDK side)
};

/// The decision core's view of the ports: queued (and held) bytes, DRE utilisation.
class SwitchPortView : public lb::PortView
{
  public:
    explicit SwitchPortView(const SwitchPort* ports = nullptr)
        : m_ports(ports)
    {
    }

    void SetPorts(const SwitchPort* ports)
    {
        m_ports = ports;
    }

    uint64_t QueueBytes(uint32_t port) const override
    {
        return m_ports[port].queue.Bytes() + m_ports[port].heldBytes;
    }

    double Utilization(uint32_t port, int64_t nowNs) const override
    {
        return m_ports[port].dre.Utilization(nowNs, m_ports[port].rateBps);
    }

    /// Bands 0..\p priority, plus the bytes held by the device (they leave first).
    uint64_t QueueBytesAtOrAbove(uint32_t port, uint8_t priority) const override
    {
        uint64_t bytes = m_ports[port].heldBytes;
        for (uint8_t b = 0; b <= priority && b < TALB_NUM_PRIORITIES; ++b)
        {
            bytes += m_ports[port].queue.BandBytes(b);
        }
        return bytes;
    }

    uint64_t RateBps(uint32_t port) const override
    {
        return m_ports[port].rateBps;
    }

  private:
    const SwitchPort* m_ports;
};

} // namespace talb

#endif /* TALB_SWITCH_PORT_H */
