/*
 * talb-switch: a software leaf or spine switch for the TaLB testbed. Forwards IPv4 frames by
 * destination prefix (a small config file); where a route offers several ports, the decision
 * core the simulator runs (ECMP, RPS, LetFlow, DRILL, TaLB) picks one per packet; each port
 * queues in eight strict-priority bands, marks ECN and may be shaped to a rate.
 *
 * Layout after DPDK's examples/skeleton and l2fwd: main reads top-down (EAL, application
 * arguments, configuration, mempool, ports, links, launch, stats until a signal, teardown), only
 * main exits. The main lcore prints stats; one worker lcore forwards (talb-switch-dpdk.cc).
 */
#include "talb-switch-dpdk.h"
#include "talb-switch-options.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <string>

namespace
{

constexpr unsigned kLinkWaitMs = 9000;
constexpr unsigned kMempoolCache = 256;
constexpr uint32_t kMaxL2Overhead = 14 + 2 * 4; // Ethernet + two VLAN tags

void
PrintStats(const talb::SwitchStats& s,
           uint32_t nPorts,
           double elapsed,
           uint64_t prevRx,
           double interval)
{
    const talb::PipelineCounters& c = s.pipeline;
    std::printf("talb-switch: t=%.0fs rx=%lu tx=%lu labelled=%lu unlabelled=%lu malformed=%lu "
                "drops=%lu marked=%lu reroutes=%lu rx_rate=%.0fpps q=",
                elapsed,
                s.rx,
                s.tx,
                c.labelled,
                c.unlabelled,
                c.malformed,
                c.notIpv4 + c.noRoute + c.queueDrops + s.pushedOut,
                c.marked,
                c.reroutes,
                static_cast<double>(s.rx - prevRx) / interval);
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        std::printf("%s%lu", p ? "," : "", s.portQueueBytes[p]);
    }
    std::printf("\n");
    std::fflush(stdout);
}

void
PrintFinal(const talb::SwitchStats& s,
           const talb::SwitchConfig& config,
           const talb::SwitchPipeline& pipeline,
           const std::string& policy,
           int64_t nowNs,
           uint64_t missed)
{
    const talb::PipelineCounters& c = s.pipeline;
    for (uint32_t p = 0; p < config.ports.size(); ++p)
    {
        std::printf("talb-switch: port %u (%s): tx=%lu bytes=%lu marked=%lu queue_drops=%lu "
                    "pushed_out=%lu\n",
                    p,
                    config.ports[p].device.c_str(),
                    s.portTx[p],
                    s.portTxBytes[p],
                    s.portMarked[p],
                    s.portDrops[p],
                    s.portPushedOut[p]);
    }
    std::string table = pipeline.PolicyReport(nowNs);
    if (!table.empty())
    {
        std::printf("talb-switch: %s %s\n", policy.c_str(), table.c_str());
    }
    std::printf("talb-switch final: rx=%lu tx=%lu queued=%lu labelled=%lu unlabelled=%lu "
                "malformed=%lu not_ipv4=%lu no_route=%lu queue_drops=%lu pushed_out=%lu "
                "discarded=%lu marked=%lu selections=%lu reroutes=%lu evictions=%lu missed=%lu\n",
                s.rx,
                s.tx,
                c.queued,
                c.labelled,
                c.unlabelled,
                c.malformed,
                c.notIpv4,
                c.noRoute,
                c.queueDrops,
                s.pushedOut,
                s.discarded,
                c.marked,
                c.selections,
                c.reroutes,
                c.evictions,
                missed);
    std::fflush(stdout);
}

