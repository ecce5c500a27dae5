/*
 * DPDK plumbing shared by talb-agent and talb-switch: port set-up after DPDK's
 * examples/skeleton, the link wait, port names, and the idle sleep that lets a forwarding lcore
 * give its CPU back when nothing arrives (for machines where many DPDK processes share a few
 * cores, such as the namespace testbed).
 */
#ifndef TALB_DPDK_PORTS_H
#define TALB_DPDK_PORTS_H

#include <cstdint>
#include <cstdio>
#include <functional>
#include <rte_eal.h>
#include <rte_mempool.h>
#include <string>

namespace talb
{

/**
 * Configures one RX and one TX queue of \p rxd / \p txd descriptors, starts the port and
 * enables promiscuous mode (agent and switch forward frames not addressed to them). Errors are
 * printed with \p prog in front.
 * \return 0, or a negative errno from the failing step
 */
int PortInit(uint16_t port,
             rte_mempool* pool,
             uint32_t mtu,
             const char* prog,
             uint16_t rxd = 1024,
             uint16_t txd = 1024);

/**
 * Waits up to timeoutMs for the ports' links to come up, printing their state.
 * \return true when all are up
 */
bool WaitForLinks(const uint16_t* ports, unsigned count, unsigned timeoutMs, const char* prog);

/**
 * Resolves a port argument: a port id, or a device name such as net_af_packet0.
 * \return the port id, or -1 when there is no such port
 */
int ResolvePort(const char* text);

/**
 * Makes the calling thread's sleeps precise: Linux stretches a normal thread's sleeps by its
 * timer slack (50 us by default), which would dwarf a 10 us idle sleep.
 */
void IdleSleepSetup();

/// Sleeps \p us microseconds (the lcore found nothing to do).
void IdleSleep(uint32_t us);

/// \return packets the port lost before the application saw them: its imissed + rx_nombuf
uint64_t PortMissed(uint16_t port);

/// Makes SIGINT and SIGTERM request a stop (RunUntilSignal returns) instead of killing.
void InstallStopSignals();

/**
 * The main lcore's life while a worker forwards: sleeps in steps of 100 ms until SIGINT or
 * SIGTERM (InstallStopSignals), calling \p stats every \p intervalSec seconds (0: never) with
 * the seconds since the call.
 * \return the signal's number
 */
int RunUntilSignal(uint32_t intervalSec, const std::function<void(double elapsed)>& stats);

/**
 * rte_eal_init, exiting (rte_exit) when it fails.
 * \return the number of arguments EAL consumed: the application's start there
 */
int EalInitOrExit(int argc, char** argv, const char* prog);

/**
 * The start of a DPDK program's main: EAL, then the program's options after EAL's. A bad
 * option prints the error and the usage and gives 2, --help the usage and 0 (EAL cleaned up
 * in both cases); -1 means go on.
 * \param parse the program's option parser
 * \param usage the program's usage text
 */
template <typename Options>
int
StartUp(int argc,
        char** argv,
        const char* prog,
        bool (*parse)(int, char**, Options*, std::string*),
        std::string (*usage)(const std::string&),
        Options* options)
{
    int used = EalInitOrExit(argc, argv, prog);
    std::string error;
    if (!parse(argc - used, argv + used, options, &error))
    {
        std::fprintf(stderr, "%s: %s\n%s", prog, error.c_str(), usage(prog).c_str());
        rte_eal_cleanup();
        return 2;
    }
    if (options->help)
    {
        std::printf("%s", usage(prog).c_str());
        rte_eal_cleanup();
        return 0;
    }
    return -1;
}

} // namespace talb

#endif /* TALB_DPDK_PORTS_H */
