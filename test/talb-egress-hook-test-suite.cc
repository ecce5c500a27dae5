// Tensor tags end to end on a host: byte tags through TCP segmentation and the egress hook's
// per-segment label (FIRST/LAST, segments spanning tensors, ACKs, DSCP). TalbTag's own wire
// bytes: talb-tag.
#include "talb-test-fabric.h"
#include "talb-test-frames.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <cstring>

using namespace ns3;

/// Three tensors over one TCP connection: every data segment carries the tensor owning its
/// first payload byte, FIRST iff that byte starts the tensor, LAST iff the segment holds the
/// tensor's last byte, and the tensor's DSCP; the receiver's ACKs carry no tag and DSCP 0.
class TalbEgressHookSegmentsTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbEgressHookSegmentsTestCase()
        : talbtest::SimulationTestCase(
              "TalbEgressHookSegments: labels per segment, spanning segments, ACKs")
    {
    }

  private:
    /// A data segment seen on the wire.
    struct Segment
    {
        uint32_t offset; //!< stream offset of its first payload byte
        uint32_t size;   //!< payload bytes
        bool tagged;
        TalbTag tag;
        uint8_t dscp;
    };

    static void Capture(std::vector<Segment>* data,
                        uint32_t* acks,
                        uint32_t* taggedAcks,
                        Ptr<const Packet> packet)
    {
        talbtest::TcpFrame f = talbtest::StripTcpFrame(packet);
        TalbTag tag;
        bool tagged = f.payload->PeekPacketTag(tag);
        if (f.payload->GetSize() == 0)
        {
            ++*acks;
            *taggedAcks += (tagged || f.ip.GetDscp() != 0) ? 1 : 0;
            return;
        }
        // The connection's first data byte has sequence number 1 (SYN takes 0).
        data->push_back({f.tcp.GetSequenceNumber().GetValue() - 1,
                         f.payload->GetSize(),
                         tagged,
                         tag,
                         static_cast<uint8_t>(f.ip.GetDscp())});
    }

    void DoRun() override
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Leaves", UintegerValue(1));
        f->SetAttribute("HostsPerLeaf", UintegerValue(2));
        f->Install();
        Config::Reset();

        struct Tensor
        {
            uint32_t id;
            uint8_t prio;
            uint32_t bytes;
        };

        // 2500 and 1700 are not multiples of the 1000-byte MSS: segments span tensors. The
        // last tensor is sent in 300-byte chunks (SendSize) to spread its byte tags.
        std::vector<Tensor> tensors{{talb_make_tensor_id(1, 7), 1, 2500},
                                    {talb_make_tensor_id(1, 8), 5, 1700},
                                    {talb_make_tensor_id(2, 9), 2, 4000}};
        TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), 9000));
        Ptr<TalbBulkSink> rx = DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(1)).Get(0));
        Ptr<TalbTensorSource> src = CreateObject<TalbTensorSource>();
        src->SetAttribute("Remote", AddressValue(InetSocketAddress(f->GetHostAddress(1), 9000)));
        src->SetAttribute("SendSize", UintegerValue(300));
        uint32_t total = 0;
        for (const auto& t : tensors)
        {
            src->AddTensor(t.id, t.prio, t.bytes, MicroSeconds(100));
            total += t.bytes;
        }
        f->GetHost(0)->AddApplication(src);
        src->SetStartTime(MicroSeconds(10));

        std::vector<Segment> data;
        std::vector<Segment> reverseData;
        uint32_t acks = 0;
        uint32_t taggedAcks = 0;
        uint32_t srcAcks = 0;
        uint32_t srcTaggedAcks = 0;
        f->GetHostDevice(0)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(&Capture, &data, &srcAcks, &srcTaggedAcks));
        f->GetHostDevice(1)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(&Capture, &reverseData, &acks, &taggedAcks));
        Simulator::Stop(MilliSeconds(20));
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(rx->GetTotalRx(), total, "not all bytes delivered");
        NS_TEST_ASSERT_MSG_EQ(reverseData.size(), 0, "receiver sent data");
        NS_TEST_ASSERT_MSG_GT(acks, 0u, "no ACKs seen");
        NS_TEST_ASSERT_MSG_EQ(taggedAcks, 0u, "ACKs must stay untagged with DSCP 0");
        NS_TEST_ASSERT_MSG_EQ(srcTaggedAcks, 0u, "sender's SYN/FIN/ACKs must stay untagged");
        NS_TEST_ASSERT_MSG_GT(data.size(), 9u, "too few segments");
        uint32_t spanning = 0;
        for (const auto& s : data)
        {
            // Owner of the first payload byte, and where that tensor starts / ends.
            uint32_t start = 0;
            size_t k = 0;
            while (start + tensors[k].bytes <= s.offset)
            {
                start += tensors[k++].bytes;
            }
            const Tensor& t = tensors[k];
            uint32_t end = start + t.bytes; // one past the tensor's last byte
            NS_TEST_ASSERT_MSG_EQ(s.tagged, true, "segment at " << s.offset << " untagged");
            NS_TEST_EXPECT_MSG_EQ(s.tag.GetTensorId(), t.id, "owner at " << s.offset);
            NS_TEST_EXPECT_MSG_EQ(+s.tag.GetPriority(), +t.prio, "priority at " << s.offset);
            NS_TEST_EXPECT_MSG_EQ(s.tag.IsFirst(), (s.offset == start), "FIRST at " << s.offset);
            NS_TEST_EXPECT_MSG_EQ(s.tag.IsLast(),
                                  (s.offset + s.size >= end),
                                  "LAST at " << s.offset);
            NS_TEST_EXPECT_MSG_EQ(+s.dscp, +talb_dscp_from_priority(t.prio), "DSCP");
            spanning += s.offset + s.size > end ? 1 : 0;
        }
        NS_TEST_ASSERT_MSG_GT(spanning, 0u, "no segment spanned two tensors");
        Ptr<TalbHostEgressHook> hook = f->GetHost(0)->GetObject<TalbHostEgressHook>();
        NS_TEST_ASSERT_MSG_GT_OR_EQ(hook->GetStats().nLabelled, data.size(), "hook counter");
    }
};

/// The talb-egress-hook suite.
class TalbEgressHookTestSuite : public TestSuite
{
  public:
    TalbEgressHookTestSuite()
        : TestSuite("talb-egress-hook", UNIT)
    {
        AddTestCase(new TalbEgressHookSegmentsTestCase, TestCase::QUICK);
    }
};

static TalbEgressHookTestSuite g_talbEgressHookTestSuite;
