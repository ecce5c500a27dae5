#include "talb-shared-buffer.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbSharedBuffer");
NS_OBJECT_ENSURE_REGISTERED(TalbSharedBuffer);

TypeId
TalbSharedBuffer::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbSharedBuffer")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbSharedBuffer>()
            .AddAttribute("Size",
                          "Bytes of the pool all the switch's egress queues share",
                          QueueSizeValue(QueueSize("16MB")),
                          MakeQueueSizeAccessor(&TalbSharedBuffer::m_size),
                          MakeQueueSizeChecker())
            .AddAttribute("Alpha",
                          "Dynamic threshold of a lossy queue: Alpha x the free pool",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TalbSharedBuffer::m_alpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 1024))
            .AddAttribute("PfcAlpha",
                          "Dynamic XOFF threshold of an (ingress port, lossless priority) "
                          "when PFC shares the buffer: PfcAlpha x the free pool",
                          DoubleValue(0.125),
                          MakeDoubleAccessor(&TalbSharedBuffer::m_pfcAlpha),
                          MakeDoubleChecker<double>(1.0 / 1024, 1024));
    return tid;
}

TalbSharedBuffer::TalbSharedBuffer()
    : m_size(QueueSize("16MB")),
      m_alpha(1.0),
      m_pfcAlpha(0.125)
{
}

TalbSharedBuffer::~TalbSharedBuffer()
{
}

uint64_t
TalbSharedBuffer::GetSize() const
{
    NS_ABORT_MSG_UNLESS(m_size.GetUnit() == QueueSizeUnit::BYTES,
                        "TalbSharedBuffer: Size must be in bytes, not " << m_size);
    return m_size.GetValue();
}

uint64_t
TalbSharedBuffer::GetFreeBytes() const
{
    uint64_t size = GetSize();
    return m_stats.usedBytes < size ? size - m_stats.usedBytes : 0;
}

uint64_t
TalbSharedBuffer::GetQueueThreshold() const
{
    return static_cast<uint64_t>(m_alpha * double(GetFreeBytes()));
}

uint64_t
TalbSharedBuffer::GetPfcThreshold() const
{
    return static_cast<uint64_t>(m_pfcAlpha * double(GetFreeBytes()));
}

bool
TalbSharedBuffer::AdmitLossy(uint64_t queueBytes, uint32_t bytes)
{
    bool full = m_stats.usedBytes + bytes > GetSize();
    if (!full && queueBytes + bytes <= GetQueueThreshold())
    {
        return true;
    }
    full ? ++m_stats.fullDrops : ++m_stats.thresholdDrops;
    m_stats.droppedBytes += bytes;
    return false;
}

void
TalbSharedBuffer::Charge(uint32_t bytes)
{
    m_stats.usedBytes += bytes;
    m_stats.admittedBytes += bytes;
    m_stats.peakBytes = std::max(m_stats.peakBytes, m_stats.usedBytes);
}

void
TalbSharedBuffer::Release(uint32_t bytes)
{
    NS_ASSERT_MSG(m_stats.usedBytes >= bytes, "TalbSharedBuffer: release of more than charged");
    m_stats.usedBytes -= bytes;
}

const TalbSharedBuffer::Stats&
TalbSharedBuffer::GetStats() const
{
    return m_stats;
}

} // namespace ns3
