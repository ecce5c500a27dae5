/*
 * talb-agent: the TaLB host agent. Bridges a host-side port (net_tap, or net_af_packet on a
 * veth) and a wire-side port (a NIC, or net_af_packet on a veth); tags outbound TCP data
 * packets with the TaLB IPv4 option + DSCP of their tensor and strips the option inbound.
 *
 * Layout after DPDK's examples/skeleton and l2fwd: main reads top-down (EAL, application
 * arguments, mempool, ports, links, launch, stats until a signal, teardown), only main exits.
 * The main lcore prints stats; one worker lcore forwards (talb-agent-dpdk.cc).
 */
#include "talb-agent-dpdk.h"
#include "talb-agent-options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <string>

namespace
{

constexpr unsigned kLinkWaitMs = 9000;
constexpr unsigned kMinPoolMbufs = 8191;
constexpr uint32_t kMaxL2Overhead = 14 + 2 * 4; // Ethernet + two VLAN tags

/// One stats line: cumulative counters, and the receive rate since the previous line.
void
PrintStats(const talb::AgentStats& s, double elapsed, uint64_t prevRx, double interval)
{
    const talb::TaggerCounters& t = s.tagger;
    std::printf("talb-agent: t=%.0fs rx=%lu tx=%lu tagged=%lu untracked=%lu malformed=%lu "
                "oversize=%lu stripped=%lu drops=%lu rx_rate=%.0fpps\n",
                elapsed,
                s.rx,
                s.tx,
                t.out.tagged,
                t.out.untracked,
                t.out.malformed + t.in.malformed,
                t.out.oversize,
                t.in.stripped,
                s.drops,
                static_cast<double>(s.rx - prevRx) / interval);
    std::fflush(stdout);
}

void
PrintFinal(const talb::AgentStats& s, uint64_t missed)
{
    const talb::TaggerCounters& t = s.tagger;
    std::printf("talb-agent: outbound packets=%lu tagged=%lu untracked=%lu malformed=%lu "
                "oversize=%lu passthrough=%lu\n",
                t.out.packets,
                t.out.tagged,
                t.out.untracked,
                t.out.malformed,
                t.out.oversize,
                t.out.passthrough);
    std::printf("talb-agent: inbound packets=%lu stripped=%lu malformed=%lu passthrough=%lu\n",
                t.in.packets,
                t.in.stripped,
                t.in.malformed,
                t.in.passthrough);
    std::printf("talb-agent final: rx=%lu tx=%lu tagged=%lu untracked=%lu malformed=%lu "
                "oversize=%lu stripped=%lu passthrough=%lu evicted=%lu drops=%lu missed=%lu\n",
                s.rx,
                s.tx,
                t.out.tagged,
                t.out.untracked,
                t.out.malformed + t.in.malformed,
                t.out.oversize,
                t.in.stripped,
                t.out.passthrough + t.in.passthrough,
                t.evicted,
                s.drops,
                missed);
    std::fflush(stdout);
}

} // namespace

