/*
 * The last few frame boundaries of one TCP stream, so that a retransmitted segment gets the
 * label the original carried. Fixed size, no allocation.
 */
#ifndef TALB_FRAME_HISTORY_H
#define TALB_FRAME_HISTORY_H

#include "talb-wire.h"

#include <cstdint>

namespace talb
{

/// One frame of the plugin's stream: [16-byte header | payloadLen bytes] starting at start.
struct FrameRecord
{
    uint64_t start;      ///< stream offset of the header's first byte (0 = first byte after SYN)
    uint32_t payloadLen; ///< from the header
    talb_label label;    ///< from the header

    /// \return the stream offset one past the frame's last payload byte
    uint64_t End() const
    {
        return start + TALB_FRAME_LEN + payloadLen;
    }
};

/**
 * Ring buffer of the most recent kCapacity frames, pushed in stream order (each frame starts
 * where the previous one ends). Older frames are forgotten: a retransmission that reaches back
 * further gets no label.
 */
class FrameHistory
{
  public:
    static constexpr uint32_t kCapacity = 16; ///< power of two

    void Clear();
    void Push(const FrameRecord& record);

    /**
     * \param offset stream offset of a byte
     * \return the recorded frame whose header or payload holds that byte, or nullptr when the
     *         byte lies before the oldest record kept or after the newest complete header
     */
    const FrameRecord* Find(uint64_t offset) const;

    /// \return the number of frames pushed since Clear (not only those kept)
    uint64_t Pushed() const;

  private:
    FrameRecord m_records[kCapacity];
    uint64_t m_pushed = 0;
};

} // namespace talb

#endif /* TALB_FRAME_HISTORY_H */
