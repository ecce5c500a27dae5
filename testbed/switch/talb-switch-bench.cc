/*
 * talb-switch-bench: the switch's per-core forwarding rate on software ports, per load balancer.
 *
 * Five net_ring ports stand in for a leaf's host port and four uplinks; each port's TX ring is
 * its own RX ring. A round of labelled TCP packets (the TaLB option: tensors of every priority,
 * FIRST and LAST flags) to a remote host is put on the host port; the timed phase receives it
 * there and runs the switch's own fast path (SwitchReceive: parse, route, label, the decision
 * core's choice among the four uplinks, band, queue; SwitchTransmit: dequeue by priority, send)
 * until every packet has left on an uplink. The untimed phase moves the packets back to the
 * host port for the next round. The figures are packets per CPU-second of the lcore.
 */
#include "talb-dpdk-bench.h"
#include "talb-switch-dpdk.h"
#include "talb-text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <sstream>
#include <string>
#include <vector>

namespace
{

constexpr uint32_t kUplinks = 4;
constexpr uint32_t kHeaders = 14 + 20 + TALB_OPT_LEN + 20; ///< Ethernet, IPv4 + option, TCP
constexpr uint32_t kTensorPackets = 16;                    ///< packets per tensor and flow

struct BenchOptions
{
    double seconds = 1.0;
    uint32_t packets = 1024;
    uint32_t flows = 16;
    std::vector<uint32_t> sizes = {64, 1500};
    std::vector<std::string> policies =
        {"ecmp", "letflow", "drill", "presto", "talb-v1", "talb", "talb-dscp"};
};

constexpr const char* kDscpSuffix = "-dscp";

/// \return true when bench case \p lb reads labels from the DSCP (its name ends in -dscp)
bool
OnDscp(const std::string& lb)
{
    size_t n = std::strlen(kDscpSuffix);
    return lb.size() > n && lb.compare(lb.size() - n, n, kDscpSuffix) == 0;
}

/// \return the load balancer of bench case \p lb (its name without -dscp)
std::string
PolicyOf(const std::string& lb)
{
    return OnDscp(lb) ? lb.substr(0, lb.size() - std::strlen(kDscpSuffix)) : lb;
}

void
Usage()
{
    std::printf(
        "usage: talb-switch-bench [EAL args] -- [--seconds=S] [--packets=N] [--flows=N]\n"
        "                         [--sizes=A,B,...] [--lb=NAME,...]\n"
        "Measures talb-switch's forwarding rate on one lcore over net_ring ports: a host port\n"
        "and four uplinks, every packet to a remote host, the uplink chosen per packet.\n"
        "  --seconds=S   time per frame size and load balancer, 0.01..60 (default 1)\n"
        "  --packets=N   packets per round, 64..8192 (default 1024)\n"
        "  --flows=N     TCP connections the packets are spread over, 1..1024 (default 16)\n"
        "  --sizes=LIST  Ethernet frame sizes without CRC, 64..1500 (default 64,1500)\n"
        "  --lb=LIST     load balancers of talb-switch --lb, each may end in -dscp (labels\n"
        "                from the DSCP: talb-dscp is talb on DSCP labels)\n"
        "                (default ecmp,letflow,drill,presto,talb-v1,talb,talb-dscp)\n"
        "EAL example: --no-huge --no-pci --no-shconf -m 512 -l 0\n");
}

bool
Fail(const std::string& what)
{
    std::fprintf(stderr, "talb-switch-bench: %s\n", what.c_str());
    return false;
}

bool
ParseBench(int argc, char** argv, BenchOptions* o)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        std::string name = arg.substr(0, eq);
        std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        if (arg == "--help")
        {
            Usage();
            std::exit(0);
        }
        else if (name == "--seconds")
        {
            if (!talb::ParseReal(value, 0.01, 60, &o->seconds))
            {
                return Fail("--seconds: '" + value + "' is not in 0.01..60");
            }
        }
        else if (name == "--packets" || name == "--flows")
        {
            uint64_t v = 0;
            uint64_t lo = name == "--packets" ? 64 : 1;
            uint64_t hi = name == "--packets" ? 8192 : 1024;
            if (!talb::ParseUnsigned(value, lo, hi, &v))
            {
                return Fail(name + ": '" + value + "' is not in " + std::to_string(lo) + ".." +
                            std::to_string(hi));
            }
            (name == "--packets" ? o->packets : o->flows) = static_cast<uint32_t>(v);
        }
        else if (name == "--sizes" || name == "--lb")
        {
            std::vector<std::string> items =
                value.empty() ? std::vector<std::string>{} : talb::Split(value, ',');
            if (items.empty())
            {
                return Fail(name + ": empty list");
            }
            if (name == "--lb")
            {
                for (const std::string& p : items)
                {
                    if (!talb::FindPolicyKind(PolicyOf(p)))
                    {
                        return Fail("--lb: '" + p + "' is not one of " + talb::PolicyNames() +
                                    " (each may end in -dscp)");
                    }
                }
                o->policies = items;
                continue;
            }
            o->sizes.clear();
            for (const std::string& s : items)
            {
                uint64_t v = 0;
                if (!talb::ParseUnsigned(s, 64, 1500, &v))
                {
                    return Fail("--sizes: '" + s + "' is not a size in 64..1500");
                }
                o->sizes.push_back(static_cast<uint32_t>(v));
            }
        }
        else
        {
            Usage();
            return Fail("unknown argument '" + arg + "'");
        }
    }
    return true;
}

