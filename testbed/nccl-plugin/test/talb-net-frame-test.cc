// Stream framing of the NCCL plugin (talb-net-frame.h): headers split across reads, many frames
// back to back, partial writes, and rejection of malformed headers.
#include "talb-net-frame.h"

#include <cerrno>
#include <cstring>
#include <gtest/gtest.h>
#include <random>
#include <vector>

namespace
{

// An in-memory stream: reads hand out at most the next chunk size of a schedule, and a chunk
// size of 0 means "would block" once.
struct FakeStream
{
    std::vector<uint8_t> data;
    size_t pos = 0;
    std::vector<size_t> chunks; // cycled
    size_t next = 0;
    bool closed = true; // end of stream after data

    static ssize_t Read(void* ctx, void* buf, size_t len)
    {
        auto* s = static_cast<FakeStream*>(ctx);
        size_t chunk = s->chunks.empty() ? len : s->chunks[s->next++ % s->chunks.size()];
        if (chunk == 0 || (s->pos == s->data.size() && !s->closed))
        {
            errno = EAGAIN;
            return -1;
        }
        size_t n = std::min({len, chunk, s->data.size() - s->pos});
        std::memcpy(buf, s->data.data() + s->pos, n);
        s->pos += n;
        return static_cast<ssize_t>(n);
    }
};

// A sink that accepts at most the next chunk size per writev (0 = would block once).
struct FakeSink
{
    std::vector<uint8_t> data;
    std::vector<size_t> chunks;
    size_t next = 0;

    static ssize_t Writev(void* ctx, const struct iovec* iov, int iovcnt)
    {
        auto* s = static_cast<FakeSink*>(ctx);
        size_t budget = s->chunks.empty() ? SIZE_MAX : s->chunks[s->next++ % s->chunks.size()];
        if (budget == 0)
        {
            errno = EAGAIN;
            return -1;
        }
        size_t moved = 0;
        for (int i = 0; i < iovcnt && moved < budget; ++i)
        {
            size_t n = std::min(iov[i].iov_len, budget - moved);
            auto* p = static_cast<const uint8_t*>(iov[i].iov_base);
            s->data.insert(s->data.end(), p, p + n);
            moved += n;
        }
        return static_cast<ssize_t>(moved);
    }
};

std::vector<uint8_t>
Payload(size_t n, uint8_t seed)
{
    std::vector<uint8_t> p(n);
    for (size_t i = 0; i < n; ++i)
    {
        p[i] = static_cast<uint8_t>(seed + i * 31);
    }
    return p;
}

// Encodes frames with the sender state machine through a sink with the given write chunks.
std::vector<uint8_t>
EncodeAll(const std::vector<std::vector<uint8_t>>& payloads, std::vector<size_t> chunks)
{
    FakeSink sink;
    sink.chunks = std::move(chunks);
    for (size_t i = 0; i < payloads.size(); ++i)
    {
        talb_label l{talb_make_tensor_id(2, static_cast<uint32_t>(i)),
                     static_cast<uint8_t>(i % 8),
                     TALB_FLAG_FIRST};
        talb_tx_frame tx;
        EXPECT_EQ(
            talb_tx_init(&tx, &l, payloads[i].data(), static_cast<uint32_t>(payloads[i].size())),
            TALB_WIRE_OK);
        int st;
        int guard = 0;
        while ((st = talb_tx_step(&tx, FakeSink::Writev, &sink)) == TALB_IO_AGAIN)
        {
            EXPECT_LT(++guard, 1000000);
        }
        EXPECT_EQ(st, TALB_IO_DONE);
    }
    return sink.data;
}

// Decodes every frame of the stream into buffers of `cap` bytes; checks labels and payloads.
void
DecodeAll(FakeStream& s, const std::vector<std::vector<uint8_t>>& payloads, size_t cap)
{
    talb_rx_parser rx;
    talb_rx_init(&rx);
    std::vector<uint8_t> buf(cap);
    for (size_t i = 0; i < payloads.size(); ++i)
    {
        int st;
        int guard = 0;
        while ((st = talb_rx_step(&rx, FakeStream::Read, &s, buf.data(), cap)) == TALB_IO_AGAIN)
        {
            ASSERT_LT(++guard, 1000000);
        }
        ASSERT_EQ(st, TALB_IO_DONE) << "frame " << i << ": " << talb_io_strerror(st);
        ASSERT_EQ(rx.frame.payload_len, payloads[i].size());
        EXPECT_EQ(rx.frame.label.tensor_id, talb_make_tensor_id(2, static_cast<uint32_t>(i)));
        EXPECT_EQ(rx.frame.label.priority, i % 8);
        EXPECT_TRUE(payloads[i].empty() || // memcmp of a null (empty) buffer is undefined
                    std::memcmp(buf.data(), payloads[i].data(), payloads[i].size()) == 0);
        EXPECT_TRUE(talb_rx_idle(&rx));
    }
    EXPECT_EQ(talb_rx_step(&rx, FakeStream::Read, &s, buf.data(), cap), TALB_IO_EOF);
}

TEST(TalbNetFrame, HeaderSplitAtEveryOffsetIsReassembled)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(40, 1), Payload(3, 2)};
    std::vector<uint8_t> wire = EncodeAll(payloads, {});
    ASSERT_EQ(wire.size(), 2 * TALB_FRAME_LEN + 43);
    for (size_t split = 1; split < TALB_FRAME_LEN; ++split)
    {
        FakeStream s;
        s.data = wire;
        s.chunks = {split, 0, TALB_FRAME_LEN, 1, 7};
        DecodeAll(s, payloads, 64);
    }
}

