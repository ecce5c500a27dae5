#ifndef TALB_LINK_DROP_RECORD_H
#define TALB_LINK_DROP_RECORD_H

#include "ns3/nstime.h"
#include "ns3/talb-priority-queue.h"

#include <cstdint>

namespace ns3
{

/**
 * \ingroup talb-helper
 * \brief A packet a leaf-spine link lost (TalbLeafSpineHelper's LinkDrop trace source, one row
 * of link_drops.csv): where, why and which flow's. A failure's rows over time show how long
 * the hosts and switches kept sending into a link that was gone (a blackhole's duration, a
 * spraying transport's re-route time).
 */
struct TalbLinkDropRecord
{
    Time time;                            //!< when the packet reached the link's far end
    uint32_t leaf{0};                     //!< the link's leaf
    uint32_t spine{0};                    //!< the link's spine
    bool towardSpine{false};              //!< sent by the leaf (false: by the spine)
    bool failed{false};                   //!< the link was down (false: a random loss, SetLinkLoss)
    TalbPriorityQueue::PacketInfo packet; //!< its headers and label
};

} // namespace ns3

#endif /* TALB_LINK_DROP_RECORD_H */
