/*
 * talb-agent-bench: the agent's per-core tag and strip rates on software ports.
 *
 * Two net_ring ports stand in for the host and wire ports; each port's TX ring is its own RX
 * ring, so packets loop: the tag phase receives a round of packets on the host port, tags them
 * through the agent's fast path (ForwardBurst, the very function talb-agent runs) and sends them
 * to the wire port; the strip phase receives them there, strips them and sends them back to the
 * host port, restoring the round. A round is one SYN per connection followed by its data
 * segments, carrying a stream of TaLB frames, so tagging follows sequence space and parses
 * frame headers as in real traffic. Each phase is timed alone with the TSC; the figures are
 * packets per second on the single lcore that runs this program.
 */
#include "talb-agent-dpdk.h"
#include "talb-dpdk-bench.h"
#include "talb-text.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <string>
#include <vector>

namespace
{

constexpr uint32_t kFramePayload = 32 * 1024; ///< bytes per TaLB frame in the stream
constexpr uint32_t kHeaders = 54;             ///< Ethernet + IPv4 + TCP, no options

struct BenchOptions
{
    double seconds = 2.0;    ///< per frame size and mode (tag+strip rounds alternate)
    uint32_t packets = 1024; ///< per round: one RX ring's worth
    uint32_t flows = 4;
    std::vector<uint32_t> sizes = {64, 1500};
};

void
Usage()
{
    std::printf("usage: talb-agent-bench [EAL args] -- [--seconds=S] [--packets=N] [--flows=N] "
                "[--sizes=A,B,...]\n"
                "Measures talb-agent's tag and strip rates on one lcore over net_ring ports.\n"
                "  --seconds=S   time per frame size and mode, 0.01..60 (default 2)\n"
                "  --packets=N   packets per round, 64..65536 (default 1024)\n"
                "  --flows=N     TCP connections the packets are spread over, 1..64 (default 4)\n"
                "  --sizes=LIST  Ethernet frame sizes without CRC, 64..1500 (default 64,1500)\n"
                "EAL example: --no-huge --no-pci --no-shconf -m 256 -l 0\n");
}

bool
ParseBench(int argc, char** argv, BenchOptions* o)
{
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        std::string value = arg.find('=') == std::string::npos ? "" : arg.substr(arg.find('=') + 1);
        if (arg == "--help")
        {
            Usage();
            std::exit(0);
        }
        else if (arg.rfind("--seconds=", 0) == 0)
        {
            if (!talb::ParseReal(value, 0.01, 60, &o->seconds))
            {
                std::fprintf(stderr,
                             "talb-agent-bench: --seconds: '%s' is not in 0.01..60\n",
                             value.c_str());
                return false;
            }
        }
        else if (arg.rfind("--packets=", 0) == 0 || arg.rfind("--flows=", 0) == 0)
        {
            bool packets = arg[2] == 'p';
            uint64_t lo = packets ? 64 : 1;
            uint64_t hi = packets ? 65536 : 64;
            uint64_t v = 0;
            if (!talb::ParseUnsigned(value, lo, hi, &v))
            {
                std::fprintf(stderr,
                             "talb-agent-bench: %s: '%s' is not in %lu..%lu\n",
                             packets ? "--packets" : "--flows",
                             value.c_str(),
                             static_cast<unsigned long>(lo),
                             static_cast<unsigned long>(hi));
                return false;
            }
            (packets ? o->packets : o->flows) = static_cast<uint32_t>(v);
        }
        else if (arg.rfind("--sizes=", 0) == 0)
        {
            o->sizes.clear();
            for (const auto& item : talb::Split(value, ','))
            {
                uint64_t v = 0;
                if (!talb::ParseUnsigned(item, 64, 1500, &v))
                {
                    std::fprintf(
                        stderr,
                        "talb-agent-bench: --sizes: '%s' is not a list of sizes in 64..1500\n",
                        value.c_str());
                    return false;
                }
                o->sizes.push_back(static_cast<uint32_t>(v));
            }
        }
        else
        {
            std::fprintf(stderr, "talb-agent-bench: unknown argument '%s'\n", arg.c_str());
            Usage();
            return false;
        }
    }
    return true;
}

