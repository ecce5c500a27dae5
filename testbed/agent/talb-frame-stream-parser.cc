#include "talb-frame-stream-parser.h"

#include <cstring>

namespace talb
{

void
FrameStreamParser::Reset()
{
    m_next = 0;
    m_headerStart = 0;
    m_payloadLeft = 0;
    m_headerHave = 0;
    m_desynced = false;
}

int
FrameStreamParser::Consume(const uint8_t* data,
                           uint32_t len,
                           FrameHistory* history,
                           FrameRecord* first)
{
    while (len > 0)
    {
        if (m_payloadLeft > 0)
        {
            uint32_t n = len < m_payloadLeft ? len : m_payloadLeft;
            m_payloadLeft -= n;
            m_next += n;
            data += n;
            len -= n;
            continue;
        }
        const uint8_t* header;
        if (m_headerHave == 0 && len >= TALB_FRAME_LEN)
        {
            // Whole header in this packet (the common case): decode it in place.
            header = data;
            m_headerStart = m_next;
            data += TALB_FRAME_LEN;
            len -= TALB_FRAME_LEN;
            m_next += TALB_FRAME_LEN;
        }
        else
        {
            if (m_headerHave == 0)
            {
                m_headerStart = m_next;
            }
            uint32_t n = TALB_FRAME_LEN - m_headerHave;
            n = len < n ? len : n;
            std::memcpy(m_header + m_headerHave, data, n);
            m_headerHave += n;
            m_next += n;
            data += n;
            len -= n;
            if (m_headerHave < TALB_FRAME_LEN)
            {
                break;
            }
            header = m_header;
            m_headerHave = 0;
        }
        talb_frame frame;
        int rc = talb_frame_decode(header, TALB_FRAME_LEN, &frame);
        if (rc < 0)
        {
            m_desynced = true;
            return rc;
        }
        FrameRecord record{m_headerStart, frame.payload_len, frame.label};
        history->Push(record);
        if (first != nullptr)
        {
            *first = record;
            first = nullptr;
        }
        m_payloadLeft = frame.payload_len;
    }
    return TALB_WIRE_OK;
}

bool
FrameStreamParser::Skip(uint64_t len)
{
    if (m_desynced || len > m_payloadLeft)
    {
        return false;
    }
    m_payloadLeft -= static_cast<uint32_t>(len);
    m_next += len;
    return true;
}

uint64_t
FrameStreamParser::Next() const
{
    return m_next;
}

bool
FrameStreamParser::Desynced() const
{
    return m_desynced;
}

} // namespace talb
