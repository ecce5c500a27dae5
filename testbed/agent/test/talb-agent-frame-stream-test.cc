// Frame stream parsing: headers split anywhere, desynchronisation, gaps, the frame history.
#include "talb-frame-history.h"
#include "talb-frame-stream-parser.h"
#include "talb-test-packets.h"

#include <gtest/gtest.h>

namespace
{

using namespace talb;
using namespace talb::test;

Stream
ThreeFrames()
{
    Stream s;
    s.Add(talb_make_tensor_id(1, 0), 0, TALB_FLAG_FIRST | TALB_FLAG_LAST, 100);
    s.Add(talb_make_tensor_id(1, 1), 3, TALB_FLAG_FIRST, 0);
    s.Add(talb_make_tensor_id(1, 2), 7, TALB_FLAG_LAST, 40);
    return s;
}

void
ExpectHistoryMatches(const Stream& s, const FrameHistory& h)
{
    ASSERT_EQ(h.Pushed(), s.frames.size());
    for (uint64_t off = 0; off < s.bytes.size(); ++off)
    {
        const FrameRecord* r = h.Find(off);
        ASSERT_NE(r, nullptr) << "offset " << off;
        size_t i = s.FrameAt(off);
        EXPECT_EQ(r->start, s.starts[i]) << "offset " << off;
        EXPECT_EQ(r->label.tensor_id, s.frames[i].label.tensor_id) << "offset " << off;
        EXPECT_EQ(r->label.priority, s.frames[i].label.priority);
        EXPECT_EQ(r->label.flags, s.frames[i].label.flags);
        EXPECT_EQ(r->payloadLen, s.frames[i].payload_len);
    }
    EXPECT_EQ(h.Find(s.bytes.size()), nullptr) << "past the last complete frame";
}

TEST(TalbAgentFrameStream, ParsesAWholeStreamAtOnce)
{
    Stream s = ThreeFrames();
    FrameStreamParser p;
    FrameHistory h;
    ASSERT_EQ(p.Consume(s.bytes.data(), static_cast<uint32_t>(s.bytes.size()), &h), TALB_WIRE_OK);
    EXPECT_EQ(p.Next(), s.bytes.size());
    ExpectHistoryMatches(s, h);
}

TEST(TalbAgentFrameStream, ParsesHeadersSplitAtEveryByte)
{
    Stream s = ThreeFrames();
    // Every chunk size from 1 byte (every header split 15 ways) up to 40.
    for (uint32_t chunk = 1; chunk <= 40; ++chunk)
    {
        FrameStreamParser p;
        FrameHistory h;
        for (size_t at = 0; at < s.bytes.size(); at += chunk)
        {
            uint32_t n = static_cast<uint32_t>(std::min<size_t>(chunk, s.bytes.size() - at));
            ASSERT_EQ(p.Consume(s.bytes.data() + at, n, &h), TALB_WIRE_OK) << "chunk " << chunk;
        }
        ExpectHistoryMatches(s, h);
    }
}

TEST(TalbAgentFrameStream, DesyncsOnABadHeaderAndStaysDesynced)
{
    Stream s = ThreeFrames();
    s.bytes[s.starts[2]] = 'X'; // third frame's magic
    FrameStreamParser p;
    FrameHistory h;
    EXPECT_EQ(p.Consume(s.bytes.data(), static_cast<uint32_t>(s.bytes.size()), &h),
              TALB_WIRE_BAD_TYPE);
    EXPECT_TRUE(p.Desynced());
    EXPECT_EQ(h.Pushed(), 2u);
    EXPECT_FALSE(p.Skip(1));

    Stream v = ThreeFrames();
    v.bytes[v.starts[1] + 4] = 9; // version
    p.Reset();
    h.Clear();
    EXPECT_EQ(p.Consume(v.bytes.data(), static_cast<uint32_t>(v.bytes.size()), &h),
              TALB_WIRE_BAD_VERSION);
    p.Reset();
    EXPECT_FALSE(p.Desynced());
    EXPECT_EQ(p.Next(), 0u);
}

TEST(TalbAgentFrameStream, SkipsGapsOnlyInsideAPayload)
{
    Stream s = ThreeFrames();
    FrameStreamParser p;
    FrameHistory h;
    EXPECT_FALSE(p.Skip(1)) << "offset 0 is a header";
    ASSERT_EQ(p.Consume(s.bytes.data(), 20, &h), TALB_WIRE_OK); // header + 4 payload bytes
    EXPECT_FALSE(p.Skip(97)) << "would cover the next header";
    EXPECT_TRUE(p.Skip(96)) << "exactly to the next header";
    EXPECT_EQ(p.Next(), s.starts[1]);
    ASSERT_EQ(p.Consume(s.bytes.data() + s.starts[1], 8, &h), TALB_WIRE_OK);
    EXPECT_FALSE(p.Skip(1)) << "in the middle of a header";
}

TEST(TalbAgentFrameHistory, ForgetsFramesBeyondItsCapacity)
{
    FrameHistory h;
    const uint32_t n = FrameHistory::kCapacity + 5;
    for (uint32_t i = 0; i < n; ++i)
    {
        h.Push(FrameRecord{i * 100ull, 100 - TALB_FRAME_LEN, talb_label{i, 0, 0}});
    }
    EXPECT_EQ(h.Find(0), nullptr);
    EXPECT_EQ(h.Find(4 * 100 + 99), nullptr) << "frame 4 was overwritten";
    ASSERT_NE(h.Find(5 * 100), nullptr);
    EXPECT_EQ(h.Find(5 * 100)->label.tensor_id, 5u);
    ASSERT_NE(h.Find(n * 100 - 1), nullptr);
    EXPECT_EQ(h.Find(n * 100 - 1)->label.tensor_id, n - 1);
    EXPECT_EQ(h.Find(n * 100), nullptr);
}

} // namespace
