#ifndef TALB_MESSAGE_CHANNEL_H
#define TALB_MESSAGE_CHANNEL_H

#include "talb-training-records.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/socket.h"

#include <deque>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb
 * \brief A framed message of a collective: a 16-byte header followed by the payload, whose
 * bytes are ranges of one or more tensors.
 */
struct TalbMessage
{
    /// A payload range of one tensor.
    struct Part
    {
        uint32_t tensorId{0}; //!< wire tensor id (job in the top 8 bits)
        uint8_t priority{7};
        uint64_t bytes{0};
        bool first{false}; //!< its first byte is the first byte of the tensor on this connection
        bool last{false};  //!< its last byte is the last byte of the tensor on this connection
    };

    uint32_t opId{0};
    uint16_t step{0};
    uint32_t iteration{0};
    uint32_t ownerTensorId{0}; //!< tags the header when there are no parts
    uint8_t ownerPriority{7};
    std::vector<Part> parts;
    Time start; //!< set by the channel: first byte handed to the socket

    /// \return payload bytes (the header excluded)
    uint64_t GetPayloadBytes() const;
};

/**
 * \ingroup talb
 * \brief One direction of a persistent TCP connection between two hosts that carries framed
 * messages.
 *
 * The sender queues messages and hands them to its socket in pieces as send-buffer space
 * frees: the 16-byte header as real bytes, the payload as zero-filled virtual bytes (never held
 * in memory). Every byte carries a TalbTensorByteTag; FIRST / LAST markers go only on the
 * bytes the message's parts flag. The receiver parses the byte stream (no per-byte work, no
 * allocation beyond the packets TCP hands up), checks each header against the sender's record
 * (TCP delivers in order) and reports the message with its flow record.
 *
 * Header layout (big-endian): bytes 0-3 tensor id of the first payload byte, 4-7 operation id,
 * 8-9 step, 10-11 zero, 12-15 payload length. It is the simulator's framing; it has the size of
 * the testbed's NCCL plugin frame header, so per-message overhead matches.
 */
class TalbMessageChannel : public Object
{
  public:
    static TypeId GetTypeId();
    TalbMessageChannel();
    ~TalbMessageChannel() override;

    /// Bytes of the message header (constexpr: implicitly inline, so ODR-uses such as
    /// std::min need no out-of-class definition).
    static constexpr uint32_t HEADER_BYTES = 16;

    /**
     * Callback for a message fully received by the destination application.
     * \param channel this channel
     * \param message the message (its start field set)
     * \param record the message's flow record (job fields filled from the message)
     */
    typedef Callback<void, Ptr<TalbMessageChannel>, const TalbMessage&, const TalbFlowRecord&>
        DeliveredCallback;

    /**
     * Create the sender's TCP socket on \p src bound to \p srcAddr and connect it to
     * \p dstAddr : \p dstPort. Messages sent before the connection is up wait in the queue.
     */
    void Open(Ptr<Node> src, Ipv4Address srcAddr, Ipv4Address dstAddr, uint16_t dstPort);
    /// \return the sender socket's local port (known after Open)
    uint16_t GetSrcPort() const;
    /// Give the channel the destination's accepted socket (the listener matched it).
    void AttachReceiver(Ptr<Socket> socket);
    void SetDeliveredCallback(DeliveredCallback cb);
    /// Endpoint indices, for the owner's bookkeeping.
    void SetEndpoints(uint32_t from, uint32_t to);
    uint32_t GetFrom() const;
    uint32_t GetTo() const;

    /// Queue a message (at least a header) for sending.
    void Send(TalbMessage&& message);

    /// \return messages queued or in flight (sent but not yet fully received)
    std::size_t GetPending() const;

  protected:
    void DoDispose() override;

  private:
    void ConnectionSucceeded(Ptr<Socket> socket);
    void ConnectionFailed(Ptr<Socket> socket);
    void SendSpace(Ptr<Socket> socket, uint32_t available);
    /// Hand as many bytes of the queue to the socket as its buffer takes.
    void TrySend();
    void HandleRead(Ptr<Socket> socket);
    void HeaderReceived();
    void MessageReceived();

    Ptr<Socket> m_tx;
    Ptr<Socket> m_rx;
    Ipv4Address m_srcAddr;
    Ipv4Address m_dstAddr;
    uint16_t m_srcPort{0};
    uint16_t m_dstPort{0};
    uint32_t m_from{0};
    uint32_t m_to{0};
    bool m_connected{false};
    DeliveredCallback m_delivered;

    std::deque<TalbMessage> m_queue;    //!< not started yet
    std::deque<TalbMessage> m_inFlight; //!< header handed over, awaiting reception
    TalbMessage* m_current{nullptr};    //!< in m_inFlight: payload still being handed over
    std::size_t m_part{0};              //!< m_current's part being sent
    uint64_t m_partSent{0};             //!< bytes of that part handed over

    uint8_t m_rxHeader[HEADER_BYTES];
    uint32_t m_rxHeaderFill{0};
    uint64_t m_rxPayloadLeft{0};
};

} // namespace ns3

#endif /* TALB_MESSAGE_CHANNEL_H */
