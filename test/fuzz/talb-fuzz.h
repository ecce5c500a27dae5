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
#include <string>
#include <unistd.h>
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

/**
 * \return $TMPDIR, else /dev/shm where it is writable (memory: a file per input on a loaded
 * disk cost 30 times the parsing), else /tmp
 */
inline std::string
TempDir()
{
    const char* dir = std::getenv("TMPDIR");
    if (dir && *dir)
    {
        return dir;
    }
    return access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
}

/**
 * A file that holds the current input, for readers that take a path. One per process and
 * name, in TempDir(), rewritten for every input and removed at exit.
 */
class TempFile
{
  public:
    /// \param suffix the file name's end, e.g. ".csv" (readers may look at it)
    explicit TempFile(const char* suffix)
    {
        m_path = TempDir() + "/talb-fuzz-XXXXXX" + suffix;
        std::vector<char> name(m_path.begin(), m_path.end());
        name.push_back('\0');
        int fd = mkstemps(name.data(), static_cast<int>(std::strlen(suffix)));
        TALB_FUZZ_CHECK(fd >= 0);
        close(fd);
        m_path = name.data();
    }

    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;

    ~TempFile()
    {
        unlink(m_path.c_str());
    }

    /// Replace the file's contents with \p size bytes at \p data.
    void Write(const void* data, size_t size)
    {
        FILE* f = std::fopen(m_path.c_str(), "wb");
        TALB_FUZZ_CHECK(f != nullptr);
        TALB_FUZZ_CHECK(size == 0 || std::fwrite(data, 1, size, f) == size);
        TALB_FUZZ_CHECK(std::fclose(f) == 0);
    }

    const std::string& Path() const
    {
        return m_path;
    }

  private:
    std::string m_path;
};

/**
 * Checks that \p error has the "PATH:LINE: " prefix of the module's file readers, with LINE
 * between \p minLine and one past the last line of \p text.
 */
inline void
CheckErrorAt(const std::string& error,
             const std::string& path,
             const std::string& text,
             unsigned long minLine = 1)
{
    TALB_FUZZ_CHECK(error.compare(0, path.size() + 1, path + ":") == 0);
    size_t colon = error.find(": ", path.size() + 1);
    TALB_FUZZ_CHECK(colon != std::string::npos);
    std::string line = error.substr(path.size() + 1, colon - path.size() - 1);
    TALB_FUZZ_CHECK(!line.empty() && line.size() < 10 &&
                    line.find_first_not_of("0123456789") == std::string::npos);
    unsigned long lines = std::count(text.begin(), text.end(), '\n');
    unsigned long n = std::stoul(line);
    TALB_FUZZ_CHECK(n >= minLine && n <= lines + 1);
}

} // namespace fuzz
} // namespace talb

#endif /* TALB_FUZZ_H */
