#include "talb-oblivious-entropy.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbObliviousEntropy");
NS_OBJECT_ENSURE_REGISTERED(TalbObliviousEntropy);
TALB_REGISTER_PLUGIN(TalbEntropyPolicy, TalbObliviousEntropy, "oblivious");

TypeId
TalbObliviousEntropy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbObliviousEntropy")
            .SetParent<TalbEntropyPolicy>()
            .SetGroupName("Talb")
            .AddConstructor<TalbObliviousEntropy>()
            .AddAttribute("Mode",
                          "How each packet's entropy is chosen: Random (uniform over the "
                          "range) or RoundRobin (the next of Entropies values)",
                          EnumValue(TalbObliviousEntropy::RANDOM),
                          MakeEnumAccessor(&TalbObliviousEntropy::m_mode),
                          MakeEnumChecker(TalbObliviousEntropy::RANDOM,
                                          "Random",
                                          TalbObliviousEntropy::ROUND_ROBIN,
                                          "RoundRobin"))
            .AddAttribute("Entropies",
                          "RoundRobin: number of consecutive entropy values a queue pair cycles "
                          "through",
                          UintegerValue(256),
                          MakeUintegerAccessor(&TalbObliviousEntropy::m_entropies),
                          MakeUintegerChecker<uint32_t>(1, ENTROPY_RANGE));
    return tid;
}

TalbObliviousEntropy::TalbObliviousEntropy()
    : m_mode(RANDOM),
      m_entropies(256),
      m_random(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbObliviousEntropy::~TalbObliviousEntropy()
{
    NS_LOG_FUNCTION(this);
}

void
TalbObliviousEntropy::DoDispose()
{
    m_random = nullptr;
    TalbEntropyPolicy::DoDispose();
}

int64_t
TalbObliviousEntropy::AssignStreams(int64_t stream)
{
    m_random->SetStream(stream);
    return 1;
}

void
TalbObliviousEntropy::DoStart()
{
    m_first = m_random->GetInteger(0, ENTROPY_RANGE - 1);
}

uint16_t
TalbObliviousEntropy::DoNextEntropy(bool* recycled)
{
    *recycled = false;
    uint32_t offset = m_mode == RANDOM ? m_random->GetInteger(0, ENTROPY_RANGE - 1)
                                       : (m_first + m_next++ % m_entropies) % ENTROPY_RANGE;
    return static_cast<uint16_t>(ENTROPY_BASE + offset);
}

Ptr<TalbEntropyPolicy>
TalbObliviousEntropy::DoFork() const
{
    Ptr<TalbObliviousEntropy> copy = CreateObject<TalbObliviousEntropy>();
    copy->m_mode = m_mode;
    copy->m_entropies = m_entropies;
    return copy;
}

} // namespace ns3
