/*
 * The DPDK side of talb-agent, shared by the agent and its benchmark: port set-up and the
 * forwarding lcore (burst RX -> tag or strip -> buffered TX with a timed drain). The packet
 * logic itself is talb::Tagger, which knows nothing of DPDK.
 */
#ifndef TALB_AGENT_DPDK_H
#define TALB_AGENT_DPDK_H

#include "talb-dpdk-ports.h"
#include "talb-tagger.h"

#include <cstdint>
#include <rte_branch_prediction.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>

namespace talb
{

constexpr uint16_t kBurstSize = 32;
constexpr uint16_t kRxDescriptors = 1024;
constexpr uint16_t kTxDescriptors = 1024;
constexpr unsigned kMempoolCache = 256;
constexpr uint64_t kDrainUs = 100;     ///< longest a packet waits in a TX buffer
constexpr uint16_t kPrefetchAhead = 4; ///< packets whose data is prefetched ahead of use

/// Everything the forwarding lcore counts, as the main lcore sees it.
struct AgentStats
{
    uint64_t rx = 0;    ///< packets received, both ports
    uint64_t tx = 0;    ///< packets the ports accepted for transmission, both ports
    uint64_t drops = 0; ///< packets the ports refused (freed): rx = tx + drops once drained
    TaggerCounters tagger;
};

/**
 * The forwarding lcore's state, one cache-aligned block passed by pointer. The lcore alone
 * writes it; it publishes a copy of its counters in `published` every drain period, which other
 * lcores read with atomic loads (PublishedStats).
 */
struct alignas(RTE_CACHE_LINE_SIZE) LcoreContext
{
    uint16_t hostPort;
    uint16_t wirePort;
    Tagger* tagger;
    rte_eth_dev_tx_buffer* toWire;
    rte_eth_dev_tx_buffer* toHost;
    uint64_t drainTsc;
    uint64_t rx;
    uint64_t tx;
    uint64_t drops;       ///< incremented by the TX buffers' error callback
    uint32_t idleSleepUs; ///< sleep when both ports are idle, 0 = busy-poll
    volatile bool* quit;  ///< set by the main lcore to stop the loop
    alignas(RTE_CACHE_LINE_SIZE) AgentStats published;
};

/**
 * Sets up ctx for the given ports on socket (TX buffers are allocated here, once).
 * \return 0 or -ENOMEM
 */
int LcoreContextInit(LcoreContext* ctx,
                     uint16_t hostPort,
                     uint16_t wirePort,
                     Tagger* tagger,
                     volatile bool* quit,
                     int socket);
void LcoreContextFree(LcoreContext* ctx);

/// The forwarding loop, for rte_eal_remote_launch: returns when *ctx->quit is set.
int LcoreMain(void* ctx);

/// Sends what the TX buffers hold and publishes the counters.
void DrainTx(LcoreContext* ctx);

/// Exact counters of a stopped lcore.
AgentStats FinalStats(const LcoreContext* ctx);

/// The counters as last published by a running lcore (each field atomic, not the whole set).
AgentStats PublishedStats(const LcoreContext* ctx);

/* 8< fast path */
/**
 * The fast path: tags (outbound: host to wire) or strips (inbound: wire to host) a burst and
 * queues it for transmission on the other port. Never allocates or prints.
 */
static inline void
ForwardBurst(LcoreContext* ctx, bool outbound, rte_mbuf** pkts, uint16_t n)
{
    uint16_t outPort = outbound ? ctx->wirePort : ctx->hostPort;
    rte_eth_dev_tx_buffer* buffer = outbound ? ctx->toWire : ctx->toHost;
    ctx->rx += n;
    // Headers of the whole burst first (a ring-backed port has not touched them), then each
    // packet's first bytes a few packets ahead of their use.
    for (uint16_t i = 0; i < n; ++i)
    {
        rte_prefetch0(pkts[i]);
    }
    for (uint16_t i = 0; i < kPrefetchAhead && i < n; ++i)
    {
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], uint8_t*) - TALB_OPT_LEN);
        rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void*));
    }
    for (uint16_t i = 0; i < n; ++i)
    {
        if (likely(i + kPrefetchAhead < n))
        {
            // Tagging also writes the 8 bytes before the frame (it moves the headers there).
            uint8_t* ahead = rte_pktmbuf_mtod(pkts[i + kPrefetchAhead], uint8_t*);
            rte_prefetch0(ahead - TALB_OPT_LEN);
            rte_prefetch0(ahead);
        }
        rte_mbuf* m = pkts[i];
        uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
        int moved =
            outbound
                ? ctx->tagger->Outbound(frame, rte_pktmbuf_data_len(m), rte_pktmbuf_headroom(m))
                : ctx->tagger->Inbound(frame, rte_pktmbuf_data_len(m));
        if (moved < 0)
        {
            rte_pktmbuf_prepend(m, static_cast<uint16_t>(-moved));
        }
        else if (moved > 0)
        {
            rte_pktmbuf_adj(m, static_cast<uint16_t>(moved));
        }
        ctx->tx += rte_eth_tx_buffer(outPort, 0, buffer, m);
    }
}

/* >8 fast path */

} // namespace talb

#endif /* TALB_AGENT_DPDK_H */
