#include "talb-switch-dpdk.h"

namespace talb
{

namespace
{
constexpr uint64_t kPublishUs = 10000; ///< the main lcore's view is at most this old
constexpr uint64_t kLinkUs = 100000;   ///< link states are polled this often
} // namespace

void
SwitchLcoreInit(SwitchLcore* ctx,
                SwitchPipeline* pipeline,
                SwitchPort* ports,
                const uint16_t* ethPorts,
                uint32_t idleSleepUs,
                volatile bool* quit)
{
    ctx->nPorts = pipeline->NPorts();
    std::memcpy(ctx->ethPort, ethPorts, ctx->nPorts * sizeof(uint16_t));
    ctx->pipeline = pipeline;
    ctx->ports = ports;
    std::memset(ctx->nHeld, 0, sizeof(ctx->nHeld));
    ctx->rx = ctx->tx = 0;
    std::memset(ctx->portTx, 0, sizeof(ctx->portTx));
    std::memset(ctx->portTxBytes, 0, sizeof(ctx->portTxBytes));
    ctx->idleSleepUs = idleSleepUs;
    ctx->nsPerCycle = 1e9 / static_cast<double>(rte_get_tsc_hz());
    ctx->publishCycles = rte_get_tsc_hz() / 1000000 * kPublishUs;
    ctx->linkCycles = rte_get_tsc_hz() / 1000000 * kLinkUs;
    ctx->quit = quit;
    ctx->published = SwitchStats();
}

SwitchStats
SwitchFinalStats(const SwitchLcore* ctx)
{
    SwitchStats s;
    s.rx = ctx->rx;
    s.tx = ctx->tx;
    s.pipeline = ctx->pipeline->Counters();
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        const SwitchPort& port = ctx->ports[p];
        s.portTx[p] = ctx->portTx[p];
        s.portTxBytes[p] = ctx->portTxBytes[p];
        s.portQueueBytes[p] = port.queue.Bytes() + port.heldBytes;
        s.portMarked[p] = port.queue.Counters().marked;
        s.portDrops[p] = port.queue.Counters().dropped;
        s.portPushedOut[p] = port.queue.Counters().pushedOut;
        s.pushedOut += s.portPushedOut[p];
    }
    return s;
}

namespace
{

void
Publish(SwitchLcore* ctx)
{
    SwitchStats now = SwitchFinalStats(ctx);
    const uint64_t* from = reinterpret_cast<const uint64_t*>(&now);
    uint64_t* to = reinterpret_cast<uint64_t*>(&ctx->published);
    for (size_t i = 0; i < sizeof(SwitchStats) / sizeof(uint64_t); ++i)
    {
        __atomic_store_n(to + i, from[i], __ATOMIC_RELAXED);
    }
}

/// ns until a queued packet may leave (shaper), or a held one may be retried; -1: nothing waits.
int64_t
NextDeparture(SwitchLcore* ctx, int64_t nowNs)
{
    int64_t wait = -1;
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        SwitchPort& port = ctx->ports[p];
        int64_t w = ctx->nHeld[p] > 0    ? 0
                    : port.queue.Empty() ? -1
                                         : port.shaper.WaitNs(port.queue.HeadBytes(), nowNs);
        if (w >= 0 && (wait < 0 || w < wait))
        {
            wait = w;
        }
    }
    return wait;
}

void
PollLinks(SwitchLcore* ctx)
{
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        rte_eth_link link;
        std::memset(&link, 0, sizeof(link));
        if (rte_eth_link_get_nowait(ctx->ethPort[p], &link) == 0)
        {
            ctx->ports[p].up = link.link_status == RTE_ETH_LINK_UP;
        }
    }
}

} // namespace

SwitchStats
SwitchPublishedStats(const SwitchLcore* ctx)
{
    SwitchStats s;
    const uint64_t* from = reinterpret_cast<const uint64_t*>(&ctx->published);
    uint64_t* to = reinterpret_cast<uint64_t*>(&s);
    for (size_t i = 0; i < sizeof(SwitchStats) / sizeof(uint64_t); ++i)
    {
        to[i] = __atomic_load_n(from + i, __ATOMIC_RELAXED);
    }
    return s;
}

bool
SwitchPoll(SwitchLcore* ctx, int64_t nowNs)
{
    bool moved = false;
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        moved |= SwitchReceive(ctx, p, nowNs) > 0;
    }
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        moved |= SwitchTransmit(ctx, p, nowNs) > 0;
    }
    return moved;
}

/* 8< switch loop */
int
SwitchLcoreMain(void* arg)
{
    SwitchLcore* ctx = static_cast<SwitchLcore*>(arg);
    if (ctx->idleSleepUs > 0)
    {
        IdleSleepSetup();
    }
    uint64_t lastPublish = rte_rdtsc();
    uint64_t lastLinks = 0;
    while (!*ctx->quit)
    {
        uint64_t cycles = rte_rdtsc();
        if (unlikely(cycles - lastLinks > ctx->linkCycles))
        {
            PollLinks(ctx);
            lastLinks = cycles;
        }
        if (unlikely(cycles - lastPublish > ctx->publishCycles))
        {
            Publish(ctx);
            lastPublish = cycles;
        }
        int64_t now = SwitchNowNs(ctx);
        if (!SwitchPoll(ctx, now) && ctx->idleSleepUs > 0)
        {
            // Nothing moved: sleep, but no longer than until a shaped packet may leave.
            int64_t wait = NextDeparture(ctx, now);
            int64_t sleepNs = wait < 0 ? int64_t(ctx->idleSleepUs) * 1000
                                       : std::min<int64_t>(wait, int64_t(ctx->idleSleepUs) * 1000);
            if (sleepNs >= 1000)
            {
                IdleSleep(static_cast<uint32_t>(sleepNs / 1000));
            }
        }
    }
    Publish(ctx);
    return 0;
}

/* >8 switch loop */

void
SwitchLcoreDiscard(SwitchLcore* ctx, SwitchStats* stats)
{
    for (uint32_t p = 0; p < ctx->nPorts; ++p)
    {
        SwitchPort& port = ctx->ports[p];
        uint32_t bytes;
        while (void* m = port.queue.Dequeue(&bytes))
        {
            rte_pktmbuf_free(static_cast<rte_mbuf*>(m));
            ++stats->discarded;
        }
        for (uint16_t i = 0; i < ctx->nHeld[p]; ++i)
        {
            rte_pktmbuf_free(ctx->held[p][i]);
            ++stats->discarded;
        }
        ctx->nHeld[p] = 0;
        port.heldBytes = 0;
    }
}

} // namespace talb
