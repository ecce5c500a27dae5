#include "talb-core-random.h"

namespace ns3
{

void
TalbCoreRandom::Create()
{
    m_rng = CreateObject<UniformRandomVariable>();
}

void
TalbCoreRandom::Share(Ptr<UniformRandomVariable> rng)
{
    m_rng = rng;
}

void
TalbCoreRandom::Dispose()
{
    m_rng = nullptr;
}

uint32_t
TalbCoreRandom::Integer(uint32_t min, uint32_t max)
{
    return m_rng->GetInteger(min, max);
}

Ptr<UniformRandomVariable>
TalbCoreRandom::GetVariable() const
{
    return m_rng;
}

} // namespace ns3
