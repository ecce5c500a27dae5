#ifndef TALB_PRIORITY_QUEUE_H
#define TALB_PRIORITY_QUEUE_H

#include "talb-flow-queues.h"
#include "talb-shared-buffer.h"

#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/random-variable-stream.h"
#include "ns3/talb-banded-queue.h"
#include "ns3/talb-lb-core-band-drr.h"
#include "ns3/talb-wire.h"
#include "ns3/traced-callback.h"

#include <array>
#include <utility>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief Device transmit queue of a data-center port: a training class of eight strict-priority
 * tensor bands and a best-effort class, scheduled by DWRR; ECN marking; for switch and host ports.
 *
 * Set as a PointToPointNetDevice's TxQueue, it holds packets with the PPP header in front; as a
 * TalbPfcNetDevice's, plain IPv4 packets. A packet's band is
 * - the priority of its TalbTag (the TaLB option), unless BandFrom is Dscp, else
 * - the TaLB priority of its DSCP (talb_priority_from_dscp), else
 * - ControlBand for a TCP segment without payload (ACK, SYN, FIN) or a RoCEv2 ACK, NAK or CNP,
 *   else
 * - UntaggedBand (the packet is untagged: background traffic).
 * BandFrom Option (default) lets the label schedule the packet, as a switch that parses the
 * option does; BandFrom Dscp schedules by traffic class alone, as a RoCE switch maps DSCP to its
 * queues and PFC priorities, so a sender that puts a connection's packets in one traffic class
 * (an RDMA queue pair, NCCL_IB_TC) keeps them in one band while their options still carry each
 * tensor's priority for the balancers. The two agree whenever the DSCP follows the label.
 *
 * Two schedulers (Scheduling attribute):
 * - Dwrr (default), what a data-center switch runs: tagged and control packets form the training
 *   class, eight strict-priority bands (band 0 served first); untagged packets form the
 *   best-effort class, one FIFO. The two classes share the port by deficit weighted round robin:
 *   each visit adds Weight x Quantum bytes to the class's deficit, so while both are backlogged
 *   their byte shares are TrainingWeight : BestEffortWeight; a class with nothing to send gets
 *   nothing (its deficit is reset) and the other takes the whole port (work-conserving).
 *   UntaggedBand is then only the band reported for best-effort packets (Classify(), PFC).
 * - Strict: one strict-priority order of eight bands, untagged packets in UntaggedBand among the
 *   tensor bands (kept for comparison: with UntaggedBand 0 background pre-empts every tensor).
 *
 * All packets share one buffer of MaxSize (drop-tail); with a switch's shared buffer
 * (SetSharedBuffer) a packet of a lossy band must also pass the buffer's dynamic threshold, and
 * every queued packet is charged to it. BestEffortMaxBytes (0: off) caps the bytes
 * the best-effort class (untagged packets, under either scheduler) may hold of it, so that
 * background cannot take the buffer tensor packets need: an untagged packet that would take the
 * class past the cap is dropped (counted and traced as a drop of that class). On arrival, an
 * ECN-capable packet (ECT(0) or ECT(1)) is marked CE by one of two profiles, on the port's
 * occupancy (under DWRR its class's occupancy, as each class is a queue of its own; with
 * EcnPerBand, its band's occupancy, the best-effort class counting as one band):
 * - step (DCTCP): marked when the occupancy is at least MarkThreshold;
 * - RED-like (DCQCN), when EcnKmax is above zero: never at or below EcnKmin, always above
 *   EcnKmax, and in between with a probability rising linearly from 0 to EcnPmax.
 * The IPv4 header is rewritten, with its checksum when checksums are enabled.
 *
 * With FlowQueueing (host NICs: TalbHostConfig's Qdisc fq) each slot is shared among its flows
 * (5-tuples) by deficit round robin, Quantum bytes per visit, as Linux's fq qdisc serves a
 * host's sockets (TalbFlowQueues); without it each slot is one FIFO.
 *
 * A TalbPfcNetDevice dequeues with DequeueUnpaused(), which skips the bands its peer has paused
 * (priority flow control; pausing UntaggedBand pauses the best-effort class too); each band stays
 * first-in first-out.
 *
 * O(bands) per operation and no allocation: the base class's single list is kept sorted by band
 * (the best-effort class last), and the first packet of each band is remembered, so a packet is
 * inserted right behind its band; a DWRR decision compares one deficit with one head packet.
 */
class TalbPriorityQueue : public Queue<Packet>, public TalbBandedQueue
{
  public:
    static TypeId GetTypeId();
    TalbPriorityQueue();
    ~TalbPriorityQueue() override;

    bool Enqueue(Ptr<Packet> item) override;
    Ptr<Packet> Dequeue() override;
    Ptr<Packet> Remove() override;
    Ptr<const Packet> Peek() const override;

    /// Slot (first-in first-out list) of the best-effort class under Dwrr, behind the eight
    /// bands: slots 0-7 are the bands.
    static constexpr uint8_t BEST_EFFORT = TALB_NUM_PRIORITIES;
    /// Bands plus the best-effort class.
    static constexpr uint8_t NUM_SLOTS = TALB_NUM_PRIORITIES + 1;

    /**
     * Dequeue what the scheduler serves next among the bands whose bit in \p pausedMask is
     * clear (the best-effort class counts as UntaggedBand). Dequeue() is DequeueUnpaused(0, ...).
     * \param pausedMask bit b set: band b is paused
     * \param band receives the band of the returned packet (UntaggedBand for best effort)
     * \param slot if not null, receives its slot: its band, or BEST_EFFORT
     * \return the packet, or null when every non-empty band is paused
     */
    Ptr<Packet> DequeueUnpaused(uint8_t pausedMask, uint8_t* band, uint8_t* slot = nullptr);

    /// \return the band of \p item: its priority, ControlBand, or UntaggedBand (also for the
    /// best-effort class under Dwrr); PFC accounts packets by this band
    uint8_t Classify(Ptr<const Packet> item) const;
    /// \return the slot \p item would be queued in: its band, or BEST_EFFORT (Dwrr)
    uint8_t ClassifySlot(Ptr<const Packet> item) const;

    /// Header facts read from the first bytes of a packet.
    struct Parsed
    {
        bool ipv4{false};       //!< an IPv4 packet
        uint32_t ipOffset{0};   //!< offset of the IPv4 header (2 behind a PPP header)
        uint8_t tos{0};         //!< IPv4 TOS byte
        bool control{false};    //!< TCP segment without payload, or RoCEv2 ACK/NAK/CNP
        uint8_t protocol{0};    //!< IPv4 protocol
        uint32_t src{0};        //!< IPv4 source address
        uint32_t dst{0};        //!< IPv4 destination address
        uint16_t srcPort{0};    //!< TCP or UDP source port
        uint16_t dstPort{0};    //!< TCP or UDP destination port
        bool rocev2{false};     //!< UDP to RoCEv2's port 4791: a go-back-N transport's packet
        uint32_t destQp{0};     //!< rocev2: the BTH's destination queue pair
        uint32_t tcpSeq{0};     //!< TCP: the segment's sequence number
        uint32_t tcpPayload{0}; //!< TCP: the segment's data bytes (0: control)
    };

    /// What classifying a packet reads from it: its headers and its TalbTag. A switch reads it
    /// once per hop (Read) for its forwarding and hands it to PFC's classification and to
    /// Enqueue, so the packet is parsed and its tag looked up once, not three times.
    struct PacketInfo
    {
        Parsed headers;     //!< the headers
        bool tagged{false}; //!< the packet carries a TalbTag
        talb_label label{}; //!< its label (tagged only)
        /// a TCP segment's TalbFlowLabelTag (PLB's path entropy); 0: none
        uint32_t flowLabel{0};
    };

    /// \return the headers and tag of \p item (IPv4, or PPP then IPv4)
    static PacketInfo Read(Ptr<const Packet> item);

    /**
     * Enqueue \p item, read before as \p info (and not changed since): as Enqueue(item).
     * \return false when the packet was dropped
     */
    bool Enqueue(Ptr<Packet> item, const PacketInfo& info);

    /// \return the slot a packet read as \p info would be queued in (as ClassifySlot)
    uint8_t ClassifySlot(const PacketInfo& info) const;

    /// \return the band reported for slot \p slot (UntaggedBand for BEST_EFFORT)
    uint8_t BandOfSlot(uint8_t slot) const;
    /// \return the UntaggedBand attribute
    uint8_t GetUntaggedBand() const override;
    /// \return bytes queued in bands 0..\p priority (the best-effort class not included)
    uint64_t GetBytesAtOrAbove(uint8_t priority) const override;
    /// Bytes a tagged packet of band \p priority fits in before Enqueue() refuses it: MaxSize
    /// in bytes less the bytes queued (less the lower bands' with PushOut), and with a shared
    /// buffer for a lossy band at most its dynamic threshold less the bytes queued and the free
    /// pool. UNKNOWN_ROOM under a MaxSize in packets while a packet fits; 0 once none does.
    uint64_t GetRoomBytes(uint8_t priority) const override;

    /// What a packet's band is taken from (BandFrom attribute).
    enum BandSource
    {
        OPTION, //!< the TaLB option's priority, else the DSCP
        DSCP    //!< the DSCP only (the option is left to the balancers)
    };

    /// How the port shares its link between packets of different bands.
    enum Scheduling
    {
        STRICT, //!< eight strict-priority bands, untagged packets in UntaggedBand
        DWRR    //!< training class (strict bands) and best-effort class, by DWRR
    };

    /// How the tensor bands (the training class, or all bands under Strict) share the link.
    enum BandScheduling
    {
        STRICT_BANDS, //!< the lowest non-empty band first
        DWRR_BANDS    //!< bands below StrictBands first, the others by DWRR with BandWeights
    };

    /**
     * Reads a BandWeights text: one weight per band, 1..1000, comma-separated.
     * \param text e.g. "1,1,2,2,4,4,8,8"
     * \param weights receives the weights
     * \return empty, or what is wrong with \p text
     */
    static std::string ParseBandWeights(const std::string& text,
                                        std::array<uint32_t, TALB_NUM_PRIORITIES>* weights);

    /**
     * Share \p buffer with the switch's other queues: every packet queued here is charged to it
     * while it waits, and one of a band not in \p losslessBands must pass its dynamic threshold
     * (TalbSharedBuffer::AdmitLossy), else it is dropped and counted as a drop of its class.
     * \param losslessBands bit b set: band b is lossless (PFC holds it back instead)
     */
    void SetSharedBuffer(Ptr<TalbSharedBuffer> buffer, uint8_t losslessBands);
    /// \return the shared buffer, or null (per-port buffer only)
    Ptr<TalbSharedBuffer> GetSharedBuffer() const;

    /**
     * Fix the random stream of the RED-like ECN profile.
     * \return the number of streams used (1)
     */
    int64_t AssignStreams(int64_t stream);

    /// \return bytes queued in band \p band
    uint32_t GetBandBytes(uint8_t band) const;
    /// \return packets queued in band \p band
    uint32_t GetBandPackets(uint8_t band) const;
    /// \return bytes queued in the best-effort class (Dwrr; in Strict, untagged packets are
    /// counted in UntaggedBand's band)
    uint32_t GetBestEffortBytes() const;
    /// \return packets queued in the best-effort class (Dwrr)
    uint32_t GetBestEffortPackets() const;
    /// \return packets marked CE so far
    uint64_t GetMarkedCount() const;

    /// Traffic classes counted apart: tagged and control packets, and untagged packets (under
    /// either scheduler).
    enum TrafficClass : uint8_t
    {
        TRAINING_CLASS = 0,    //!< bands 0-7: TaLB-tagged, TaLB DSCP, control
        BEST_EFFORT_CLASS = 1, //!< untagged (background) packets
        NUM_CLASSES = 2
    };

    /// Counters of one traffic class since the queue was made.
    struct ClassStats
    {
        uint64_t enqueuedPackets{0};
        uint64_t enqueuedBytes{0};
        uint64_t dequeuedPackets{0};
        uint64_t dequeuedBytes{0};
        uint64_t droppedPackets{0}; //!< refused (shared buffer, MaxSize, class cap) or pushed out
        uint64_t droppedBytes{0};
        uint64_t capDrops{0};      //!< ... of which by BestEffortMaxBytes
        uint64_t pushedOut{0};     //!< queued packets dropped for a higher band's (PushOut)
        uint64_t markedPackets{0}; //!< marked CE
        uint32_t peakBytes{0};     //!< most bytes the class held
        /// Sum over this class's drops of the other class's bytes queued at that moment
        /// (divided by droppedPackets: what the other class held when this one lost packets).
        uint64_t otherBytesAtDrops{0};
    };

    /// \return the counters of class \p cls (a TrafficClass)
    const ClassStats& GetClassStats(uint8_t cls) const;
    /// \return bytes queued now in class \p cls
    uint32_t GetClassBytes(uint8_t cls) const;

    /**
     * TracedCallback signature for a class's drop.
     * \param packet the dropped packet
     * \param cls its TrafficClass
     * \param trainingBytes bytes the training class held
     * \param bestEffortBytes bytes the best-effort class held
     */
    typedef void (*ClassDropTracedCallback)(Ptr<const Packet> packet,
                                            uint8_t cls,
                                            uint32_t trainingBytes,
                                            uint32_t bestEffortBytes);

  private:
    NS_LOG_TEMPLATE_DECLARE; //!< redefinition of the log component

    /// No slot: nothing to send.
    static constexpr uint8_t NONE = NUM_SLOTS;

    /// Adds the attributes of the scheduler and the bands to \p tid. \return \p tid
    static TypeId AddSchedulingAttributes(TypeId tid);
    /// Adds the attributes of ECN marking to \p tid. \return \p tid
    static TypeId AddEcnAttributes(TypeId tid);

    static Parsed Parse(Ptr<const Packet> item);
    /// \return the band of a packet read as \p info, or NONE when it is untagged (neither tag,
    /// DSCP nor control)
    uint8_t TaggedBand(const PacketInfo& info) const;
    /// \return the TrafficClass of \p item queued in slot \p slot
    uint8_t ClassOf(Ptr<const Packet> item, uint8_t slot) const;
    /// Count a refused packet of class \p cls.
    void CountDrop(Ptr<const Packet> item, uint8_t cls, bool cap);
    bool ShouldMark(uint8_t slot);
    void MarkCe(Ptr<Packet> item, const Parsed& parsed);
    /// \return the lowest non-empty band not in \p pausedMask, or NONE
    uint8_t FirstBand(uint8_t pausedMask) const;
    /// \return the band of the training class (every band under Strict) the next dequeue serves
    /// with \p pausedMask under BandScheduling, or NONE; changes nothing
    uint8_t TensorBand(uint8_t pausedMask) const;
    /// \return the slot the next dequeue serves with \p pausedMask, or NONE; changes nothing
    uint8_t Pick(uint8_t pausedMask) const;
    void SetBandWeights(std::string text);
    std::string GetBandWeights() const;
    /// \return the packet slot \p slot sends next: its first, or (FlowQueueing) its round's
    Iterator Front(uint8_t slot) const;
    /// Remove the head of slot \p slot (dequeued, or removed when \p remove), charging DWRR.
    Ptr<Packet> TakeHead(uint8_t slot, bool remove);
    /// Unlink the head of slot \p slot and count it dequeued (or dropped when \p remove); no
    /// scheduling charge
    Ptr<Packet> Detach(uint8_t slot, bool remove);
    /// PushOut: drop the oldest packets of the bands below \p slot, lowest band first, until a
    /// packet of \p size bytes fits in MaxSize; drops none when they cannot make room
    void PushOut(uint8_t slot, uint32_t size);
    /// \return bytes (first) and packets queued in the tensor bands below slot \p slot: what
    /// PushOut may drop for a packet of that slot
    std::pair<uint64_t, uint32_t> LowerBands(uint8_t slot) const;
    /// Dequeue (or remove) what Pick() chooses; \p band and \p slot receive its band and slot
    Ptr<Packet> TakeNext(uint8_t pausedMask, uint8_t* band, uint8_t* slot, bool remove);

    Scheduling m_scheduling;              //!< Scheduling attribute
    BandSource m_bandFrom;                //!< BandFrom attribute
    uint32_t m_trainingWeight;            //!< TrainingWeight attribute
    uint32_t m_bestEffortWeight;          //!< BestEffortWeight attribute
    uint32_t m_quantum;                   //!< Quantum attribute (bytes per unit of weight)
    uint8_t m_controlBand;                //!< ControlBand attribute
    uint8_t m_untaggedBand;               //!< UntaggedBand attribute
    bool m_useEcn;                        //!< UseEcn attribute
    bool m_ecnPerBand;                    //!< EcnPerBand attribute
    QueueSize m_markThreshold;            //!< MarkThreshold attribute
    QueueSize m_kmin;                     //!< EcnKmin attribute
    QueueSize m_kmax;                     //!< EcnKmax attribute
    double m_pmax;                        //!< EcnPmax attribute
    Ptr<UniformRandomVariable> m_uniform; //!< RED-like profile's draws (created when used)

    std::array<Iterator, NUM_SLOTS> m_head; //!< first packet of each non-empty slot
    std::array<uint32_t, NUM_SLOTS> m_bandPackets;
    std::array<uint32_t, NUM_SLOTS> m_bandBytes;
    uint32_t m_trainingPackets;      //!< packets in bands 0..7
    bool m_servingBestEffort;        //!< DWRR: the class whose turn it is
    int64_t m_deficit[2];            //!< DWRR deficit in bytes: [0] training, [1] best effort
    BandScheduling m_bandScheduling; //!< BandScheduling attribute
    uint8_t m_strictBands;           //!< StrictBands attribute
    std::array<uint32_t, TALB_NUM_PRIORITIES> m_bandWeight; //!< BandWeights attribute
    talb::lb::BandDrr m_bandDrr; //!< DWRR_BANDS: the decision core's band scheduler
    bool m_bandDrrReady;         //!< m_bandDrr configured (on the first packet, after attributes)
    uint64_t m_nMarked;
    uint32_t m_bestEffortMaxBytes;                    //!< BestEffortMaxBytes attribute
    Ptr<TalbSharedBuffer> m_shared;                   //!< the switch's, or null
    uint8_t m_losslessBands{0};                       //!< bands m_shared never refuses
    std::array<ClassStats, NUM_CLASSES> m_classStats; //!< per TrafficClass
    std::array<uint32_t, NUM_CLASSES> m_classBytes;   //!< bytes queued per TrafficClass
    TracedCallback<Ptr<const Packet>, uint8_t, uint32_t, uint32_t> m_classDropTrace;
    bool m_pushOut;         //!< PushOut attribute
    bool m_flowQueueing;    //!< FlowQueueing attribute
    uint32_t m_maxFlows;    //!< MaxFlows attribute
    bool m_flowsReady;      //!< m_flows sized (on the first packet, after the attributes)
    TalbFlowQueues m_flows; //!< FlowQueueing: the flows of each slot and their round
};

} // namespace ns3

#endif /* TALB_PRIORITY_QUEUE_H */
