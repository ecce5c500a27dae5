#include "talb-wfbp-scheduler.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbWfbpScheduler");
NS_OBJECT_ENSURE_REGISTERED(TalbWfbpScheduler);
TALB_REGISTER_PLUGIN(TalbCommScheduler, TalbWfbpScheduler, "wfbp");

TypeId
TalbWfbpScheduler::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbWfbpScheduler")
                            .SetParent<TalbCommScheduler>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbWfbpScheduler>();
    return tid;
}

TalbWfbpScheduler::TalbWfbpScheduler()
{
    NS_LOG_FUNCTION(this);
}

TalbWfbpScheduler::~TalbWfbpScheduler()
{
    NS_LOG_FUNCTION(this);
}

void
TalbWfbpScheduler::DoTensorReady(uint32_t iteration, uint32_t tensor)
{
    TalbCommOp op;
    op.iteration = iteration;
    op.segments.push_back(WholeTensor(tensor));
    Enqueue(std::move(op), 0);
}

} // namespace ns3
