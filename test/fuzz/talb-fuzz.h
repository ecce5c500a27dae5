/*
 * Shared by talb's fuzz targets: a reader that turns the fuzzer's bytes into structured choices,
 * and the check macro for the invariants each target asserts.
 *
 * Every target defines LLVMFuzzerTestOneInput. It is linked either with libFuzzer (clang,
 * -fsanitize=fuzzer: coverage-guided search) or with talb-fuzz-replay.cc (any compiler: replays
 * a corpus and applies random mutations). A broken invariant aborts, which both count as a crash.
 */
#ifndef TALB_FUZZ_H
#define TALB_FUZZ_H

#include "talb-wire.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

/// Aborts with the condition, file and line when an invariant does not hold.
#define TALB_FUZZ_CHECK(cond)                                                                      \
    do                                                                                             \
    {                                                                                              \
        if (!(cond))                                                                               \
        {                                                                                          \
            std::fprintf(stderr, "%s:%d: invariant broken: %s\n", __FILE__, __LINE__, #cond);      \
            std::abort();                                                                          \
        }                                                                                          \
    } while (false)

namespace talb
{
namespace fuzz
{

/**
 * Reads choices from the front of the fuzzer's input. Past the end every read returns zero
 * bytes, so a short input is a valid (small) script, never an error.
 */
class Input
{
  public:
    Input(const uint8_t* data, size_t size)
        : m_data(data),
          m_size(size)
    {
    }

    bool Empty() const
    {
        return m_pos >= m_size;
    }

    size_t Remaining() const
    {
        return m_size - m_pos;
    }

    uint8_t U8()
    {
        return m_pos < m_size ? m_data[m_pos++] : 0;
    }

    uint16_t U16()
    {
        return static_cast<uint16_t>((U8() << 8) | U8());
    }

    uint32_t U32()
    {
        uint32_t hi = U16();
        return (hi << 16) | U16();
    }

    bool Bool()
    {
        return U8() & 1;
    }

    /// \return a value in [lo, hi] (hi - lo < 65536)
    uint32_t Range(uint32_t lo, uint32_t hi)
    {
        uint32_t span = hi - lo + 1;
        return lo + (span <= 256 ? U8() % span : U16() % span);
    }

    /// \return up to n bytes (fewer when the input ends)
    std::vector<uint8_t> Bytes(size_t n)
    {
        n = n < Remaining() ? n : Remaining();
        std::vector<uint8_t> out(m_data + m_pos, m_data + m_pos + n);
        m_pos += n;
        return out;
    }

    /// \return everything not read yet
    std::vector<uint8_t> Rest()
    {
        return Bytes(Remaining());
    }

  private:
    const uint8_t* m_data;
    size_t m_size;
    size_t m_pos = 0;
};

/// memcmp(a, b, n) == 0, defined for n == 0 with null pointers too.
inline bool
Equal(const void* a, const void* b, size_t n)
{
    return n == 0 || std::memcmp(a, b, n) == 0;
}

/**
 * A heap copy of exactly the bytes given, so that AddressSanitizer reports a read or write one
 * byte outside them (a std::vector may have spare capacity).
 */
class ExactBuffer
{
  public:
    /// size 0 gives a buffer with no byte to touch (possibly a null pointer)
    explicit ExactBuffer(size_t size)
        : m_size(size),
          m_data(static_cast<uint8_t*>(std::malloc(size)))
    {
    }

    ExactBuffer(const uint8_t* data, size_t size)
        : ExactBuffer(size)
    {
        if (size > 0)
        {
            std::memcpy(m_data, data, size);
        }
    }

    ExactBuffer(const ExactBuffer&) = delete;
    ExactBuffer& operator=(const ExactBuffer&) = delete;

    ~ExactBuffer()
    {
        std::free(m_data);
    }

    uint8_t* Data()
    {
        return m_data;
    }

    size_t Size() const
    {
        return m_size;
    }

  private:
    size_t m_size;
    uint8_t* m_data;
};

/**
 * Appends a plugin frame to a byte stream: its header, then a payload made of copies of the
 * header -- look-alikes that catch a parser reading payload bytes as headers.
 */
inline void
AppendFrame(std::vector<uint8_t>* stream, const talb_frame& frame)
{
    uint8_t header[TALB_FRAME_LEN];
    talb_frame_encode(&frame, header, sizeof(header));
    size_t at = stream->size();
    stream->resize(at + TALB_FRAME_LEN + frame.payload_len);
    uint8_t* p = stream->data() + at;
    for (size_t done = 0; done < TALB_FRAME_LEN + size_t(frame.payload_len); done += TALB_FRAME_LEN)
    {
        std::memcpy(p + done,
                    header,
                    std::min<size_t>(TALB_FRAME_LEN, TALB_FRAME_LEN + frame.payload_len - done));
    }
}

} // namespace fuzz
} // namespace talb

#endif /* TALB_FUZZ_H */
