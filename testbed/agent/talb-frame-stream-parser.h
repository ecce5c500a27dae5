/*
 * Incremental parser of the NCCL plugin's TCP byte stream: a sequence of
 * [16-byte frame header | payload] frames (talb-wire.h). Bytes arrive packet by packet, in
 * stream order; a header may be split across packets. Payload bytes are skipped by arithmetic,
 * never read.
 */
#ifndef TALB_FRAME_STREAM_PARSER_H
#define TALB_FRAME_STREAM_PARSER_H

#include "talb-frame-history.h"
#include "talb-wire.h"

#include <cstdint>

namespace talb
{

class FrameStreamParser
{
  public:
    /// Back to stream offset 0, expecting a frame header.
    void Reset();

    /**
     * Parses the stream bytes [Next(), Next() + len) and pushes each completed frame header to
     * history.
     * \param[out] first if not null, receives the first frame whose header this call completed
     *        (whether there was one shows in history->Pushed()): it survives even when the call
     *        completes more frames than the history keeps
     * \return TALB_WIRE_OK, or the talb_wire_status of a header that failed to decode: the
     *         parser is then desynchronised (Desynced()) and must not be fed until Reset().
     */
    int Consume(const uint8_t* data,
                uint32_t len,
                FrameHistory* history,
                FrameRecord* first = nullptr);

    /**
     * Steps over len stream bytes the agent never saw (a segment lost before it, or reordered).
     * Possible only when they lie inside the current frame's payload: then no header was missed.
     * \return false, changing nothing, when they might hold a header
     */
    bool Skip(uint64_t len);

    /// \return the stream offset of the next byte to parse
    uint64_t Next() const;

    bool Desynced() const;

  private:
    uint64_t m_next = 0;        ///< stream offset of the next byte to parse
    uint64_t m_headerStart = 0; ///< stream offset of the header being collected
    uint32_t m_payloadLeft = 0; ///< payload bytes of the current frame still to come
    uint8_t m_header[TALB_FRAME_LEN];
    uint8_t m_headerHave = 0; ///< header bytes collected (while m_payloadLeft == 0)
    bool m_desynced = false;
};

} // namespace talb

#endif /* TALB_FRAME_STREAM_PARSER_H */
