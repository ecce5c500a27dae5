// Sequence-space tracking: in order, split headers, retransmissions, gaps, wrap-around, flags.
#include "talb-seq-tracker.h"
#include "talb-test-packets.h"

#include <gtest/gtest.h>

namespace
{

using namespace talb;
using namespace talb::test;
using Verdict = SeqTracker::Verdict;

/// Feeds a stream to a tracker as TCP segments and checks each label against the stream.
class Connection
{
  public:
    Connection(const Stream& stream, uint32_t isn)
        : m_stream(stream),
          m_isn(isn)
    {
        m_tracker.Start(isn);
    }

    Verdict Send(uint64_t off, uint32_t len, talb_label* label)
    {
        uint32_t seq = static_cast<uint32_t>(m_isn + 1 + off);
        return m_tracker.Classify(seq, m_stream.bytes.data() + off, len, label);
    }

    /// Sends [off, off + len) and expects the label of the frame holding byte off.
    void ExpectLabelled(uint64_t off, uint32_t len)
    {
        talb_label label{};
        ASSERT_EQ(Send(off, len, &label), Verdict::kLabelled) << "segment at " << off;
        const talb_frame& f = m_stream.frames[m_stream.FrameAt(off)];
        EXPECT_EQ(label.tensor_id, f.label.tensor_id) << "segment at " << off;
        EXPECT_EQ(label.priority, f.label.priority) << "segment at " << off;
    }

    SeqTracker& Tracker()
    {
        return m_tracker;
    }