/// Resolves each configured port's device to an ethdev port id into \p ethPorts.
/// \return false (printed, naming \p file and the line) when a device is unknown
bool
ResolvePorts(const talb::SwitchConfig& config, const std::string& file, uint16_t* ethPorts)
{
    for (uint32_t p = 0; p < config.ports.size(); ++p)
    {
        const talb::PortSpec& spec = config.ports[p];
        int id = talb::ResolvePort(spec.device.c_str());
        if (id < 0)
        {
            std::fprintf(stderr,
                         "talb-switch: %s:%u: port %u: no device '%s' (%u ports: give an id or a "
                         "device name such as net_af_packet0 from the --vdev arguments)\n",
                         file.c_str(),
                         spec.line,
                         p,
                         spec.device.c_str(),
                         rte_eth_dev_count_avail());
            return false;
        }
        ethPorts[p] = static_cast<uint16_t>(id);
    }
    return true;
}

/// \return the mbuf pool of \p nPorts ports of MTU \p mtu (null: \p *mbufs could not be made).
/// Every mbuf holds a whole frame; there are enough for the rings and every band of every port.
rte_mempool*
CreatePool(uint32_t nPorts, uint32_t mtu, unsigned* mbufs)
{
    uint32_t dataRoom =
        std::max<uint32_t>(RTE_MBUF_DEFAULT_DATAROOM, mtu + kMaxL2Overhead) + RTE_PKTMBUF_HEADROOM;
    *mbufs = nPorts * (talb::kSwitchRxDescriptors + talb::kSwitchTxDescriptors +
                       2 * talb::kSwitchBurst + TALB_NUM_PRIORITIES * talb::kSwitchBandPackets) +
             2 * kMempoolCache;
    return rte_pktmbuf_pool_create("talb_switch_mbufs",
                                   *mbufs,
                                   kMempoolCache,
                                   0,
                                   static_cast<uint16_t>(dataRoom),
                                   rte_socket_id());
}

/// Initialises the ports with mbufs from \p pool. \return the first port that failed, or -1
int
InitPorts(const uint16_t* ethPorts, uint32_t nPorts, rte_mempool* pool, uint32_t mtu)
{
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        if (talb::PortInit(ethPorts[p],
                           pool,
                           mtu,
                           "talb-switch",
                           talb::kSwitchRxDescriptors,
                           talb::kSwitchTxDescriptors) != 0)
        {
            return static_cast<int>(p);
        }
    }
    return -1;
}

/// \return the forwarding lcore's state, zeroed, on \p worker's socket (null: out of memory)
talb::SwitchLcore*
NewLcoreState(unsigned worker)
{
    return static_cast<talb::SwitchLcore*>(rte_zmalloc_socket("talb_switch_lcore",
                                                              sizeof(talb::SwitchLcore),
                                                              RTE_CACHE_LINE_SIZE,
                                                              rte_lcore_to_socket_id(worker)));
}

/// Prints what the switch forwards, with which policy and queue settings.
void
PrintStart(const talb::SwitchOptions& options, const talb::SwitchConfig& config, unsigned worker)
{
    std::printf("talb-switch: forwarding %zu ports, %zu routes on lcore %u: lb %s, labels from "
                "%s, ECN %s at %lu bytes, %s\n",
                config.ports.size(),
                config.routes.size(),
                worker,
                options.policy.name.c_str(),
                options.pipeline.labels == talb::LabelSource::kOption ? "the IPv4 option"
                                                                      : "the DSCP",
                options.pipeline.egress.ecn ? "on" : "off",
                options.pipeline.egress.ecnThresholdBytes,
                options.idleSleepUs ? "sleeping when idle" : "busy-polling");
    std::fflush(stdout);
}

/// Stops and closes the ports. \return the packets their NICs missed
uint64_t
ClosePorts(const uint16_t* ethPorts, uint32_t nPorts)
{
    uint64_t missed = 0;
    for (uint32_t p = 0; p < nPorts; ++p)
    {
        missed += talb::PortMissed(ethPorts[p]);
        rte_eth_dev_stop(ethPorts[p]);
        rte_eth_dev_close(ethPorts[p]);
    }
    return missed;
}

} // namespace