/// The byte at stream offset `off` of a stream of frames of kFramePayload bytes.
uint8_t
StreamByte(uint64_t off, uint32_t flow)
{
    const uint64_t frameLen = TALB_FRAME_LEN + kFramePayload;
    uint64_t index = off / frameLen;
    uint64_t at = off % frameLen;
    if (at >= TALB_FRAME_LEN)
    {
        return static_cast<uint8_t>(at * 31 + flow);
    }
    talb_frame f{{talb_make_tensor_id(1, static_cast<uint32_t>(index)),
                  static_cast<uint8_t>(index % TALB_NUM_PRIORITIES),
                  TALB_FLAG_FIRST | TALB_FLAG_LAST},
                 kFramePayload};
    uint8_t header[TALB_FRAME_LEN];
    talb_frame_encode(&f, header, sizeof(header));
    return header[at];
}

/// Writes one Ethernet/IPv4/TCP frame of `size` bytes into m.
void
BuildPacket(rte_mbuf* m, uint32_t size, uint32_t flow, uint32_t seq, bool syn, uint64_t streamOff)
{
    uint8_t* p = reinterpret_cast<uint8_t*>(
        rte_pktmbuf_append(m, static_cast<uint16_t>(syn ? kHeaders : size)));
    uint32_t payload = syn ? 0 : size - kHeaders;
    std::memset(p, 0, kHeaders);
    const uint8_t macs[12] = {2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1};
    std::memcpy(p, macs, sizeof(macs));
    p[12] = 0x08;
    uint8_t* ip = p + 14;
    talb_put_be32(ip + 0, 0x45000000u | (20 + 20 + payload));
    ip[6] = 0x40; // DF
    ip[8] = 64;
    ip[9] = 6;
    talb_put_be32(ip + 12, 0x0A000001);
    talb_put_be32(ip + 16, 0x0A000002);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
    {
        sum += (ip[i] << 8) | ip[i + 1];
    }
    sum = (sum & 0xFFFF) + (sum >> 16);
    sum = (sum & 0xFFFF) + (sum >> 16);
    ip[10] = static_cast<uint8_t>(~sum >> 8);
    ip[11] = static_cast<uint8_t>(~sum);
    uint8_t* tcp = ip + 20;
    tcp[0] = static_cast<uint8_t>((40000 + flow) >> 8);
    tcp[1] = static_cast<uint8_t>(40000 + flow);
    tcp[2] = 0x13;
    tcp[3] = 0x88;
    talb_put_be32(tcp + 4, seq);
    tcp[12] = 0x50;
    tcp[13] = syn ? 0x02 : 0x10;
    for (uint32_t i = 0; i < payload; ++i)
    {
        tcp[20 + i] = StreamByte(streamOff + i, flow);
    }
}

struct PhaseResult
{
    uint64_t packets = 0;
    uint64_t cycles = 0;
};

/// Receives everything queued on `port` and forwards it; returns what it took.
void
RunPhase(talb::LcoreContext* ctx, bool outbound, PhaseResult* r)
{
    uint16_t port = outbound ? ctx->hostPort : ctx->wirePort;
    rte_mbuf* pkts[talb::kBurstSize];
    uint64_t start = rte_rdtsc_precise();
    uint16_t n;
    while ((n = rte_eth_rx_burst(port, 0, pkts, talb::kBurstSize)) > 0)
    {
        talb::ForwardBurst(ctx, outbound, pkts, n);
        r->packets += n;
    }
    talb::DrainTx(ctx);
    r->cycles += rte_rdtsc_precise() - start;
}

} // namespace

