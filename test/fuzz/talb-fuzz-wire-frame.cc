/*
 * Fuzz target: the NCCL plugin frame header decoder and encoder (model/wire/talb-wire.h).
 *
 * Invariants:
 *  - decode reads only the bytes it is given and returns TALB_FRAME_LEN or a known status;
 *  - the header has no ignored bits: encode(decode(x)) reproduces the input's 16 bytes exactly;
 *  - any frame built from the input encodes when its label is valid, decode(encode(f)) == f,
 *    and is refused (nothing written past the room given) otherwise.
 */
#include "talb-fuzz.h"
#include "talb-wire.h"

#include <cstring>

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    talb_frame frame{};
    int rc = talb_frame_decode(data, size, &frame);
    if (rc >= 0)
    {
        TALB_FUZZ_CHECK(rc == TALB_FRAME_LEN && size >= TALB_FRAME_LEN);
        TALB_FUZZ_CHECK(talb_label_valid(&frame.label));
        uint8_t encoded[TALB_FRAME_LEN];
        TALB_FUZZ_CHECK(talb_frame_encode(&frame, encoded, sizeof(encoded)) == TALB_FRAME_LEN);
        TALB_FUZZ_CHECK(talb::fuzz::Equal(encoded, data, TALB_FRAME_LEN));
    }
    else
    {
        TALB_FUZZ_CHECK(rc == TALB_WIRE_TRUNCATED || rc == TALB_WIRE_BAD_TYPE ||
                        rc == TALB_WIRE_BAD_VERSION || rc == TALB_WIRE_BAD_FIELD);
        TALB_FUZZ_CHECK((rc == TALB_WIRE_TRUNCATED) == (size < TALB_FRAME_LEN));
    }

    talb::fuzz::Input in(data, size);
    talb_frame made{};
    made.label.tensor_id = in.U32();
    made.label.priority = in.U8();
    made.label.flags = in.U8();
    made.payload_len = in.U32();
    size_t room = in.Range(0, TALB_FRAME_LEN + 1);
    talb::fuzz::ExactBuffer out(room);
    int enc = talb_frame_encode(&made, out.Data(), room);
    if (room < TALB_FRAME_LEN)
    {
        TALB_FUZZ_CHECK(enc == TALB_WIRE_TRUNCATED);
    }
    else if (!talb_label_valid(&made.label))
    {
        TALB_FUZZ_CHECK(enc == TALB_WIRE_BAD_FIELD);
    }
    else
    {
        TALB_FUZZ_CHECK(enc == TALB_FRAME_LEN);
        talb_frame back{};
        TALB_FUZZ_CHECK(talb_frame_decode(out.Data(), room, &back) == TALB_FRAME_LEN);
        TALB_FUZZ_CHECK(back.label.tensor_id == made.label.tensor_id &&
                        back.label.priority == made.label.priority &&
                        back.label.flags == made.label.flags &&
                        back.payload_len == made.payload_len);
    }
    return 0;
}
