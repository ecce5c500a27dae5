#include "talb-fusion-scheduler.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbFusionScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbFusionScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbFusionScheduler, "fusion");

TypeId
TalbFusionScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbFusionScheduler")
            .SetParent<TalbCommScheduler>()
            .SetGroupName("Talb")
            .AddConstructor<TalbFusionScheduler>()
            .AddAttribute("BucketSize",
                          "Bytes at which a bucket is launched (PyTorch DDP's default 25 MiB)",
                          UintegerValue(25 * 1024 * 1024),
                          MakeUintegerAccessor(&TalbFusionScheduler::m_bucketSize),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("Timeout",
                          "A non-empty bucket is launched this long after its first tensor "
                          "(Horovod's cycle time)",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&TalbFusionScheduler::m_timeout),
                          MakeTimeChecker(Time(0)));
    return tid;
}

TalbFusionScheduler::TalbFusionScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbFusionScheduler::~TalbFusionScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
TalbFusionScheduler::DoDispose()
{
    m_timer.Cancel();
    TalbCommScheduler::DoDispose();
}

void
TalbFusionScheduler::InitializeParams()
{
    m_bucket = TalbCommOp();
    m_bucketBytes = 0;
    m_readyInIteration = 0;
}

void
TalbFusionScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    TalbCommSegment seg = WholeTensor(tensor);
    if (m_bucketBytes > 0 && m_bucketBytes + seg.bytes > m_bucketSize)
    {
        Flush();
    }
    if (m_bucket.segments.empty())
    {
        m_bucket.iteration = iteration;
        m_timer = Simulator::Schedule(m_timeout, &TalbFusionScheduler::Flush, this);
    }
    m_bucket.segments.push_back(seg);
    m_bucketBytes += seg.bytes;
    // Every tensor of an iteration is ready before any of the next (a worker's forward pass
    // waits for its synchronised gradients), so counting suffices to see the iteration's end.
    bool lastOfIteration = ++m_readyInIteration == GetModel().GetNTensors();
    if (lastOfIteration)
    {
        m_readyInIteration = 0;
    }
    if (m_bucketBytes >= m_bucketSize || lastOfIteration)
    {
        Flush();
    }
}

void
TalbFusionScheduler::Flush()
{
    m_timer.Cancel();
    if (m_bucket.segments.empty())
    {
        return;
    }
    NS_LOG_LOGIC("bucket of " << m_bucket.segments.size() << " tensors, " << m_bucketBytes
                              << " bytes");
    TalbCommOp op = std::move(m_bucket);
    m_bucket = TalbCommOp();
    m_bucketBytes = 0;
    Enqueue(std::move(op), 0);
}

} // namespace ns3
