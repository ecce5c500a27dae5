#include "talb-seq-tracker.h"

namespace talb
{

void
SeqTracker::Start(uint32_t isn)
{
    m_base = isn + 1;
    m_parser.Reset();
    m_history.Clear();
}

SeqTracker::Verdict
SeqTracker::Classify(uint32_t seq, const uint8_t* payload, uint32_t len, talb_label* label)
{
    uint64_t next = m_parser.Next();
    int32_t delta = static_cast<int32_t>(seq - m_base - static_cast<uint32_t>(next));
    if (delta < 0 && static_cast<uint64_t>(-static_cast<int64_t>(delta)) > next)
    {
        return Verdict::kUntracked; // before the stream's first byte
    }
    uint64_t off = next + delta;
    uint64_t end = off + len;
    // The owning frame is known already, or its header completes in this segment: then it is
    // the first one to, and is taken from Consume (one segment may complete more headers than
    // the history keeps).
    FrameRecord owner{};
    const FrameRecord* known = m_history.Find(off);
    if (known != nullptr)
    {
        owner = *known;
    }
    if (end > next)
    {
        if (m_parser.Desynced() || (off > next && !m_parser.Skip(off - next)))
        {
            return Verdict::kUntracked;
        }
        uint64_t from = off > next ? off : next;
        uint64_t pushed = m_history.Pushed();
        FrameRecord first{};
        int rc = m_parser.Consume(payload + (from - off),
                                  static_cast<uint32_t>(end - from),
                                  &m_history,
                                  &first);
        if (rc < 0)
        {
            // A stream whose very first header lacks the magic is some other protocol (ssh,
            // NCCL's bootstrap): not ours, not an error.
            return rc == TALB_WIRE_BAD_TYPE && m_history.Pushed() == 0 ? Verdict::kUntracked
                                                                       : Verdict::kMalformed;
        }
        if (known == nullptr && m_history.Pushed() > pushed && first.start <= off &&
            off < first.End())
        {
            owner = first;
            known = &owner;
        }
    }
    if (known == nullptr)
    {
        return Verdict::kUntracked;
    }
    const FrameRecord* frame = &owner;
    uint64_t firstByte = frame->payloadLen > 0 ? frame->start + TALB_FRAME_LEN : frame->End() - 1;
    uint64_t lastByte = frame->End() - 1;
    *label = frame->label;
    label->flags = 0;
    if ((frame->label.flags & TALB_FLAG_FIRST) && off <= firstByte && firstByte < end)
    {
        label->flags |= TALB_FLAG_FIRST;
    }
    if ((frame->label.flags & TALB_FLAG_LAST) && off <= lastByte && lastByte < end)
    {
        label->flags |= TALB_FLAG_LAST;
    }
    return Verdict::kLabelled;
}

uint64_t
SeqTracker::Next() const
{
    return m_parser.Next();
}

} // namespace talb
