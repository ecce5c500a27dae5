#ifndef TALB_RDMA_MESSAGE_CHANNEL_H
#define TALB_RDMA_MESSAGE_CHANNEL_H

#include "talb-message-channel.h"
#include "talb-plb.h"
#include "talb-rdma-nic.h"

#include "ns3/event-id.h"

#include <array>
#include <deque>
#include <map>

namespace ns3
{

/**
 * \ingroup talb-transport
 * \brief TalbRdmaMessageChannel's queue-pair scaling and PLB; the defaults are the channel
 * without either.
 */
struct TalbRdmaChannelOptions
{
    uint32_t queuePairs{1};          //!< queue pairs per lane (>= 1), used round-robin
    bool sharedSourcePort{false};    //!< every queue pair takes the first one's source port
    bool splitMessages{false};       //!< a SEND is split over the lane's queue pairs
    bool plb{false};                 //!< repath queue pairs after congested rounds
    TalbPlb::Config plbConfig;       //!< PLB's rounds and mark fraction
    Time plbRound{MicroSeconds(50)}; //!< PLB's round (about one round-trip time)
};

/**
 * \ingroup talb-transport
 * \brief One direction of an RDMA connection between two hosts: RoCEv2 queue pairs
 * (TalbRdmaNic) that carry each message as RDMA SENDs.
 *
 * A message is TALB_FRAME_LEN header bytes, labelled with the tensor of its first payload byte
 * (that tensor's FIRST marker moves to the header, as on the TCP channel), followed by its parts,
 * each labelled with its tensor; so its size on the wire and its labels match the TCP channel's.
 *
 * A RoCE NIC gives a queue pair one traffic class (its service level, hence DSCP and PFC
 * priority) when the connection is set up, not one per packet; NCCL gives every queue pair the
 * same one (NCCL_IB_TC). Open's trafficClass does that: every packet of the channel has that
 * class's DSCP and band, and switches that take the band from the DSCP (TalbPriorityQueue BandFrom
 * Dscp, the RDMA fabric's) keep a queue pair's packets in order while the TaLB option carries
 * each tensor's priority. With TRAFFIC_CLASS_OF_LABEL each packet's class follows its label:
 * - SINGLE: one queue pair carries every message and a later high-priority packet can overtake
 *   an earlier low-priority one in a switch; the responder answers with a NAK and go-back-N (the
 *   first RDMA host's behaviour, kept for comparison);
 * - PER_PRIORITY: one queue pair per tensor priority, opened on first use; each run of
 *   consecutive parts of one priority is a SEND on that priority's queue pair (the header goes
 *   with the first part), so every queue pair's packets share one band. Either traffic class
 *   works with PER_PRIORITY.
 *
 * Queue-pair scaling (Options::queuePairs = N, NCCL_IB_QPS_PER_CONNECTION): each lane (the one
 * of SINGLE, each priority's of PER_PRIORITY) is N queue pairs, all connected on the lane's first
 * use, and the lane's SENDs go to them round-robin (NCCL's default, NCCL_IB_SPLIT_DATA_ON_QPS=0,
 * spreads messages, not the bytes of one message; with Options::splitMessages each SEND is cut
 * into N SENDs of equal size, one per queue pair, as NCCL_IB_SPLIT_DATA_ON_QPS=1 does). Each
 * queue pair has its own QP number and,
 * unless Options::sharedSourcePort, its own UDP source port; with sharedSourcePort every queue
 * pair of the channel takes its first queue pair's port, so only a switch that hashes the BTH's
 * destination QP (E-ECMP) tells them apart. N = 1 is the channel without scaling.
 *
 * PLB (Options::plb, TalbPlb): every Options::plbRound while messages are outstanding, each
 * queue pair that sent packets in the round ends a PLB round with its marked fraction estimated
 * from DCQCN's CNPs, the requester's only congestion signal: the responder sends at most one CNP
 * per CnpInterval in which packets arrived marked, so CNPs x CnpInterval / round is the fraction
 * of the round's CNP intervals that saw marks (at most 1). A repath gives the queue pair a new
 * UDP source port (TalbRdmaQueuePair::Repath, counted in its Stats::repaths).
 *
 * A message is delivered once all its SENDs have arrived: in the order sent among messages on
 * one queue pair (always with SINGLE and N = 1), in any order across queue pairs. The flow
 * record's ports are the UDP source port of the queue pair of the message's first SEND and
 * RoCEv2's 4791.
 */
class TalbRdmaMessageChannel : public TalbMessageChannel
{
  public:
    /// How the channel maps messages to queue pairs.
    enum QueuePairMode
    {
        PER_PRIORITY, //!< one queue pair per tensor priority
        SINGLE,       //!< one queue pair for every message
    };

    /// Queue-pair scaling and PLB.
    typedef TalbRdmaChannelOptions Options;

