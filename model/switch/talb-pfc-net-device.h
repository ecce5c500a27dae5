#ifndef TALB_PFC_NET_DEVICE_H
#define TALB_PFC_NET_DEVICE_H

#include "talb-priority-queue.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/event-id.h"
#include "ns3/mac48-address.h"
#include "ns3/net-device.h"
#include "ns3/talb-wire.h"
#include "ns3/traced-callback.h"

#include <array>

namespace ns3
{

class TalbPfcChannel;

/**
 * \ingroup talb-switch
 * \brief Point-to-point Ethernet port that honours and sends priority flow control (PFC, IEEE
 * 802.1Qbb) pause frames: the link device of RDMA fabrics, on hosts and switches alike.
 *
 * Why not ns-3's PointToPointNetDevice: its transmit state machine and TransmitStart are
 * private, and once its queue's Dequeue returns nothing it only restarts on the next Send. A
 * pause that stops one priority cannot be expressed (the queue would have to hide paused
 * packets), and nothing restarts the device when the pause lifts. This device owns that state
 * machine: each time the link is free it sends, in this order,
 *  1. a pending pause frame (MAC control frames are not subject to pause),
 *  2. the head of the highest-priority band of its TalbPriorityQueue that is not paused
 *     (forwarded packets on a switch, ACKs and CNPs on a host),
 *  3. a frame pulled from its pull source, if any (an RDMA NIC's queue pairs, which generate
 *     packets on demand and skip paused priorities themselves),
 * and it restarts itself when a pause expires or is lifted. TCP fabrics keep ns-3's
 * PointToPointNetDevice, so their results do not change.
 *
 * Frames on the wire: an IPv4 packet behind a 14-byte Ethernet header (EtherType 0x0800), or a
 * PFC frame (EtherType 0x8808, opcode 0x0101, class-enable vector, eight 16-bit pause quanta,
 * padded to the 60-byte minimum). Transmission time counts the frame plus PhyOverhead bytes
 * (FCS, preamble and inter-frame gap: 24 bytes on Ethernet). A pause quantum is 512 bit times at
 * the link's rate; quanta 0 resumes the priority at once (XON).
 *
 * The queue holds IPv4 packets without the Ethernet header, so queue occupancy counts IPv4 bytes
 * as on TCP fabrics. The header of an IPv4 frame is implied rather than built: it counts in the
 * frame's transmission time, but the packet on the channel (and in the PhyTxBegin, PhyTxEnd and
 * PhyRxDrop traces) is the IPv4 packet itself, so that no hop adds, reads and removes 14 bytes
 * (the destination is always the peer). Only PFC frames carry their header: a frame is one when
 * it starts with the MAC control address 01:80:c2:00:00:01 and EtherType 0x8808, which an IPv4
 * packet (first byte 0x4N) never does.
 */
class TalbPfcNetDevice : public NetDevice
{
  public:
    static TypeId GetTypeId();
    TalbPfcNetDevice();
    ~TalbPfcNetDevice() override;

    /// EtherType of PFC (MAC control) frames.
    static const uint16_t ETHERTYPE_MAC_CONTROL = 0x8808;
    /// Bytes of the Ethernet header in front of every frame.
    static const uint32_t ETHERNET_HEADER_BYTES = 14;

    /**
     * Source of frames generated on demand (an RDMA NIC). Called when the link is free and the
     * queue has nothing sendable.
     * \param pausedMask bit p set: priority p is paused and must not be sent
     * \return an IPv4 packet to send now, or null
     */
    typedef Callback<Ptr<Packet>, uint8_t> PullCallback;
    /**
     * A packet left the transmit queue for the wire (or was flushed with a failed link):
     * the switch's PFC ingress accounting releases it.
     * \param ifIndex this device's index on its node
     * \param band the queue band it left (its PFC priority)
     * \param slot the queue's first-in first-out list it left: the band, or
     *        TalbPriorityQueue::BEST_EFFORT (which reports UntaggedBand as its band)
     * \param bytes its size
     */
    typedef Callback<void, uint32_t, uint8_t, uint8_t, uint32_t> DequeueCallback;
    /**
     * Consumer of received IPv4 packets that owns them from then on (a switch, which modifies
     * and forwards them, or a host's RDMA NIC, the only receiver on its device): the packet is
     * handed over without the node's protocol dispatch and without the copy that its read-only
     * Ptr<const Packet> would force on a forwarder.
     * \param ifIndex this device's index on its node
     * \param packet the IPv4 packet (its Ethernet header is implied, not carried)
     */
    typedef Callback<void, uint32_t, Ptr<Packet>> ForwardCallback;

