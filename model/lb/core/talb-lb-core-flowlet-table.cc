#include "talb-lb-core-flowlet-table.h"

#include <cassert>

namespace talb
{
namespace lb
{

bool
FlowletTable::ValidSize(uint32_t size)
{
    return size > 0 && size <= (1u << 24) && (size & (size - 1)) == 0;
}

void
FlowletTable::Resize(uint32_t size)
{
    assert(ValidSize(size));
    m_entries.assign(size, Entry());
    m_mask = size - 1;
}

} // namespace lb
} // namespace talb
