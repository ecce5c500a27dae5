#ifndef TALB_PATH_FEEDBACK_H
#define TALB_PATH_FEEDBACK_H

#include "talb-load-balancer.h"

#include "ns3/nstime.h"

#include <vector>

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief CONGA's leaf-to-leaf path feedback, for any balancer that wants the congestion of the
 * path behind an uplink (TalbCongaLb; TalbTensorAwareLb with RemoteAwareness).
 *
 * A balancer owns one, configures it at install (Configure()) and calls PacketIn() and
 * PacketOut() from its own hooks:
 * - source leaf, PacketOut on an uplink towards another leaf: a TalbCongaTag gets the path
 *   (spine index), CE = the uplink's quantised DRE, the uplink's queueing delay, and one
 *   piggybacked feedback entry for the destination leaf (round-robin over the paths measured on
 *   traffic from that leaf);
 * - spine, PacketOut: CE = max(CE, quantised DRE of the egress port), and the egress port's
 *   queueing delay added to the tag's;
 * - destination leaf, PacketIn: stores CE and the delay in Congestion-From-Leaf[src leaf][path],
 *   applies the piggybacked entry to Congestion-To-Leaf[src leaf][path], and removes the tag;
 *   notes the job of a tensor packet (two jobs within the aging time: this leaf is shared, and
 *   says so on its own tags; the source leaf's flag is kept for DestinationShared()).
 * GetCongestionToLeaf() reads the table; an entry older than the aging time counts as 0.
 * Paths are spine indices (two-tier leaf-spine). No allocation after Configure(); per packet
 * O(1) but for the feedback cursor, which skips at most nSpines unmeasured paths.
 */
class TalbPathFeedback
{
  public:
    /**
     * Sizes the tables (the only allocations) for the switch \p info with ports \p ports.
     * \param bits bits of the quantised metric, 1..8
     * \param agingTime a remote metric older than this counts as 0
     */
    void Configure(const TalbSwitchInfo& info,
                   const std::vector<TalbPortState>& ports,
                   uint8_t bits,
                   Time agingTime);

    /// \return \p port's quantised DRE utilisation at \p now (the CE a hop stamps)
    uint8_t LocalMetric(uint32_t port, Time now) const;
    /// \return the remote metric towards \p leaf via \p spine (0 when unknown or aged)
    uint8_t GetCongestionToLeaf(uint32_t leaf, uint32_t spine, Time now) const;
    /// \return the remote metric of the path behind \p port towards \p dstLeaf: 0 unless this
    /// switch is a leaf, \p port an uplink and \p dstLeaf another leaf
    uint8_t RemoteMetric(uint32_t port, uint32_t dstLeaf, Time now) const;
    /// \return the queueing delay (ns) along the path behind \p port towards \p dstLeaf as last
    /// fed back, with RemoteMetric()'s conditions (0 when unknown or aged)
    uint32_t RemoteDelayNs(uint32_t port, uint32_t dstLeaf, Time now) const;

    /**
     * \return whether leaf \p dstLeaf, as last reported, receives tensor traffic of two jobs:
     * packets of one job and of another arrived there within the aging time of each other,
     * less than the aging time ago (a spine downlink towards it is shared by jobs that the
     * source leaf may not see); false when unknown or aged
     */
    bool DestinationShared(uint32_t dstLeaf, Time now) const;

    /// \return the spine an uplink \p port leads to
    uint32_t SpineOf(uint32_t port) const
    {
        return m_portSpine[port];
    }

    /// \return the largest metric value, 2^bits - 1
    uint8_t MaxMetric() const
    {
        return static_cast<uint8_t>((1u << m_bits) - 1);
    }

    /// The destination leaf's part: learns from and removes the tag of a packet from another leaf.
    void PacketIn(TalbPacketContext& ctx);
    /// The source leaf's and the spine's part: stamps or max-updates the tag of a packet sent on
    /// \p port.
    void PacketOut(TalbPacketContext& ctx, uint32_t port);

  private:
    /// One remembered metric.
    struct Metric
    {
        uint8_t value{0};
        uint32_t delayNs{0}; ///< queueing delay along the path
        Time updated;
        bool valid{false};
    };

    /// \return \p m when it is valid and not older than the aging time at \p now, else nullptr
    const Metric* Fresh(const Metric& m, Time now) const;
    /// \return the fresh feedback entry towards \p dstLeaf behind \p port, or nullptr
    const Metric* ToLeaf(uint32_t port, uint32_t dstLeaf, Time now) const;

    const TalbSwitchInfo* m_info{nullptr};
    const std::vector<TalbPortState>* m_ports{nullptr};
    uint8_t m_bits{3};
    Time m_agingTime;
    std::vector<Metric> m_toLeaf;      //!< [leaf * nSpines + spine]: feedback from that leaf
    std::vector<Metric> m_fromLeaf;    //!< [leaf * nSpines + spine]: CE of arriving traffic
    std::vector<uint32_t> m_fbCursor;  //!< per leaf: next path to feed back
    std::vector<uint32_t> m_portSpine; //!< per port: spine index of an uplink
    std::vector<Time> m_sharedUntil;   //!< per leaf: reported shared until then
    uint8_t m_lastJob{0};              //!< this leaf: job of the last tensor packet in
    Time m_lastJobTime{-1};            //!< ... when it came (negative: none yet)
    Time m_selfSharedUntil;            //!< this leaf receives two jobs' traffic until then
};

} // namespace ns3

#endif /* TALB_PATH_FEEDBACK_H */