// Options, EAL, ring ports and pools, then one timed pass per case: one straight read, as
// DPDK's l2fwd main is (each step's failure exits with the step named).
int
main(int argc, char** argv)
{
    int used = talb::EalInitOrExit(argc, argv, "talb-agent-bench");
    argc -= used;
    argv += used;
    BenchOptions options;
    if (!ParseBench(argc, argv, &options))
    {
        rte_eal_cleanup();
        return 2;
    }
    int socket = static_cast<int>(rte_socket_id());
    const std::string names[2] = {"talb_bench_host", "talb_bench_wire"};
    uint16_t ports[2];
    rte_mempool* pool =
        talb::CreateLoopPortsOrExit("talb-agent-bench", options.packets, names, 2, ports);

    std::printf("talb-agent-bench: lcore %u, TSC %.2f GHz, net_ring ports, %u packets per round "
                "over %u connections, frames of %u payload bytes\n",
                rte_lcore_id(),
                rte_get_tsc_hz() / 1e9,
                options.packets,
                options.flows,
                kFramePayload);
    std::printf("Mpps per CPU-second of this lcore (cpu%%: its share of the wall-clock time)\n");
    std::printf("%-6s %-10s %10s %10s %12s %6s %14s\n",
                "size",
                "path",
                "Mpps",
                "ns/pkt",
                "packets",
                "cpu%",
                "check");
    volatile bool quit = false;
    int status = 0;
    for (uint32_t size : options.sizes)
    {
        for (bool dscpOnly : {false, true})
        {
            talb::TaggerConfig config;
            config.dscpOnly = dscpOnly;
            talb::Tagger tagger(config);
            talb::LcoreContext* ctx =
                static_cast<talb::LcoreContext*>(rte_zmalloc_socket("talb_bench_lcore",
                                                                    sizeof(talb::LcoreContext),
                                                                    RTE_CACHE_LINE_SIZE,
                                                                    socket));
            if (ctx == nullptr ||
                talb::LcoreContextInit(ctx, ports[0], ports[1], &tagger, &quit, socket) != 0)
            {
                rte_exit(EXIT_FAILURE, "talb-agent-bench: out of memory\n");
            }
            // One round: a SYN per connection, then data segments round-robin over them.
            std::vector<rte_mbuf*> round(options.packets);
            if (rte_pktmbuf_alloc_bulk(pool, round.data(), options.packets) != 0)
            {
                rte_exit(EXIT_FAILURE, "talb-agent-bench: mempool too small\n");
            }
            std::vector<uint64_t> offsets(options.flows, 0);
            const uint32_t isn = 0xFFFF0000u; // sequence numbers wrap 64 KiB into each stream
            // Segments that start inside a frame header they do not complete get no label
            // (talb-seq-tracker.h): with 64-byte packets (10 payload bytes) some do.
            uint64_t headerOnly = 0;
            for (uint32_t i = 0; i < options.packets; ++i)
            {
                uint32_t flow = i % options.flows;
                bool syn = i < options.flows;
                BuildPacket(round[i],
                            size,
                            flow,
                            syn ? isn : static_cast<uint32_t>(isn + 1 + offsets[flow]),
                            syn,
                            offsets[flow]);
                uint64_t inFrame = offsets[flow] % (TALB_FRAME_LEN + kFramePayload);
                headerOnly +=
                    !syn && inFrame < TALB_FRAME_LEN && inFrame + size - kHeaders < TALB_FRAME_LEN;
                offsets[flow] += syn ? 0 : size - kHeaders;
            }
            talb::SendAll(ports[0], round.data(), options.packets);

            PhaseResult tag;
            PhaseResult strip;
            talb::TimedRun run = talb::RunFor(options.seconds, [&] {
                RunPhase(ctx, true, &tag);
                RunPhase(ctx, false, &strip);
            });
            uint64_t rounds = run.rounds;
            double share = run.cpuShare;
            talb::AgentStats s = talb::FinalStats(ctx);
            uint64_t dataPackets = rounds * (options.packets - options.flows - headerOnly);
            bool ok = s.tagger.out.tagged == dataPackets &&
                      s.tagger.out.untracked == rounds * headerOnly && s.drops == 0 &&
                      s.rx == s.tx && (dscpOnly || s.tagger.in.stripped == dataPackets);
            const char* name = dscpOnly ? "tag-dscp" : "tag";
            std::printf("%-6u %-10s %10.2f %10.1f %12lu %6.0f %14s\n",
                        size,
                        name,
                        talb::MppsPerCpuSecond(tag.packets, tag.cycles, share),
                        1e3 / talb::MppsPerCpuSecond(tag.packets, tag.cycles, share),
                        tag.packets,
                        share * 100,
                        ok ? "all tagged" : "MISMATCH");
            if (!dscpOnly)
            {
                std::printf("%-6u %-10s %10.2f %10.1f %12lu %6.0f %14s\n",
                            size,
                            "strip",
                            talb::MppsPerCpuSecond(strip.packets, strip.cycles, share),
                            1e3 / talb::MppsPerCpuSecond(strip.packets, strip.cycles, share),
                            strip.packets,
                            share * 100,
                            ok ? "all stripped" : "MISMATCH");
            }
            std::fflush(stdout);
            if (!ok)
            {
                std::fprintf(stderr,
                             "talb-agent-bench: expected %lu tagged, got tagged=%lu stripped=%lu "
                             "untracked=%lu malformed=%lu oversize=%lu drops=%lu\n",
                             dataPackets,
                             s.tagger.out.tagged,
                             s.tagger.in.stripped,
                             s.tagger.out.untracked,
                             s.tagger.out.malformed,
                             s.tagger.out.oversize,
                             s.drops);
                status = 1;
            }
            talb::DrainPort(ports[0]);
            talb::LcoreContextFree(ctx);
            rte_free(ctx);
        }
    }
    talb::CloseAll(ports, 2);
    return status;
}
