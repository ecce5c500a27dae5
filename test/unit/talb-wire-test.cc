// Wire format (model/wire/talb-wire.h): round trips and rejection of every malformed input.
#include "ns3/talb-wire.h"

#include <cstring>
#include <gtest/gtest.h>
#include <vector>

namespace
{

TEST(TalbWireOption, RoundTripsEveryPriorityAndFlag)
{
    for (uint8_t prio = 0; prio < TALB_NUM_PRIORITIES; ++prio)
    {
        for (uint8_t flags = 0; flags <= TALB_FLAGS_MASK; ++flags)
        {
            talb_label in{talb_make_tensor_id(7, 0x123456), prio, flags};
            uint8_t buf[TALB_OPT_LEN];
            ASSERT_EQ(talb_option_encode(&in, buf, sizeof(buf)), TALB_OPT_LEN);
            talb_label out{};
            ASSERT_EQ(talb_option_decode(buf, sizeof(buf), &out), TALB_OPT_LEN);
            EXPECT_EQ(out.tensor_id, in.tensor_id);
            EXPECT_EQ(out.priority, prio);
            EXPECT_EQ(out.flags, flags);
            EXPECT_EQ(talb_job_of(out.tensor_id), 7u);
        }
    }
}

TEST(TalbWireOption, EncodesTheDocumentedBytes)
{
    talb_label in{0x0A0B0C0D, 5, TALB_FLAG_LAST};
    uint8_t buf[TALB_OPT_LEN];
    ASSERT_EQ(talb_option_encode(&in, buf, sizeof(buf)), TALB_OPT_LEN);
    const uint8_t expected[TALB_OPT_LEN] = {0x9E, 8, 0x12, 5, 0x0A, 0x0B, 0x0C, 0x0D};
    EXPECT_EQ(0, std::memcmp(buf, expected, sizeof(buf)));
}

TEST(TalbWireOption, RejectsOutOfRangeLabels)
{
    uint8_t buf[TALB_OPT_LEN];
    talb_label badPrio{1, 8, 0};
    talb_label badFlags{1, 0, 4};
    EXPECT_EQ(talb_option_encode(&badPrio, buf, sizeof(buf)), TALB_WIRE_BAD_FIELD);
    EXPECT_EQ(talb_option_encode(&badFlags, buf, sizeof(buf)), TALB_WIRE_BAD_FIELD);
    talb_label ok{1, 0, 0};
    EXPECT_EQ(talb_option_encode(&ok, buf, TALB_OPT_LEN - 1), TALB_WIRE_TRUNCATED);
}

TEST(TalbWireOption, RejectsEveryTruncationWithoutReadingPastTheEnd)
{
    talb_label in{42, 3, TALB_FLAG_FIRST};
    uint8_t full[TALB_OPT_LEN];
    ASSERT_EQ(talb_option_encode(&in, full, sizeof(full)), TALB_OPT_LEN);
    for (size_t len = 0; len < TALB_OPT_LEN; ++len)
    {
        // An exactly-sized heap copy lets AddressSanitizer/valgrind catch any over-read.
        std::vector<uint8_t> part(full, full + len);
        talb_label out{};
        EXPECT_EQ(talb_option_decode(part.data(), len, &out), TALB_WIRE_TRUNCATED) << len;
    }
}

TEST(TalbWireOption, RejectsWrongTypeLengthVersionAndFlags)
{
    talb_label in{42, 3, 0};
    uint8_t good[TALB_OPT_LEN];
    ASSERT_EQ(talb_option_encode(&in, good, sizeof(good)), TALB_OPT_LEN);
    talb_label out{};
    uint8_t b[TALB_OPT_LEN];

    std::memcpy(b, good, sizeof(b));
    b[0] = 0x94; // router alert
    EXPECT_EQ(talb_option_decode(b, sizeof(b), &out), TALB_WIRE_BAD_TYPE);

    std::memcpy(b, good, sizeof(b));
    b[1] = 12;
    EXPECT_EQ(talb_option_decode(b, sizeof(b), &out), TALB_WIRE_BAD_LENGTH);

    std::memcpy(b, good, sizeof(b));
    b[2] = 0x20; // version 2
    EXPECT_EQ(talb_option_decode(b, sizeof(b), &out), TALB_WIRE_BAD_VERSION);

    std::memcpy(b, good, sizeof(b));
    b[2] = 0x18; // unknown flag bit
    EXPECT_EQ(talb_option_decode(b, sizeof(b), &out), TALB_WIRE_BAD_FIELD);

    std::memcpy(b, good, sizeof(b));
    b[3] = 0xF8 | 3; // reserved bits are ignored
    ASSERT_EQ(talb_option_decode(b, sizeof(b), &out), TALB_OPT_LEN);
    EXPECT_EQ(out.priority, 3);
}

TEST(TalbWireOptionsList, FindsTheOptionAfterOthersAndRejectsBadLists)
{
    size_t off = 99;
    const uint8_t withNops[] = {1, 1, 0x9E, 8, 0x10, 0, 0, 0, 0, 1, 0, 0};
    EXPECT_EQ(talb_ipv4_options_find(withNops, sizeof(withNops), &off), TALB_WIRE_OK);
    EXPECT_EQ(off, 2u);

    const uint8_t afterRa[] = {0x94, 4, 0, 0, 0x9E, 8, 0x10, 0, 0, 0, 0, 1};
    EXPECT_EQ(talb_ipv4_options_find(afterRa, sizeof(afterRa), &off), TALB_WIRE_OK);
    EXPECT_EQ(off, 4u);

    const uint8_t eol[] = {0, 0x9E, 8, 0x10, 0, 0, 0, 0};
    EXPECT_EQ(talb_ipv4_options_find(eol, sizeof(eol), &off), TALB_WIRE_NOT_FOUND);
    EXPECT_EQ(off, 0u) << "not found: where the list ends, for an option to be added";
    const uint8_t raEol[] = {0x94, 4, 0, 0, 1, 0, 0, 0};
    EXPECT_EQ(talb_ipv4_options_find(raEol, sizeof(raEol), &off), TALB_WIRE_NOT_FOUND);
    EXPECT_EQ(off, 5u);
    EXPECT_EQ(talb_ipv4_options_find(raEol, 4, &off), TALB_WIRE_NOT_FOUND);
    EXPECT_EQ(off, 4u) << "no EOL: the end of the area";

    const uint8_t zeroLen[] = {0x94, 0, 0, 0};
    EXPECT_EQ(talb_ipv4_options_find(zeroLen, sizeof(zeroLen), &off), TALB_WIRE_BAD_OPTIONS);

    const uint8_t overrun[] = {0x94, 6, 0, 0};
    EXPECT_EQ(talb_ipv4_options_find(overrun, sizeof(overrun), &off), TALB_WIRE_BAD_OPTIONS);

    const uint8_t lenByteMissing[] = {1, 1, 1, 0x9E};
    EXPECT_EQ(talb_ipv4_options_find(lenByteMissing, sizeof(lenByteMissing), &off),
              TALB_WIRE_BAD_OPTIONS);
}

TEST(TalbWireDscp, TableIsMonotoneDistinctAndInvertible)
{
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        uint8_t dscp = talb_dscp_from_priority(p);
        EXPECT_LT(dscp, 64);
        EXPECT_NE(dscp, 0) << "DSCP 0 is reserved for untagged traffic";
        EXPECT_EQ(talb_priority_from_dscp(dscp), p);
        if (p > 0)
        {
            EXPECT_LT(dscp, talb_dscp_from_priority(p - 1));
        }
    }
    EXPECT_EQ(talb_priority_from_dscp(0), -1);
    EXPECT_EQ(talb_priority_from_dscp(63), -1);
}

