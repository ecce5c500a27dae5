#include "talb-agent-dpdk.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

namespace talb
{

int
LcoreContextInit(LcoreContext* ctx,
                 uint16_t hostPort,
                 uint16_t wirePort,
                 Tagger* tagger,
                 volatile bool* quit,
                 int socket)
{
    ctx->hostPort = hostPort;
    ctx->wirePort = wirePort;
    ctx->tagger = tagger;
    ctx->quit = quit;
    ctx->idleSleepUs = 0;
    ctx->rx = ctx->tx = ctx->drops = 0;
    ctx->drainTsc = (rte_get_tsc_hz() + US_PER_S - 1) / US_PER_S * kDrainUs;
    ctx->published = AgentStats();
    rte_eth_dev_tx_buffer** buffers[2] = {&ctx->toWire, &ctx->toHost};
    for (rte_eth_dev_tx_buffer** b : buffers)
    {
        *b = static_cast<rte_eth_dev_tx_buffer*>(
            rte_zmalloc_socket("talb_tx_buffer", RTE_ETH_TX_BUFFER_SIZE(kBurstSize), 0, socket));
        if (*b == nullptr)
        {
            LcoreContextFree(ctx);
            return -ENOMEM;
        }
        rte_eth_tx_buffer_init(*b, kBurstSize);
        rte_eth_tx_buffer_set_err_callback(*b, rte_eth_tx_buffer_count_callback, &ctx->drops);
    }
    return 0;
}

void
LcoreContextFree(LcoreContext* ctx)
{
    rte_free(ctx->toWire);
    rte_free(ctx->toHost);
    ctx->toWire = ctx->toHost = nullptr;
}

namespace
{

template <typename T>
void
Publish(T* to, const T& from)
{
    __atomic_store_n(to, from, __ATOMIC_RELAXED);
}

template <typename T>
T
Read(const T* from)
{
    return __atomic_load_n(from, __ATOMIC_RELAXED);
}

/// Copies every counter of `from` into `to` with the given per-field operation.
template <typename Op, typename To, typename From>
void
ForEachCounter(To* to, From* from, Op op)
{
    op(&to->rx, &from->rx);
    op(&to->tx, &from->tx);
    op(&to->drops, &from->drops);
    op(&to->tagger.out.packets, &from->tagger.out.packets);
    op(&to->tagger.out.tagged, &from->tagger.out.tagged);
    op(&to->tagger.out.untracked, &from->tagger.out.untracked);
    op(&to->tagger.out.malformed, &from->tagger.out.malformed);
    op(&to->tagger.out.oversize, &from->tagger.out.oversize);
    op(&to->tagger.out.passthrough, &from->tagger.out.passthrough);
    op(&to->tagger.in.packets, &from->tagger.in.packets);
    op(&to->tagger.in.stripped, &from->tagger.in.stripped);
    op(&to->tagger.in.malformed, &from->tagger.in.malformed);
    op(&to->tagger.in.passthrough, &from->tagger.in.passthrough);
    op(&to->tagger.evicted, &from->tagger.evicted);
}

} // namespace

AgentStats
FinalStats(const LcoreContext* ctx)
{
    AgentStats s;
    s.rx = ctx->rx;
    s.tx = ctx->tx;
    s.drops = ctx->drops;
    s.tagger = ctx->tagger->Counters();
    return s;
}

AgentStats
PublishedStats(const LcoreContext* ctx)
{
    AgentStats s;
    ForEachCounter(&s, &ctx->published, [](uint64_t* to, const uint64_t* from) {
        *to = Read(from);
    });
    return s;
}

void
DrainTx(LcoreContext* ctx)
{
    ctx->tx += rte_eth_tx_buffer_flush(ctx->wirePort, 0, ctx->toWire);
    ctx->tx += rte_eth_tx_buffer_flush(ctx->hostPort, 0, ctx->toHost);
    AgentStats now = FinalStats(ctx);
    ForEachCounter(&ctx->published, &now, [](uint64_t* to, const uint64_t* from) {
        Publish(to, *from);
    });
}

/* 8< forwarding loop */
int
LcoreMain(void* arg)
{
    LcoreContext* ctx = static_cast<LcoreContext*>(arg);
    rte_mbuf* pkts[kBurstSize];
    uint64_t lastDrain = rte_rdtsc();
    if (ctx->idleSleepUs > 0)
    {
        IdleSleepSetup();
    }
    while (!*ctx->quit)
    {
        uint64_t now = rte_rdtsc();
        if (unlikely(now - lastDrain > ctx->drainTsc))
        {
            DrainTx(ctx);
            lastDrain = now;
        }
        uint16_t n = rte_eth_rx_burst(ctx->hostPort, 0, pkts, kBurstSize);
        bool idle = n == 0;
        if (n > 0)
        {
            ForwardBurst(ctx, true, pkts, n);
        }
        n = rte_eth_rx_burst(ctx->wirePort, 0, pkts, kBurstSize);
        idle = idle && n == 0;
        if (n > 0)
        {
            ForwardBurst(ctx, false, pkts, n);
        }
        if (idle && ctx->idleSleepUs > 0)
        {
            // Nothing arrived: send what the buffers hold, then give the CPU back.
            DrainTx(ctx);
            lastDrain = rte_rdtsc();
            IdleSleep(ctx->idleSleepUs);
        }
    }
    DrainTx(ctx);
    return 0;
}

/* >8 forwarding loop */

} // namespace talb
