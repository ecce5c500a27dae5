#ifndef TALB_HERMES_LB_H
#define TALB_HERMES_LB_H

#include "talb-core-policy-lb.h"

#include "ns3/talb-lb-core-hermes.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief Hermes at the leaves: comprehensive sensing (per path ECN fraction and queueing
 * delay, failed ports) and cautious rerouting (a flow moves off a congested path only when it
 * has sent enough, is slow, and a notably better path exists; off a failed one at once).
 *
 * The decision is the core's talb::lb::Hermes; this class adds the sensing plumbing, CONGA's
 * leaf-to-leaf scheme with Hermes's signals: the source leaf tags each packet to a remote leaf
 * with its path (TalbHermesTag); every hop on the way adds the queueing delay the packet meets
 * and flags it when that queue is at or above MarkThreshold (where the fabric's queues mark
 * ECN); the destination leaf keeps, per source leaf and path, moving averages (gain EwmaGain)
 * of the flag (the ECN fraction) and of the delay, and feeds one path's pair back on each
 * packet it sends to that leaf, round-robin over the paths.
 *
 * With LossSensing, the source leaf also senses Hermes's random drops (the paper's hosts count
 * each path's retransmissions; a leaf sees them pass): per TCP flow it keeps the highest
 * sequence number sent, counts a data segment that does not pass it as a retransmission on
 * the flow's path, and keeps a moving average (gain LossEwmaGain) of that share per
 * destination leaf and path. After at least LossMinSamples segments, a path whose share
 * exceeds RetransmitThreshold while its fed-back ECN fraction is below the core's
 * EcnThreshold (losses that congestion does not explain) is failed for FailedTime: flows leave
 * it at once and new ones avoid it; then it is judged afresh.
 */
class TalbHermesLb : public TalbCorePolicyLb
{
  public:
    static TypeId GetTypeId();
    TalbHermesLb();
    ~TalbHermesLb() override;

    int64_t AssignStreams(int64_t stream) override;
    /// \return false: it senses paths in its PacketIn/PacketOut hooks, which a fallback misses
    bool CanBeFallback() const override;
    /// LossSensing: paths_failed (what GetPathsFailed() says); none otherwise
    std::vector<PolicyCounter> GetPolicyCounters() const override;

    /// \return how Hermes classifies port \p port towards \p dstLeaf now
    talb::lb::Hermes::PathType Classify(uint32_t port, uint32_t dstLeaf) const;
    /// \return what this leaf knows now of the path towards \p leaf via \p spine
    talb::lb::RemotePath GetRemotePath(uint32_t leaf, uint32_t spine) const;
    /// \return flow \p flowHash's rate over its last completed window (bit/s, 0: none)
    double GetFlowRate(uint32_t flowHash) const;
    /// \return times LossSensing has failed a path so far
    uint64_t GetPathsFailed() const;

  private:
    uint32_t DoSelectPath(TalbPacketContext& ctx, const TalbCandidates& candidates) override;
    void DoPacketIn(TalbPacketContext& ctx) override;
    void DoPacketOut(TalbPacketContext& ctx, uint32_t port) override;
    bool CheckConfig() override;
    void InitializeParams() override;

    /// \return the core's Config: the attributes, and the attached switch's paths and rates
    talb::lb::Hermes::Config Config() const;

    /// The fed-back path state as the core's remote view.
    class Remote : public talb::lb::RemoteView
    {
      public:
        explicit Remote(const TalbHermesLb* lb);
        talb::lb::RemotePath Path(uint32_t dstLeaf, uint32_t path, int64_t nowNs) const override;

      private:
        const TalbHermesLb* m_lb;
    };

    /// Smoothed sensing of one (leaf, path).
    struct PathState
    {
        double ecnFraction{0};
        double delayNs{0};
        Time updated;
        bool valid{false};
    };

    /// \return true when \p port's queue is at or above MarkThreshold
    bool AtMark(uint32_t port) const;
    /// LossSensing: note whether the TCP segment \p ctx leaving on uplink \p port is a
    /// retransmission, and fail its path when the share of them is high without congestion.
    void SenseLoss(const TalbPacketContext& ctx, uint32_t port);

    /// Retransmissions seen on one (destination leaf, path).
    struct LossState
    {
        double retxShare{0}; //!< moving average of "the segment was a retransmission"
        uint32_t samples{0}; //!< segments since the path was last judged
        Time failedUntil;    //!< failed until then
    };

    /// The highest sequence number one TCP flow has sent (LossSensing).
    struct SeqSlot
    {
        uint32_t flowHash{0};
        uint32_t highEnd{0}; //!< sequence number after its furthest byte sent
        bool valid{false};
    };

    talb::lb::Hermes::Config m_config; //!< the core's attributes (the table's rows)
    uint64_t m_markBytes;              //!< MarkThreshold attribute
    double m_gain;                     //!< EwmaGain attribute
    Time m_agingTime;                  //!< MetricAgingTime attribute
    bool m_lossSensing;                //!< LossSensing attribute
    double m_retxThreshold;            //!< RetransmitThreshold attribute
    double m_lossGain;                 //!< LossEwmaGain attribute
    uint32_t m_lossMinSamples;         //!< LossMinSamples attribute
    Time m_failedTime;                 //!< FailedTime attribute

    talb::lb::Hermes m_core; //!< the decision
    Remote m_remote;
    std::vector<PathState> m_fromLeaf; //!< [leaf * nSpines + path]: measured here, fed back
    std::vector<PathState> m_toLeaf;   //!< [leaf * nSpines + path]: fed back by that leaf
    std::vector<uint32_t> m_fbCursor;  //!< per leaf: next path to feed back
    std::vector<LossState> m_loss;     //!< [leaf * nSpines + path]: LossSensing, this leaf's
    std::vector<SeqSlot> m_seq;        //!< LossSensing: flows by hash, TableSize slots
    uint64_t m_pathsFailed{0};
};

} // namespace ns3

#endif /* TALB_HERMES_LB_H */