TEST(TalbWireLlmPriority, BlockingClassesComeBeforePipelineAndData)
{
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_TENSOR, 5, 10), 0);
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_EXPERT, 5, 10), 0);
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_PIPELINE, 5, 10), 1);
    for (uint32_t layer = 0; layer < 10; ++layer)
    {
        EXPECT_GE(talb_llm_priority(TALB_CLASS_DATA, layer, 10), 2) << layer;
    }
}

TEST(TalbWireLlmPriority, OtherAndUnknownClassesAreLeastUrgent)
{
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_OTHER, 0, 10), TALB_NUM_PRIORITIES - 1);
    EXPECT_EQ(talb_llm_priority(5, 0, 10), TALB_NUM_PRIORITIES - 1);
    EXPECT_EQ(talb_llm_priority(UINT32_MAX, 0, 0), TALB_NUM_PRIORITIES - 1);
}

TEST(TalbWireLlmPriority, DataFollowsTheLayerOrderInputSideFirst)
{
    // Six layers: one class each, 2 .. 7.
    for (uint32_t layer = 0; layer < 6; ++layer)
    {
        EXPECT_EQ(talb_llm_priority(TALB_CLASS_DATA, layer, 6), 2 + layer) << layer;
    }
    // 96 layers: 16 per class, never decreasing from the input side to the output side.
    uint8_t previous = 2;
    for (uint32_t layer = 0; layer < 96; ++layer)
    {
        uint8_t p = talb_llm_priority(TALB_CLASS_DATA, layer, 96);
        EXPECT_EQ(p, 2 + layer / 16) << layer;
        EXPECT_GE(p, previous);
        previous = p;
    }
}

