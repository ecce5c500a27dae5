#include "talb-entropy-policy.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbEntropyPolicy");
NS_OBJECT_ENSURE_REGISTERED(TalbEntropyPolicy);

TypeId
TalbEntropyPolicy::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbEntropyPolicy").SetParent<Object>().SetGroupName("Talb");
    return tid;
}

TalbRegistry&
TalbEntropyPolicy::GetRegistry()
{
    static TalbRegistry registry("entropy policy", GetTypeId());
    return registry;
}

TalbEntropyPolicy::TalbEntropyPolicy()
{
    NS_LOG_FUNCTION(this);
}

TalbEntropyPolicy::~TalbEntropyPolicy()
{
    NS_LOG_FUNCTION(this);
}

void
TalbEntropyPolicy::Start(uint16_t connectionPort)
{
    NS_ABORT_MSG_IF(m_started, "TalbEntropyPolicy::Start called twice");
    m_started = true;
    m_connectionPort = connectionPort;
    DoStart();
}

uint16_t
TalbEntropyPolicy::NextEntropy()
{
    NS_ASSERT_MSG(m_started, "TalbEntropyPolicy::NextEntropy before Start");
    bool recycled = false;
    uint16_t entropy = DoNextEntropy(&recycled);
    NS_ASSERT(IsEntropy(entropy));
    ++m_stats.given;
    recycled ? ++m_stats.recycled : ++m_stats.explored;
    NS_ASSERT(m_stats.given == m_stats.recycled + m_stats.explored);
    return entropy;
}

void
TalbEntropyPolicy::Acked(uint16_t entropy, bool marked)
{
    ++m_stats.acked;
    m_stats.marked += marked ? 1 : 0;
    DoAcked(entropy, marked);
}

void
TalbEntropyPolicy::Lost(uint16_t entropy, LossCause cause)
{
    ++m_stats.lost;
    m_stats.timedOut += cause == LossCause::kTimeout ? 1 : 0;
    DoLost(entropy, cause);
}

Ptr<TalbEntropyPolicy>
TalbEntropyPolicy::Fork() const
{
    Ptr<TalbEntropyPolicy> copy = DoFork();
    NS_ABORT_MSG_UNLESS(copy,
                        "TalbEntropyPolicy::Fork: " << GetInstanceTypeId().GetName()
                                                    << " made no copy");
    return copy;
}

int64_t
TalbEntropyPolicy::AssignStreams(int64_t /* stream */)
{
    return 0;
}

const TalbEntropyPolicy::Stats&
TalbEntropyPolicy::GetStats() const
{
    return m_stats;
}

uint16_t
TalbEntropyPolicy::GetConnectionPort() const
{
    return m_connectionPort;
}

bool
TalbEntropyPolicy::IsEntropy(uint16_t entropy)
{
    return entropy >= ENTROPY_BASE && uint32_t(entropy) < ENTROPY_BASE + ENTROPY_RANGE;
}

void
TalbEntropyPolicy::DoAcked(uint16_t /* entropy */, bool /* marked */)
{
}

void
TalbEntropyPolicy::DoLost(uint16_t /* entropy */, LossCause /* cause */)
{
}

void
TalbEntropyPolicy::DoStart()
{
}

} // namespace ns3
