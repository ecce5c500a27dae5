#include "talb-dpdk-ports.h"

#include "talb-text.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <sys/prctl.h>

namespace talb
{

int
PortInit(uint16_t port,
         rte_mempool* pool,
         uint32_t mtu,
         const char* prog,
         uint16_t rxd,
         uint16_t txd)
{
    rte_eth_dev_info info;
    int rc = rte_eth_dev_info_get(port, &info);
    if (rc != 0)
    {
        std::fprintf(stderr, "%s: port %u: device info: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    rte_eth_conf conf;
    std::memset(&conf, 0, sizeof(conf));
    if (mtu > info.max_mtu || mtu < info.min_mtu)
    {
        std::fprintf(stderr,
                     "%s: port %u (%s): MTU %u outside the device's %u..%u\n",
                     prog,
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
        std::fprintf(stderr, "%s: port %u: configure: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    rc = rte_eth_dev_adjust_nb_rx_tx_desc(port, &rxd, &txd);
    if (rc != 0)
    {
        std::fprintf(stderr, "%s: port %u: descriptors: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    int socket = rte_eth_dev_socket_id(port);
    rc = rte_eth_rx_queue_setup(port, 0, rxd, socket, nullptr, pool);
    if (rc < 0)
    {
        std::fprintf(stderr, "%s: port %u: RX queue: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    rte_eth_txconf txconf = info.default_txconf;
    txconf.offloads = conf.txmode.offloads;
    rc = rte_eth_tx_queue_setup(port, 0, txd, socket, &txconf);
    if (rc < 0)
    {
        std::fprintf(stderr, "%s: port %u: TX queue: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    rc = rte_eth_dev_start(port);
    if (rc < 0)
    {
        std::fprintf(stderr, "%s: port %u: start: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    rc = rte_eth_promiscuous_enable(port);
    if (rc != 0 && rc != -ENOTSUP)
    {
        std::fprintf(stderr, "%s: port %u: promiscuous mode: %s\n", prog, port, std::strerror(-rc));
        return rc;
    }
    return 0;
}

bool
WaitForLinks(const uint16_t* ports, unsigned count, unsigned timeoutMs, const char* prog)
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
                std::printf("%s: port %u: link %s, %u Mbps\n",
                            prog,
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

void
IdleSleepSetup()
{
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); // 1 us
}

void
IdleSleep(uint32_t us)
{
    timespec t{0, static_cast<long>(us) * 1000};
    nanosleep(&t, nullptr);
}

uint64_t
PortMissed(uint16_t port)
{
    rte_eth_stats stats;
    return rte_eth_stats_get(port, &stats) == 0 ? stats.imissed + stats.rx_nombuf : 0;
}

namespace
{
/// The stop request: a signal handler can only store to a volatile sig_atomic_t.
volatile sig_atomic_t g_signalled = 0;

void
OnSignal(int signum)
{
    g_signalled = signum;
}
} // namespace

void
InstallStopSignals()
{
    std::signal(SIGINT, OnSignal);
    std::signal(SIGTERM, OnSignal);
}

int
RunUntilSignal(uint32_t intervalSec, const std::function<void(double elapsed)>& stats)
{
    timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    double next = intervalSec;
    while (!g_signalled)
    {
        timespec step{0, 100 * 1000 * 1000};
        nanosleep(&step, nullptr); // a signal cuts it short
        timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        double elapsed = (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) * 1e-9;
        if (intervalSec > 0 && elapsed >= next)
        {
            stats(elapsed);
            next += intervalSec;
        }
    }
    return g_signalled;
}

int
EalInitOrExit(int argc, char** argv, const char* prog)
{
    int used = rte_eal_init(argc, argv);
    if (used < 0)
    {
        rte_exit(EXIT_FAILURE, "%s: EAL initialisation failed (see above)\n", prog);
    }
    return used;
}

} // namespace talb