/**
 * Writes packet \p i of a round into \p m: flow i % flows, its tensor changing every
 * kTensorPackets packets of the flow, priority by tensor, FIRST/LAST on the tensor's first and
 * last packet; DSCP of the priority; ECT(0) so that marking is exercised.
 */
void
BuildPacket(rte_mbuf* m, uint32_t size, uint32_t i, uint32_t flows)
{
    uint8_t* p = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, static_cast<uint16_t>(size)));
    std::memset(p, 0, size);
    const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
    std::memcpy(p, macs, sizeof(macs));
    p[12] = 0x08;
    uint32_t flow = i % flows;
    uint32_t k = i / flows;
    uint32_t tensor = k / kTensorPackets;
    uint32_t inTensor = k % kTensorPackets;
    talb_label label{talb_make_tensor_id(1, flow * 4096 + tensor),
                     static_cast<uint8_t>((flow + tensor) % TALB_NUM_PRIORITIES),
                     static_cast<uint8_t>((inTensor == 0 ? TALB_FLAG_FIRST : 0) |
                                          (inTensor == kTensorPackets - 1 ? TALB_FLAG_LAST : 0))};
    uint8_t* ip = p + 14;
    uint32_t ipLen = size - 14;
    talb_put_be32(ip + 0,
                  0x47000000u | (uint32_t(talb_dscp_from_priority(label.priority)) << 18) |
                      (2u << 16) | ipLen);
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = 6;
    talb_put_be32(ip + 12, 0x0A000001);
    talb_put_be32(ip + 16, 0x0A000002);
    talb_option_encode(&label, ip + 20, TALB_OPT_LEN);
    uint32_t sum = 0;
    for (int b = 0; b < 28; b += 2)
    {
        sum += (ip[b] << 8) | ip[b + 1];
    }
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    ip[10] = static_cast<uint8_t>(~sum >> 8);
    ip[11] = static_cast<uint8_t>(~sum);
    uint8_t* tcp = ip + 28;
    tcp[0] = static_cast<uint8_t>((40000 + flow) >> 8);
    tcp[1] = static_cast<uint8_t>(40000 + flow);
    tcp[2] = 0x13;
    tcp[3] = 0x88;
    talb_put_be32(tcp + 4, k * (size - kHeaders));
    tcp[12] = 0x50;
    tcp[13] = 0x10;
}

struct Phase
{
    uint64_t packets = 0;
    uint64_t cycles = 0;
};

/// The timed phase: forward everything waiting on the host port out of the uplinks.
void
Forward(talb::SwitchLcore* ctx, Phase* r)
{
    uint64_t start = rte_rdtsc_precise();
    for (;;)
    {
        int64_t now = talb::SwitchNowNs(ctx);
        uint16_t n = talb::SwitchReceive(ctx, 0, now);
        bool waiting = false;
        for (uint32_t p = 1; p <= kUplinks; ++p)
        {
            talb::SwitchTransmit(ctx, p, now);
            waiting |= !ctx->ports[p].queue.Empty() || ctx->nHeld[p] > 0;
        }
        r->packets += n;
        if (n == 0 && !waiting)
        {
            break;
        }
    }
    r->cycles += rte_rdtsc_precise() - start;
}

/// The untimed phase: the uplinks' packets go back to the host port.
void
Recycle(const uint16_t* eth)
{
    rte_mbuf* pkts[talb::kSwitchBurst];
    for (uint32_t p = 1; p <= kUplinks; ++p)
    {
        uint16_t n;
        while ((n = rte_eth_rx_burst(eth[p], 0, pkts, talb::kSwitchBurst)) > 0)
        {
            uint16_t sent = 0;
            while (sent < n)
            {
                sent += rte_eth_tx_burst(eth[0], 0, pkts + sent, n - sent);
            }
        }
    }
}

/**
 * Forwards rounds of \p options.packets packets of \p size bytes through a pipeline running
 * \p lb for the options' time, and prints the case's line.
 * \return false (printed) when not every packet was forwarded as expected
 */
