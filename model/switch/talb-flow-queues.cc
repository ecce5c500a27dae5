#include "talb-flow-queues.h"

#include "ns3/abort.h"
#include "ns3/assert.h"

namespace ns3
{

bool
TalbFlowQueues::Key::operator==(const Key& o) const
{
    return src == o.src && dst == o.dst && srcPort == o.srcPort && dstPort == o.dstPort &&
           protocol == o.protocol && slot == o.slot;
}

uint32_t
TalbFlowQueues::Hash(const Key& key)
{
    // Two multiplicative mixes folded together: the table only needs the flows of one host
    // spread over its positions, not resistance to chosen inputs.
    uint64_t a = ((uint64_t(key.src) << 32) | key.dst) * 0x9E3779B97F4A7C15ULL;
    uint64_t b = ((uint64_t(key.srcPort) << 32) | (uint64_t(key.dstPort) << 16) |
                  (uint64_t(key.protocol) << 8) | key.slot) *
                 0xC2B2AE3D27D4EB4FULL;
    uint64_t h = a ^ (b + (a >> 31));
    return static_cast<uint32_t>(h ^ (h >> 32));
}

void
TalbFlowQueues::Init(uint8_t slots, uint32_t maxFlows, uint32_t quantum)
{
    NS_ABORT_MSG_IF(slots == 0 || quantum == 0, "TalbFlowQueues: no slots or zero quantum");
    m_quantum = quantum;
    m_rounds.assign(slots, Round());
    m_flows.assign(slots + maxFlows, Flow());
    uint32_t size = 1;
    while (size < 2 * maxFlows)
    {
        size <<= 1;
    }
    m_table.assign(size, NIL);
    m_mask = size - 1;
    m_free = NIL;
    for (uint32_t i = slots + maxFlows; i-- > slots;)
    {
        m_flows[i].next = m_free;
        m_free = static_cast<int32_t>(i);
    }
}

TalbFlowQueues::Place
TalbFlowQueues::Find(const Key& key) const
{
    NS_ASSERT(key.slot < m_rounds.size());
    Place place{NIL, false, Iterator()};
    for (uint32_t i = Hash(key) & m_mask; m_table[i] != NIL; i = (i + 1) & m_mask)
    {
        const Flow& f = m_flows[m_table[i]];
        if (f.key == key)
        {
            place.flow = m_table[i];
            place.queued = true;
            place.behind = f.tail;
            return place;
        }
    }
    const Flow& overflow = m_flows[key.slot];
    if (m_free == NIL || overflow.packets > 0)
    {
        // Pool exhausted: the slot's overflow flow takes the packet. It also takes every flow
        // without an entry while it holds packets: such a flow may have packets in it, and
        // its next ones must not overtake them.
        const Flow& f = overflow;
        place.flow = key.slot;
        place.queued = f.packets > 0;
        place.behind = f.tail;
    }
    return place;
}

void
TalbFlowQueues::Append(const Key& key, const Place& place, Iterator pos)
{
    if (place.queued)
    {
        Flow& f = m_flows[place.flow];
        f.tail = pos;
        ++f.packets;
        return;
    }
    int32_t index = place.flow;
    if (index == NIL)
    {
        NS_ASSERT(m_free != NIL);
        index = m_free;
        m_free = m_flows[index].next;
        uint32_t hash = Hash(key);
        uint32_t i = hash & m_mask;
        while (m_table[i] != NIL)
        {
            i = (i + 1) & m_mask;
        }
        m_table[i] = index;
        m_flows[index].hash = hash;
    }
    Flow& f = m_flows[index];
    f.key = key;
    f.head = pos;
    f.tail = pos;
    f.packets = 1;
    f.credit = m_quantum; // a new flow starts a visit of its own
    PushBack(key.slot, index);
}

bool
TalbFlowQueues::HasPackets(uint8_t slot) const
{
    return m_rounds[slot].head != NIL;
}

TalbFlowQueues::Iterator
TalbFlowQueues::Front(uint8_t slot) const
{
    NS_ASSERT(HasPackets(slot));
    return m_flows[m_rounds[slot].head].head;
}

uint32_t
TalbFlowQueues::GetActiveFlows(uint8_t slot) const
{
    return m_rounds[slot].flows;
}

void
TalbFlowQueues::PushBack(uint8_t slot, int32_t flow)
{
    Round& r = m_rounds[slot];
    m_flows[flow].next = NIL;
    if (r.tail == NIL)
    {
        r.head = flow;
    }
    else
    {
        m_flows[r.tail].next = flow;
    }
    r.tail = flow;
    ++r.flows;
}

uint32_t
TalbFlowQueues::TablePosition(int32_t flow) const
{
    uint32_t i = m_flows[flow].hash & m_mask;
    while (m_table[i] != flow)
    {
        NS_ASSERT(m_table[i] != NIL);
        i = (i + 1) & m_mask;
    }
    return i;
}

void
TalbFlowQueues::Unlink(int32_t flow)
{
    // Backward-shift deletion: move later members of the probe run into the hole when their
    // home position does not lie cyclically between the hole and them.
    uint32_t hole = TablePosition(flow);
    uint32_t j = hole;
    while (true)
    {
        j = (j + 1) & m_mask;
        if (m_table[j] == NIL)
        {
            break;
        }
        uint32_t home = m_flows[m_table[j]].hash & m_mask;
        bool stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays)
        {
            m_table[hole] = m_table[j];
            hole = j;
        }
    }
    m_table[hole] = NIL;
    m_flows[flow].next = m_free;
    m_free = flow;
}

void
TalbFlowQueues::PopFront(uint8_t slot, uint32_t bytes, Iterator next)
{
    Round& r = m_rounds[slot];
    NS_ASSERT(r.head != NIL);
    int32_t index = r.head;
    Flow& f = m_flows[index];
    NS_ASSERT(f.packets > 0);
    --f.packets;
    f.credit -= bytes;
    if (f.packets == 0)
    {
        // Emptied: out of the round, its credit forfeited.
        r.head = f.next;
        if (r.head == NIL)
        {
            r.tail = NIL;
        }
        --r.flows;
        f.credit = 0;
        if (index >= static_cast<int32_t>(m_rounds.size()))
        {
            Unlink(index);
        }
        return;
    }
    f.head = next;
    if (f.credit > 0 || r.flows == 1)
    {
        // Still in its visit, or alone in the round (nothing to rotate).
        if (f.credit <= 0)
        {
            f.credit += m_quantum;
        }
        return;
    }
    // Visit over: the next visit's quantum now, so that the head flow always has credit and
    // Front() needs no rotation.
    while (f.credit <= 0)
    {
        f.credit += m_quantum;
    }
    r.head = f.next;
    --r.flows;
    PushBack(slot, index);
}

} // namespace ns3
