#ifndef TALB_FLOW_QUEUES_H
#define TALB_FLOW_QUEUES_H

#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <list>
#include <vector>

namespace ns3
{

/**
 * \ingroup talb-switch
 * \brief Per-flow fair queueing inside the slots (bands) of a TalbPriorityQueue, as Linux's fq
 * qdisc shares a host's link among its sockets: deficit round robin over the flows that have
 * packets, one round per slot.
 *
 * The queue keeps its packets in one list, sorted by slot; this class keeps each flow's
 * packets contiguous inside its slot (a packet is inserted right behind its flow's last one)
 * and remembers each flow's first and last packet, so it names the packet a slot sends next
 * (Front) without owning any packet. A flow is a 5-tuple (addresses, ports, protocol) in one
 * slot; it exists while it has packets queued (a flow that empties leaves the round and
 * forfeits its credit, as in DRR). Each visit of the round adds Quantum bytes of credit; a
 * flow sends while its credit is positive, then goes to the back of the round, so while n
 * flows of a slot are backlogged each gets 1/n of the slot's bytes.
 *
 * O(1) expected per packet and allocation-free: flows live in a pool of MaxFlows entries
 * made once, found by an open-addressing table (linear probing, backward-shift deletion).
 * Flows beyond MaxFlows share one overflow flow per slot; while it holds packets it also takes
 * the slot's other flows that have no entry (one of them may be in it), so no flow is reordered.
 */
class TalbFlowQueues
{
  public:
    /// A position in the queue's packet list (Queue<Packet>::Iterator).
    using Iterator = std::list<Ptr<Packet>>::iterator;

    /// What identifies a flow: its 5-tuple and the slot its packets are queued in.
    struct Key
    {
        uint32_t src{0};
        uint32_t dst{0};
        uint16_t srcPort{0};
        uint16_t dstPort{0};
        uint8_t protocol{0};
        uint8_t slot{0};

        bool operator==(const Key& o) const;
    };

    /**
     * Size the pool and table; drops all state.
     * \param slots slots of the queue (0 .. slots-1)
     * \param maxFlows flows tracked apart (more share the slot's overflow flow)
     * \param quantum credit bytes per visit (at least the largest packet: one decision)
     */
    void Init(uint8_t slots, uint32_t maxFlows, uint32_t quantum);

    /// Where a packet goes (Find), for Append.
    struct Place
    {
        int32_t flow; //!< the flow's entry, or -1: a new flow gets a pool entry
        bool queued;  //!< the flow has packets: insert right behind \p behind
        Iterator behind;
    };

    /// \return where a packet of \p key goes: behind its flow's last packet, or (a flow
    /// without packets) at the end of its slot
    Place Find(const Key& key) const;

    /// Record the packet \p pos of \p key, just inserted where \p place (from Find) said.
    void Append(const Key& key, const Place& place, Iterator pos);

    /// \return whether slot \p slot has a flow with packets
    bool HasPackets(uint8_t slot) const;
    /// \return the packet slot \p slot sends next (the slot must have packets)
    Iterator Front(uint8_t slot) const;

    /**
     * The packet Front(\p slot) returned is leaving: charge its \p bytes to its flow, whose next
     * packet is \p next (ignored when it was the flow's last), and move the round on.
     */
    void PopFront(uint8_t slot, uint32_t bytes, Iterator next);

    /// \return flows that have packets in slot \p slot
    uint32_t GetActiveFlows(uint8_t slot) const;

  private:
    static constexpr int32_t NIL = -1;

    struct Flow
    {
        Key key;
        uint32_t hash{0};
        Iterator head;       //!< first packet
        Iterator tail;       //!< last packet
        uint32_t packets{0}; //!< 0: free
        int64_t credit{0};   //!< bytes it may send this visit
        int32_t next{NIL};   //!< next flow in the round, or next free entry
    };

    /// A slot's round: flows with packets, the one sending first.
    struct Round
    {
        int32_t head{NIL};
        int32_t tail{NIL};
        uint32_t flows{0};
    };

    static uint32_t Hash(const Key& key);
    /// \return the table position holding \p flow's entry
    uint32_t TablePosition(int32_t flow) const;
    void Unlink(int32_t flow);
    void PushBack(uint8_t slot, int32_t flow);

    std::vector<Flow> m_flows;    //!< [0, slots): overflow flows; then the pool
    std::vector<int32_t> m_table; //!< open addressing: flow index or NIL
    uint32_t m_mask{0};
    int32_t m_free{NIL}; //!< free pool entries, linked by next
    std::vector<Round> m_rounds;
    int64_t m_quantum{0};
};

} // namespace ns3

#endif /* TALB_FLOW_QUEUES_H */
