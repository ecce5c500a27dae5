/*
 * The DPDK side of talb-switch, shared by the switch and its benchmark: the forwarding lcore.
 * One lcore serves every port: burst RX on each port through the pipeline (which queues each
 * packet on its egress port), then burst TX on each port of what its shaper allows. The packet
 * logic itself is talb::SwitchPipeline, which knows nothing of DPDK.
 */
#ifndef TALB_SWITCH_DPDK_H
#define TALB_SWITCH_DPDK_H

#include "talb-dpdk-ports.h"
#include "talb-switch-pipeline.h"

#include <cstdint>
#include <cstring>
#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

namespace talb
{

constexpr uint16_t kSwitchBurst = 32;
constexpr uint16_t kSwitchRxDescriptors = 512;
constexpr uint16_t kSwitchTxDescriptors = 512;
constexpr uint32_t kSwitchBandPackets = 256; ///< egress capacity per band: bounds the mempool

/**
 * Everything the forwarding lcore counts, as the main lcore sees it. All uint64_t, so that it
 * can be published word by word. Identity once the lcore has stopped:
 *   rx = tx + pipeline.notIpv4 + pipeline.noRoute + pipeline.queueDrops + pushedOut + discarded
 */
struct SwitchStats
{
    uint64_t rx = 0;
    uint64_t tx = 0;
    uint64_t pushedOut = 0; ///< queued, then evicted by --push-out for a more urgent packet
    uint64_t discarded = 0; ///< still queued when the switch stopped, freed
    PipelineCounters pipeline;
    uint64_t portTx[kMaxSwitchPorts] = {};
    uint64_t portTxBytes[kMaxSwitchPorts] = {};
    uint64_t portQueueBytes[kMaxSwitchPorts] = {};
    uint64_t portMarked[kMaxSwitchPorts] = {};
    uint64_t portDrops[kMaxSwitchPorts] = {};
    uint64_t portPushedOut[kMaxSwitchPorts] = {};
};

static_assert(sizeof(SwitchStats) % sizeof(uint64_t) == 0, "SwitchStats is words only");

/**
 * The forwarding lcore's state, one cache-aligned block passed by pointer. The lcore alone
 * writes it; every publish period it copies its counters into `published`, which other lcores
 * read with atomic loads (SwitchPublishedStats).
 */
struct alignas(RTE_CACHE_LINE_SIZE) SwitchLcore
{
    uint32_t nPorts;
    uint16_t ethPort[kMaxSwitchPorts];
    SwitchPipeline* pipeline;
    SwitchPort* ports;
    rte_mbuf* held[kMaxSwitchPorts][kSwitchBurst]; ///< dequeued, refused by the device: sent first
    uint16_t nHeld[kMaxSwitchPorts];
    uint64_t rx;
    uint64_t tx;
    uint64_t portTx[kMaxSwitchPorts];
    uint64_t portTxBytes[kMaxSwitchPorts];
    uint32_t idleSleepUs; ///< sleep when nothing moved and nothing can leave yet, 0 = poll
    double nsPerCycle;
    uint64_t publishCycles;
    uint64_t linkCycles;
    volatile bool* quit; ///< set by the main lcore to stop the loop
    alignas(RTE_CACHE_LINE_SIZE) SwitchStats published;
};

/// Sets up \p ctx for the pipeline's ports, whose ethdev ids are \p ethPorts.
void SwitchLcoreInit(SwitchLcore* ctx,
                     SwitchPipeline* pipeline,
                     SwitchPort* ports,
                     const uint16_t* ethPorts,
                     uint32_t idleSleepUs,
                     volatile bool* quit);

/// \return the lcore's clock in ns (the TSC; the pipeline's and the shapers' time)
inline int64_t
SwitchNowNs(const SwitchLcore* ctx)
{
    return static_cast<int64_t>(rte_rdtsc() * ctx->nsPerCycle);
}

/* 8< switch fast path */
/**
 * Receives a burst on port \p p and forwards it through the pipeline, which queues every packet
 * on its egress port or refuses it (freed here). Never allocates or prints.
 * \return the number of packets received
 */
static inline uint16_t
SwitchReceive(SwitchLcore* ctx, uint32_t p, int64_t nowNs)
{
    rte_mbuf* pkts[kSwitchBurst];
    uint16_t n = rte_eth_rx_burst(ctx->ethPort[p], 0, pkts, kSwitchBurst);
    ctx->rx += n;
    for (uint16_t i = 0; i < n; ++i)
    {
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    }
    for (uint16_t i = 0; i < n; ++i)
    {
        rte_mbuf* m = pkts[i];
        if (ctx->pipeline->Forward(rte_pktmbuf_mtod(m, uint8_t*),
                                   rte_pktmbuf_data_len(m),
                                   m,
                                   nowNs) < 0)
        {
            rte_pktmbuf_free(m);
        }
    }
    return n;
}

/**
 * Sends on port \p p what its device refused last time, then what its queue holds, band by band,
 * as far as its shaper allows. Packets the device refuses are held and sent first next time.
 * \return the number of packets the device accepted
 */
static inline uint16_t
SwitchTransmit(SwitchLcore* ctx, uint32_t p, int64_t nowNs)
{
    SwitchPort& port = ctx->ports[p];
    rte_mbuf** pkts = ctx->held[p];
    uint16_t n = ctx->nHeld[p];
    while (n < kSwitchBurst)
    {
        uint32_t head = port.queue.HeadBytes();
        if (head == 0 || !port.shaper.TryConsume(head, nowNs))
        {
            break;
        }
        uint32_t bytes;
        pkts[n++] = static_cast<rte_mbuf*>(port.queue.Dequeue(&bytes));
        port.heldBytes += bytes;
    }
    if (n == 0)
    {
        return 0;
    }
    uint16_t len[kSwitchBurst]; // the device frees what it sends: sizes are read before
    for (uint16_t i = 0; i < n; ++i)
    {
        len[i] = rte_pktmbuf_data_len(pkts[i]);
    }
    uint16_t sent = rte_eth_tx_burst(ctx->ethPort[p], 0, pkts, n);
    for (uint16_t i = 0; i < sent; ++i)
    {
        port.heldBytes -= len[i];
        ctx->portTxBytes[p] += len[i];
    }
    if (unlikely(sent < n))
    {
        std::memmove(pkts, pkts + sent, (n - sent) * sizeof(rte_mbuf*));
    }
    ctx->nHeld[p] = static_cast<uint16_t>(n - sent);
    ctx->tx += sent;
    ctx->portTx[p] += sent;
    return sent;
}

/* >8 switch fast path */

/**
 * One pass over every port: receive and forward, then transmit.
 * \return true when a packet moved
 */
bool SwitchPoll(SwitchLcore* ctx, int64_t nowNs);

/// The forwarding loop, for rte_eal_remote_launch: returns when *ctx->quit is set.
int SwitchLcoreMain(void* ctx);

/// Frees what is still queued or held (after the loop stopped), counted as discarded.
void SwitchLcoreDiscard(SwitchLcore* ctx, SwitchStats* stats);

/// Exact counters of a stopped lcore.
SwitchStats SwitchFinalStats(const SwitchLcore* ctx);

/// The counters as last published by a running lcore (each field atomic, not the whole set).
SwitchStats SwitchPublishedStats(const SwitchLcore* ctx);

} // namespace talb

#endif /* TALB_SWITCH_DPDK_H */
