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
    void SetFeedback(uint8_t path, uint8_t metric);

  private:
    uint8_t m_path;
    uint8_t m_ce;
    bool m_hasFeedback;
    uint8_t m_fbPath;
    uint8_t m_fbMetric;
};

} // namespace ns3

#endif /* TALB_CONGA_TAG_H */
