#ifndef TALB_BULK_SINK_H
#define TALB_BULK_SINK_H

#include "ns3/address.h"
#include "ns3/application.h"
#include "ns3/socket.h"
#include "ns3/traced-callback.h"

#include <list>

namespace ns3
{

/**
 * \ingroup talb-traffic
 * \brief A TCP sink that accepts connections on Local and counts what it receives, as ns-3's
 * PacketSink does for TCP, reading in chunks of at most TALB_SOCKET_READ_CHUNK bytes.
 *
 * PacketSink reads everything available at once; with packet metadata on (ascii traces,
 * Packet::EnablePrinting, any in-tree ns-3 test-runner) that costs time quadratic in the segments
 * a filled hole releases, which makes reordering fabrics (sprays, flowlets) crawl. Same trace and
 * counter names as PacketSink, so a user can swap one for the other.
 */
class TalbBulkSink : public Application
{
  public:
    static TypeId GetTypeId();
    TalbBulkSink();

    /// \return the bytes received so far, over every connection
    uint64_t GetTotalRx() const;

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;
    void HandleAccept(Ptr<Socket> socket, const Address& from);
    void HandleRead(Ptr<Socket> socket);

    Address m_local;
    Ptr<Socket> m_listener;
    std::list<Ptr<Socket>> m_accepted;
    uint64_t m_totalRx{0};
    /// Rx: every chunk read, with the address of its sender, as PacketSink's
    TracedCallback<Ptr<const Packet>, const Address&> m_rxTrace;
};

} // namespace ns3

#endif /* TALB_BULK_SINK_H */
