/*
 * What the agent's and the switch's benchmarks share: software ports that loop their TX ring
 * into their RX ring (net_ring), and rates per CPU-second of the measuring thread, so that on a
 * shared machine the time other processes ran does not count.
 */
#ifndef TALB_DPDK_BENCH_H
#define TALB_DPDK_BENCH_H

#include "talb-dpdk-ports.h"

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <rte_cycles.h>
#include <rte_debug.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <string>

namespace talb
{

/// \return the calling thread's CPU time in seconds
inline double
ThreadCpuSeconds()
{
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

/**
 * Creates a net_ring port named \p name whose TX ring is its own RX ring, holding \p packets
 * plus two bursts of \p burst.
 * \return the port id, or -1
 */
inline int
CreateLoopPort(const std::string& name, uint32_t packets, uint32_t burst, int socket)
{
    rte_ring* ring = rte_ring_create((name + "_ring").c_str(),
                                     rte_align32pow2(packets + 2 * burst),
                                     socket,
                                     RING_F_SP_ENQ | RING_F_SC_DEQ);
    return ring ? rte_eth_from_rings(name.c_str(), &ring, 1, &ring, 1, socket) : -1;
}

/**
 * \return millions of packets per CPU-second: \p packets over \p cycles of TSC time scaled by
 * \p cpuShare, the share of the wall-clock time the thread spent on a CPU
 */
inline double
MppsPerCpuSecond(uint64_t packets, uint64_t cycles, double cpuShare)
{
    double seconds = cycles / static_cast<double>(rte_get_tsc_hz()) * cpuShare;
    return seconds == 0 ? 0 : packets / seconds / 1e6;
}

/// The benchmarks' burst: both fast paths use 32.
constexpr uint16_t kBenchBurst = 32;

/**
 * Creates the mbuf pool for a round of \p packets and one initialised loop port per name in
 * \p names (ids into \p ports); exits naming \p program on failure.
 */
inline rte_mempool*
CreateLoopPortsOrExit(const char* program,
                      uint32_t packets,
                      const std::string* names,
                      uint32_t count,
                      uint16_t* ports)
{
    const unsigned cache = 256;
    int socket = static_cast<int>(rte_socket_id());
    rte_mempool* pool = rte_pktmbuf_pool_create("talb_bench_mbufs",
                                                packets + 4 * cache,
                                                cache,
                                                0,
                                                RTE_MBUF_DEFAULT_BUF_SIZE,
                                                socket);
    if (pool == nullptr)
    {
        rte_exit(EXIT_FAILURE, "%s: cannot create the mempool\n", program);
    }
    for (uint32_t p = 0; p < count; ++p)
    {
        int id = CreateLoopPort(names[p], packets, kBenchBurst, socket);
        if (id < 0 || PortInit(static_cast<uint16_t>(id), pool, 1500, program) != 0)
        {
            rte_exit(EXIT_FAILURE,
                     "%s: cannot create net_ring port %s\n",
                     program,
                     names[p].c_str());
        }
        ports[p] = static_cast<uint16_t>(id);
    }
    return pool;
}

/// Queues all \p n packets on \p port (its loop ring holds a whole round).
inline void
SendAll(uint16_t port, rte_mbuf** pkts, uint32_t n)
{
    uint32_t sent = 0;
    while (sent < n)
    {
        uint16_t burst = static_cast<uint16_t>(std::min<uint32_t>(kBenchBurst, n - sent));
        sent += rte_eth_tx_burst(port, 0, pkts + sent, burst);
    }
}

/// Frees whatever waits on \p port's RX ring, emptying the loop for the next run.
inline void
DrainPort(uint16_t port)
{
    rte_mbuf* pkts[kBenchBurst];
    uint16_t n;
    while ((n = rte_eth_rx_burst(port, 0, pkts, kBenchBurst)) > 0)
    {
        rte_pktmbuf_free_bulk(pkts, n);
    }
}

/// What RunFor measured: rounds run and the thread's share of the wall-clock time on a CPU.
struct TimedRun
{
    uint64_t rounds = 0;
    double cpuShare = 0;
};

/// Calls \p round until \p seconds of wall-clock time have passed (at least once).
template <class Round>
TimedRun
RunFor(double seconds, Round&& round)
{
    TimedRun r;
    double cpu0 = ThreadCpuSeconds();
    uint64_t wall0 = rte_rdtsc();
    uint64_t deadline = wall0 + static_cast<uint64_t>(seconds * rte_get_tsc_hz());
    while (rte_rdtsc() < deadline || r.rounds == 0)
    {
        round();
        ++r.rounds;
    }
    double wall = (rte_rdtsc() - wall0) / static_cast<double>(rte_get_tsc_hz());
    r.cpuShare = std::min(1.0, (ThreadCpuSeconds() - cpu0) / wall);
    return r;
}

/// Stops and closes \p count ports, then the EAL.
inline void
CloseAll(const uint16_t* ports, uint32_t count)
{
    for (uint32_t p = 0; p < count; ++p)
    {
        rte_eth_dev_stop(ports[p]);
        rte_eth_dev_close(ports[p]);
    }
    rte_eal_cleanup();
}

} // namespace talb

#endif /* TALB_DPDK_BENCH_H */
