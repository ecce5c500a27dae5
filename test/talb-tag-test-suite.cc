// TalbTag (the simulator's TaLB option) and TalbTensorByteTag (tensor ownership of app bytes).
#include "ns3/packet.h"
#include "ns3/talb-tag.h"
#include "ns3/talb-tensor-byte-tag.h"
#include "ns3/talb-wire.h"
#include "ns3/test.h"

#include <cstring>

using namespace ns3;

/**
 * The packet tag serializes to exactly the 8 option bytes the testbed puts on the wire, and
 * survives a round trip through a packet.
 */
class TalbTagSerializesAsWireOption : public TestCase
{
  public:
    TalbTagSerializesAsWireOption()
        : TestCase("TalbTagSerializesAsWireOption: every flag combination gives the TaLB IPv4 "
                   "option bytes")
    {
    }

  private:
    void DoRun() override
    {
        for (uint8_t flags : {0, TALB_FLAG_FIRST, TALB_FLAG_LAST, TALB_FLAG_FIRST | TALB_FLAG_LAST})
        {
            TalbTag tag(talb_make_tensor_id(3, 0xABCDE), 6, flags);
            NS_TEST_ASSERT_MSG_EQ(tag.GetSerializedSize(),
                                  TALB_OPT_LEN,
                                  "tag size is the option's");

            uint8_t fromTag[TALB_OPT_LEN];
            tag.Serialize(TagBuffer(fromTag, fromTag + sizeof(fromTag)));
            uint8_t fromWire[TALB_OPT_LEN];
            talb_label label = tag.GetLabel();
            NS_TEST_ASSERT_MSG_EQ(talb_option_encode(&label, fromWire, sizeof(fromWire)),
                                  TALB_OPT_LEN,
                                  "encode");
            NS_TEST_EXPECT_MSG_EQ(std::memcmp(fromTag, fromWire, TALB_OPT_LEN), 0, "same bytes");
            NS_TEST_EXPECT_MSG_EQ(+fromTag[0], TALB_OPT_TYPE, "option type");

            Ptr<Packet> p = Create<Packet>(100);
            p->AddPacketTag(tag);
            TalbTag back;
            NS_TEST_ASSERT_MSG_EQ(p->PeekPacketTag(back), true, "tag present");
            NS_TEST_EXPECT_MSG_EQ(back.GetTensorId(), tag.GetTensorId(), "tensor id");
            NS_TEST_EXPECT_MSG_EQ(+back.GetJobId(), 3, "job id from the top 8 bits");
            NS_TEST_EXPECT_MSG_EQ(+back.GetPriority(), 6, "priority");
            NS_TEST_EXPECT_MSG_EQ(+back.GetFlags(), +flags, "flags");
            NS_TEST_EXPECT_MSG_EQ(back.IsFirst(), bool(flags & TALB_FLAG_FIRST), "FIRST");
            NS_TEST_EXPECT_MSG_EQ(back.IsLast(), bool(flags & TALB_FLAG_LAST), "LAST");
        }
    }
};

/**
 * Two tensors sent back to back on one stream, cut into segments the way TCP cuts its send
 * buffer: each segment is labelled with the tensor owning its first byte, FIRST only where that
 * byte starts the tensor, LAST where the segment holds the tensor's last byte.
 */
class TalbTensorByteTagLabelsSegments : public TestCase
{
  public:
    TalbTensorByteTagLabelsSegments()
        : TestCase("TalbTensorByteTagLabelsSegments: segments cut from a tagged stream carry their "
                   "tensor")
    {
    }

  private:
    struct Expect
    {
        uint32_t offset;
        uint32_t size;
        bool tagged;
        uint32_t tensor;
        uint8_t flags;
    };

    void DoRun() override
    {
        const uint32_t a = talb_make_tensor_id(1, 10);
        const uint32_t b = talb_make_tensor_id(1, 11);
        Ptr<Packet> first = Create<Packet>(3000);
        TalbTensorByteTag::TagMessage(first, a, 2, true, true);
        Ptr<Packet> second = Create<Packet>(2000);
        TalbTensorByteTag::TagMessage(second, b, 5, true, false);
        Ptr<Packet> untagged = Create<Packet>(500);
        Ptr<Packet> stream = first->Copy();
        stream->AddAtEnd(second);
        stream->AddAtEnd(untagged);

        const Expect cases[] = {
            {0, 1000, true, a, TALB_FLAG_FIRST},
            {1000, 1000, true, a, 0},
            {2000, 1000, true, a, TALB_FLAG_LAST},
            {2500, 1000, true, a, TALB_FLAG_LAST}, // spans a|b: b's FIRST must not leak onto a
            {3000, 1000, true, b, TALB_FLAG_FIRST},
            {4000, 1000, true, b, 0},
            {0, 3000, true, a, TALB_FLAG_FIRST | TALB_FLAG_LAST},
            {5000, 500, false, 0, 0},
            {4500, 1000, true, b, 0}, // b never ends in this stream
        };
        for (const auto& c : cases)
        {
            Ptr<Packet> segment = stream->CreateFragment(c.offset, c.size);
            talb_label label{};
            bool tagged = TalbTensorByteTag::LabelSegment(segment, &label);
            NS_TEST_EXPECT_MSG_EQ(tagged, c.tagged, "segment at " << c.offset);
            if (tagged && c.tagged)
            {
                NS_TEST_EXPECT_MSG_EQ(label.tensor_id, c.tensor, "owner at " << c.offset);
                NS_TEST_EXPECT_MSG_EQ(+label.flags, +c.flags, "flags at " << c.offset);
                NS_TEST_EXPECT_MSG_EQ(+label.priority,
                                      (c.tensor == a ? 2 : 5),
                                      "priority at " << c.offset);
            }
        }
    }
};

class TalbTagTestSuite : public TestSuite
{
  public:
    TalbTagTestSuite()
        : TestSuite("talb-tag", UNIT)
    {
        AddTestCase(new TalbTagSerializesAsWireOption, TestCase::QUICK);
        AddTestCase(new TalbTensorByteTagLabelsSegments, TestCase::QUICK);
    }
};

static TalbTagTestSuite g_talbTagTestSuite;
