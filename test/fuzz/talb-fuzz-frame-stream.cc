/*
 * Fuzz target: the agent's incremental parser of the plugin's frame stream
 * (testbed/agent/talb-frame-stream-parser.h) with its frame history.
 *
 * The input builds a stream (well-formed frames with fuzzed labels and lengths, mixed with raw
 * bytes), then says how it arrives: chunks of any size, and skips (bytes the agent never saw).
 * A reference walk of the whole stream with talb_frame_decode says what the parser must find.
 *
 * Invariants, after every chunk:
 *  - Next() counts the bytes consumed and skipped; a desynchronised parser returned the
 *    decoder's status for the header at the reference's failure offset, and no earlier;
 *  - the frames pushed are exactly the reference frames whose header has arrived, in order,
 *    and `first` is the first of those this call completed;
 *  - the history finds, for stream offsets on both sides of every frame boundary, the
 *    reference frame holding the offset when that frame is among the last kCapacity pushed,
 *    and nothing otherwise;
 *  - Skip succeeds exactly when the skipped bytes lie inside the current frame's payload.
 */
#include "talb-frame-history.h"
#include "talb-frame-stream-parser.h"
#include "talb-fuzz.h"
#include "talb-wire.h"

#include <vector>

namespace
{

using talb::FrameHistory;
using talb::FrameRecord;

struct Reference
{
    std::vector<FrameRecord> frames; ///< every frame whose header decodes, in stream order
    uint64_t failAt = UINT64_MAX;    ///< offset of the first header that does not decode
    int failStatus = TALB_WIRE_OK;
};

Reference
Walk(const std::vector<uint8_t>& stream)
{
    Reference ref;
    uint64_t off = 0;
    while (off + TALB_FRAME_LEN <= stream.size())
    {
        talb_frame f;
        int rc = talb_frame_decode(stream.data() + off, TALB_FRAME_LEN, &f);
        if (rc < 0)
        {
            ref.failAt = off;
            ref.failStatus = rc;
            break;
        }
        ref.frames.push_back(FrameRecord{off, f.payload_len, f.label});
        off += TALB_FRAME_LEN + uint64_t(f.payload_len);
    }
    return ref;
}

bool
Same(const FrameRecord& a, const FrameRecord& b)
{
    return a.start == b.start && a.payloadLen == b.payloadLen &&
           a.label.tensor_id == b.label.tensor_id && a.label.priority == b.label.priority &&
           a.label.flags == b.label.flags;
}

/// Builds the stream from the first part of the input.
std::vector<uint8_t>
BuildStream(talb::fuzz::Input& in)
{
    std::vector<uint8_t> stream;
    uint32_t pieces = in.Range(0, 40);
    for (uint32_t i = 0; i < pieces && !in.Empty(); ++i)
    {
        if (in.U8() % 8 != 0)
        {
            talb_frame f{};
            f.label.priority = in.U8() % TALB_NUM_PRIORITIES;
            f.label.flags = in.U8() & TALB_FLAGS_MASK;
            f.label.tensor_id = in.U32();
            f.payload_len = in.Range(0, 600);
            talb::fuzz::AppendFrame(&stream, f);
        }
        else
        {
            std::vector<uint8_t> raw = in.Bytes(in.Range(1, 40));
            stream.insert(stream.end(), raw.begin(), raw.end());
        }
    }
    return stream;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    talb::fuzz::Input in(data, size);
    std::vector<uint8_t> stream = BuildStream(in);
    Reference ref = Walk(stream);

    talb::FrameStreamParser parser;
    FrameHistory history;
    parser.Reset();
    history.Clear();
    uint64_t next = 0;
    while (next < stream.size() && !parser.Desynced())
    {
        uint64_t left = stream.size() - next;
        bool skip = !in.Empty() && in.U8() % 4 == 0;
        uint64_t n = in.Empty() ? left : in.Range(0, 1500);
        if (skip)
        {
            // Expected: allowed only inside the current frame's payload.
            uint64_t payloadLeft = 0;
            if (history.Pushed() > 0)
            {
                const FrameRecord& last = ref.frames[history.Pushed() - 1];
                if (next >= last.start + TALB_FRAME_LEN && next < last.End())
                {
                    payloadLeft = last.End() - next;
                }
            }
            bool ok = parser.Skip(n);
            TALB_FUZZ_CHECK(ok == (n <= payloadLeft));
            next += ok ? n : 0;
            TALB_FUZZ_CHECK(parser.Next() == next);
            continue;
        }
        n = n < left ? (n == 0 ? 1 : n) : left;
        talb::fuzz::ExactBuffer chunk(stream.data() + next, n);
        uint64_t pushedBefore = history.Pushed();
        FrameRecord first{};
        int rc = parser.Consume(chunk.Data(), static_cast<uint32_t>(n), &history, &first);
        if (rc < 0)
        {
            // The header at the reference's failure offset completed in this chunk.
            TALB_FUZZ_CHECK(rc == ref.failStatus && parser.Desynced());
            TALB_FUZZ_CHECK(ref.failAt + TALB_FRAME_LEN > next &&
                            ref.failAt + TALB_FRAME_LEN <= next + n);
            TALB_FUZZ_CHECK(parser.Next() == ref.failAt + TALB_FRAME_LEN);
        }
        else
        {
            TALB_FUZZ_CHECK(rc == TALB_WIRE_OK && !parser.Desynced());
            TALB_FUZZ_CHECK(parser.Next() == next + n);
            TALB_FUZZ_CHECK(ref.failAt == UINT64_MAX || ref.failAt + TALB_FRAME_LEN > next + n);
        }
        next = parser.Next();

        // Frames whose header has arrived, in order.
        uint64_t arrived = 0;
        while (arrived < ref.frames.size() && ref.frames[arrived].start + TALB_FRAME_LEN <= next)
        {
            ++arrived;
        }
        TALB_FUZZ_CHECK(history.Pushed() == arrived);
        if (arrived > pushedBefore)
        {
            TALB_FUZZ_CHECK(Same(first, ref.frames[pushedBefore]));
        }

        // Lookups: on both sides of every boundary of the frames kept, and before the oldest.
        if (arrived > 0)
        {
            uint64_t oldest =
                arrived > FrameHistory::kCapacity ? arrived - FrameHistory::kCapacity : 0;
            for (uint64_t k = oldest > 0 ? oldest - 1 : 0; k < arrived; ++k)
            {
                const FrameRecord& r = ref.frames[k];
                for (uint64_t x : {r.start,
                                   r.start + TALB_FRAME_LEN - 1,
                                   r.start + TALB_FRAME_LEN,
                                   r.End() - 1,
                                   r.End(),
                                   r.start + (r.End() - r.start) / 2})
                {
                    const FrameRecord* found = history.Find(x);
                    // The holder of x among the arrived frames, if any.
                    const FrameRecord* holder = x < r.End() ? &r : nullptr;
                    uint64_t h = k;
                    if (holder == nullptr && k + 1 < arrived && ref.frames[k + 1].start <= x)
                    {
                        holder = &ref.frames[k + 1];
                        h = k + 1;
                    }
                    bool expected = holder != nullptr && h >= oldest && holder->start <= x;
                    TALB_FUZZ_CHECK((found != nullptr) == expected);
                    if (found != nullptr)
                    {
                        TALB_FUZZ_CHECK(Same(*found, *holder));
                    }
                }
            }
        }
    }
    return 0;
}
