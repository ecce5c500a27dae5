/*
 * Fuzz target: the TaLB IPv4 option decoder and encoder (model/wire/talb-wire.h).
 *
 * Invariants:
 *  - decode reads only the bytes it is given (the buffer is exactly sized) and returns
 *    TALB_OPT_LEN or one of the talb_wire_status codes, each with a message;
 *  - a decoded label is valid, and encoding it gives back the input's 8 bytes, except the
 *    reserved bits of byte 3 (sent as 0, ignored): encode(decode(x)) == x modulo those bits;
 *  - decoding a prefix of an accepted option reports it truncated;
 *  - any label built from the input encodes when valid (and decodes to itself:
 *    decode(encode(l)) == l) and is refused when not.
 */
#include "talb-fuzz.h"
#include "talb-wire.h"

#include <cstring>

namespace
{

bool
SameLabel(const talb_label& a, const talb_label& b)
{
    return a.tensor_id == b.tensor_id && a.priority == b.priority && a.flags == b.flags;
}

bool
KnownStatus(int rc)
{
    return rc <= TALB_WIRE_OK && rc >= TALB_WIRE_BAD_OPTIONS &&
           std::strcmp(talb_wire_strerror(rc), "unknown status") != 0;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    talb_label label{};
    int rc = talb_option_decode(data, size, &label);
    if (rc >= 0)
    {
        TALB_FUZZ_CHECK(rc == TALB_OPT_LEN && size >= TALB_OPT_LEN);
        TALB_FUZZ_CHECK(talb_label_valid(&label));
        uint8_t encoded[TALB_OPT_LEN];
        TALB_FUZZ_CHECK(talb_option_encode(&label, encoded, sizeof(encoded)) == TALB_OPT_LEN);
        TALB_FUZZ_CHECK(talb::fuzz::Equal(encoded, data, 3));
        TALB_FUZZ_CHECK(encoded[3] == (data[3] & TALB_PRIO_MASK));
        TALB_FUZZ_CHECK(talb::fuzz::Equal(encoded + 4, data + 4, 4));
        for (size_t n = 0; n < TALB_OPT_LEN; ++n)
        {
            talb_label prefix{};
            TALB_FUZZ_CHECK(talb_option_decode(data, n, &prefix) == TALB_WIRE_TRUNCATED);
        }
    }
    else
    {
        TALB_FUZZ_CHECK(KnownStatus(rc) && rc != TALB_WIRE_NOT_FOUND &&
                        rc != TALB_WIRE_BAD_OPTIONS);
    }

    // The same bytes read as a label to encode.
    talb::fuzz::Input in(data, size);
    talb_label made{};
    made.tensor_id = in.U32();
    made.priority = in.U8();
    made.flags = in.U8();
    uint8_t small[TALB_OPT_LEN];
    size_t room = in.Range(0, TALB_OPT_LEN);
    talb::fuzz::ExactBuffer out(room);
    int enc = talb_option_encode(&made, out.Data(), room);
    if (room < TALB_OPT_LEN)
    {
        TALB_FUZZ_CHECK(enc == TALB_WIRE_TRUNCATED);
    }
    else if (!talb_label_valid(&made))
    {
        TALB_FUZZ_CHECK(enc == TALB_WIRE_BAD_FIELD);
    }
    else
    {
        TALB_FUZZ_CHECK(enc == TALB_OPT_LEN);
        std::memcpy(small, out.Data(), sizeof(small));
        talb_label back{};
        TALB_FUZZ_CHECK(talb_option_decode(small, sizeof(small), &back) == TALB_OPT_LEN);
        TALB_FUZZ_CHECK(SameLabel(back, made));
    }
    return 0;
}
