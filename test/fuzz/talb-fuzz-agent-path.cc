/*
 * Fuzz target: talb-agent's frame path (testbed/agent/talb-tagger.h): a sequence of Ethernet
 * frames through one agent's Outbound (flow table, sequence tracking and frame-stream parsing
 * live across packets), each result through a second agent's Inbound.
 *
 * The input is a script. It builds the plugin byte stream of a few TCP connections (frames
 * with fuzzed labels and lengths, raw bytes), and sends their packets: SYNs with fuzzed initial
 * sequence numbers, data segments in order, retransmitted, after gaps or anywhere, with FIN or
 * RST, fuzzed IPv4 options (TaLB options among them), TCP options, VLAN tags, link-layer
 * padding and headroom; raw frames of random bytes go in between. The agent's configuration
 * (DSCP-only mode, MTU, flow-table size) is fuzzed too.
 *
 * Invariants, per packet:
 *  - the outbound counters add up: exactly one of tagged, untracked, malformed, oversize,
 *    passthrough counts each packet; the inbound ones likewise;
 *  - a frame grows only into its headroom, by exactly the 8 option bytes, never past the MTU
 *    or the 60-byte IPv4 header;
 *  - a labelled packet (option or DSCP) carries the label of the frame of the connection's
 *    stream that owns its first payload byte -- tensor, priority and the FIRST/LAST flags --
 *    as a reference walk of the stream says: the agent may decline to label, never mislabel;
 *  - besides the inserted option, DSCP and IPv4 length/checksum fields, no byte changes; the
 *    option sits where the options list ends, so every receiver's walk finds it; the IPv4
 *    header checksum stays valid;
 *  - inbound strips exactly the option outbound inserted (or one the packet carried), giving
 *    back the original frame with only its DSCP changed.
 */
