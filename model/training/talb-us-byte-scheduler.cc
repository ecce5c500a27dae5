#include "talb-us-byte-scheduler.h"

#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbUsByteScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbUsByteScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbUsByteScheduler, "usbyte");

TypeId
TalbUsByteScheduler::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbUsByteScheduler")
            .SetParent<TalbCommScheduler>()
            .SetGroupName("Talb")
            .AddConstructor<TalbUsByteScheduler>()
            .AddAttribute("Bandwidth",
                          "Per-worker link rate assumed by the plan's cost model",
                          DataRateValue(DataRate("100Gbps")),
                          MakeDataRateAccessor(&TalbUsByteScheduler::m_bandwidth),
                          MakeDataRateChecker())
            .AddAttribute("StartupTime",
                          "Fixed cost (alpha) of one collective in the plan's cost model",
                          TimeValue(MicroSeconds(20)),
                          MakeTimeAccessor(&TalbUsByteScheduler::m_startup),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MinBlockSize",
                          "Smallest block (bytes) the plan makes, unless a tensor is smaller",
                          UintegerValue(512 * 1024),
                          MakeUintegerAccessor(&TalbUsByteScheduler::m_minBlock),
                          MakeUintegerChecker<uint64_t>(1));
    return tid;
}

TalbUsByteScheduler::TalbUsByteScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbUsByteScheduler::~TalbUsByteScheduler()
{
    NS_LOG_FUNCTION(this);
}

const std::vector<std::vector<TalbCommSegment>>&
TalbUsByteScheduler::GetPlan() const
{
    return m_plan;
}

TalbCommSegment
TalbUsByteScheduler::Progress::Take(TalbCommSegment whole, uint64_t bytes)
{
    uint32_t i = whole.tensor;
    whole.offset = sent[i];
    whole.bytes = bytes;
    whole.firstPart = sent[i] == 0;
    whole.lastPart = sent[i] + bytes == total[i];
    sent[i] += bytes;
    return whole;
}

void
TalbUsByteScheduler::InitializeParams()
{
    uint32_t n = GetModel().GetNTensors();
    Progress progress;
    progress.sent.assign(n, 0);
    progress.total.resize(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        progress.total[i] = GetWireBytes(i);
    }
    m_plan.clear();
    PlanBackwardPhase(progress);
    PlanForwardPhase(progress);

    m_blocksOf.assign(n, {});
    m_unready.assign(m_plan.size(), 0);
    m_eligible.assign(m_plan.size(), false);
    m_nextBlock = 0;
    for (uint32_t b = 0; b < m_plan.size(); ++b)
    {
        for (const auto& seg : m_plan[b])
        {
            m_blocksOf[seg.tensor].push_back(b);
            ++m_unready[b];
        }
    }
    NS_LOG_INFO("plan: " << m_plan.size() << " blocks for " << n << " tensors");
}

void
TalbUsByteScheduler::PlanBackwardPhase(Progress& progress)
{
    uint32_t n = GetModel().GetNTensors();
    // Cost model: a collective of b bytes takes alpha + beta * b (ring all-reduce bandwidth
    // term 2(N-1)/N * b / B).
    double alpha = m_startup.GetSeconds();
    double beta = GetNWorkers() > 1
                      ? 2.0 * (GetNWorkers() - 1) / GetNWorkers() * 8.0 / m_bandwidth.GetBitRate()
                      : 0.0;
    std::vector<double> ready(n); // from the start of backward
    double t = 0;
    for (uint32_t i = n; i-- > 0;)
    {
        t += GetBackwardTimes()[i].GetSeconds();
        ready[i] = t;
    }
    // Tensors with index > next are ready at 'now'.
    double now = 0;
    int64_t next = int64_t(n) - 1;
    while (true)
    {
        while (next >= 0 && ready[next] <= now)
        {
            --next;
        }
        if (next < 0)
        {
            return; // backward has finished: phase 2
        }
        uint32_t u = next + 1;
        while (u < n && progress.sent[u] == progress.total[u])
        {
            ++u;
        }
        if (u == n)
        {
            now = ready[next]; // link idle until the next gradient
            continue;
        }
        uint64_t budget = std::numeric_limits<uint64_t>::max();
        if (beta > 0)
        {
            double b = (ready[next] - now - alpha) / beta;
            budget = b > 0 ? static_cast<uint64_t>(b) : 0;
        }
        uint64_t left = progress.total[u] - progress.sent[u];
        uint64_t block = std::min(left, std::max(budget, m_minBlock));
        m_plan.push_back({progress.Take(WholeTensor(u), block)});
        now += alpha + beta * block;
    }
}

void
TalbUsByteScheduler::PlanForwardPhase(Progress& progress)
{
    // Overlap with the next forward pass: remainders in layer order, fused up to at least
    // MinBlockSize.
    std::vector<TalbCommSegment> block;
    uint64_t blockBytes = 0;
    for (uint32_t i = 0; i < GetModel().GetNTensors(); ++i)
    {
        if (progress.sent[i] == progress.total[i])
        {
            continue;
        }
        uint64_t left = progress.total[i] - progress.sent[i];
        block.push_back(progress.Take(WholeTensor(i), left));
        blockBytes += left;
        if (blockBytes >= m_minBlock)
        {
            m_plan.push_back(std::move(block));
            block.clear();
            blockBytes = 0;
        }
    }
    if (!block.empty())
    {
        m_plan.push_back(std::move(block));
    }
}

void
TalbUsByteScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    for (uint32_t b : m_blocksOf[tensor])
    {
        if (--m_unready[b] == 0)
        {
            m_unready[b] = m_plan[b].size();
            m_eligible[b] = true;
        }
    }
    // The plan is followed strictly: a later block never overtakes an earlier one. Every block
    // of an iteration is launched before any tensor of the next is ready (the next forward
    // pass needs them all synchronised), so the cursor wraps cleanly.
    while (m_eligible[m_nextBlock])
    {
        m_eligible[m_nextBlock] = false;
        TalbCommOp op;
        op.iteration = iteration;
        op.segments = m_plan[m_nextBlock];
        Enqueue(std::move(op), 0);
        m_nextBlock = (m_nextBlock + 1) % m_plan.size();
    }
}

} // namespace ns3
