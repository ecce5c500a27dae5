#include "talb-agent-dpdk.h"

#include "talb-agent-options.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <rte_cycles.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

namespace talb
{

int
PortInit(uint16_t port, rte_mempool* pool, uint32_t mtu)
{
    rte_eth_dev_info info;
    int rc = rte_eth_dev_info_get(port, &info);
    if (rc != 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: device info: %s\n", port, std::strerror(-rc));
        return rc;
    }
    rte_eth_conf conf;
    std::memset(&conf, 0, sizeof(conf));
    if (mtu > info.max_mtu || mtu < info.min_mtu)
    {
        std::fprintf(stderr,
                     "talb-agent: port %u (%s): MTU %u outside the device's %u..%u\n",
                     port,
                     info.driver_name,
                     mtu,
                     info.min_mtu,
                     info.max_mtu);
        return -EINVAL;
    }
    conf.rxmode.mtu = mtu;
    if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE)
    {
        conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
    }
    rc = rte_eth_dev_configure(port, 1, 1, &conf);
    if (rc != 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: configure: %s\n", port, std::strerror(-rc));
        return rc;
    }
    uint16_t rxd = kRxDescriptors;
    uint16_t txd = kTxDescriptors;
    rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
    if (rc != 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: descriptors: %s\n", port, std::strerror(-rc));
        return rc;
    }
    int socket = rte_eth_dev_socket_id(port);
    rc = rte_eth_rx_queue_setup(port, 0, rxd, socket, nullptr, pool);
    if (rc < 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: RX queue: %s\n", port, std::strerror(-rc));
        return rc;
    }
    rte_eth_txconf txconf = info.default_txconf;
    txconf.offloads = conf.txmode.offloads;
    rc = rte_eth_tx_queue_setup(port, 0, txd, socket, &txconf);
    if (rc < 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: TX queue: %s\n", port, std::strerror(-rc));
        return rc;
    }
    rc = rte_eth_dev_start(port);
    if (rc < 0)
    {
        std::fprintf(stderr, "talb-agent: port %u: start: %s\n", port, std::strerror(-rc));
        return rc;
    }
    rc = rte_eth_promiscuous_enable(port);
    if (rc != 0 && rc != -ENOTSUP)
    {
        std::fprintf(stderr,
                     "talb-agent: port %u: promiscuous mode: %s\n",
                     port,
                     std::strerror(-rc));
        return rc;
    }
    return 0;
}

bool
WaitForLinks(const uint16_t* ports, unsigned count, unsigned timeoutMs)
{
    const unsigned stepMs = 100;
    for (unsigned waited = 0;; waited += stepMs)
    {
        bool allUp = true;
        for (unsigned i = 0; i < count; ++i)
        {
            rte_eth_link link;
            std::memset(&link, 0, sizeof(link));
            allUp = allUp && rte_eth_link_get_nowait(ports[i], &link) == 0 &&
                    link.link_status == RTE_ETH_LINK_UP;
        }
        if (allUp || waited >= timeoutMs)
        {
            for (unsigned i = 0; i < count; ++i)
            {
                rte_eth_link link;
                std::memset(&link, 0, sizeof(link));
                rte_eth_link_get_nowait(ports[i], &link);
                std::printf("talb-agent: port %u: link %s, %u Mbps\n",
                            ports[i],
                            link.link_status == RTE_ETH_LINK_UP ? "up" : "down",
                            link.link_speed);
            }
            return allUp;
        }
        rte_delay_ms(stepMs);
    }
}

int
ResolvePort(const char* text)
{
    int id = ParsePortId(text);
    if (id >= 0)
    {
        return rte_eth_dev_is_valid_port(static_cast<uint16_t>(id)) ? id : -1;
    }
    uint16_t port;
    return rte_eth_dev_get_port_by_name(text, &port) == 0 ? port : -1;
}

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
    while (!*ctx->quit)
    {
        uint64_t now = rte_rdtsc();
        if (unlikely(now - lastDrain > ctx->drainTsc))
        {
            DrainTx(ctx);
            lastDrain = now;
        }
        uint16_t n = rte_eth_rx_burst(ctx->hostPort, 0, pkts, kBurstSize);
        if (n > 0)
        {
            ForwardBurst(ctx, true, pkts, n);
        }
        n = rte_eth_rx_burst(ctx->wirePort, 0, pkts, kBurstSize);
        if (n > 0)
        {
            ForwardBurst(ctx, false, pkts, n);
        }
    }
    DrainTx(ctx);
    return 0;
}

/* >8 forwarding loop */

} // namespace talb