    /// Counters.
    struct Stats
    {
        uint64_t txFrames{0};      //!< IPv4 frames sent (pause frames excluded)
        uint64_t txPulled{0};      //!< ... of which pulled from the pull source
        uint64_t rxFrames{0};      //!< IPv4 frames received and handed up
        uint64_t rxDropped{0};     //!< frames lost by the receive error model
        uint64_t pauseFramesTx{0}; //!< PFC frames sent
        uint64_t pauseFramesRx{0}; //!< PFC frames received
        uint64_t queueDrops{0};    //!< packets the transmit queue refused
    };

    void Attach(Ptr<TalbPfcChannel> channel);
    void SetQueue(Ptr<TalbPriorityQueue> queue);
    Ptr<TalbPriorityQueue> GetQueue() const;
    void SetDataRate(DataRate rate);
    DataRate GetDataRate() const;
    void SetReceiveErrorModel(Ptr<ErrorModel> em);

    void SetPullCallback(PullCallback cb);
    void SetDequeueCallback(DequeueCallback cb);
    /**
     * Hand received IPv4 packets to \p cb instead of the receive callback (so to none of the
     * node's protocol handlers); the promiscuous callback and the MacRx trace still see them.
     */
    void SetForwardCallback(ForwardCallback cb);
    /// The pull source has a frame to send: start sending if the link is idle.
    void TriggerTransmit();

    /**
     * Ask the peer to pause priority \p priority for \p quanta pause quanta (0: resume). Sent
     * ahead of queued frames once the current frame ends; requests made before it leaves share
     * one frame.
     */
    void SendPause(uint8_t priority, uint16_t quanta);
    /// \return bit p set while priority p is paused by the peer
    uint8_t GetPausedMask() const;
    /// \return the time \p quanta pause quanta last at this link's rate
    Time PauseDuration(uint16_t quanta) const;

    /**
     * Stamp in-band telemetry: a packet that carries a TalbIntTag gets this port's hop record
     * (time, bytes sent before it, bytes queued after it, rate) as it leaves the queue. Set by
     * a switch on its ports (a host's NIC does not stamp).
     */
    void SetTelemetryStamping(bool stamp);

    /// Drop every queued packet (a failed link); each one is reported to the dequeue callback.
    void FlushQueue();

    /// A frame arrives from the channel (public for the channel and for MPI receivers).
    void Receive(Ptr<Packet> frame);

    const Stats& GetStats() const;

    // NetDevice
    void SetIfIndex(const uint32_t index) override;
    uint32_t GetIfIndex() const override;
    Ptr<Channel> GetChannel() const override;
    void SetAddress(Address address) override;
    Address GetAddress() const override;
    bool SetMtu(const uint16_t mtu) override;
    uint16_t GetMtu() const override;
    bool IsLinkUp() const override;
    void AddLinkChangeCallback(Callback<void> callback) override;
    bool IsBroadcast() const override;
    Address GetBroadcast() const override;
    bool IsMulticast() const override;
    Address GetMulticast(Ipv4Address multicastGroup) const override;
    Address GetMulticast(Ipv6Address addr) const override;
    bool IsBridge() const override;
    bool IsPointToPoint() const override;
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;
    bool SendFrom(Ptr<Packet> packet,
                  const Address& source,
                  const Address& dest,
                  uint16_t protocolNumber) override;
    Ptr<Node> GetNode() const override;
    void SetNode(Ptr<Node> node) override;
    bool NeedsArp() const override;
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;
    void SetPromiscReceiveCallback(NetDevice::PromiscReceiveCallback cb) override;
    bool SupportsSendFrom() const override;

    /**
     * Send an IPv4 packet its sender has read as \p info (TalbPriorityQueue::Read, unchanged
     * since): as Send, without reading it again to queue it.
     * \return false when the packet was dropped
     */
    bool SendRead(Ptr<Packet> packet, const TalbPriorityQueue::PacketInfo& info);

