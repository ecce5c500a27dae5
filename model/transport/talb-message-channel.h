#ifndef TALB_MESSAGE_CHANNEL_H
#define TALB_MESSAGE_CHANNEL_H

#include "talb-flow-record.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstddef>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A framed message of a collective: a TALB_FRAME_LEN-byte frame header (talb-wire.h)
 * followed by the payload, whose bytes are ranges of one or more tensors.
 */
struct TalbMessage
{
    /// A payload range of one tensor.
    struct Part
    {
        uint32_t tensorId{0}; //!< wire tensor id (job in the top 8 bits)
        uint8_t priority{7};
        uint64_t bytes{0};
        bool first{false}; //!< its first byte is the first byte of the tensor on this channel
        bool last{false};  //!< its last byte is the last byte of the tensor on this channel
    };

    uint32_t opId{0};          //!< the collective operation it belongs to
    uint16_t step{0};          //!< the algorithm's step within the operation
    uint32_t iteration{0};     //!< training iteration
    uint32_t ownerTensorId{0}; //!< labels the header: the first part's tensor, if any
    uint8_t ownerPriority{7};  //!< the first part's priority, if any
    std::vector<Part> parts;
    Time start; //!< set by the channel: first byte handed to the transport

    /// \return payload bytes (the header excluded)
    uint64_t GetPayloadBytes() const;
};

/**
 * \ingroup talb-transport
 * \brief One direction of a persistent connection between two hosts that carries framed
 * messages: what a collective sends through (TalbTransport::Connect opens one). Delivery is in
 * order on one stream (TCP); collectives match messages by opId and step, so a transport with
 * several streams may deliver out of order (RDMA's queue pair per priority delivers a message
 * once its SENDs on the queue pairs of its parts' priorities have all arrived).
 *
 * The public entry points are non-virtual: Send() normalises the message (empty parts dropped,
 * the header labelled with the first part's tensor) and counts it; a transport implements the
 * private DoSend() and reports each message fully received by the destination application with
 * NotifyDelivered(), and, where it sees the acknowledgements, each message whose last byte the
 * sender saw acknowledged with NotifyCompleted() (the flow record's end: sender-side
 * completion). Every message costs TALB_FRAME_LEN header bytes on the wire plus its payload.
 * Counter identity (asserted): sent = delivered + pending.
 */
class TalbMessageChannel : public Object
{
  public:
    static TypeId GetTypeId();
    TalbMessageChannel();
    ~TalbMessageChannel() override;

    /**
     * Callback for a message fully received by the destination application.
     * \param channel this channel
     * \param message the message (its start field set)
     * \param record the message's flow record (job fields filled from the message)
     */
    typedef Callback<void, Ptr<TalbMessageChannel>, const TalbMessage&, const TalbFlowRecord&>
        DeliveredCallback;

    void SetDeliveredCallback(DeliveredCallback cb);

    /**
     * Callback for a message the sender has seen completed: its last byte acknowledged. Its
     * record's FCT runs from the first byte handed to the transport to that acknowledgement
     * (sender-side completion, as HPCC measures it): flows.csv's row.
     */
    typedef Callback<void, const TalbFlowRecord&> CompletedCallback;
    void SetCompletedCallback(CompletedCallback cb);

    /**
     * \return messages sent by the channels of this process whose completion (last byte
     * acknowledged) is still to come: a run that stops as the jobs finish waits for them, or
     * their flow records would be lost
     */
    static uint64_t GetAwaitingCompletion();
    /// Endpoint indices, for the owner's bookkeeping.
    void SetEndpoints(uint32_t from, uint32_t to);
    uint32_t GetFrom() const;
    uint32_t GetTo() const;

    /**
     * Under ns-3's distributed simulator, for a channel whose hosts are on different ranks:
     * whether this rank simulates its sender and its receiver. A rank that does not simulate
     * the sender drops what its collective's copy sends (the sender's rank sends it); one
     * that does not simulate the receiver delivers nothing. Both by default.
     */
    void SetEndsHere(bool sender, bool receiver);
    /// \return whether this rank simulates the channel's sender
    bool IsSenderHere() const;
    /// \return whether this rank simulates the channel's receiver
    bool IsReceiverHere() const;

    /// Queue a message (at least a header) for sending (delivery order: see the class).
    void Send(TalbMessage&& message);

    /// \return messages sent but not yet fully received
    std::size_t GetPending() const;
    /// \return messages fully received
    uint64_t GetDelivered() const;

  protected:
    void DoDispose() override;

    /**
     * For transports: \p message has been fully received by the destination application.
     * Messages of one stream must be reported in the order they were sent.
     * \param message the message
     * \param record its endpoints, size (header included) and end time; the start time and the
     * job fields (job, iteration, tensor, priority) are filled here from \p message
     */
    void NotifyDelivered(const TalbMessage& message, TalbFlowRecord record);

    /**
     * For transports that see their acknowledgements (SetCompletesAtSender()): the last byte of
     * the message \p record describes is acknowledged; sets its end and reports it. Messages of
     * one stream must be reported in the order they were sent.
     * \param record from RecordOf(), with the endpoints and size set
     */
    void NotifyCompleted(TalbFlowRecord record);

    /**
     * \return \p record with \p message's start and job fields set; the rest (endpoints, size,
     * kind, end) is the transport's and kept as it is
     */
    static TalbFlowRecord RecordOf(const TalbMessage& message, TalbFlowRecord record = {});

    /**
     * A transport that reports NotifyCompleted() on the sender calls this once, at
     * construction; otherwise NotifyDelivered() completes the record at delivery.
     */
    void SetCompletesAtSender();

  private:
    /**
     * Hand \p message (normalised by Send()) to the transport: it owns it until delivered.
     * Called once per Send(), in order.
     */
    virtual void DoSend(TalbMessage&& message) = 0;

    uint32_t m_from{0};
    uint32_t m_to{0};
    uint64_t m_sent{0};
    uint64_t m_delivered{0};
    bool m_senderHere{true};
    bool m_receiverHere{true};
    bool m_completesAtSender{false};
    DeliveredCallback m_deliveredCb;
    CompletedCallback m_completedCb;
    uint64_t m_awaiting{0};               //!< sent here, completion still to come
    static uint64_t s_awaitingCompletion; //!< GetAwaitingCompletion(): m_awaiting of every channel

    /// Takes this channel's awaited completions out of GetAwaitingCompletion() (disposed).
    void ForgetAwaiting();
};

} // namespace ns3

#endif /* TALB_MESSAGE_CHANNEL_H */
