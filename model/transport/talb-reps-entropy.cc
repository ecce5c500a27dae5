#include "talb-reps-entropy.h"

#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRepsEntropy");
NS_OBJECT_ENSURE_REGISTERED(TalbRepsEntropy);
TALB_REGISTER_PLUGIN(TalbEntropyPolicy, TalbRepsEntropy, "reps");

namespace
{
/// Random draws before exploring gives up avoiding failed entropies.
constexpr int EXPLORE_TRIES = 8;
} // namespace

TypeId
TalbRepsEntropy::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbRepsEntropy")
            .SetParent<TalbEntropyPolicy>()
            .SetGroupName("Talb")
            .AddConstructor<TalbRepsEntropy>()
            .AddAttribute("BufferSize",
                          "Entries of the buffer of entropies that came back unmarked (REPS: 8)",
                          UintegerValue(8),
                          MakeUintegerAccessor(&TalbRepsEntropy::m_bufferSize),
                          MakeUintegerChecker<uint32_t>(1, 4096))
            .AddAttribute("FreezeTime",
                          "After a loss, no exploration for this long: the buffer's entropies "
                          "are reused instead (REPS's freezing mode)",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&TalbRepsEntropy::m_freezeTime),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("FreezeOn",
                          "What starts the freezing mode: Loss = any packet declared lost (a "
                          "SACK hole or a timeout), Timeout = a retransmission timeout only",
                          EnumValue(FREEZE_ON_TIMEOUT),
                          MakeEnumAccessor(&TalbRepsEntropy::m_freezeOn),
                          MakeEnumChecker(FREEZE_ON_LOSS, "Loss", FREEZE_ON_TIMEOUT, "Timeout"))
            .AddAttribute("FailedHold",
                          "An entropy whose packet was lost is neither recycled nor explored "
                          "for this long",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&TalbRepsEntropy::m_failedHold),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

TalbRepsEntropy::TalbRepsEntropy()
    : m_bufferSize(8),
      m_freezeTime(MilliSeconds(1)),
      m_freezeOn(FREEZE_ON_TIMEOUT),
      m_failedHold(MilliSeconds(10)),
      m_random(CreateObject<UniformRandomVariable>())
{
    NS_LOG_FUNCTION(this);
}

TalbRepsEntropy::~TalbRepsEntropy()
{
    NS_LOG_FUNCTION(this);
}

void
TalbRepsEntropy::DoDispose()
{
    m_random = nullptr;
    TalbEntropyPolicy::DoDispose();
}

int64_t
TalbRepsEntropy::AssignStreams(int64_t stream)
{
    m_random->SetStream(stream);
    return 1;
}

void
TalbRepsEntropy::DoStart()
{
    m_buffer.assign(m_bufferSize, Entry());
}

uint32_t
TalbRepsEntropy::GetValidEntries() const
{
    return m_valid;
}

bool
TalbRepsEntropy::IsFailed(uint16_t entropy) const
{
    auto it = m_failed.find(entropy);
    return it != m_failed.end() && Simulator::Now() < it->second;
}

bool
TalbRepsEntropy::IsFrozen() const
{
    return Simulator::Now() < m_frozenUntil;
}

uint16_t
TalbRepsEntropy::Explore()
{
    uint16_t entropy = 0;
    for (int k = 0; k < EXPLORE_TRIES; ++k)
    {
        entropy = static_cast<uint16_t>(ENTROPY_BASE + m_random->GetInteger(0, ENTROPY_RANGE - 1));
        if (!IsFailed(entropy))
        {
            break;
        }
    }
    return entropy;
}

uint16_t
TalbRepsEntropy::DoNextEntropy(bool* recycled)
{
    const auto n = static_cast<uint32_t>(m_buffer.size());
    if (m_valid > 0)
    {
        // The oldest valid entry: entries are written in turn, so from the head on.
        for (uint32_t k = 0; k < n; ++k)
        {
            Entry& e = m_buffer[(m_head + k) % n];
            if (e.valid)
            {
                e.valid = false;
                --m_valid;
                *recycled = true;
                return e.entropy;
            }
        }
        NS_ASSERT_MSG(false, "TalbRepsEntropy: valid count without a valid entry");
    }
    if (IsFrozen())
    {
        for (uint32_t k = 0; k < n; ++k)
        {
            const Entry& e = m_buffer[(m_reuse + k) % n];
            if (e.used && !IsFailed(e.entropy))
            {
                m_reuse = (m_reuse + k + 1) % n;
                *recycled = true;
                return e.entropy;
            }
        }
    }
    *recycled = false;
    return Explore();
}

void
TalbRepsEntropy::DoAcked(uint16_t entropy, bool marked)
{
    if (marked || !IsEntropy(entropy) || IsFailed(entropy))
    {
        return;
    }
    Entry& e = m_buffer[m_head];
    m_valid -= e.valid ? 1 : 0; // overwritten before it was recycled
    e = Entry{entropy, true, true};
    ++m_valid;
    m_head = static_cast<uint32_t>((m_head + 1) % m_buffer.size());
}

void
TalbRepsEntropy::DoLost(uint16_t entropy, LossCause cause)
{
    Time now = Simulator::Now();
    m_failed[entropy] = now + m_failedHold;
    if (m_freezeOn == FREEZE_ON_LOSS || cause == LossCause::kTimeout)
    {
        m_frozenUntil = now + m_freezeTime;
    }
    NS_LOG_LOGIC("entropy " << entropy << " failed; frozen until " << m_frozenUntil);
    for (Entry& e : m_buffer)
    {
        if (e.used && e.entropy == entropy)
        {
            m_valid -= e.valid ? 1 : 0;
            e = Entry();
        }
    }
    // Forget failures that have expired, so the table stays small.
    for (auto it = m_failed.begin(); it != m_failed.end();)
    {
        it = it->second <= now ? m_failed.erase(it) : std::next(it);
    }
}

Ptr<TalbEntropyPolicy>
TalbRepsEntropy::DoFork() const
{
    Ptr<TalbRepsEntropy> copy = CreateObject<TalbRepsEntropy>();
    copy->m_bufferSize = m_bufferSize;
    copy->m_freezeTime = m_freezeTime;
    copy->m_freezeOn = m_freezeOn;
    copy->m_failedHold = m_failedHold;
    return copy;
}

} // namespace ns3