    /**
     * TracedCallback signature for PFC frames.
     * \param priority the priority
     * \param quanta pause quanta (0: resume)
     */
    typedef void (*PauseTracedCallback)(uint8_t priority, uint16_t quanta);

  protected:
    void DoDispose() override;

  private:
    /// Send (ETHERTYPE_IPV4) and SendRead: queue \p packet, read as \p info when not null.
    bool DoSend(Ptr<Packet> packet, const TalbPriorityQueue::PacketInfo* info);
    /// Send the next frame if the link is idle.
    void TryTransmit();
    /// Start \p frame on the wire; \p impliedBytes: header bytes it occupies but does not carry.
    void StartFrame(Ptr<Packet> frame, uint32_t impliedBytes);
    void TransmitComplete();
    Ptr<Packet> BuildPauseFrame();
    void HandlePauseFrame(Ptr<Packet> frame);
    void PauseExpired(uint8_t priority);

    DataRate m_rate;        //!< DataRate attribute
    uint16_t m_mtu;         //!< Mtu attribute
    uint32_t m_phyOverhead; //!< PhyOverhead attribute

    /// Transmission time of \p bytes at m_rate, remembered per frame size (direct-mapped).
    Time TxTime(uint32_t bytes);
    /// Push this port's hop record into \p p's TalbIntTag, if it has one; count its bytes.
    void StampTelemetry(Ptr<Packet> p);

    /// One remembered transmission time: most frames are full data packets or
    /// acknowledgements, the rest the last packets of messages, and
    /// DataRate::CalculateBytesTxTime divides in 128-bit arithmetic.
    struct TxTimeMemo
    {
        uint64_t bps{0};
        uint32_t bytes{0};
        Time time;
    };

    static constexpr uint32_t TX_MEMO_SLOTS = 16; //!< a power of two
    std::array<TxTimeMemo, TX_MEMO_SLOTS> m_txMemo;
    bool m_honourPause; //!< HonourPause attribute
    Ptr<TalbPriorityQueue> m_queue;
    Ptr<ErrorModel> m_receiveErrorModel;

    Ptr<Node> m_node;
    Ptr<TalbPfcChannel> m_channel;
    uint32_t m_ifIndex;
    Mac48Address m_address;
    NetDevice::ReceiveCallback m_rxCallback;
    NetDevice::PromiscReceiveCallback m_promiscCallback;
    PullCallback m_pull;
    DequeueCallback m_dequeued;
    ForwardCallback m_forward;

    bool m_stampTelemetry{false}; //!< SetTelemetryStamping
    uint64_t m_queuedTxBytes{0};  //!< bytes of queued frames sent (telemetry's txBytes)

    bool m_busy;                                             //!< a frame is being transmitted
    bool m_pulling;                                          //!< inside the pull callback
    Ptr<Packet> m_currentFrame;                              //!< the frame on the wire
    bool m_pausePending;                                     //!< a pause frame waits for the link
    uint8_t m_pauseVector;                                   //!< its class-enable vector
    std::array<uint16_t, TALB_NUM_PRIORITIES> m_pauseQuanta; //!< its quanta
    uint8_t m_pausedMask;                                    //!< priorities paused by the peer
    std::array<EventId, TALB_NUM_PRIORITIES> m_pauseEnd;
    Stats m_stats;

    // Traces, as PointToPointNetDevice groups them: the MAC's top and the PHY's bottom.
    TracedCallback<Ptr<const Packet>> m_macTxTrace;
    TracedCallback<Ptr<const Packet>> m_macTxDropTrace;
    TracedCallback<Ptr<const Packet>> m_macRxTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxBeginTrace;
    TracedCallback<Ptr<const Packet>> m_phyTxEndTrace;
    TracedCallback<Ptr<const Packet>> m_phyRxDropTrace;
    TracedCallback<uint8_t, uint16_t> m_pauseTxTrace;
    TracedCallback<uint8_t, uint16_t> m_pauseRxTrace;
};

} // namespace ns3

#endif /* TALB_PFC_NET_DEVICE_H */
