/*
 * The agent's per-packet logic, free of DPDK: tag outbound TCP data packets with the TaLB IPv4
 * option and DSCP of the tensor that owns their first payload byte; strip the option inbound.
 * Everything it cannot handle goes through untouched and is counted (fail-open).
 */
#ifndef TALB_TAGGER_H
#define TALB_TAGGER_H

#include "talb-flow-table.h"
#include "talb-wire.h"

#include <cstdint>

namespace talb
{

struct TaggerConfig
{
    /// DSCP per priority; defaults to talb_dscp_from_priority (model/wire/talb-wire.h)
    uint8_t dscp[TALB_NUM_PRIORITIES];
    /// set the DSCP only, never insert the option (for switches that punt IP options to CPU)
    bool dscpOnly = false;
    /// wire MTU: a packet whose IPv4 length plus the option would exceed it is not given one
    uint32_t mtu = 1500;
    /// tracked connection directions (see FlowTable)
    uint32_t maxFlows = 4096;

    TaggerConfig();
};

/**
 * Outbound identity: packets = tagged + untracked + malformed + oversize + passthrough.
 *  - tagged: got the label (option and DSCP; DSCP only in DSCP-only mode)
 *  - untracked: TCP data with no label known (connection not seen from its SYN, a stream that
 *    does not start with a TaLB frame -- another protocol --, a gap that may hide a frame
 *    header, a retransmission older than the frame history, or a segment starting in a header
 *    it does not complete)
 *  - malformed: inconsistent IPv4/TCP headers or IPv4 options, or a later frame header in a
 *    TaLB stream that fails to decode (the connection is untracked from there on)
 *  - oversize: labelled, but the option would push it past the MTU or the 60-byte IPv4 header
 *    limit, or the buffer has no headroom: it gets the DSCP only
 *  - passthrough: not IPv4/TCP, no TCP payload (handshake, ACK, FIN), a fragment, or already
 *    carrying a TaLB option
 */
struct OutboundCounters
{
    uint64_t packets = 0;
    uint64_t tagged = 0;
    uint64_t untracked = 0;
    uint64_t malformed = 0;
    uint64_t oversize = 0;
    uint64_t passthrough = 0;
};

/**
 * Inbound identity: packets = stripped + malformed + passthrough.
 *  - stripped: the TaLB option was removed
 *  - malformed: inconsistent IPv4/TCP headers or IPv4 options, or a TaLB option whose length
 *    byte is not 8
 *  - passthrough: no TaLB option, or not IPv4
 */
struct InboundCounters
{
    uint64_t packets = 0;
    uint64_t stripped = 0;
    uint64_t malformed = 0;
    uint64_t passthrough = 0;
};

struct TaggerCounters
{
    OutboundCounters out;
    InboundCounters in;
    uint64_t evicted = 0; ///< live connections that lost their flow table entry to a new SYN
};

class Tagger
{
  public:
    explicit Tagger(const TaggerConfig& config);

    /**
     * Handles a frame going from the host to the wire.
     * \param frame first byte of the Ethernet frame, writable
     * \param len bytes in the buffer from frame on
     * \param headroom writable bytes before frame
     * \return how far the frame's first byte moved: -TALB_OPT_LEN when the option was inserted
     *         (the frame now starts 8 bytes earlier and is 8 bytes longer), else 0
     */
    int Outbound(uint8_t* frame, uint32_t len, uint32_t headroom);

    /**
     * Handles a frame going from the wire to the host.
     * \return how far the frame's first byte moved: +TALB_OPT_LEN when the option was removed
     *         (the frame now starts 8 bytes later and is 8 bytes shorter), else 0
     */
    int Inbound(uint8_t* frame, uint32_t len);

    const TaggerCounters& Counters() const;
    const TaggerConfig& Config() const;
    const FlowTable& Flows() const;

  private:
    TaggerConfig m_config;
    FlowTable m_flows;
    TaggerCounters m_counters;
    uint32_t m_clock = 0; ///< outbound packets seen: the flow table's recency clock
};

} // namespace talb

#endif /* TALB_TAGGER_H */