// The set-up in the order DPDK needs it (EAL and options, ports, mbuf pool, forwarding lcore),
// then the stats loop and the teardown: one straight read, as DPDK's l2fwd main is.
int
main(int argc, char** argv)
{
    talb::AgentOptions options;
    int done = talb::StartUp(argc,
                             argv,
                             "talb-agent",
                             &talb::ParseAgentOptions,
                             &talb::AgentUsage,
                             &options);
    if (done >= 0)
    {
        return done;
    }
    talb::InstallStopSignals();

    int host = talb::ResolvePort(options.hostPort.c_str());
    int wire = talb::ResolvePort(options.wirePort.c_str());
    if (host < 0 || wire < 0 || host == wire)
    {
        rte_exit(2,
                 "talb-agent: --host-port=%s / --wire-port=%s: %s (%u ports: give an id or a "
                 "device name such as net_af_packet0 from the --vdev arguments)\n",
                 options.hostPort.c_str(),
                 options.wirePort.c_str(),
                 host == wire && host >= 0 ? "the same port" : "no such port",
                 rte_eth_dev_count_avail());
    }
    unsigned worker = rte_get_next_lcore(-1, 1, 0);
    if (worker >= RTE_MAX_LCORE)
    {
        rte_exit(2,
                 "talb-agent: needs two lcores, e.g. -l 0,1: the main lcore prints stats, "
                 "the second forwards\n");
    }

    // Every mbuf holds a whole frame plus the option: the tagger never sees a chain.
    uint32_t dataRoom = std::max<uint32_t>(RTE_MBUF_DEFAULT_DATAROOM,
                                           options.tagger.mtu + kMaxL2Overhead + TALB_OPT_LEN) +
                        RTE_PKTMBUF_HEADROOM;
    unsigned mbufs = std::max(
        2u * (talb::kRxDescriptors + talb::kTxDescriptors + talb::kBurstSize + talb::kMempoolCache),
        kMinPoolMbufs);
    rte_mempool* pool = rte_pktmbuf_pool_create("talb_mbufs",
                                                mbufs,
                                                talb::kMempoolCache,
                                                0,
                                                static_cast<uint16_t>(dataRoom),
                                                rte_eth_dev_socket_id(static_cast<uint16_t>(host)));
    if (pool == nullptr)
    {
        rte_exit(EXIT_FAILURE,
                 "talb-agent: cannot create a pool of %u mbufs: %s\n",
                 mbufs,
                 rte_strerror(rte_errno));
    }

    const uint16_t ports[2] = {static_cast<uint16_t>(host), static_cast<uint16_t>(wire)};
    for (uint16_t port : ports)
    {
        if (talb::PortInit(port, pool, options.tagger.mtu, "talb-agent") != 0)
        {
            rte_exit(EXIT_FAILURE, "talb-agent: cannot initialise port %u\n", port);
        }
    }
    if (!talb::WaitForLinks(ports, 2, kLinkWaitMs, "talb-agent"))
    {
        std::printf("talb-agent: warning: a link is down; forwarding anyway\n");
    }

    talb::Tagger tagger(options.tagger);
    volatile bool quit = false;
    auto* ctx =
        static_cast<talb::LcoreContext*>(rte_zmalloc_socket("talb_lcore",
                                                            sizeof(talb::LcoreContext),
                                                            RTE_CACHE_LINE_SIZE,
                                                            rte_lcore_to_socket_id(worker)));
    if (ctx == nullptr || talb::LcoreContextInit(ctx,
                                                 ports[0],
                                                 ports[1],
                                                 &tagger,
                                                 &quit,
                                                 rte_lcore_to_socket_id(worker)) != 0)
    {
        rte_exit(EXIT_FAILURE, "talb-agent: out of memory for the forwarding lcore's state\n");
    }
    ctx->idleSleepUs = options.idleSleepUs;
    std::printf("talb-agent: forwarding host port %u <-> wire port %u on lcore %u: %s, MTU %u, "
                "%u flows, DSCP map %u,%u,%u,%u,%u,%u,%u,%u\n",
                ports[0],
                ports[1],
                worker,
                options.tagger.dscpOnly ? "DSCP only" : "IPv4 option + DSCP",
                options.tagger.mtu,
                tagger.Flows().Capacity(),
                options.tagger.dscp[0],
                options.tagger.dscp[1],
                options.tagger.dscp[2],
                options.tagger.dscp[3],
                options.tagger.dscp[4],
                options.tagger.dscp[5],
                options.tagger.dscp[6],
                options.tagger.dscp[7]);
    std::fflush(stdout);
    if (rte_eal_remote_launch(talb::LcoreMain, ctx, worker) != 0)
    {
        rte_exit(EXIT_FAILURE, "talb-agent: cannot launch the forwarding lcore %u\n", worker);
    }

    // The main lcore prints stats until a signal; then the worker stops.
    uint64_t prevRx = 0;
    int signum = talb::RunUntilSignal(options.statsInterval, [&](double elapsed) {
        talb::AgentStats s = talb::PublishedStats(ctx);
        PrintStats(s, elapsed, prevRx, options.statsInterval);
        prevRx = s.rx;
    });
    std::printf("talb-agent: %s: stopping\n", strsignal(signum));
    quit = true;
    rte_eal_wait_lcore(worker);

    uint64_t missed = 0;
    for (uint16_t port : ports)
    {
        missed += talb::PortMissed(port);
        rte_eth_dev_stop(port);
        rte_eth_dev_close(port);
    }
    PrintFinal(talb::FinalStats(ctx), missed);
    talb::LcoreContextFree(ctx);
    rte_free(ctx);
    rte_mempool_free(pool);
    rte_eal_cleanup();
    return 0;
}