  private:
    const Stream& m_stream;
    uint32_t m_isn;
    SeqTracker m_tracker;
};

Stream
MixedStream()
{
    Stream s;
    const uint32_t sizes[] = {5000, 1, 0, 3000, 17, 1448, 1432, 64 * 1024, 9};
    uint32_t i = 0;
    for (uint32_t size : sizes)
    {
        s.Add(talb_make_tensor_id(2, i),
              static_cast<uint8_t>(i % 8),
              TALB_FLAG_FIRST | TALB_FLAG_LAST,
              size);
        ++i;
    }
    return s;
}

TEST(TalbAgentSeqTracker, LabelsEveryInOrderSegmentByItsFirstByte)
{
    Stream s = MixedStream();
    for (uint32_t mss : {1448u, 536u, 100u, 7u})
    {
        Connection c(s, 1000);
        for (uint64_t off = 0; off < s.bytes.size(); off += mss)
        {
            uint32_t len = static_cast<uint32_t>(std::min<uint64_t>(mss, s.bytes.size() - off));
            // A segment starting inside a header it does not complete has no label (below).
            uint64_t inFrame = off - s.starts[s.FrameAt(off)];
            if (inFrame < TALB_FRAME_LEN && inFrame + len < TALB_FRAME_LEN)
            {
                talb_label label;
                EXPECT_EQ(c.Send(off, len, &label), Verdict::kUntracked);
                continue;
            }
            c.ExpectLabelled(off, len);
        }
        EXPECT_EQ(c.Tracker().Next(), s.bytes.size());
    }
}

TEST(TalbAgentSeqTracker, SplitHeaderLabelsTheFrameTheHeaderStarts)
{
    Stream s;
    s.Add(10, 1, 0, 100);
    s.Add(11, 6, 0, 100);
    for (uint32_t k = 1; k < TALB_FRAME_LEN; ++k)
    {
        Connection c(s, 77);
        uint64_t split = s.starts[1] + k; // the second header is split after k bytes
        c.ExpectLabelled(0, static_cast<uint32_t>(split));
        talb_label label{};
        ASSERT_EQ(c.Send(split, static_cast<uint32_t>(s.bytes.size() - split), &label),
                  Verdict::kLabelled);
        EXPECT_EQ(label.tensor_id, 11u) << "split after " << k;
        EXPECT_EQ(label.priority, 6);
    }
}

TEST(TalbAgentSeqTracker, SegmentInsideAHeaderItDoesNotCompleteIsUntracked)
{
    Stream s;
    s.Add(10, 1, 0, 100);
    s.Add(11, 6, 0, 100);
    Connection c(s, 5);
    c.ExpectLabelled(0, static_cast<uint32_t>(s.starts[1] + 2));
    talb_label label;
    EXPECT_EQ(c.Send(s.starts[1] + 2, 5, &label), Verdict::kUntracked);
    c.ExpectLabelled(s.starts[1] + 7, 50); // completes the header: labelled by it
    // Now the header is known, the same bytes retransmitted get its label.
    c.ExpectLabelled(s.starts[1] + 2, 5);
}

TEST(TalbAgentSeqTracker, RetransmissionsKeepTheirLabel)
{
    Stream s = MixedStream();
    Connection c(s, 0x12345678);
    const uint32_t mss = 1000;
    for (uint64_t off = 0; off < s.bytes.size(); off += mss)
    {
        c.ExpectLabelled(off, static_cast<uint32_t>(std::min<uint64_t>(mss, s.bytes.size() - off)));
    }
    // Segments of the last frames again, at other boundaries too (a retransmission may be
    // repacketised), and one that overlaps old and new bytes.
    for (uint64_t off = s.starts[5]; off + 300 <= s.bytes.size(); off += 300)
    {
        c.ExpectLabelled(off, 300);
    }
    Stream more = s;
    more.Add(99, 2, 0, 500);
    Connection d(more, 9);
    d.ExpectLabelled(0, static_cast<uint32_t>(s.bytes.size() - 4));
    d.ExpectLabelled(s.bytes.size() - 10, 100); // 6 old bytes, then the new header
    EXPECT_EQ(d.Tracker().Next(), s.bytes.size() + 90);
}

TEST(TalbAgentSeqTracker, RetransmissionOlderThanTheHistoryIsUntracked)
{
    Stream s;
    for (uint32_t i = 0; i < FrameHistory::kCapacity + 2; ++i)
    {
        s.Add(i, 0, 0, 10);
    }
    Connection c(s, 1);
    // One segment completing more headers than the history keeps still gets its first frame.
    c.ExpectLabelled(0, static_cast<uint32_t>(s.bytes.size()));
    talb_label label;
    EXPECT_EQ(c.Send(0, 26, &label), Verdict::kUntracked) << "frame 0 was forgotten";
    c.ExpectLabelled(s.starts[2], 26);
}

TEST(TalbAgentSeqTracker, SequenceWrapAround)
{
    Stream s = MixedStream();
    for (uint32_t isn : {0xFFFFFFFFu, 0xFFFFF000u, 0xFFFFFFF8u, 0x7FFFFFFFu})
    {
        Connection c(s, isn);
        for (uint64_t off = 0; off < s.bytes.size(); off += 1448)
        {
            c.ExpectLabelled(off,
                             static_cast<uint32_t>(std::min<uint64_t>(1448, s.bytes.size() - off)));
        }
        c.ExpectLabelled(1448, 1448); // a retransmission across the wrap
    }
}

TEST(TalbAgentSeqTracker, StreamsLongerThan4GiB)
{
    // One frame of nearly 4 GiB of which the agent sees a segment every GiB (gaps inside a
    // payload are stepped over; TCP windows stay far below 2 GiB), then a frame past 2^32.
    Stream s;
    s.Add(1, 4, 0, 0);
    const uint32_t big = 0xFFFFFFF0u;
    talb_frame bigFrame{{2, 5, TALB_FLAG_LAST}, big};
    uint8_t header[TALB_FRAME_LEN];
    talb_frame_encode(&bigFrame, header, sizeof(header));
    talb_frame last{{3, 6, TALB_FLAG_FIRST}, 10};
    uint8_t header2[TALB_FRAME_LEN + 10] = {};
    talb_frame_encode(&last, header2, TALB_FRAME_LEN);
    uint8_t zeros[100] = {};

    SeqTracker t;
    const uint32_t isn = 0x40000000;
    t.Start(isn);
    talb_label label;
    ASSERT_EQ(t.Classify(isn + 1, s.bytes.data(), 16, &label), Verdict::kLabelled);
    ASSERT_EQ(t.Classify(isn + 1 + 16, header, 16, &label), Verdict::kLabelled);
    EXPECT_EQ(label.tensor_id, 2u);
    const uint64_t payloadEnd = 32ull + big;
    for (uint64_t off = 1ull << 30; off < payloadEnd; off += 1ull << 30)
    {
        uint64_t segment = off + 100 <= payloadEnd ? off : payloadEnd - 100;
        ASSERT_EQ(t.Classify(static_cast<uint32_t>(isn + 1 + segment), zeros, 100, &label),
                  Verdict::kLabelled)
            << "offset " << segment;
        EXPECT_EQ(label.tensor_id, 2u);
    }
    ASSERT_EQ(t.Classify(static_cast<uint32_t>(isn + 1 + payloadEnd - 100), zeros, 100, &label),
              Verdict::kLabelled);
    EXPECT_EQ(label.flags, TALB_FLAG_LAST);
    EXPECT_EQ(t.Next(), payloadEnd);
    EXPECT_GT(t.Next(), 1ull << 32);
    ASSERT_EQ(t.Classify(static_cast<uint32_t>(isn + 1 + payloadEnd), header2, 26, &label),
              Verdict::kLabelled);
    EXPECT_EQ(label.tensor_id, 3u);
    EXPECT_EQ(label.flags, TALB_FLAG_FIRST);
    EXPECT_EQ(t.Next(), payloadEnd + 26);
}

TEST(TalbAgentSeqTracker, GapInsideAPayloadIsSteppedOver)
{
    Stream s;
    s.Add(1, 2, 0, 5000);
    s.Add(2, 3, 0, 100);
    Connection c(s, 3);
    c.ExpectLabelled(0, 1000);
    c.ExpectLabelled(2000, 1000); // [1000, 2000) lost before the agent
    c.ExpectLabelled(3000, static_cast<uint32_t>(s.bytes.size() - 3000));
    c.ExpectLabelled(1000, 1000); // the retransmission of the lost segment
}

TEST(TalbAgentSeqTracker, GapHidingAHeaderIsUntrackedUntilFilled)
{
    Stream s;
    s.Add(1, 2, 0, 100);
    s.Add(2, 3, 0, 100);
    s.Add(3, 4, 0, 100);
    Connection c(s, 3);
    c.ExpectLabelled(0, 50);
    talb_label label;
    EXPECT_EQ(c.Send(130, 86, &label), Verdict::kUntracked) << "frame 2's header was not seen";
    EXPECT_EQ(c.Send(216, 20, &label), Verdict::kUntracked);
    c.ExpectLabelled(50, 80);  // the missing bytes: frame 2's header
    c.ExpectLabelled(130, 86); // retransmitted
    c.ExpectLabelled(216, 20);
    c.ExpectLabelled(236, static_cast<uint32_t>(s.bytes.size() - 236));
}

TEST(TalbAgentSeqTracker, BadFrameHeaderIsMalformedThenUntracked)
{
    Stream s;
    s.Add(1, 2, 0, 100);
    s.Add(2, 3, 0, 100);
    s.bytes[s.starts[1] + 5] = 8; // priority out of range
    Connection c(s, 3);
    c.ExpectLabelled(0, 50);
    talb_label label;
    EXPECT_EQ(c.Send(50, 100, &label), Verdict::kMalformed);
    EXPECT_EQ(c.Send(150, 50, &label), Verdict::kUntracked);
    c.ExpectLabelled(10, 40); // bytes before the bad header keep their label
}

TEST(TalbAgentSeqTracker, FirstAndLastFlagsMarkTheSegmentsHoldingThoseBytes)
{
    Stream s;
    s.Add(1, 0, TALB_FLAG_FIRST | TALB_FLAG_LAST, 3000);
    s.Add(2, 0, TALB_FLAG_FIRST | TALB_FLAG_LAST, 0);
    s.Add(3, 0, 0, 10);
    Connection c(s, 3);
    auto flags = [&](uint64_t off, uint32_t len) {
        talb_label label{};
        EXPECT_EQ(c.Send(off, len, &label), Verdict::kLabelled);
        return label.flags;
    };
    EXPECT_EQ(flags(0, 16), 0) << "header only: the first payload byte is at 16";
    EXPECT_EQ(flags(16, 1000), TALB_FLAG_FIRST);
    EXPECT_EQ(flags(1016, 1000), 0);
    EXPECT_EQ(flags(2016, 1000), TALB_FLAG_LAST) << "ends exactly at the frame's last byte";
    EXPECT_EQ(flags(3016, 20), TALB_FLAG_FIRST | TALB_FLAG_LAST) << "the empty frame's header";
    EXPECT_EQ(flags(3036, 26), 0) << "frame 3 has no flags";
    EXPECT_EQ(flags(0, 3016), TALB_FLAG_FIRST | TALB_FLAG_LAST) << "retransmission of it all";
}

TEST(TalbAgentSeqTracker, NewSynRestartsTheStream)
{
    Stream s;
    s.Add(1, 2, 0, 100);
    Connection c(s, 3);
    c.ExpectLabelled(0, 116);
    c.Tracker().Start(5000);
    EXPECT_EQ(c.Tracker().Next(), 0u);
    talb_label label;
    EXPECT_EQ(c.Tracker().Classify(5001, s.bytes.data(), 116, &label), Verdict::kLabelled);
    EXPECT_EQ(c.Tracker().Classify(5000, s.bytes.data(), 1, &label), Verdict::kUntracked)
        << "before the stream's first byte";
}

} // namespace