TEST(TalbNetFrame, ManyFramesWithRandomReadAndWriteSizes)
{
    std::mt19937 rng(7);
    std::vector<std::vector<uint8_t>> payloads;
    for (int i = 0; i < 300; ++i)
    {
        size_t n = i % 10 == 0 ? 0 : rng() % 5000;
        payloads.push_back(Payload(n, static_cast<uint8_t>(i)));
    }
    std::vector<size_t> wchunks, rchunks;
    for (int i = 0; i < 97; ++i)
    {
        wchunks.push_back(rng() % 700);
        rchunks.push_back(rng() % 900);
    }
    std::vector<uint8_t> wire = EncodeAll(payloads, wchunks);
    EXPECT_EQ(wire, EncodeAll(payloads, {})) << "partial writes must not change the stream";
    FakeStream s;
    s.data = wire;
    s.chunks = rchunks;
    DecodeAll(s, payloads, 5000);
}

TEST(TalbNetFrame, ZeroLengthFrameIsHeaderOnly)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(0, 0)};
    std::vector<uint8_t> wire = EncodeAll(payloads, {});
    EXPECT_EQ(wire.size(), static_cast<size_t>(TALB_FRAME_LEN));
    FakeStream s;
    s.data = wire;
    DecodeAll(s, payloads, 0);
}

TEST(TalbNetFrame, NeverReadsIntoTheNextFrame)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(10, 1), Payload(10, 2)};
    FakeStream s;
    s.data = EncodeAll(payloads, {});
    talb_rx_parser rx;
    talb_rx_init(&rx);
    std::vector<uint8_t> buf(1000, 0xEE);
    ASSERT_EQ(talb_rx_step(&rx, FakeStream::Read, &s, buf.data(), buf.size()), TALB_IO_DONE);
    EXPECT_EQ(s.pos, TALB_FRAME_LEN + 10u);
    EXPECT_EQ(buf[10], 0xEE);
}

// Returns the rejection status for a stream whose first header was damaged by `damage`.
int
DecodeDamaged(void (*damage)(uint8_t*), int* wire_status)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(8, 1)};
    FakeStream s;
    s.data = EncodeAll(payloads, {});
    damage(s.data.data());
    talb_rx_parser rx;
    talb_rx_init(&rx);
    uint8_t buf[8];
    int st = talb_rx_step(&rx, FakeStream::Read, &s, buf, sizeof(buf));
    *wire_status = rx.wire_status;
    return st;
}

TEST(TalbNetFrame, RejectsBadMagicVersionFieldsAndLength)
{
    int ws = 0;
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { h[0] = 'X'; }, &ws), TALB_IO_BAD_FRAME);
    EXPECT_EQ(ws, TALB_WIRE_BAD_TYPE);
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { h[4] = 9; }, &ws), TALB_IO_BAD_FRAME);
    EXPECT_EQ(ws, TALB_WIRE_BAD_VERSION);
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { h[5] = 8; }, &ws), TALB_IO_BAD_FRAME);
    EXPECT_EQ(ws, TALB_WIRE_BAD_FIELD);
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { h[7] = 1; }, &ws), TALB_IO_BAD_FRAME);
    EXPECT_EQ(ws, TALB_WIRE_BAD_FIELD);
    // Length 9 > the 8-byte receive buffer.
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { h[15] = 9; }, &ws), TALB_IO_TOO_LONG);
    // An absurd length is rejected before any payload byte is read.
    EXPECT_EQ(DecodeDamaged([](uint8_t* h) { std::memset(h + 12, 0xFF, 4); }, &ws),
              TALB_IO_TOO_LONG);
}

