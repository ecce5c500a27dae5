#ifndef TALB_BACKGROUND_TRAFFIC_H
#define TALB_BACKGROUND_TRAFFIC_H

#include "talb-flow-size-cdf.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/random-variable-stream.h"
#include "ns3/sequence-number.h"
#include "ns3/socket.h"
#include "ns3/talb-flow-record.h"
#include "ns3/talb-rdma-nic.h"
#include "ns3/traced-callback.h"

#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-traffic
 * \brief Background traffic of one host: Poisson flow arrivals to random peers, sizes from a
 * flow-size CDF, each flow a new connection; also the sink for its peers' flows.
 *
 * The flow's transport is the host's: a host with a TalbRdmaNic (an RDMA fabric, which gives
 * hosts no IP stack) sends each flow as one unlabelled RDMA SEND on a queue pair of its own,
 * connected when the flow starts (out of band, as RDMA connection set-up is) and destroyed at
 * both ends once the message is acknowledged; its record's ports are the queue pair's UDP
 * source port and 4791. Any other host opens a TCP connection per flow, sends and closes it.
 * Records have the same fields either way.
 *
 * Flows start at rate Load x LinkRate / (8 x mean flow size), so the host offers Load of its
 * link on average; destinations are uniform over the peers. A flow sends its bytes (untagged)
 * and closes; its record (FlowDone, kind "background", job fields -1) is reported by the
 * sending host when its last byte is acknowledged (sender-side completion, the end the
 * collectives' messages have too). Install it with TalbBackgroundTrafficHelper.
 *
 * Under ns-3's distributed simulator every rank installs every host's application (same random
 * streams) and starts only its own hosts'; a TCP flow to a host on another rank carries its
 * size and start as a TalbFlowTag on its first byte, which that host's sink reads.
 */
class TalbBackgroundTraffic : public Application
{
  public:
    static TypeId GetTypeId();
    TalbBackgroundTraffic();
    ~TalbBackgroundTraffic() override;

    typedef void (*FlowTracedCallback)(const TalbFlowRecord& record);

    /// The hosts this one sends to (their background applications, which record arrivals).
    void SetPeers(const std::vector<Ptr<TalbBackgroundTraffic>>& peers);
    /// Use \p cdf instead of reading the FlowSizeCdf file.
    void SetFlowSizeCdf(const TalbFlowSizeCdf& cdf);
    /**
     * Also send a flow of \p sizeBytes to \p peer at simulated time \p start (a flow file's
     * flow, beside or instead of the Poisson arrivals). Call before the simulation starts.
     */
    void AddFlow(Time start, Ptr<TalbBackgroundTraffic> peer, uint64_t sizeBytes);
    /// \return this host's address (its RDMA NIC's, or IPv4 interface 1's)
    Ipv4Address GetAddress() const;
    /// \return the flow arrival rate per second
    double GetArrivalRate() const;

    /// Assign fixed random variable streams. \return the number of streams used
    int64_t AssignStreams(int64_t stream);

    /// Called by a peer before it connects: a flow from \p src:\p port is on its way.
    void ExpectFlow(const TalbFlowRecord& record);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    void ScheduleNextFlow();
    /// The next Poisson arrival: a random peer and size.
    void StartFlow();
    /// Send a flow of \p sizeBytes to \p peer now.
    void StartFlowTo(Ptr<TalbBackgroundTraffic> peer, uint64_t sizeBytes);
    void StartTcpListener();
    void Connected(Ptr<Socket> socket);
    void ConnectFailed(Ptr<Socket> socket);
    void SendSpace(Ptr<Socket> socket, uint32_t available);
    void Accept(Ptr<Socket> socket, const Address& from);
    void Read(Ptr<Socket> socket);
    /// A sending socket's HighestRxAck trace (\p flow: its flow id): completes the flow once
    /// its last byte is acknowledged.
    void TcpAcked(std::string flow, SequenceNumber32 from, SequenceNumber32 to);
    /// A flow from another rank: its size and start from \p p's first byte's TalbFlowTag.
    void ReadFlowTag(Ptr<const Packet> p, TalbFlowRecord* record) const;

    // RDMA hosts
    void StartRdmaFlow(Ptr<TalbBackgroundTraffic> peer, TalbFlowRecord record);
    /// Sender: the flow's message is acknowledged.
    void RdmaSent(Ptr<TalbRdmaQueuePair> qp, uint64_t seq);
    /// Receiver: the flow's message has arrived.
    void RdmaReceived(Ptr<TalbRdmaQueuePair> qp, uint64_t seq, uint64_t bytes);
    /// Destroy both ends of a finished flow's queue pair.
    static void CloseRdmaFlow(Ptr<TalbRdmaQueuePair> local, Ptr<TalbRdmaQueuePair> remote);

    std::string m_cdfFile;
    double m_load;
    DataRate m_linkRate;
    uint16_t m_port;

    TalbFlowSizeCdf m_cdf;
    std::vector<Ptr<TalbBackgroundTraffic>> m_peers;
    Ptr<ExponentialRandomVariable> m_interArrival;
    Ptr<UniformRandomVariable> m_size;
    Ptr<UniformRandomVariable> m_peer;
    EventId m_next;

    /// AddFlow()'s flows, scheduled when the application starts.
    struct GivenFlow
    {
        Time start;
        Ptr<TalbBackgroundTraffic> peer;
        uint64_t sizeBytes;
    };

    std::vector<GivenFlow> m_given;
    Ptr<Socket> m_listener;

    /// A flow's socket and its bytes still to hand over (sender) or received (receiver).
    struct FlowSocket
    {
        Ptr<Socket> socket;
        TalbFlowRecord record;
        uint64_t bytes{0};
        bool tagFirst{false}; //!< sender: the sink is on another rank (TalbFlowTag)
        bool tagged{false};   //!< receiver: the record comes with the first byte's TalbFlowTag
    };

    std::unordered_map<Socket*, FlowSocket> m_sending;       //!< bytes = left to send
    std::unordered_map<Socket*, FlowSocket> m_receiving;     //!< bytes = received
    std::unordered_map<uint64_t, TalbFlowRecord> m_expected; //!< by src ip:port

    /// A TCP flow until its last byte is acknowledged.
    struct Unacked
    {
        TalbFlowRecord record;
        bool synAcked{false}; //!< the first HighestRxAck change (the SYN-ACK) was seen
        uint64_t acked{0};    //!< data bytes acknowledged
    };

    std::unordered_map<uint64_t, Unacked> m_unacked; //!< by flow id (TcpAcked's context)
    uint64_t m_flows{0};                             //!< flows started here: the next id

    Ptr<TalbRdmaNic> m_nic; //!< the host's RDMA NIC, or null (TCP)

    /// Sender: the remote end of each flow's queue pair, and its record.
    struct RdmaSending
    {
        Ptr<TalbRdmaQueuePair> remote;
        TalbFlowRecord record;
    };

    /// Sender: each flow on its way, by the local queue pair number.
    std::unordered_map<uint32_t, RdmaSending> m_rdmaSending;
    /// Receiver: the record of each flow on its way, by the local queue pair number.
    std::unordered_map<uint32_t, TalbFlowRecord> m_rdmaExpected;

    TracedCallback<const TalbFlowRecord&> m_flowStarted;
    TracedCallback<const TalbFlowRecord&> m_flowDone;
};

} // namespace ns3

#endif /* TALB_BACKGROUND_TRAFFIC_H */
