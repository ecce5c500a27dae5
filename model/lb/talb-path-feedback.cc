#include "talb-path-feedback.h"

#include "talb-conga-tag.h"

#include <algorithm>

namespace ns3
{

void
TalbPathFeedback::Configure(const TalbSwitchInfo& info,
                            const std::vector<TalbPortState>& ports,
                            uint8_t bits,
                            Time agingTime)
{
    m_info = &info;
    m_ports = &ports;
    m_bits = bits;
    m_agingTime = agingTime;
    m_toLeaf.assign(info.nLeaves * info.nSpines, Metric());
    m_fromLeaf.assign(info.nLeaves * info.nSpines, Metric());
    m_fbCursor.assign(info.nLeaves, 0);
    m_sharedUntil.assign(info.nLeaves, Time(0));
    m_portSpine.assign(ports.size(), 0);
    for (uint32_t p = 0; p < ports.size(); ++p)
    {
        m_portSpine[p] = ports[p].peer;
    }
}

uint8_t
TalbPathFeedback::LocalMetric(uint32_t port, Time now) const
{
    const TalbPortState& p = (*m_ports)[port];
    return p.dre.GetQuantized(now, p.rate, m_bits);
}

uint8_t
TalbPathFeedback::GetCongestionToLeaf(uint32_t leaf, uint32_t spine, Time now) const
{
    const Metric* m = Fresh(m_toLeaf[leaf * m_info->nSpines + spine], now);
    return m ? m->value : 0;
}

const TalbPathFeedback::Metric*
TalbPathFeedback::Fresh(const Metric& m, Time now) const
{
    return (m.valid && now - m.updated <= m_agingTime) ? &m : nullptr;
}

const TalbPathFeedback::Metric*
TalbPathFeedback::ToLeaf(uint32_t port, uint32_t dstLeaf, Time now) const
{
    if (!m_info->isLeaf || dstLeaf == m_info->index || !(*m_ports)[port].uplink)
    {
        return nullptr;
    }
    return Fresh(m_toLeaf[dstLeaf * m_info->nSpines + SpineOf(port)], now);
}

uint8_t
TalbPathFeedback::RemoteMetric(uint32_t port, uint32_t dstLeaf, Time now) const
{
    const Metric* m = ToLeaf(port, dstLeaf, now);
    return m ? m->value : 0;
}

uint32_t
TalbPathFeedback::RemoteDelayNs(uint32_t port, uint32_t dstLeaf, Time now) const
{
    const Metric* m = ToLeaf(port, dstLeaf, now);
    return m ? m->delayNs : 0;
}

void
TalbPathFeedback::PacketIn(TalbPacketContext& ctx)
{
    const TalbSwitchInfo& info = *m_info;
    if (!info.isLeaf || ctx.dstLeaf != info.index || ctx.srcLeaf == info.index)
    {
        return;
    }
    TalbCongaTag tag;
    if (!ctx.packet->RemovePacketTag(tag) || tag.GetPath() >= info.nSpines)
    {
        return;
    }
    if (ctx.hasLabel)
    {
        uint8_t job = static_cast<uint8_t>(talb_job_of(ctx.label.tensor_id));
        if (!m_lastJobTime.IsNegative() && job != m_lastJob &&
            ctx.now - m_lastJobTime <= m_agingTime)
        {
            m_selfSharedUntil = ctx.now + m_agingTime;
        }
        m_lastJob = job;
        m_lastJobTime = ctx.now;
    }
    m_sharedUntil[ctx.srcLeaf] = tag.GetSenderShared() ? ctx.now + m_agingTime : Time(0);
    Metric& from = m_fromLeaf[ctx.srcLeaf * info.nSpines + tag.GetPath()];
    from.value = tag.GetCe();
    from.delayNs = tag.GetDelayNs();
    from.updated = ctx.now;
    from.valid = true;
    if (tag.HasFeedback() && tag.GetFeedbackPath() < info.nSpines)
    {
        Metric& to = m_toLeaf[ctx.srcLeaf * info.nSpines + tag.GetFeedbackPath()];
        to.value = tag.GetFeedbackMetric();
        to.delayNs = tag.GetFeedbackDelayNs();
        to.updated = ctx.now;
        to.valid = true;
    }
}

void
TalbPathFeedback::PacketOut(TalbPacketContext& ctx, uint32_t port)
{
    const TalbSwitchInfo& info = *m_info;
    if (!info.isLeaf)
    {
        TalbCongaTag tag;
        if (ctx.packet->PeekPacketTag(tag))
        {
            tag.SetCe(std::max(tag.GetCe(), LocalMetric(port, ctx.now)));
            tag.SetDelayNs((*m_ports)[port].AddQueueDelayNs(tag.GetDelayNs()));
            ctx.packet->ReplacePacketTag(tag);
        }
        return;
    }
    if (ctx.srcLeaf != info.index || ctx.dstLeaf == info.index || !(*m_ports)[port].uplink)
    {
        return;
    }
    TalbCongaTag tag;
    tag.SetPath(static_cast<uint8_t>(m_portSpine[port]));
    tag.SetCe(LocalMetric(port, ctx.now));
    tag.SetDelayNs((*m_ports)[port].QueueDelayNs());
    tag.SetSenderShared(ctx.now < m_selfSharedUntil);
    // Feed back the next path measured on traffic from the destination leaf.
    for (uint32_t k = 0; k < info.nSpines; ++k)
    {
        uint32_t& cursor = m_fbCursor[ctx.dstLeaf];
        uint32_t spine = cursor;
        cursor = (cursor + 1) % info.nSpines;
        const Metric& m = m_fromLeaf[ctx.dstLeaf * info.nSpines + spine];
        if (m.valid)
        {
            tag.SetFeedback(static_cast<uint8_t>(spine), m.value, m.delayNs);
            break;
        }
    }
    ctx.packet->AddPacketTag(tag);
}

bool
TalbPathFeedback::DestinationShared(uint32_t dstLeaf, Time now) const
{
    return dstLeaf < m_sharedUntil.size() && now < m_sharedUntil[dstLeaf];
}

} // namespace ns3