int
main(int argc, char** argv)
{
    talb::SwitchOptions options;
    int done = talb::StartUp(argc,
                             argv,
                             "talb-switch",
                             &talb::ParseSwitchOptions,
                             &talb::SwitchUsage,
                             &options);
    if (done >= 0)
    {
        return done;
    }
    std::string error;
    talb::SwitchConfig config;
    if (!talb::LoadSwitchConfig(options.config, &config, &error))
    {
        std::fprintf(stderr, "talb-switch: --config: %s\n", error.c_str());
        rte_eal_cleanup();
        return 2;
    }
    talb::InstallStopSignals();

    const uint32_t nPorts = static_cast<uint32_t>(config.ports.size());
    uint16_t ethPorts[talb::kMaxSwitchPorts];
    if (!ResolvePorts(config, options.config, ethPorts))
    {
        rte_eal_cleanup();
        return 2;
    }
    unsigned worker = rte_get_next_lcore(-1, 1, 0);
    if (worker >= RTE_MAX_LCORE)
    {
        rte_exit(2,
                 "talb-switch: needs two lcores, e.g. -l 0,1: the main lcore prints stats, "
                 "the second forwards\n");
    }

    options.pipeline.egress.bandPackets = talb::kSwitchBandPackets;
    options.pipeline.egress.release = [](void* m) { rte_pktmbuf_free(static_cast<rte_mbuf*>(m)); };
    unsigned mbufs = 0;
    rte_mempool* pool = CreatePool(nPorts, options.mtu, &mbufs);
    if (pool == nullptr)
    {
        rte_exit(EXIT_FAILURE,
                 "talb-switch: cannot create a pool of %u mbufs: %s (raise EAL's -m)\n",
                 mbufs,
                 rte_strerror(rte_errno));
    }
    int failed = InitPorts(ethPorts, nPorts, pool, options.mtu);
    if (failed >= 0)
    {
        rte_exit(EXIT_FAILURE, "talb-switch: cannot initialise port %d\n", failed);
    }
    if (!talb::WaitForLinks(ethPorts, nPorts, kLinkWaitMs, "talb-switch"))
    {
        std::printf("talb-switch: warning: a link is down; its routes avoid it until it is up\n");
    }

    auto* ports = new talb::SwitchPort[nPorts];
    talb::SwitchPipeline pipeline;
    if (!pipeline.Init(config, options.pipeline, options.policy, ports, &error))
    {
        rte_exit(2, "talb-switch: %s\n", error.c_str());
    }
    volatile bool quit = false;
    auto* ctx = NewLcoreState(worker);
    if (ctx == nullptr)
    {
        rte_exit(EXIT_FAILURE, "talb-switch: out of memory for the forwarding lcore's state\n");
    }
    talb::SwitchLcoreInit(ctx, &pipeline, ports, ethPorts, options.idleSleepUs, &quit);
    PrintStart(options, config, worker);
    if (rte_eal_remote_launch(talb::SwitchLcoreMain, ctx, worker) != 0)
    {
        rte_exit(EXIT_FAILURE, "talb-switch: cannot launch the forwarding lcore %u\n", worker);
    }

    // The main lcore prints stats until a signal; then the worker stops.
    uint64_t prevRx = 0;
    int signum = talb::RunUntilSignal(options.statsInterval, [&](double elapsed) {
        talb::SwitchStats s = talb::SwitchPublishedStats(ctx);
        PrintStats(s, nPorts, elapsed, prevRx, options.statsInterval);
        prevRx = s.rx;
    });
    std::printf("talb-switch: %s: stopping\n", strsignal(signum));
    quit = true;
    rte_eal_wait_lcore(worker);

    talb::SwitchStats final = talb::SwitchFinalStats(ctx);
    talb::SwitchLcoreDiscard(ctx, &final);
    uint64_t missed = ClosePorts(ethPorts, nPorts);
    PrintFinal(final, config, pipeline, options.policy.name, talb::SwitchNowNs(ctx), missed);
    rte_free(ctx);
    delete[] ports;
    rte_mempool_free(pool);
    rte_eal_cleanup();
    return 0;
}