bool
RunCase(uint32_t size,
        const std::string& lb,
        const BenchOptions& options,
        const talb::SwitchConfig& switchConfig,
        rte_mempool* pool,
        uint16_t* eth)
{
    volatile bool quit = false;
    std::string error;
    talb::PipelineConfig pc;
    pc.egress.bandPackets = 8192;
    pc.egress.bufferBytes = 64u << 20;
    pc.labels = OnDscp(lb) ? talb::LabelSource::kDscp : talb::LabelSource::kOption;
    talb::PolicyOptions po;
    po.name = PolicyOf(lb);
    talb::SwitchPort ports[1 + kUplinks];
    talb::SwitchPipeline pipeline;
    if (!pipeline.Init(switchConfig, pc, po, ports, &error))
    {
        rte_exit(EXIT_FAILURE, "talb-switch-bench: %s\n", error.c_str());
    }
    auto* ctx =
        static_cast<talb::SwitchLcore*>(rte_zmalloc_socket("talb_bench_lcore",
                                                           sizeof(talb::SwitchLcore),
                                                           RTE_CACHE_LINE_SIZE,
                                                           static_cast<int>(rte_socket_id())));
    if (ctx == nullptr)
    {
        rte_exit(EXIT_FAILURE, "talb-switch-bench: out of memory\n");
    }
    talb::SwitchLcoreInit(ctx, &pipeline, ports, eth, 0, &quit);
    std::vector<rte_mbuf*> round(options.packets);
    if (rte_pktmbuf_alloc_bulk(pool, round.data(), options.packets) != 0)
    {
        rte_exit(EXIT_FAILURE, "talb-switch-bench: mempool too small\n");
    }
    for (uint32_t i = 0; i < options.packets; ++i)
    {
        BuildPacket(round[i], size, i, options.flows);
    }
    talb::SendAll(eth[0], round.data(), options.packets);

    Phase phase;
    talb::TimedRun run = talb::RunFor(options.seconds, [&] {
        Forward(ctx, &phase);
        Recycle(eth);
    });
    uint64_t rounds = run.rounds;
    double share = run.cpuShare;
    double mpps = talb::MppsPerCpuSecond(phase.packets, phase.cycles, share);

    talb::SwitchStats s = talb::SwitchFinalStats(ctx);
    const talb::PipelineCounters& c = s.pipeline;
    uint64_t used = 0;
    for (uint32_t p = 1; p <= kUplinks; ++p)
    {
        used += s.portTx[p] > 0;
    }
    uint64_t expected = rounds * options.packets;
    bool ok = s.rx == expected && s.tx == expected && c.queued == expected &&
              c.labelled == expected && c.malformed == 0 && (c.selections == expected) &&
              used == kUplinks;
    std::ostringstream check;
    check << (ok ? "all forwarded, " : "MISMATCH, ") << used << " uplinks";
    std::printf("%-6u %-12s %10.2f %10.1f %12lu %6.0f %22s\n",
                size,
                lb.c_str(),
                mpps,
                mpps > 0 ? 1e3 / mpps : 0.0,
                phase.packets,
                share * 100,
                check.str().c_str());
    std::fflush(stdout);
    if (!ok)
    {
        std::fprintf(stderr,
                     "talb-switch-bench: expected %lu, got rx=%lu tx=%lu queued=%lu "
                     "labelled=%lu malformed=%lu selections=%lu drops=%lu\n",
                     expected,
                     s.rx,
                     s.tx,
                     c.queued,
                     c.labelled,
                     c.malformed,
                     c.selections,
                     c.queueDrops + c.noRoute + c.notIpv4);
    }
    talb::DrainPort(eth[0]);
    rte_free(ctx);
    return ok;
}

} // namespace

int
main(int argc, char** argv)
{
    int used = talb::EalInitOrExit(argc, argv, "talb-switch-bench");
    argc -= used;
    argv += used;
    BenchOptions options;
    if (!ParseBench(argc, argv, &options))
    {
        rte_eal_cleanup();
        return 2;
    }
    std::string names[1 + kUplinks];
    std::string config;
    for (uint32_t p = 0; p <= kUplinks; ++p)
    {
        names[p] = "talb_bench_p" + std::to_string(p);
        config += "port " + std::to_string(p) + " " + names[p] + "\n";
    }
    uint16_t eth[1 + kUplinks];
    rte_mempool* pool =
        talb::CreateLoopPortsOrExit("talb-switch-bench", options.packets, names, 1 + kUplinks, eth);
    config += "route 10.0.0.1/32 0\nroute 10.0.0.0/24 1,2,3,4\n";
    talb::SwitchConfig switchConfig;
    std::string error;
    if (!talb::ParseSwitchConfig(config, "bench", &switchConfig, &error))
    {
        rte_exit(EXIT_FAILURE, "talb-switch-bench: %s\n", error.c_str());
    }

    std::printf("talb-switch-bench: lcore %u, TSC %.2f GHz, net_ring ports (a host port, %u "
                "uplinks), %u packets per round over %u connections, tensors of %u packets\n",
                rte_lcore_id(),
                rte_get_tsc_hz() / 1e9,
                kUplinks,
                options.packets,
                options.flows,
                kTensorPackets);
    std::printf("Mpps per CPU-second of this lcore (cpu%%: its share of the wall-clock time)\n");
    std::printf("%-6s %-12s %10s %10s %12s %6s %22s\n",
                "size",
                "lb",
                "Mpps",
                "ns/pkt",
                "packets",
                "cpu%",
                "check");
    int status = 0;
    for (uint32_t size : options.sizes)
    {
        for (const std::string& lb : options.policies)
        {
            if (!RunCase(size, lb, options, switchConfig, pool, eth))
            {
                status = 1;
            }
        }
    }
    talb::CloseAll(eth, 1 + kUplinks);
    return status;
}
