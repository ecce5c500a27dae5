/*
 * Fuzz target: the IPv4 options walk that finds the TaLB option (talb_ipv4_options_find in
 * model/wire/talb-wire.h), and its agreement with the option decoder.
 *
 * Invariants:
 *  - the walk reads only the area it is given and returns OK, NOT_FOUND or BAD_OPTIONS;
 *  - OK: the offset is the start of an option whose type is TaLB's and whose length byte fits
 *    in the area, reached from offset 0 by stepping over NOPs and length-prefixed options only
 *    (no end-of-list before it); NOT_FOUND: the offset is where the list ends (the EOL byte, or
 *    the area's end), the place for an added option;
 *  - the answer depends only on the bytes up to and including that option (or up to the
 *    end-of-list byte): cutting the area after them changes nothing;
 *  - a found option whose length byte is 8 decodes, or fails on version or flags only -- never
 *    "truncated" or "bad type" (the agent's inbound path relies on this before stripping it).
 */
#include "talb-fuzz.h"
#include "talb-wire.h"

namespace
{

/// Offset of the byte that ends the walk: the option found, the EOL, or the malformed one.
size_t
WalkEnd(const uint8_t* opts, size_t len, size_t at)
{
    size_t i = 0;
    while (i < len && i != at)
    {
        uint8_t type = opts[i];
        if (type == 0)
        {
            return i;
        }
        if (type == 1)
        {
            ++i;
            continue;
        }
        if (i + 1 >= len || opts[i + 1] < 2 || opts[i + 1] > len - i)
        {
            return i;
        }
        i += opts[i + 1];
    }
    return i;
}

} // namespace

extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    size_t at = size + 1;
    int rc = talb_ipv4_options_find(data, size, &at);
    TALB_FUZZ_CHECK(rc == TALB_WIRE_OK || rc == TALB_WIRE_NOT_FOUND || rc == TALB_WIRE_BAD_OPTIONS);
    if (rc == TALB_WIRE_OK)
    {
        TALB_FUZZ_CHECK(at + 1 < size);
        TALB_FUZZ_CHECK(data[at] == TALB_OPT_TYPE);
        TALB_FUZZ_CHECK(data[at + 1] >= 2 && data[at + 1] <= size - at);
        // Reached by the walk: every option before it is stepped over, none is EOL.
        TALB_FUZZ_CHECK(WalkEnd(data, size, at) == at);
        // Nothing after the option matters.
        size_t cut = at + data[at + 1];
        talb::fuzz::ExactBuffer prefix(data, cut);
        size_t again = cut + 1;
        TALB_FUZZ_CHECK(talb_ipv4_options_find(prefix.Data(), cut, &again) == TALB_WIRE_OK &&
                        again == at);

        talb_label label{};
        int dec = talb_option_decode(data + at, size - at, &label);
        if (data[at + 1] == TALB_OPT_LEN)
        {
            TALB_FUZZ_CHECK(dec == TALB_OPT_LEN || dec == TALB_WIRE_BAD_VERSION ||
                            dec == TALB_WIRE_BAD_FIELD);
        }
        else
        {
            TALB_FUZZ_CHECK(dec == TALB_WIRE_BAD_LENGTH);
        }
    }
    else
    {
        size_t end = WalkEnd(data, size, size + 1);
        TALB_FUZZ_CHECK(end <= size);
        // Not found: the offset is where the list ends (an EOL, or the area's end), so an
        // option added there is seen; malformed: untouched.
        TALB_FUZZ_CHECK(rc == TALB_WIRE_NOT_FOUND ? at == end : at == size + 1);
        if (end < size)
        {
            // Stopped on an EOL (not found) or a malformed option: the rest is never read.
            bool eol = data[end] == 0;
            TALB_FUZZ_CHECK(eol == (rc == TALB_WIRE_NOT_FOUND));
            size_t cut = end + 1 < size ? end + 2 : end + 1; // the type byte and its length byte
            if (eol)
            {
                cut = end + 1;
            }
            talb::fuzz::ExactBuffer prefix(data, cut);
            size_t unused = 0;
            int prefixRc = talb_ipv4_options_find(prefix.Data(), cut, &unused);
            // A length byte that overran the full area overruns the prefix as well.
            TALB_FUZZ_CHECK(prefixRc == rc);
        }
        else
        {
            TALB_FUZZ_CHECK(rc == TALB_WIRE_NOT_FOUND); // walked off the end cleanly
        }
    }
    return 0;
}
