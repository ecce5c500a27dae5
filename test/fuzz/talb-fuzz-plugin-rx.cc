/*
 * Fuzz target: the NCCL net plugin's receive-side frame parser (talb_rx_step in
 * testbed/nccl-plugin/talb-net-frame.h), fed by a fake transport.
 *
 * The input builds a byte stream (well-formed frames mixed with raw bytes) and then scripts the
 * transport: how many bytes each read returns, would-block and EINTR results, a socket error,
 * and the capacity of each posted receive. A reference walk of the stream with
 * talb_frame_decode says what the parser must deliver.
 *
 * Invariants:
 *  - each completed frame is the reference's next frame, with its payload bytes, written into a
 *    receive buffer of exactly the posted capacity (AddressSanitizer catches a byte more);
 *  - a read never asks for bytes past the current header or payload (the next frame stays in
 *    the stream);
 *  - a header that does not decode is reported with the decoder's status; a payload longer
 *    than the posted receive is reported before any of it is read;
 *  - after either, the parser stays failed: a further step returns the same status without
 *    reading the transport or writing the buffer;
 *  - end of stream is reported only once every byte was read, and the parser is idle then
 *    exactly when the stream ended between frames.
 */
#include "talb-fuzz.h"
#include "talb-net-frame.h"
#include "talb-wire.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace
{

struct RefFrame
{
    uint64_t start;
    talb_frame frame;

    uint64_t End() const
    {
        return start + TALB_FRAME_LEN + uint64_t(frame.payload_len);
    }
};

struct Transport
{
    const std::vector<uint8_t>* stream;
    const std::vector<RefFrame>* frames; ///< the reference walk
    talb::fuzz::Input* script;
    uint64_t pos = 0;
    bool failed = false;    ///< an injected socket error was returned
    bool forbidden = false; ///< a read now breaks an invariant

    /// The end of the header or payload that holds stream offset pos.
    uint64_t Boundary() const
    {
        uint64_t tail = 0; // past the last whole frame: a bad or partial header
        for (const auto& f : *frames)
        {
            if (pos < f.End())
            {
                return pos < f.start + TALB_FRAME_LEN ? f.start + TALB_FRAME_LEN : f.End();
            }
            tail = f.End();
        }
        return tail + TALB_FRAME_LEN;
    }

    static ssize_t Read(void* ctx, void* buf, size_t len)
    {
        auto* t = static_cast<Transport*>(ctx);
        TALB_FUZZ_CHECK(!t->forbidden);
        TALB_FUZZ_CHECK(len > 0 && t->pos + len <= t->Boundary());
        if (!t->script->Empty())
        {
            switch (t->script->U8() % 16)
            {
            case 0:
                errno = EAGAIN;
                return -1;
            case 1:
                errno = EINTR;
                return -1;
            case 2:
                if (t->script->U8() == 0)
                {
                    t->failed = true;
                    errno = ECONNRESET;
                    return -1;
                }
                break;
            default: {
                size_t most = 1 + t->script->U8() % 64u;
                len = len < most ? len : most;
                break;
            }
            }
        }
        uint64_t left = t->stream->size() - t->pos;
        size_t n = left < len ? static_cast<size_t>(left) : len;
        if (n > 0)
        {
            std::memcpy(buf, t->stream->data() + t->pos, n);
        }
        t->pos += n;
        return static_cast<ssize_t>(n);
    }
};

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    talb::fuzz::Input in(data, size);

    // The stream: frames with fuzzed labels and lengths, and raw bytes.
    std::vector<uint8_t> stream;
    uint32_t pieces = in.Range(0, 24);
    for (uint32_t i = 0; i < pieces && !in.Empty(); ++i)
    {
        if (in.U8() % 8 != 0)
        {
            talb_frame f{};
            f.label.priority = in.U8() % TALB_NUM_PRIORITIES;
            f.label.flags = in.U8() & TALB_FLAGS_MASK;
            f.label.tensor_id = in.U32();
            f.payload_len = in.Range(0, 700);
            talb::fuzz::AppendFrame(&stream, f);
        }
        else
        {
            std::vector<uint8_t> raw = in.Bytes(in.Range(1, 40));
            stream.insert(stream.end(), raw.begin(), raw.end());
        }
    }

    // Reference walk.
    std::vector<RefFrame> frames;
    uint64_t failAt = UINT64_MAX;
    int failStatus = TALB_WIRE_OK;
    for (uint64_t off = 0; off + TALB_FRAME_LEN <= stream.size();)
    {
        talb_frame f;
        int rc = talb_frame_decode(stream.data() + off, TALB_FRAME_LEN, &f);
        if (rc < 0)
        {
            failAt = off;
            failStatus = rc;
            break;
        }
        frames.push_back(RefFrame{off, f});
        off += TALB_FRAME_LEN + uint64_t(f.payload_len);
    }

    Transport t;
    t.stream = &stream;
    t.frames = &frames;
    t.script = &in;
    talb_rx_parser rx;
    talb_rx_init(&rx);
    TALB_FUZZ_CHECK(talb_rx_idle(&rx));
    size_t next = 0; // reference frame expected next
    size_t cap = 0;
    bool posted = false;
    talb::fuzz::ExactBuffer* dst = nullptr;
    for (int guard = 0; guard < 100000; ++guard)
    {
        if (!posted)
        {
            // A new receive: its capacity is the frame's length, or anything.
            uint8_t how = in.U8();
            // (Capped: a raw header may declare gigabytes.)
            cap = next < frames.size() && how % 4 != 0
                      ? std::min<size_t>(frames[next].frame.payload_len, 1 << 20)
                      : in.Range(0, 800);
            delete dst;
            dst = new talb::fuzz::ExactBuffer(cap);
            posted = true;
        }
        // Where the frame being read starts (past the last whole frame: the bad or partial
        // header there).
        uint64_t frameStart = next < frames.size() ? frames[next].start
                              : frames.empty()     ? 0
                                                   : frames.back().End();
        int st = talb_rx_step(&rx, Transport::Read, &t, dst->Data(), cap);
        if (st == TALB_IO_AGAIN)
        {
            continue;
        }
        if (st == TALB_IO_DONE)
        {
            TALB_FUZZ_CHECK(next < frames.size());
            const RefFrame& f = frames[next];
            TALB_FUZZ_CHECK(t.pos == f.End());
            TALB_FUZZ_CHECK(rx.frame.payload_len == f.frame.payload_len);
            TALB_FUZZ_CHECK(rx.frame.label.tensor_id == f.frame.label.tensor_id &&
                            rx.frame.label.priority == f.frame.label.priority &&
                            rx.frame.label.flags == f.frame.label.flags);
            TALB_FUZZ_CHECK(f.frame.payload_len == 0 ||
                            talb::fuzz::Equal(dst->Data(),
                                              stream.data() + f.start + TALB_FRAME_LEN,
                                              f.frame.payload_len));
            TALB_FUZZ_CHECK(talb_rx_idle(&rx));
            ++next;
            posted = false;
            continue;
        }
        if (st == TALB_IO_EOF)
        {
            TALB_FUZZ_CHECK(t.pos == stream.size());
            bool between = t.pos == frameStart;
            TALB_FUZZ_CHECK(talb_rx_idle(&rx) == between);
            break;
        }
        if (st == TALB_IO_ERROR)
        {
            TALB_FUZZ_CHECK(t.failed);
            break;
        }
        if (st == TALB_IO_BAD_FRAME)
        {
            TALB_FUZZ_CHECK(next == frames.size() && failAt != UINT64_MAX);
            TALB_FUZZ_CHECK(t.pos == failAt + TALB_FRAME_LEN);
            TALB_FUZZ_CHECK(rx.wire_status == failStatus);
        }
        else
        {
            TALB_FUZZ_CHECK(st == TALB_IO_TOO_LONG);
            TALB_FUZZ_CHECK(next < frames.size() && frames[next].frame.payload_len > cap);
            TALB_FUZZ_CHECK(t.pos == frames[next].start + TALB_FRAME_LEN);
        }
        // Failed for good: no read, no write, whatever the next receive's capacity.
        t.forbidden = true;
        talb::fuzz::ExactBuffer empty(0);
        TALB_FUZZ_CHECK(talb_rx_step(&rx, Transport::Read, &t, empty.Data(), 0) == st);
        break;
    }
    delete dst;
    return 0;
}
