/*
 * One port of talb-switch as the pipeline and the decision core see it: its egress queue, its
 * shaper, its DRE and its link state. The decision core reads queue bytes (per band), the
 * buffer's room, utilisation and rate through SwitchPortView.
 */
#ifndef TALB_SWITCH_PORT_H
#define TALB_SWITCH_PORT_H

#include "talb-egress-queue.h"
#include "talb-token-bucket.h"

#include "ns3/talb-lb-core-dre.h"
#include "ns3/talb-lb-core-hermes.h"
#include "ns3/talb-lb-core.h"

#include <cstdint>
#include <vector>

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

    /// The egress queue's room for a packet of band \p priority (held bytes left the buffer).
    uint64_t RoomBytes(uint32_t port, uint8_t priority) const override
    {
        return m_ports[port].queue.RoomBytes(priority);
    }

  private:
    const SwitchPort* m_ports;
};

/**
 * Hermes's path sensing as one switch can do it, alone: no switch tells another what it saw, so
 * the "path" via an uplink is that uplink, and its ECN fraction is the share of the packets
 * this switch queued there that it marked CE, over the last completed window of windowNs
 * (from the queue's own counters, read when Hermes asks: nothing per packet). The delay is
 * left to Hermes's local reading of the queue. Hermes asks only for destinations whose leaf
 * the route names (leaf=); for the others it sees the queue delay alone.
 */
class SwitchEcnView : public lb::RemoteView
{
  public:
    /// \param ports the switch's ports (outlive the view); \param nPorts their number
    void Init(const SwitchPort* ports, uint32_t nPorts, int64_t windowNs)
    {
        m_ports = ports;
        m_windowNs = windowNs;
        m_windows.assign(nPorts, Window());
    }

    lb::RemotePath Path(uint32_t /* dstLeaf */, uint32_t path, int64_t nowNs) const override
    {
        lb::RemotePath r;
        if (path >= m_windows.size())
        {
            return r;
        }
        Window& w = m_windows[path];
        const EgressCounters& c = m_ports[path].queue.Counters();
        if (nowNs - w.startNs >= m_windowNs)
        {
            uint64_t queued = c.enqueued - w.enqueued;
            w.fraction = queued ? double(c.marked - w.marked) / double(queued) : 0.0;
            w.startNs = nowNs;
            w.enqueued = c.enqueued;
            w.marked = c.marked;
        }
        r.ecnFraction = w.fraction;
        r.known = true;
        return r;
    }

  private:
    /// One uplink's current window.
    struct Window
    {
        int64_t startNs{0};
        uint64_t enqueued{0}; ///< the queue's counters at the window's start
        uint64_t marked{0};
        double fraction{0}; ///< of the last completed window
    };

    const SwitchPort* m_ports{nullptr};
    int64_t m_windowNs{0};                 ///< set by Init() (Hermes's rate window)
    mutable std::vector<Window> m_windows; ///< sized by Init(): the reads stay allocation-free
};

} // namespace talb

#endif /* TALB_SWITCH_PORT_H */
