/*
 * Follows one direction of a TCP connection through its sequence space and answers, for each
 * data segment, which frame of the plugin's stream owns the segment's first payload byte.
 */
#ifndef TALB_SEQ_TRACKER_H
#define TALB_SEQ_TRACKER_H

#include "talb-frame-history.h"
#include "talb-frame-stream-parser.h"
#include "talb-wire.h"

#include <cstdint>

namespace talb
{

/**
 * Stream offsets are 64-bit: offset 0 is the byte after the SYN (ISN + 1). A 32-bit sequence
 * number is placed at the offset nearest the parse point, so sequence wrap-around and streams
 * longer than 4 GiB need nothing special.
 *
 * Segment cases, by the segment's offset range [off, end) and the parse point Next():
 *  - end <= Next(): a retransmission; labelled from the frame history.
 *  - off <= Next() < end: new bytes (maybe after some retransmitted ones) are parsed first.
 *  - off > Next(): a gap (a segment the agent never saw). Parsed on when the gap lies inside the
 *    current frame's payload; otherwise untracked, and so is everything after it until the
 *    missing bytes come through.
 * The label is the frame holding byte off: a segment that starts inside a frame header takes
 * the frame that header starts, so one that starts inside a header it does not complete is
 * untracked.
 */
class SeqTracker
{
  public:
    enum class Verdict
    {
        kLabelled,  ///< label set
        kUntracked, ///< no label known for the first byte
        kMalformed, ///< this segment completed a header that failed to decode: stream desynced
                    ///< (a stream that does not start with the magic is not TaLB's: kUntracked)
    };

    /// A SYN (or SYN-ACK) with sequence number isn: stream offset 0 is isn + 1.
    void Start(uint32_t isn);

    /**
     * \param seq the segment's sequence number
     * \param payload its payload bytes
     * \param len payload length, > 0
     * \param[out] label the owning frame's label, when kLabelled. Flags: FIRST when the frame is
     *        flagged FIRST and the segment holds its first payload byte, LAST likewise for the
     *        last payload byte (for an empty frame, both refer to the header's last byte).
     */
    Verdict Classify(uint32_t seq, const uint8_t* payload, uint32_t len, talb_label* label);

    /// \return the stream offset of the next byte to parse
    uint64_t Next() const;

  private:
    uint32_t m_base = 0; ///< sequence number of stream offset 0
    FrameStreamParser m_parser;
    FrameHistory m_history;
};

} // namespace talb

#endif /* TALB_SEQ_TRACKER_H */
