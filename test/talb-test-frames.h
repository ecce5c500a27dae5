// Shared by talb's ns-3 test suites (not part of the module): a PPP frame of IPv4 (+ TCP), as
// the point-to-point devices of hosts and switches carry it, taken apart.
#ifndef TALB_TEST_FRAMES_H
#define TALB_TEST_FRAMES_H

#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

namespace ns3
{
namespace talbtest
{

/// A PPP frame of IPv4 + TCP taken apart.
struct TcpFrame
{
    Ipv4Header ip;
    TcpHeader tcp;
    Ptr<Packet> payload; //!< what follows the TCP header, with the frame's packet tags
};

/// \return the headers and payload of \p frame (a copy: \p frame is left as it is)
inline TcpFrame
StripTcpFrame(Ptr<const Packet> frame)
{
    TcpFrame f;
    f.payload = frame->Copy();
    PppHeader ppp;
    f.payload->RemoveHeader(ppp);
    f.payload->RemoveHeader(f.ip);
    f.payload->RemoveHeader(f.tcp);
    return f;
}

/// \return the IPv4 header of the PPP frame \p frame
inline Ipv4Header
Ipv4Of(Ptr<const Packet> frame)
{
    Ptr<Packet> p = frame->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    p->RemoveHeader(ppp);
    p->RemoveHeader(ip);
    return ip;
}

} // namespace talbtest
} // namespace ns3

#endif /* TALB_TEST_FRAMES_H */
