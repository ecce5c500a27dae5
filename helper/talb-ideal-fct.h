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
 * \brief The ideal FCT of a flow on a leaf-spine fabric: one RTT with its first packet, then
 * its wire bytes at the bottleneck rate of its path, alone on an idle fabric.
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