// Found by the plugin-rx fuzz target: a step after TALB_IO_TOO_LONG read the oversized payload
// into the (smaller) buffer. A failed parser now stays failed and touches nothing.
TEST(TalbNetFrame, AFailedParserStaysFailedWithoutReadingOrWriting)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(64, 1), Payload(4, 2)};
    for (bool damage : {false, true})
    {
        FakeStream s;
        s.data = EncodeAll(payloads, {});
        if (damage)
        {
            s.data[4] = 9; // version
        }
        talb_rx_parser rx;
        talb_rx_init(&rx);
        std::vector<uint8_t> small(8, 0xEE);
        int first = talb_rx_step(&rx, FakeStream::Read, &s, small.data(), small.size());
        EXPECT_EQ(first, damage ? TALB_IO_BAD_FRAME : TALB_IO_TOO_LONG);
        size_t pos = s.pos;
        for (size_t cap : {size_t{8}, size_t{0}, size_t{64}})
        {
            EXPECT_EQ(talb_rx_step(&rx, FakeStream::Read, &s, small.data(), cap), first);
        }
        EXPECT_EQ(s.pos, pos) << "nothing more read";
        EXPECT_EQ(small, std::vector<uint8_t>(8, 0xEE)) << "nothing written";
        talb_rx_init(&rx); // a new stream starts afresh
        EXPECT_EQ(rx.failed, 0);
    }
}

TEST(TalbNetFrame, EndOfStreamMidHeaderAndMidPayloadIsEof)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(100, 1)};
    std::vector<uint8_t> wire = EncodeAll(payloads, {});
    for (size_t cut : {size_t{5}, size_t{TALB_FRAME_LEN}, size_t{TALB_FRAME_LEN + 50}})
    {
        FakeStream s;
        s.data.assign(wire.begin(), wire.begin() + cut);
        talb_rx_parser rx;
        talb_rx_init(&rx);
        uint8_t buf[100];
        EXPECT_EQ(talb_rx_step(&rx, FakeStream::Read, &s, buf, sizeof(buf)), TALB_IO_EOF) << cut;
        EXPECT_FALSE(talb_rx_idle(&rx));
    }
}

TEST(TalbNetFrame, WouldBlockKeepsProgressAndTransportErrorsSurface)
{
    std::vector<std::vector<uint8_t>> payloads{Payload(30, 1)};
    FakeStream s;
    s.data = EncodeAll(payloads, {});
    s.closed = false;
    s.data.resize(TALB_FRAME_LEN + 10); // rest not arrived yet
    talb_rx_parser rx;
    talb_rx_init(&rx);
    uint8_t buf[30];
    EXPECT_EQ(talb_rx_step(&rx, FakeStream::Read, &s, buf, sizeof(buf)), TALB_IO_AGAIN);
    EXPECT_EQ(rx.payload_have, 10u);

    auto failing = [](void*, void*, size_t) -> ssize_t {
        errno = ECONNRESET;
        return -1;
    };
    talb_rx_init(&rx);
    EXPECT_EQ(talb_rx_step(&rx, failing, nullptr, buf, sizeof(buf)), TALB_IO_ERROR);

    talb_label bad{1, 8, 0};
    talb_tx_frame tx;
    EXPECT_EQ(talb_tx_init(&tx, &bad, buf, 1), TALB_WIRE_BAD_FIELD);
}

TEST(TalbNetFrame, HandshakeIsAFrameCarryingTheConnectionId)
{
    uint8_t hello[TALB_HELLO_LEN];
    talb_hello_encode(0x0123456789ABCDEFull, hello);
    // A well-formed frame: the agent and the capture checker parse it like any other.
    talb_frame f;
    ASSERT_EQ(talb_frame_decode(hello, TALB_FRAME_LEN, &f), TALB_FRAME_LEN);
    EXPECT_EQ(f.label.tensor_id, 0u);
    EXPECT_EQ(f.label.priority, TALB_NUM_PRIORITIES - 1);
    EXPECT_EQ(f.label.flags, TALB_FLAG_FIRST | TALB_FLAG_LAST);
    EXPECT_EQ(f.payload_len, (uint32_t)TALB_HELLO_PAYLOAD);
    uint64_t id = 0;
    ASSERT_EQ(talb_hello_decode(hello, &id), TALB_WIRE_OK);
    EXPECT_EQ(id, 0x0123456789ABCDEFull);
    // Not a handshake: another magic, a message frame, a different payload length.
    for (int at : {0, TALB_FRAME_LEN, 8, 15})
    {
        uint8_t bad[TALB_HELLO_LEN];
        std::memcpy(bad, hello, sizeof(bad));
        bad[at] ^= 0x40;
        EXPECT_EQ(talb_hello_decode(bad, &id), TALB_WIRE_BAD_TYPE) << "byte " << at;
    }
}

} // namespace

