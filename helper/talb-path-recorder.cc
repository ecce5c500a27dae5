#include "talb-path-recorder.h"

#include "ns3/log.h"
#include "ns3/talb-switch.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPathRecorder");
NS_OBJECT_ENSURE_REGISTERED(TalbPathRecorder);

TypeId
TalbPathRecorder::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbPathRecorder")
                            .SetParent<Object>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbPathRecorder>();
    return tid;
}

void
TalbPathRecorder::SetSink(RecordCallback sink)
{
    m_sink = sink;
}

void
TalbPathRecorder::Connect(Ptr<TalbSwitch> sw)
{
    const TalbSwitchInfo& info = sw->GetInfo();
    Followed f;
    f.sw = sw;
    f.node = (info.isLeaf ? "leaf" : "spine") + std::to_string(info.index);
    for (uint32_t p = 0; p < sw->GetNPorts(); ++p)
    {
        const TalbPortState& port = sw->GetPort(p);
        const char* kind = port.uplink ? "spine" : info.isLeaf ? "host" : "leaf";
        f.nextHop.push_back(kind + std::to_string(port.peer));
    }
    uint32_t slot = m_switches.size();
    m_switches.push_back(std::move(f));
    sw->GetLoadBalancer()->TraceConnectWithoutContext(
        "PathSelected",
        MakeBoundCallback(&TalbPathRecorder::Selected, this, slot));
}

void
TalbPathRecorder::Selected(TalbPathRecorder* self,
                           uint32_t slot,
                           const TalbPacketContext& ctx,
                           uint32_t port)
{
    // The whole wire id (job and index) tells tensors apart; the record splits it.
    int64_t wireId = ctx.hasLabel ? int64_t(ctx.label.tensor_id) : -1;
    auto [it, opened] = self->m_open.try_emplace((uint64_t(slot) << 32) | ctx.flowHash);
    TalbPathRecord& r = it->second;
    if (!opened && (r.port != port || r.wireId != wireId))
    {
        self->Close(r);
        opened = true;
    }
    if (opened)
    {
        const Followed& f = self->m_switches[slot];
        r.node = f.node;
        r.port = port;
        r.nextHop = port < f.nextHop.size() ? f.nextHop[port] : "port" + std::to_string(port);
        r.src = f.sw->GetHostAddress(ctx.srcHost);
        r.dst = f.sw->GetHostAddress(ctx.dstHost);
        r.srcPort = uint16_t(ctx.ports >> 16);
        r.dstPort = uint16_t(ctx.ports & 0xffff);
        r.wireId = wireId;
        r.job = ctx.hasLabel ? int32_t(talb_job_of(ctx.label.tensor_id)) : -1;
        r.tensor = ctx.hasLabel ? int64_t(ctx.label.tensor_id & TALB_TENSOR_INDEX_MASK) : -1;
        r.priority = ctx.hasLabel ? int32_t(ctx.label.priority) : -1;
        r.start = ctx.now;
        r.packets = 0;
        r.bytes = 0;
    }
    r.end = ctx.now;
    ++r.packets;
    r.bytes += ctx.size;
}

void
TalbPathRecorder::Close(TalbPathRecord& r)
{
    if (!m_sink.IsNull())
    {
        m_sink(r);
    }
}

void
TalbPathRecorder::Finish()
{
    std::vector<TalbPathRecord*> open;
    open.reserve(m_open.size());
    for (auto& [key, r] : m_open)
    {
        open.push_back(&r);
    }
    std::sort(open.begin(), open.end(), [](const TalbPathRecord* a, const TalbPathRecord* b) {
        return a->start != b->start ? a->start < b->start : a->node < b->node;
    });
    for (TalbPathRecord* r : open)
    {
        Close(*r);
    }
    m_open.clear();
}

void
TalbPathRecorder::DoDispose()
{
    m_switches.clear();
    m_open.clear();
    m_sink = RecordCallback();
    Object::DoDispose();
}

} // namespace ns3
