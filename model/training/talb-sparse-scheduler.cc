#include "talb-sparse-scheduler.h"

#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbSparseScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbSparseScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbSparseScheduler, "sparse");

TypeId
TalbSparseScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbSparseScheduler")
                            .SetParent<TalbCommScheduler>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbSparseScheduler>()
                            .AddAttribute("Ratio",
                                          "Fraction of each tensor's elements kept (top-k density)",
                                          DoubleValue(0.01),
                                          MakeDoubleAccessor(&TalbSparseScheduler::m_ratio),
                                          MakeDoubleChecker<double>(1e-9, 1.0))
                            .AddAttribute("IndexBytes",
                                          "Bytes of the index sent with each kept value",
                                          UintegerValue(4),
                                          MakeUintegerAccessor(&TalbSparseScheduler::m_indexBytes),
                                          MakeUintegerChecker<uint32_t>(1, 8));
    return tid;
}

TalbSparseScheduler::TalbSparseScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbSparseScheduler::~TalbSparseScheduler()
{
    NS_LOG_FUNCTION(this);
}

uint64_t
TalbSparseScheduler::DoGetWireBytes(uint32_t tensor) const
{
    // ceil, forgiving the rounding error of ratio x params (0.01 x 1e6 must give 10000)
    double exact = m_ratio * GetModel().GetTensor(tensor).params;
    auto kept = std::max<uint64_t>(1, static_cast<uint64_t>(std::ceil(exact - 1e-6)));
    return kept * (GetBytesPerElement() + m_indexBytes);
}

void
TalbSparseScheduler::InitializeParams()
{
    uint32_t layers = GetModel().GetNLayers();
    m_layerFirst.assign(layers, 0);
    m_layerCount.assign(layers, 0);
    for (uint32_t t = GetModel().GetNTensors(); t-- > 0;)
    {
        uint32_t l = GetModel().GetLayerIndex(t);
        m_layerFirst[l] = t;
        ++m_layerCount[l];
    }
    m_layerPending = m_layerCount;
}

void
TalbSparseScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    uint32_t l = GetModel().GetLayerIndex(tensor);
    if (--m_layerPending[l] > 0)
    {
        return;
    }
    m_layerPending[l] = m_layerCount[l];
    TalbCommOp op;
    op.iteration = iteration;
    for (uint32_t t = m_layerFirst[l]; t < m_layerFirst[l] + m_layerCount[l]; ++t)
    {
        op.segments.push_back(WholeTensor(t));
    }
    Enqueue(std::move(op), 0);
}

} // namespace ns3