TEST(TalbWireLlmPriority, DataClampsOutOfRangeLayersWithoutOverflow)
{
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_DATA, 0, 0), 2);  // no layer count: one layer
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_DATA, 10, 10), 7); // past the last: the last
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_DATA, UINT32_MAX - 1, UINT32_MAX), 7);
    EXPECT_EQ(talb_llm_priority(TALB_CLASS_DATA, UINT32_MAX / 2, UINT32_MAX), 4);
}

TEST(TalbWireFrame, RoundTripsAndHasTheDocumentedLayout)
{
    talb_frame in{{talb_make_tensor_id(1, 77), 2, TALB_FLAG_FIRST | TALB_FLAG_LAST}, 1u << 20};
    uint8_t buf[TALB_FRAME_LEN];
    ASSERT_EQ(talb_frame_encode(&in, buf, sizeof(buf)), TALB_FRAME_LEN);
    EXPECT_EQ(0, std::memcmp(buf, "TALB", 4));
    EXPECT_EQ(buf[4], TALB_WIRE_VERSION);
    EXPECT_EQ(buf[5], 2);
    EXPECT_EQ(buf[6], 3);
    EXPECT_EQ(buf[7], 0);
    EXPECT_EQ(talb_get_be32(buf + 8), talb_make_tensor_id(1, 77));
    EXPECT_EQ(talb_get_be32(buf + 12), 1u << 20);
    talb_frame out{};
    ASSERT_EQ(talb_frame_decode(buf, sizeof(buf), &out), TALB_FRAME_LEN);
    EXPECT_EQ(out.label.tensor_id, in.label.tensor_id);
    EXPECT_EQ(out.label.priority, 2);
    EXPECT_EQ(out.label.flags, 3);
    EXPECT_EQ(out.payload_len, 1u << 20);
}

TEST(TalbWireFrame, RejectsBadMagicVersionFieldsAndTruncation)
{
    talb_frame in{{5, 1, 0}, 100};
    uint8_t good[TALB_FRAME_LEN];
    ASSERT_EQ(talb_frame_encode(&in, good, sizeof(good)), TALB_FRAME_LEN);
    talb_frame out{};
    for (size_t len = 0; len < TALB_FRAME_LEN; ++len)
    {
        std::vector<uint8_t> part(good, good + len);
        EXPECT_EQ(talb_frame_decode(part.data(), len, &out), TALB_WIRE_TRUNCATED) << len;
    }

    struct
    {
        size_t index;
        uint8_t value;
        int expected;
    } cases[] = {{0, 'X', TALB_WIRE_BAD_TYPE},
                 {3, 'C', TALB_WIRE_BAD_TYPE},
                 {4, 2, TALB_WIRE_BAD_VERSION},
                 {5, 8, TALB_WIRE_BAD_FIELD},
                 {6, 0x10, TALB_WIRE_BAD_FIELD},
                 {7, 1, TALB_WIRE_BAD_FIELD}};

    for (const auto& c : cases)
    {
        uint8_t b[TALB_FRAME_LEN];
        std::memcpy(b, good, sizeof(b));
        b[c.index] = c.value;
        EXPECT_EQ(talb_frame_decode(b, sizeof(b), &out), c.expected) << "byte " << c.index;
    }
}

} // namespace
