#ifndef TALB_SOCKET_READ_H
#define TALB_SOCKET_READ_H

#include "ns3/packet.h"
#include "ns3/socket.h"

namespace ns3
{

/**
 * \ingroup talb-host
 * \brief The most bytes a talb receiver takes from a socket per Recv() call.
 *
 * ns-3's TcpRxBuffer::Extract joins every in-order segment it hands over with Packet::AddAtEnd,
 * which copies the packet's metadata once per segment while packet metadata is on
 * (Packet::EnablePrinting: ascii traces, and ns-3's own ns3tcp test suites, which turn it on for
 * every suite of an in-tree test-runner). Reading everything at once is then quadratic in the
 * segments a filled hole releases (thousands after reordering); reading in bounded chunks keeps it
 * linear. Without metadata the chunk size changes nothing: reads take no simulated time.
 */
constexpr uint32_t TALB_SOCKET_READ_CHUNK = 64 * 1024;

/// Reads at most TALB_SOCKET_READ_CHUNK bytes of \p socket; null when none are available.
inline Ptr<Packet>
TalbSocketRead(Ptr<Socket> socket)
{
    return socket->Recv(TALB_SOCKET_READ_CHUNK, 0);
}

} // namespace ns3

#endif /* TALB_SOCKET_READ_H */