#include "talb-checksum.h"
#include "talb-fuzz.h"
#include "talb-packet-view.h"
#include "talb-tagger.h"
#include "talb-wire.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace
{

using talb::fuzz::ExactBuffer;
using talb::fuzz::Input;

constexpr uint32_t kFlows = 6;
constexpr uint32_t kIpFixed = 20;

struct RefFrame
{
    uint64_t start;
    uint32_t payloadLen;
    talb_label label;

    uint64_t End() const
    {
        return start + TALB_FRAME_LEN + uint64_t(payloadLen);
    }
};

struct Flow
{
    uint32_t src;
    uint32_t dst;
    uint16_t srcPort;
    uint16_t dstPort;
    uint32_t isn = 0;
    std::vector<uint8_t> stream;
    uint64_t sent = 0;            ///< highest stream offset sent so far
    std::vector<RefFrame> frames; ///< reference walk of stream
    uint64_t walked = 0;          ///< where the walk stopped
    bool walkStuck = false;       ///< a header that does not decode: no frames after it

    void Walk()
    {
        while (!walkStuck && walked + TALB_FRAME_LEN <= stream.size())
        {
            talb_frame f;
            if (talb_frame_decode(stream.data() + walked, TALB_FRAME_LEN, &f) < 0)
            {
                walkStuck = true;
                break;
            }
            frames.push_back(RefFrame{walked, f.payload_len, f.label});
            walked += TALB_FRAME_LEN + uint64_t(f.payload_len);
        }
    }

    /// The frame holding stream offset off, or nullptr.
    const RefFrame* Owner(uint64_t off) const
    {
        auto it =
            std::upper_bound(frames.begin(), frames.end(), off, [](uint64_t o, const RefFrame& f) {
                return o < f.start;
            });
        if (it == frames.begin() || off >= (it - 1)->End())
        {
            return nullptr;
        }
        return &*(it - 1);
    }
};

/// IPv4 options: pieces chosen by the input, padded to a multiple of 4, at most 40 bytes.
std::vector<uint8_t>
BuildIpOptions(Input& in)
{
    std::vector<uint8_t> opts;
    uint32_t pieces = in.Range(0, 4);
    for (uint32_t i = 0; i < pieces; ++i)
    {
        switch (in.U8() % 6)
        {
        case 0:
            opts.push_back(1); // NOP
            break;
        case 1:
            opts.push_back(0); // EOL
            break;
        case 2: { // a TaLB option, maybe with bad fields
            talb_label l{in.U32(),
                         static_cast<uint8_t>(in.U8() % 8),
                         static_cast<uint8_t>(in.U8() & 3)};
            uint8_t o[TALB_OPT_LEN];
            talb_option_encode(&l, o, sizeof(o));
            if (in.U8() % 4 == 0)
            {
                o[in.U8() % TALB_OPT_LEN] = in.U8();
            }
            opts.insert(opts.end(), o, o + TALB_OPT_LEN);
            break;
        }
        case 3: { // some other option
            uint8_t len = static_cast<uint8_t>(in.Range(2, 12));
            opts.push_back(static_cast<uint8_t>(in.Range(2, 255)));
            opts.push_back(len);
            for (uint8_t b = 2; b < len; ++b)
            {
                opts.push_back(in.U8());
            }
            break;
        }
        default: { // raw bytes
            std::vector<uint8_t> raw = in.Bytes(in.Range(1, 6));
            opts.insert(opts.end(), raw.begin(), raw.end());
            break;
        }
        }
    }
    if (opts.size() > 40)
    {
        opts.resize(40);
    }
    while (opts.size() % 4 != 0)
    {
        opts.push_back(0);
    }
    return opts;
}

struct Built
{
    std::vector<uint8_t> bytes;
    uint32_t l3 = 0;
};

/// An Ethernet/IPv4/TCP frame of flow f carrying payload; fields the script does not fix come
/// from the input.
Built
BuildSegment(Input& in,
             const Flow& f,
             uint32_t seq,
             uint8_t flags,
             const uint8_t* payload,
             uint32_t len)
{
    Built b;
    uint32_t tags = in.U8() % 8 == 0 ? in.Range(1, 2) : 0;
    std::vector<uint8_t> ipOpts = in.U8() % 4 == 0 ? BuildIpOptions(in) : std::vector<uint8_t>();
    uint32_t tcpOptWords = in.U8() % 4 == 0 ? in.Range(0, 10) : 0;
    uint32_t ihl = kIpFixed + static_cast<uint32_t>(ipOpts.size());
    uint32_t tcpLen = 20 + 4 * tcpOptWords;
    uint32_t total = ihl + tcpLen + len;
    uint32_t padding = in.U8() % 4 == 0 ? in.Range(0, 8) : 0;
    b.l3 = 14 + 4 * tags;
    b.bytes.assign(b.l3 + total + padding, 0);
    uint8_t* p = b.bytes.data();
    for (int i = 0; i < 12; ++i)
    {
        p[i] = static_cast<uint8_t>(0x02 + i);
    }
    uint32_t at = 12;
    for (uint32_t t = 0; t < tags; ++t)
    {
        talb::StoreBe16(p + at, t == 0 && tags == 2 ? 0x88A8 : 0x8100);
        talb::StoreBe16(p + at + 2, static_cast<uint16_t>(in.U16() & 0x0FFF));
        at += 4;
    }
    talb::StoreBe16(p + at, 0x0800);
    uint8_t* ip = p + b.l3;
    ip[0] = static_cast<uint8_t>(0x40 | (ihl / 4));
    ip[1] = in.U8(); // any DSCP and ECN
    talb::StoreBe16(ip + 2, static_cast<uint16_t>(total));
    talb::StoreBe16(ip + 4, in.U16());
    talb::StoreBe16(ip + 6, in.U8() % 16 == 0 ? in.U16() : 0x4000); // sometimes a fragment
    ip[8] = 64;
    ip[9] = 6;
    talb_put_be32(ip + 12, f.src);
    talb_put_be32(ip + 16, f.dst);
    if (!ipOpts.empty())
    {
        std::memcpy(ip + kIpFixed, ipOpts.data(), ipOpts.size());
    }
    talb::StoreBe16(ip + 10, talb::Ipv4HeaderChecksum(ip, ihl));
    uint8_t* tcp = ip + ihl;
    talb::StoreBe16(tcp, f.srcPort);
    talb::StoreBe16(tcp + 2, f.dstPort);
    talb_put_be32(tcp + 4, seq);
    talb_put_be32(tcp + 8, in.U32());
    tcp[12] = static_cast<uint8_t>((tcpLen / 4) << 4);
    tcp[13] = flags;
    talb::StoreBe16(tcp + 14, 65535);
    for (uint32_t i = 20; i < tcpLen; ++i)
    {
        tcp[i] = 1; // NOP options
    }
    if (len > 0)
    {
        std::memcpy(tcp + tcpLen, payload, len);
    }
    for (uint32_t i = 0; i < padding; ++i)
    {
        p[b.l3 + total + i] = in.U8();
    }
    return b;
}

bool
ChecksumValid(const uint8_t* ip)
{
    uint32_t ihl = (ip[0] & 0x0F) * 4u;
    return talb::LoadBe16(ip + 10) == talb::Ipv4HeaderChecksum(ip, ihl);
}

uint64_t
Total(const talb::OutboundCounters& c)
{
    return c.tagged + c.untracked + c.malformed + c.oversize + c.passthrough;
}

uint64_t
Total(const talb::InboundCounters& c)
{
    return c.stripped + c.malformed + c.passthrough;
}

/// What the packet should be labelled with, when the agent labels it.
struct Expect
{
    const Flow* flow = nullptr; ///< a modelled connection's data segment
    uint64_t off = 0;
    uint32_t len = 0;
};

/**
 * Sends one frame through the sender's Outbound and the receiver's Inbound and checks every
 * invariant. original: the frame as built (l3 known when it is ours, else parsed).
 */
void
SendAndCheck(talb::Tagger& sender,
             talb::Tagger& receiver,
             const std::vector<uint8_t>& original,
             uint32_t headroom,
             const Expect& expect)
{
    const talb::TaggerConfig& config = sender.Config();
    uint32_t len = static_cast<uint32_t>(original.size());
    ExactBuffer buf(headroom + len);
    if (len > 0)
    {
        std::memcpy(buf.Data() + headroom, original.data(), len);
    }
    talb::OutboundCounters before = sender.Counters().out;

    int moved = sender.Outbound(buf.Data() + headroom, len, headroom);

    const talb::OutboundCounters& after = sender.Counters().out;
    TALB_FUZZ_CHECK(after.packets == before.packets + 1);
    TALB_FUZZ_CHECK(Total(after) == after.packets);
    TALB_FUZZ_CHECK(sender.Flows().Size() <= sender.Flows().Capacity());
    TALB_FUZZ_CHECK(moved == 0 || moved == -TALB_OPT_LEN);
    bool labelled = after.tagged > before.tagged || after.oversize > before.oversize;
    const uint8_t* out = buf.Data() + headroom + moved;
    uint32_t outLen = len - moved;

    talb::PacketView v{};
    talb::ParseResult parsed = talb::ParseFrame(original.data(), len, &v);
    if (moved != 0)
    {
        TALB_FUZZ_CHECK(headroom >= TALB_OPT_LEN && after.tagged == before.tagged + 1);
        TALB_FUZZ_CHECK(!config.dscpOnly && parsed == talb::ParseResult::kTcp);
        TALB_FUZZ_CHECK(v.ipTotalLen + TALB_OPT_LEN <= config.mtu);
        TALB_FUZZ_CHECK(v.ipHeaderLen + TALB_OPT_LEN <= 60);
    }
    if (labelled)
    {
        TALB_FUZZ_CHECK(parsed == talb::ParseResult::kTcp);
    }

    // Bytes: the link-layer header and everything after the IPv4 header are untouched; the
    // IPv4 header differs in DSCP, IHL, length and checksum, and the option appended.
    talb_label got{};
    if (parsed == talb::ParseResult::kTcp || parsed == talb::ParseResult::kOtherIpv4)
    {
        const uint8_t* ipIn = original.data() + v.l3;
        const uint8_t* ipOut = out + v.l3;
        TALB_FUZZ_CHECK(talb::fuzz::Equal(out, original.data(), v.l3));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipOut + v.ipHeaderLen - moved,
                                          ipIn + v.ipHeaderLen,
                                          len - v.l3 - v.ipHeaderLen));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipOut + 4, ipIn + 4, 6));
        // The option goes where the options list ends (before an EOL and its padding).
        size_t listEnd = v.ipHeaderLen - kIpFixed;
        if (moved != 0 && v.ipHeaderLen > kIpFixed)
        {
            TALB_FUZZ_CHECK(talb_ipv4_options_find(ipIn + kIpFixed, listEnd, &listEnd) ==
                            TALB_WIRE_NOT_FOUND);
        }
        size_t optAt = kIpFixed + listEnd;
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipOut + 12, ipIn + 12, optAt - 12));
        TALB_FUZZ_CHECK(
            talb::fuzz::Equal(ipOut + optAt - moved, ipIn + optAt, v.ipHeaderLen - optAt));
        TALB_FUZZ_CHECK((ipOut[1] & 3) == (ipIn[1] & 3)); // ECN kept
        TALB_FUZZ_CHECK(!ChecksumValid(ipIn) || ChecksumValid(ipOut));
        if (moved != 0)
        {
            TALB_FUZZ_CHECK((ipOut[0] & 0x0F) * 4u == v.ipHeaderLen + TALB_OPT_LEN);
            TALB_FUZZ_CHECK(talb::LoadBe16(ipOut + 2) == v.ipTotalLen + TALB_OPT_LEN);
            TALB_FUZZ_CHECK(talb_option_decode(ipOut + optAt, TALB_OPT_LEN, &got) == TALB_OPT_LEN);
            size_t seen = 0; // every receiver finds it
            TALB_FUZZ_CHECK(talb_ipv4_options_find(ipOut + kIpFixed,
                                                   v.ipHeaderLen + TALB_OPT_LEN - kIpFixed,
                                                   &seen) == TALB_WIRE_OK &&
                            seen == listEnd);
            TALB_FUZZ_CHECK(ipOut[1] >> 2 == config.dscp[got.priority]);
        }
        else
        {
            TALB_FUZZ_CHECK(ipOut[0] == ipIn[0] && talb::fuzz::Equal(ipOut + 2, ipIn + 2, 2));
            if (labelled)
            {
                // DSCP only: the priority it encodes is the label's.
                int prio = -1;
                for (int p = 0; p < TALB_NUM_PRIORITIES; ++p)
                {
                    prio = config.dscp[p] == ipOut[1] >> 2 && prio < 0 ? p : prio;
                }
                TALB_FUZZ_CHECK(prio >= 0);
                got.priority = static_cast<uint8_t>(prio);
            }
            else
            {
                TALB_FUZZ_CHECK(ipOut[1] == ipIn[1]);
            }
        }
    }
    else
    {
        TALB_FUZZ_CHECK(moved == 0 && !labelled);
        TALB_FUZZ_CHECK(talb::fuzz::Equal(out, original.data(), len));
    }

    // The label is the owning frame's, per the reference walk of the stream. (Random frames
    // that open and feed a connection of their own may be labelled too: from garbage.)
    if (labelled && expect.flow != nullptr)
    {
        const RefFrame* owner = expect.flow->Owner(expect.off);
        TALB_FUZZ_CHECK(owner != nullptr);
        TALB_FUZZ_CHECK(got.priority == owner->label.priority);
        if (moved != 0)
        {
            TALB_FUZZ_CHECK(got.tensor_id == owner->label.tensor_id);
            uint64_t end = expect.off + expect.len;
            uint64_t firstByte =
                owner->payloadLen > 0 ? owner->start + TALB_FRAME_LEN : owner->End() - 1;
            uint64_t lastByte = owner->End() - 1;
            bool first = (owner->label.flags & TALB_FLAG_FIRST) && expect.off <= firstByte &&
                         firstByte < end;
            bool last =
                (owner->label.flags & TALB_FLAG_LAST) && expect.off <= lastByte && lastByte < end;
            TALB_FUZZ_CHECK(got.flags ==
                            ((first ? TALB_FLAG_FIRST : 0) | (last ? TALB_FLAG_LAST : 0)));
        }
    }

    // Inbound at the receiver.
    ExactBuffer rx(out, outLen);
    talb::InboundCounters inBefore = receiver.Counters().in;
    size_t found = 0;
    talb::PacketView rv{};
    talb::ParseResult rparsed = talb::ParseFrame(rx.Data(), outLen, &rv);
    bool carries =
        (rparsed == talb::ParseResult::kTcp || rparsed == talb::ParseResult::kOtherIpv4) &&
        rv.ipHeaderLen > kIpFixed &&
        talb_ipv4_options_find(rx.Data() + rv.l3 + kIpFixed, rv.ipHeaderLen - kIpFixed, &found) ==
            TALB_WIRE_OK;
    uint8_t foundLen = carries ? rx.Data()[rv.l3 + kIpFixed + found + 1] : 0;
    int back = receiver.Inbound(rx.Data(), static_cast<uint32_t>(outLen));
    const talb::InboundCounters& inAfter = receiver.Counters().in;
    TALB_FUZZ_CHECK(inAfter.packets == inBefore.packets + 1 && Total(inAfter) == inAfter.packets);
    TALB_FUZZ_CHECK(back == 0 || back == TALB_OPT_LEN);
    if (moved != 0)
    {
        // What outbound inserted comes out again: the original frame with its DSCP set.
        TALB_FUZZ_CHECK(back == TALB_OPT_LEN);
        TALB_FUZZ_CHECK(outLen - back == len);
        const uint8_t* stripped = rx.Data() + back;
        std::vector<uint8_t> expected(original);
        expected[v.l3 + 1] = out[v.l3 + 1];
        talb::StoreBe16(expected.data() + v.l3 + 10, talb::LoadBe16(stripped + v.l3 + 10));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(stripped, expected.data(), len));
        TALB_FUZZ_CHECK(ChecksumValid(stripped + v.l3));
    }
    else if (back == TALB_OPT_LEN)
    {
        // A TaLB option the packet carried: exactly its 8 bytes leave the header.
        TALB_FUZZ_CHECK(carries && foundLen == TALB_OPT_LEN);
        const uint8_t* stripped = rx.Data() + back;
        const uint8_t* ipBefore = out + rv.l3;
        const uint8_t* ipAfter = stripped + rv.l3;
        size_t optAt = kIpFixed + found;
        TALB_FUZZ_CHECK(talb::fuzz::Equal(stripped, out, rv.l3));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipAfter + 4, ipBefore + 4, 6));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipAfter + 12, ipBefore + 12, optAt - 12));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(ipAfter + optAt,
                                          ipBefore + optAt + TALB_OPT_LEN,
                                          outLen - rv.l3 - optAt - TALB_OPT_LEN));
        TALB_FUZZ_CHECK(talb::LoadBe16(ipAfter + 2) == rv.ipTotalLen - TALB_OPT_LEN);
        TALB_FUZZ_CHECK(!ChecksumValid(ipBefore) || ChecksumValid(ipAfter));
    }
    else
    {
        TALB_FUZZ_CHECK(talb::fuzz::Equal(rx.Data(), out, outLen));
        TALB_FUZZ_CHECK(!carries || foundLen != TALB_OPT_LEN);
    }
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    Input in(data, size);
    talb::TaggerConfig config;
    config.dscpOnly = in.U8() % 4 == 0;
    switch (in.U8() % 4)
    {
    case 0:
        config.mtu = in.Range(68, 2000);
        break;
    case 1:
        config.mtu = 9000;
        break;
    default:
        config.mtu = 1500;
        break;
    }
    config.maxFlows = in.Range(1, 16);
    talb::Tagger sender(config);
    talb::TaggerConfig rxConfig;
    rxConfig.maxFlows = 1; // inbound never looks connections up: keep the set-up cheap
    talb::Tagger receiver(rxConfig);

    Flow flows[kFlows];
    for (uint32_t i = 0; i < kFlows; ++i)
    {
        flows[i].src = 0x0A000001 + i;
        flows[i].dst = 0x0A000101;
        flows[i].srcPort = static_cast<uint16_t>(40000 + i);
        flows[i].dstPort = 5000;
    }

    for (int step = 0; step < 400 && !in.Empty(); ++step)
    {
        uint8_t op = in.U8();
        Flow& f = flows[in.U8() % kFlows];
        switch (op % 8)
        {
        case 0: { // SYN: stream offset 0 is isn + 1
            uint32_t isn = in.U32();
            Built b = BuildSegment(in, f, isn, in.Bool() ? 0x12 : 0x02, nullptr, 0);
            // A SYN the agent cannot read as TCP (a fragment) does not restart the connection.
            talb::PacketView v{};
            if (talb::ParseFrame(b.bytes.data(), static_cast<uint32_t>(b.bytes.size()), &v) ==
                talb::ParseResult::kTcp)
            {
                f.isn = isn;
            }
            SendAndCheck(sender, receiver, b.bytes, in.Range(0, 16), Expect{});
            break;
        }
        case 1:
        case 2: { // the plugin writes a frame (or, rarely, bytes of something else)
            if (f.stream.size() > 60000)
            {
                break;
            }
            if (in.U8() % 8 != 0)
            {
                talb_frame fr{};
                fr.label.priority = in.U8() % TALB_NUM_PRIORITIES;
                fr.label.flags = in.U8() & TALB_FLAGS_MASK;
                fr.label.tensor_id = in.U32();
                fr.payload_len = in.U8() % 4 == 0 ? 0 : in.Range(1, 4000);
                talb::fuzz::AppendFrame(&f.stream, fr);
            }
            else
            {
                std::vector<uint8_t> raw = in.Bytes(in.Range(1, 24));
                f.stream.insert(f.stream.end(), raw.begin(), raw.end());
            }
            f.Walk();
            break;
        }
        case 3:
        case 4:
        case 5: { // a data segment
            if (f.stream.empty())
            {
                break;
            }
            uint64_t off;
            switch (in.U8() % 4)
            {
            case 0: // retransmission
                off = f.sent == 0 ? 0 : in.U16() % f.sent;
                break;
            case 1: // after a gap
                off = f.sent + in.Range(1, 3000);
                break;
            case 2: // anywhere
                off = in.U16() % f.stream.size();
                break;
            default: // in order
                off = f.sent;
                break;
            }
            if (off >= f.stream.size())
            {
                break;
            }
            uint32_t len = in.Range(1, 1460);
            len = static_cast<uint32_t>(std::min<uint64_t>(len, f.stream.size() - off));
            uint8_t flags = 0x18; // ACK PSH
            uint8_t extra = in.U8();
            flags |= extra % 16 == 0 ? 0x01 : 0; // FIN
            flags |= extra % 64 == 1 ? 0x04 : 0; // RST
            uint32_t seq = f.isn + 1 + static_cast<uint32_t>(off);
            Built b = BuildSegment(in, f, seq, flags, f.stream.data() + off, len);
            f.sent = std::max<uint64_t>(f.sent, off + len);
            SendAndCheck(sender, receiver, b.bytes, in.Range(0, 16), Expect{&f, off, len});
            break;
        }
        case 6: { // an ACK without payload, or a bare RST
            Built b = BuildSegment(in,
                                   f,
                                   f.isn + 1 + static_cast<uint32_t>(f.sent),
                                   in.U8() % 8 == 0 ? 0x04 : 0x10,
                                   nullptr,
                                   0);
            SendAndCheck(sender, receiver, b.bytes, in.Range(0, 16), Expect{});
            break;
        }
        default: { // random bytes, unless they happen to be a modelled connection's segment
            std::vector<uint8_t> raw = in.Bytes(in.Range(0, 120));
            if (raw.size() >= 14 && in.Bool())
            {
                raw[12] = 0x08; // claim IPv4
                raw[13] = 0x00;
                if (raw.size() > 14)
                {
                    raw[14] = static_cast<uint8_t>(0x40 | (raw[14] & 0x0F));
                }
            }
            talb::PacketView v{};
            if (talb::ParseFrame(raw.data(), static_cast<uint32_t>(raw.size()), &v) ==
                talb::ParseResult::kTcp)
            {
                bool ours = false;
                for (const auto& g : flows)
                {
                    ours |= v.key.src == __builtin_bswap32(g.src);
                }
                if (ours)
                {
                    break;
                }
            }
            SendAndCheck(sender, receiver, raw, in.Range(0, 16), Expect{});
            break;
        }
        }
    }
    return 0;
}