    static TypeId GetTypeId();
    TalbRdmaMessageChannel();
    ~TalbRdmaMessageChannel() override;

    /**
     * Connect the channel from \p src to \p dst (NICs of two hosts).
     * \param mode how messages map to queue pairs
     * \param trafficClass every queue pair's traffic class (TalbRdmaQueuePair::SetTrafficClass):
     *        a priority 0..7, or TRAFFIC_CLASS_OF_LABEL (each packet's follows its label)
     * \param options queue pairs per lane, source ports, PLB
     */
    void Open(Ptr<TalbRdmaNic> src,
              Ptr<TalbRdmaNic> dst,
              QueuePairMode mode,
              uint8_t trafficClass,
              const Options& options = Options());
    /**
     * \param priority a tensor priority (ignored with SINGLE)
     * \param index which of the lane's Options::queuePairs queue pairs
     * \return the sending end of that queue pair of \p priority (null before its first message)
     */
    Ptr<TalbRdmaQueuePair> GetQueuePair(uint8_t priority = 0, uint32_t index = 0) const;
    /// \return repaths PLB made on the channel's queue pairs
    uint64_t GetRepaths() const;

  protected:
    void DoDispose() override;

  private:
    void DoSend(TalbMessage&& message) override;
    void Received(Ptr<TalbRdmaQueuePair> qp, uint64_t seq, uint64_t bytes);
    /// The requester's completion of a SEND: completes its message once all its SENDs are.
    void SendCompleted(Ptr<TalbRdmaQueuePair> qp, uint64_t seq);

    /// A queue pair of the channel and the messages with a SEND on it, oldest first.
    struct Qp
    {
        Ptr<TalbRdmaQueuePair> tx;
        Ptr<TalbRdmaQueuePair> rx;
        std::deque<uint64_t> messages; //!< channel indices, until received
        std::deque<uint64_t> unacked;  //!< channel indices, until acknowledged
        TalbPlb plb;                   //!< PLB's count (Options::plb)
        uint64_t roundCnps{0};         //!< tx's CNPs received when the PLB round began
        uint64_t roundPackets{0};      //!< tx's packets sent when the PLB round began
    };

    /// The queue pairs of one priority (all of SINGLE's in lane 0).
    struct Lane
    {
        std::vector<Qp> qps; //!< Options::queuePairs of them once used, else none
        uint32_t next{0};    //!< the queue pair of the lane's next SEND
    };

    /// A posted message until its last SEND is acknowledged.
    struct Unacked
    {
        TalbFlowRecord record; //!< all but its end
        uint32_t sendsLeft{0}; //!< its SENDs not yet acknowledged
    };

    /// A posted message until delivered.
    struct Pending
    {
        TalbMessage message;
        uint32_t sendsLeft{0};     //!< its SENDs not yet received
        uint64_t bytesReceived{0}; //!< bytes of its SENDs received
        uint16_t sourcePort{0};    //!< of its first SEND's queue pair
        bool delivered{false};
    };

    /// \return the lane of \p priority, its queue pairs connected on first use
    Lane& LaneOf(uint8_t priority);
    /**
     * \return \p runs (covering \p bytes) cut into \p pieces SENDs of equal bytes (one more
     * byte in the first ones; one SEND when \p bytes < \p pieces), each with its bytes
     */
    static std::vector<std::pair<uint64_t, std::vector<TalbRdmaLabelRun>>> SplitRuns(
        std::vector<TalbRdmaLabelRun>&& runs,
        uint64_t bytes,
        uint32_t pieces);
    /// \return the queue pair whose sending (\p tx) or receiving end is \p qp, or null
    Qp* Find(Ptr<TalbRdmaQueuePair> qp, bool tx);
    /// PLB: end the round of every queue pair that sent in it; again while messages are out.
    void PlbRoundEnd();

    Ptr<TalbRdmaNic> m_src;
    Ptr<TalbRdmaNic> m_dst;
    QueuePairMode m_mode{PER_PRIORITY};
    uint8_t m_trafficClass{TalbRdmaQueuePair::TRAFFIC_CLASS_OF_LABEL};
    Options m_options;
    Time m_cnpInterval; //!< the receiving NIC's CnpInterval (PLB's marked fraction)
    EventId m_plbRound; //!< the end of the current PLB round
    std::array<Lane, TALB_NUM_PRIORITIES> m_lanes; //!< by priority; SINGLE uses lane 0
    std::deque<Pending> m_inFlight;                //!< posted, not yet delivered
    uint64_t m_firstInFlight{0};                   //!< channel index of m_inFlight.front()
    std::map<uint64_t, Unacked> m_unacked;         //!< by channel index
};

} // namespace ns3

#endif /* TALB_RDMA_MESSAGE_CHANNEL_H */
