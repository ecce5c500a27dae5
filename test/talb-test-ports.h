// A leaf's (or spine's) port table without a switch, for selector test suites that drive a
// TalbLoadBalancer directly: port 0 leads to a host, ports 1..n to spines 0..n-1 (peer = index),
// all at 10 Gb/s, with queues whose occupancy the test sets.
#ifndef TALB_TEST_PORTS_H
#define TALB_TEST_PORTS_H

#include "ns3/network-module.h"
#include "ns3/talb-module.h"

#include <vector>

namespace ns3
{
namespace talbtest
{

/// Port 0 to a host, ports 1..n uplinks to spines 0..n-1.
struct TestPorts
{
    std::vector<TalbPortState> ports;
    std::vector<uint32_t> uplinks;

    explicit TestPorts(uint32_t n)
        : ports(1 + n)
    {
        for (uint32_t p = 0; p <= n; ++p)
        {
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(QueueSize("100000p"));
            ports[p].queue = q;
            ports[p].rate = DataRate("10Gbps");
            if (p > 0)
            {
                ports[p].uplink = true;
                ports[p].peer = p - 1;
                uplinks.push_back(p);
            }
        }
    }

    /// Queue one packet of \p bytes on \p port.
    void Fill(uint32_t port, uint32_t bytes)
    {
        ports[port].queue->Enqueue(Create<Packet>(bytes));
    }

    /// \return the uplinks as candidates
    TalbCandidates All() const
    {
        return TalbCandidates{uplinks.data(), static_cast<uint32_t>(uplinks.size())};
    }

    /// \return what switch 5 (leaf or spine 0 of two leaves) tells its balancer
    TalbSwitchInfo Info(bool leaf) const
    {
        TalbSwitchInfo info;
        info.switchId = 5;
        info.isLeaf = leaf;
        info.index = 0;
        info.nLeaves = 2;
        info.nSpines = static_cast<uint32_t>(uplinks.size());
        return info;
    }
};

} // namespace talbtest
} // namespace ns3

#endif /* TALB_TEST_PORTS_H */
