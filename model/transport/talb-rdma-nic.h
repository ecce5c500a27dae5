#ifndef TALB_RDMA_NIC_H
#define TALB_RDMA_NIC_H

#include "talb-entropy-policy.h"
#include "talb-rdma-queue-pair.h"
#include "talb-rdma-rate-control.h"

#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/object-factory.h"
#include "ns3/object.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief A host's RoCEv2 NIC: queue pairs over one TalbPfcNetDevice, without an IP stack.
 *
 * The NIC is the device's pull source: whenever the link is free it picks the next packet among
 * its queue pairs with data, skipping those whose pacing time has not come, whose window is
 * closed, or whose next packet's priority the switch above has paused (PFC), and serving the
 * highest priority first and queue pairs of equal priority round-robin. If only pacing holds
 * them back it wakes itself at the earliest pacing time. Acknowledgements, NAKs and CNPs go
 * through the device's queue, in its control band, ahead of data.
 *
 * Every data packet carries its TaLB label as the TCP path's egress hook gives it: the tensor
 * owning its first payload byte, FIRST when that byte is the tensor's first, LAST when the
 * packet holds the tensor's last byte, as a TalbTag (AddTag) and as the DSCP of its priority
 * (SetDscp); ECN-capable (ECT(0)) for DCQCN. Switches and balancers see RDMA packets as they see
 * TCP segments.
 *
 * Queue pairs are created in pairs (Connect), one end on each NIC; connection set-up is not
 * simulated (it is out of band on real NICs). The rate control of each queue pair is forked from
 * a prototype made from the RateControl TypeId (or SetRateControlFactory()).
 *
 * Recovery chooses how queue pairs recover lost packets: GoBackN (RoCEv2 NICs, the default) or
 * SelectiveRepeat (IRN-style, see TalbRdmaQueuePair); both ends of a connection must use the
 * same, so it is a NIC attribute. With SelectiveRepeat, EntropyPolicy may name a
 * TalbEntropyPolicy: each queue pair then sprays its packets over the fabric's paths.
 */
class TalbRdmaNic : public Object
{
  public:
    static TypeId GetTypeId();
    TalbRdmaNic();
    ~TalbRdmaNic() override;

    /// First queue pair number (0 and 1 are InfiniBand's management queue pairs).
    static const uint32_t FIRST_QPN = 2;

    /// How queue pairs recover lost packets (Recovery attribute).
    enum Recovery
    {
        GO_BACK_N,       //!< send everything again from the first missing packet
        SELECTIVE_REPEAT //!< send only the missing packets again (IRN-style)
    };

    /// NIC counters.
    struct Stats
    {
        uint64_t dataPacketsSent{0};
        uint64_t dataPacketsReceived{0};
        uint64_t controlPacketsSent{0}; //!< ACKs, NAKs and CNPs
        uint64_t controlPacketsReceived{0};
        uint64_t unknownPackets{0}; //!< not RoCEv2, or for no live queue pair (dropped)
        uint64_t controlDrops{0};   //!< control packets the device refused
    };

    /**
     * Take \p device (on \p node) as the NIC's port, with IPv4 address \p address: become its
     * pull source and receive its IPv4 packets. Call once.
     */
    void Install(Ptr<Node> node, Ptr<TalbPfcNetDevice> device, Ipv4Address address);
    /// Use \p factory for the queue pairs' rate control instead of the RateControl attribute.
    void SetRateControlFactory(const ObjectFactory& factory);

    /// Create an unconnected queue pair on this NIC.
    Ptr<TalbRdmaQueuePair> CreateQueuePair();
    /**
     * Connect \p a and \p b (queue pairs of two NICs) to each other.
     * \param initialPsn the first PSN of both directions (24 bits; real NICs pick it at random)
     */
    static void Connect(Ptr<TalbRdmaQueuePair> a,
                        Ptr<TalbRdmaQueuePair> b,
                        uint32_t initialPsn = 0);
    /**
     * Create a queue pair on \p src and one on \p dst and connect them.
     * \return the pair (src end, dst end)
     */
    static std::pair<Ptr<TalbRdmaQueuePair>, Ptr<TalbRdmaQueuePair>> Connect(
        Ptr<TalbRdmaNic> src,
        Ptr<TalbRdmaNic> dst,
        uint32_t initialPsn = 0);
    /// Remove \p qp: packets for it are dropped from now on, its timers stop.
    void DestroyQueuePair(Ptr<TalbRdmaQueuePair> qp);
    /// \return the live queue pair numbered \p qpn, or null
    Ptr<TalbRdmaQueuePair> GetQueuePair(uint32_t qpn) const;
    /// \return the number of queue pairs created and not destroyed
    uint32_t GetNQueuePairs() const;

    Ipv4Address GetAddress() const;
    Ptr<TalbPfcNetDevice> GetDevice() const;
    Ptr<Node> GetNode() const;
    /// \return the payload bytes of a full packet (the Mtu attribute)
    uint32_t GetMtu() const;
    /// \return selective repeat's reorder threshold in packets: ReorderThreshold, or the line
    /// rate's where that is 0 (set by Install)
    uint32_t GetReorderThreshold() const;
    const Stats& GetStats() const;
    /// \return the Recovery attribute
    Recovery GetRecovery() const;
    /// \return selective repeat's window: packets a queue pair keeps in flight at most
    uint64_t GetSelectiveRepeatWindow() const;

