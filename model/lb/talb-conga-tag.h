#ifndef TALB_CONGA_TAG_H
#define TALB_CONGA_TAG_H

#include "ns3/tag.h"

namespace ns3
{

/**
 * \ingroup talb-lb
 * \brief CONGA's overlay header, carried as a packet tag between leaves.
 *
 * Forward: the path (spine index) the source leaf chose and the congestion extent (CE), the
 * maximum quantised DRE utilisation seen along the path. Piggybacked feedback: one (path, metric)
 * pair the sending leaf measured on traffic from the destination leaf. Added by the source leaf,
 * updated by the spine, removed by the destination leaf.
 *
 * talb's extension: beside CE, the queueing delay along the path (the sum of each hop's queue
 * bytes over its line rate when the packet left it), fed back with the metric. CE tells a busy
 * path from an idle one; only the delay tells a path whose queues grow from one that a single
 * flow keeps busy (TalbTensorAwareLb's CongestionDelay). And whether the sending leaf, as a
 * destination, receives tensor traffic of two jobs (TalbTensorAwareLb's Spray=SharedDestination).
 */
class TalbCongaTag : public Tag
{
  public:
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;

    TalbCongaTag();

    uint32_t GetSerializedSize() const override;
    void Serialize(TagBuffer i) const override;
    void Deserialize(TagBuffer i) override;
    void Print(std::ostream& os) const override;

    uint8_t GetPath() const;
    void SetPath(uint8_t path);
    uint8_t GetCe() const;
    void SetCe(uint8_t ce);
    bool HasFeedback() const;
    uint8_t GetFeedbackPath() const;
    uint8_t GetFeedbackMetric() const;
    void SetFeedback(uint8_t path, uint8_t metric, uint32_t delayNs = 0);
    /// \return the queueing delay along the path so far (ns, saturating)
    uint32_t GetDelayNs() const;
    void SetDelayNs(uint32_t delayNs);
    /// \return the fed-back path's queueing delay (ns)
    uint32_t GetFeedbackDelayNs() const;
    /// \return whether the sending leaf receives tensor traffic of two jobs (talb's extension,
    /// TalbPathFeedback::DestinationShared())
    bool GetSenderShared() const;
    void SetSenderShared(bool shared);

  private:
    uint8_t m_path;
    uint8_t m_ce;
    bool m_hasFeedback;
    uint8_t m_fbPath;
    uint8_t m_fbMetric;
    uint32_t m_delayNs;
    uint32_t m_fbDelayNs;
    bool m_senderShared;
};

} // namespace ns3

#endif /* TALB_CONGA_TAG_H */
