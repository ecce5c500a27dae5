#ifndef TALB_IDEAL_FCT_H
#define TALB_IDEAL_FCT_H

#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/talb-flow-record.h"
#include "ns3/talb-leaf-spine-helper.h"

#include <unordered_map>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief The ideal FCT of a flow on a leaf-spine fabric, alone on an idle fabric, between the
 * events its measured FCT runs between (first byte handed to the sender's transport, last byte
 * acknowledged at the sender): every wire byte before its last packet at the bottleneck rate of
 * its path, then the base RTT of that last packet and an acknowledgement of header size.
 *
 * A lower bound for any packetisation: the bytes ahead of the last packet must cross the
 * bottleneck, and the last packet must cross every hop (store and forward) and be
 * acknowledged; an acknowledgement is at least the data packets' headers. So the slowdown
 * (FCT / ideal) is at least 1 up to the nanosecond rounding of each.
 *
 * Asked once per message (millions in a large run), so hosts are found by hash; the fabric
 * remembers base RTTs and bottleneck rates. Give it to TalbOutputWriter::SetIdealFctCallback
 * as MakeCallback(&TalbIdealFct::Ideal, this), for as long as the writer writes.
 */
class TalbIdealFct
{
  public:
    /**
     * \param fabric the installed fabric (its hosts' transport decides the packet overheads)
     * \param mtu the devices' MTU (TCP hosts: segments of mtu - TalbHostConfig::HEADER_BYTES)
     */
    TalbIdealFct(Ptr<TalbLeafSpineHelper> fabric, uint32_t mtu);

    /// \return the ideal FCT of flow \p r between two hosts of the fabric
    Time Ideal(const TalbFlowRecord& r) const;

  private:
    Ptr<TalbLeafSpineHelper> m_fabric;
    std::unordered_map<uint32_t, uint32_t> m_hostOf; //!< address → host index
    uint32_t m_mssBytes{0};                          //!< payload bytes of a full packet
    uint32_t m_headerBytes{0};                       //!< wire bytes around each payload
};

} // namespace ns3

#endif /* TALB_IDEAL_FCT_H */
