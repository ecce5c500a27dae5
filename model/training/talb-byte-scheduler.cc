#include "talb-byte-scheduler.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbByteScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbByteScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbByteScheduler, "bytescheduler");

TypeId
TalbByteScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbByteScheduler")
            .SetParent<TalbCommScheduler>()
            .SetGroupName("Talb")
            .AddConstructor<TalbByteScheduler>()
            .AddAttribute("PartitionSize",
                          "Largest partition (bytes) a tensor is split into",
                          UintegerValue(4 * 1024 * 1024),
                          MakeUintegerAccessor(&TalbByteScheduler::m_partitionSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Credit",
                          "Most bytes of partitions in flight at once (>= PartitionSize)",
                          UintegerValue(16 * 1024 * 1024),
                          MakeUintegerAccessor(&TalbByteScheduler::m_credit),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

TalbByteScheduler::TalbByteScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbByteScheduler::~TalbByteScheduler()
{
    NS_LOG_FUNCTION(this);
}

bool
TalbByteScheduler::CheckConfig()
{
    if (m_credit < m_partitionSize)
    {
        return ConfigError("Credit " + std::to_string(m_credit) + " is below PartitionSize " +
                           std::to_string(m_partitionSize) +
                           ": no partition could ever be launched");
    }
    return true;
}

bool
TalbByteScheduler::DoCanLaunch(const TalbCommOp& next) const
{
    return GetInFlightBytes() + next.GetBytes() <= m_credit;
}

void
TalbByteScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    uint64_t bytes = GetWireBytes(tensor);
    // Older iterations first, then the layer closest to the input; partitions of one tensor
    // keep their order (queue ties are FIFO).
    uint64_t rank = (uint64_t(iteration) << 32) | tensor;
    for (uint64_t offset = 0; offset < bytes; offset += m_partitionSize)
    {
        TalbCommSegment seg = WholeTensor(tensor);
        seg.offset = offset;
        seg.bytes = std::min(m_partitionSize, bytes - offset);
        seg.firstPart = offset == 0;
        seg.lastPart = offset + seg.bytes == bytes;
        TalbCommOp op;
        op.iteration = iteration;
        op.segments.push_back(seg);
        Enqueue(std::move(op), rank);
    }
}

} // namespace ns3
