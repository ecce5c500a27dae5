#include "talb-flowlet-table.h"

#include "talb-load-balancer.h"

#include "ns3/abort.h"

namespace ns3
{

void
TalbFlowletTable::Resize(uint32_t size)
{
    NS_ABORT_MSG_UNLESS(size > 0 && (size & (size - 1)) == 0,
                        "flowlet table size " << size << " is not a power of two");
    m_entries.assign(size, Entry());
    m_mask = size - 1;
}

TalbFlowletTable::Entry&
TalbFlowletTable::Slot(uint32_t flowHash)
{
    NS_ASSERT_MSG(!m_entries.empty(), "flowlet table used before Resize()");
    return m_entries[TalbMix32(flowHash ^ 0x5bd1e995u) & m_mask];
}

bool
TalbFlowletTable::IsActive(const Entry& e, uint32_t flowHash, Time now, Time timeout)
{
    return e.valid && e.flowHash == flowHash && now - e.lastSeen <= timeout;
}

uint32_t
TalbFlowletTable::GetSize() const
{
    return m_entries.size();
}

} // namespace ns3
