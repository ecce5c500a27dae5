/*
 * What the agent's and the switch's benchmarks share: software ports that loop their TX ring
 * into their RX ring (net_ring), and rates per CPU-second of the measuring thread, so that on a
 * shared machine the time other processes ran does not count.
 */
#ifndef TALB_DPDK_BENCH_H
#define TALB_DPDK_BENCH_H

#include <cstdint>
#include <ctime>
#include <rte_cycles.h>
#include <rte_eth_ring.h>
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

} // namespace talb

#endif /* TALB_DPDK_BENCH_H */