    /**
     * TracedCallback signature for go-back-N.
     * \param qp the queue pair
     * \param from the PSN it was about to send
     * \param to the PSN it sends again from
     * \param timeout true for a retransmission timeout, false for a NAK
     */
    typedef void (*GoBackTracedCallback)(Ptr<const TalbRdmaQueuePair> qp,
                                         uint64_t from,
                                         uint64_t to,
                                         bool timeout);
    /// TracedCallback signature for events of a queue pair (CNP sent or received).
    typedef void (*QueuePairTracedCallback)(Ptr<const TalbRdmaQueuePair> qp);
    /**
     * TracedCallback signature for completed messages.
     * \param qp the queue pair
     * \param seq the message's sequence number
     * \param bytes its length
     */
    typedef void (*MessageTracedCallback)(Ptr<const TalbRdmaQueuePair> qp,
                                          uint64_t seq,
                                          uint64_t bytes);

  protected:
    void DoDispose() override;

  private:
    friend class TalbRdmaQueuePair;

    // Used by queue pairs.
    void Activate(TalbRdmaQueuePair* qp);
    void SendAck(TalbRdmaQueuePair* qp, uint8_t syndrome, uint32_t psn24, uint32_t msn);
    void SendCnp(TalbRdmaQueuePair* qp);
    /// Selective repeat's acknowledgement (OP_SACK).
    void SendSack(TalbRdmaQueuePair* qp,
                  uint32_t psn24,
                  uint32_t msn,
                  uint64_t bitmap,
                  uint16_t entropy,
                  bool ce);
    void Transmit();

    /// The device's pull callback.
    Ptr<Packet> Pull(uint8_t pausedMask);
    /// The device's forward callback: every IPv4 packet it receives, without the node's
    /// protocol dispatch (a host with an RDMA NIC has no IP stack on that device).
    void Receive(uint32_t ifIndex, Ptr<Packet> packet);
    void Wake();
    void SendControl(TalbRdmaQueuePair* qp, TalbRoceHeader& h, uint32_t bodyBytes);

    // Attributes
    uint32_t m_mtu;
    uint32_t m_ackInterval;
    Time m_cnpInterval;
    Time m_rto;
    Time m_rtoLow;              //!< RetransmitTimeoutLow attribute (0: off)
    bool m_measureRtt{false};   //!< MeasureRtt attribute
    bool m_windowEdgeAck{true}; //!< WindowEdgeAck attribute
    uint64_t m_window;
    TypeId m_rateControlTid;
    bool m_addTag;
    bool m_setDscp;
    int m_recovery;                //!< Recovery attribute
    Time m_srWindowRtt;            //!< SelectiveRepeatRtt attribute
    uint32_t m_reorderThreshold;   //!< ReorderThreshold attribute
    uint32_t m_lossThreshold{16};  //!< ReorderThreshold, or its value for the line rate (0)
    std::string m_entropyPolicy;   //!< EntropyPolicy attribute
    bool m_sprayAcks{true};        //!< SprayAcks attribute
    bool m_recycleCovered{false};  //!< RecycleCovered attribute
    uint64_t m_srWindowPackets{0}; //!< selective repeat's window, from SelectiveRepeatRtt
    Ptr<TalbEntropyPolicy> m_entropyPrototype;

    Ptr<Node> m_node;
    Ptr<TalbPfcNetDevice> m_device;
    Ipv4Address m_address;
    DataRate m_lineRate;
    uint32_t m_l2Overhead{0};  //!< Ethernet header and PHY bytes per frame
    uint8_t m_untaggedBand{0}; //!< device queue's band of unlabelled packets
    ObjectFactory m_ccFactory;
    Ptr<TalbRdmaRateControl> m_ccPrototype;
    bool m_telemetry{false}; //!< the rate control reads in-band telemetry (TalbIntTag)

    std::vector<Ptr<TalbRdmaQueuePair>> m_qps; //!< [qpn - FIRST_QPN], null once destroyed
    std::vector<TalbRdmaQueuePair*> m_active;  //!< queue pairs that may have data
    std::size_t m_rr{0};                       //!< round-robin position in m_active
    EventId m_wake;
    Stats m_stats;

    TracedCallback<Ptr<const TalbRdmaQueuePair>, uint64_t, uint64_t, bool> m_goBackTrace;
    TracedCallback<Ptr<const TalbRdmaQueuePair>> m_cnpSentTrace;
    TracedCallback<Ptr<const TalbRdmaQueuePair>> m_cnpReceivedTrace;
    TracedCallback<Ptr<const TalbRdmaQueuePair>, uint64_t, uint64_t> m_messageSentTrace;
    TracedCallback<Ptr<const TalbRdmaQueuePair>, uint64_t, uint64_t> m_messageReceivedTrace;
};

} // namespace ns3

#endif /* TALB_RDMA_NIC_H */
