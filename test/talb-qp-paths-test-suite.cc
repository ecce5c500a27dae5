// Path entropy of RoCE connections: queue-pair scaling (TalbRdmaMessageChannel's queuePairs),
// E-ECMP (TalbEEcmpLb, "eecmp"), path pinning (TalbPinLb, "pin") and PLB (TalbPlb and the
// channel's repaths).
#include "talb-lb-test-util.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <set>
#include <vector>

using namespace ns3;
using namespace ns3::talbtest;

namespace
{

/// A RoCEv2 packet of the 5-tuple hashed as \p flowHash to destination queue pair \p qp.
TalbPacketContext
RoceCtx(uint32_t flowHash, uint32_t qp)
{
    TalbPacketContext c = Ctx(flowHash, Seconds(0));
    c.goBackN = true;
    c.roceDstQp = qp;
    return c;
}

/// A 2 leaves x 2 hosts RDMA fabric with \p spines spines and balancer \p lb, installed.
Ptr<TalbLeafSpineHelper>
MakeRdmaFabric(const std::string& lb, uint32_t spines)
{
    Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
    f->SetAttribute("Transport", StringValue("rdma"));
    f->SetAttribute("Spines", UintegerValue(spines));
    f->SetAttribute("HostRate", StringValue("10Gbps"));
    f->SetAttribute("FabricRate", StringValue("10Gbps"));
    f->SetLoadBalancer(lb);
    f->Install();
    return f;
}

/// A message of one tensor part of \p bytes.
TalbMessage
OnePart(uint32_t tensor, uint64_t bytes)
{
    TalbMessage m;
    m.ownerTensorId = tensor;
    m.ownerPriority = 3;
    TalbMessage::Part part;
    part.tensorId = tensor;
    part.priority = 3;
    part.bytes = bytes;
    part.first = true;
    part.last = true;
    m.parts.push_back(part);
    return m;
}

void
CountDelivered(uint32_t* n, Ptr<TalbMessageChannel>, const TalbMessage&, const TalbFlowRecord&)
{
    ++*n;
}

/// \return the uplinks of leaf 0 that forwarded data (more than \p least packets)
uint32_t
UplinksUsed(Ptr<TalbLeafSpineHelper> f, uint32_t hostsPerLeaf, uint32_t spines, uint64_t least)
{
    uint32_t used = 0;
    for (uint32_t s = 0; s < spines; ++s)
    {
        used += f->GetLeafSwitch(0)->GetPort(hostsPerLeaf + s).txPackets > least;
    }
    return used;
}

} // namespace

/**
 * Queue-pair scaling: a channel of 4 queue pairs posts 8 messages 2 to each, round-robin; the
 * queue pairs have distinct QP numbers and source ports (shared ones with sharedSourcePort), and
 * every message is delivered.
 */
class TalbQpScalingRoundRobin : public TestCase
{
  public:
    TalbQpScalingRoundRobin(bool shared)
        : TestCase(std::string("TalbQpScalingRoundRobin: 4 queue pairs, 8 messages, 2 each, ") +
                   (shared ? "one shared source port" : "4 source ports")),
          m_shared(shared)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeRdmaFabric("ecmp", 2);
        Ptr<TalbRdmaMessageChannel> ch = CreateObject<TalbRdmaMessageChannel>();
        TalbRdmaMessageChannel::Options options;
        options.queuePairs = 4;
        options.sharedSourcePort = m_shared;
        ch->Open(f->GetRdmaNic(0), f->GetRdmaNic(2), TalbRdmaMessageChannel::SINGLE, 3, options);
        uint32_t delivered = 0;
        ch->SetDeliveredCallback(MakeBoundCallback(&CountDelivered, &delivered));
        for (uint32_t k = 0; k < 8; ++k)
        {
            ch->Send(OnePart(k + 1, 20000));
        }
        Simulator::Run();
        std::set<uint32_t> qpns;
        std::set<uint16_t> ports;
        for (uint32_t k = 0; k < 4; ++k)
        {
            Ptr<TalbRdmaQueuePair> qp = ch->GetQueuePair(0, k);
            NS_TEST_ASSERT_MSG_NE(qp, nullptr, "queue pair " << k << " not connected");
            NS_TEST_EXPECT_MSG_EQ(qp->GetStats().messagesPosted, 2u, "queue pair " << k);
            NS_TEST_EXPECT_MSG_EQ(qp->GetStats().messagesCompleted, 2u, "queue pair " << k);
            qpns.insert(qp->GetQpn());
            ports.insert(qp->GetSourcePort());
        }
        NS_TEST_EXPECT_MSG_EQ(qpns.size(), 4u, "distinct QP numbers");
        NS_TEST_EXPECT_MSG_EQ(ports.size(), m_shared ? 1u : 4u, "source ports");
        NS_TEST_EXPECT_MSG_EQ(delivered, 8u, "messages delivered");
        NS_TEST_EXPECT_MSG_EQ(f->GetRdmaNic(0)->GetNQueuePairs(), 4u, "queue pairs on the NIC");
        Simulator::Destroy();
    }

    bool m_shared;
};

/**
 * Split messages: each message (header and 100,000 payload bytes) becomes 4 SENDs of equal size
 * (the first bytes mod 4 one byte longer), one per queue pair; the channel delivers each message
 * once its 4 pieces have arrived.
 */
class TalbQpScalingSplit : public TestCase
{
  public:
    TalbQpScalingSplit()
        : TestCase("TalbQpScalingSplit: 2 messages cut into 4 equal SENDs each, delivered")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeRdmaFabric("eecmp", 2);
        Ptr<TalbRdmaMessageChannel> ch = CreateObject<TalbRdmaMessageChannel>();
        TalbRdmaMessageChannel::Options options;
        options.queuePairs = 4;
        options.splitMessages = true;
        ch->Open(f->GetRdmaNic(0), f->GetRdmaNic(2), TalbRdmaMessageChannel::SINGLE, 3, options);
        uint32_t delivered = 0;
        ch->SetDeliveredCallback(MakeBoundCallback(&CountDelivered, &delivered));
        ch->Send(OnePart(1, 100000));
        ch->Send(OnePart(2, 100000));
        Simulator::Run();
        const uint64_t message = TALB_FRAME_LEN + 100000;
        for (uint32_t k = 0; k < 4; ++k)
        {
            const TalbRdmaQueuePair::Stats& st = ch->GetQueuePair(0, k)->GetStats();
            NS_TEST_EXPECT_MSG_EQ(st.messagesPosted, 2u, "queue pair " << k << ": two pieces");
            const uint64_t piece = message / 4 + (k < message % 4 ? 1 : 0);
            NS_TEST_EXPECT_MSG_EQ(st.bytesSent, 2 * piece, "queue pair " << k << ": bytes");
        }
        NS_TEST_EXPECT_MSG_EQ(delivered, 2u, "messages delivered");
        Simulator::Destroy();
    }
};

/**
 * E-ECMP on RoCEv2 packets: the same 5-tuple to different destination queue pairs spreads over
 * the ports (all 4 used by 16 queue pairs), each queue pair deterministically on one port
 * (again, and at a second balancer of the same switch id); on other packets eecmp is ecmp.
 */
class TalbEEcmpDestQp : public TestCase
{
  public:
    TalbEEcmpDestQp()
        : TestCase("TalbEEcmpDestQp: one 5-tuple, 16 QPs over 4 ports, deterministic; TCP as ecmp")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> eecmp = sw.Make("eecmp");
        Ptr<TalbLoadBalancer> again = sw.Make("eecmp");
        Ptr<TalbLoadBalancer> ecmp = sw.Make("ecmp");
        const uint32_t flow = TalbMix32(12345);
        std::set<uint32_t> ports;
        std::set<uint32_t> ecmpPorts;
        for (uint32_t qp = 2; qp < 18; ++qp)
        {
            TalbPacketContext c = RoceCtx(flow, qp);
            uint32_t port = eecmp->SelectPath(c, sw.Candidates());
            NS_TEST_EXPECT_MSG_EQ(eecmp->SelectPath(c, sw.Candidates()), port, "qp " << qp);
            NS_TEST_EXPECT_MSG_EQ(again->SelectPath(c, sw.Candidates()), port, "qp " << qp);
            ports.insert(port);
            ecmpPorts.insert(ecmp->SelectPath(c, sw.Candidates()));
        }
        NS_TEST_EXPECT_MSG_EQ(ports.size(), 4u, "eecmp spreads the queue pairs");
        NS_TEST_EXPECT_MSG_EQ(ecmpPorts.size(), 1u, "ecmp ignores the queue pair");
        // Two QPs of one 5-tuple that the hash splits: the core's rule, port by port.
        talb::lb::PacketInfo a = TalbCorePacket(RoceCtx(flow, 2));
        talb::lb::PacketInfo b = TalbCorePacket(RoceCtx(flow, 3));
        NS_TEST_EXPECT_MSG_NE(talb::lb::EEcmp::Hash(a), talb::lb::EEcmp::Hash(b), "hash of QPs");
        for (uint32_t f = 0; f < 200; ++f)
        {
            TalbPacketContext c = Ctx(TalbMix32(f), Seconds(0)); // not RoCEv2
            c.roceDstQp = f;                                     // ignored
            NS_TEST_EXPECT_MSG_EQ(eecmp->SelectPath(c, sw.Candidates()),
                                  ecmp->SelectPath(c, sw.Candidates()),
                                  "flow " << f);
        }
    }
};

/**
 * Path pinning: port (dstLeafPort mod candidates) whatever the flow and the load. With 4 uplinks
 * and a job on ports 0 and 4 of 8-host racks (partially allocated), both destinations pin to
 * uplink 0 while the other three idle; ecmp splits the same two flows.
 */
class TalbPinDestinationSlice : public TestCase
{
  public:
    TalbPinDestinationSlice()
        : TestCase("TalbPinDestinationSlice: uplink = leaf port mod 4; ports 0 and 4 collide")
    {
    }

  private:
    void DoRun() override
    {
        FakeSwitch sw(4);
        Ptr<TalbLoadBalancer> pin = sw.Make("pin");
        const TalbCandidates cands = sw.Candidates();
        for (uint32_t slot = 0; slot < 16; ++slot)
        {
            for (uint32_t f = 0; f < 5; ++f)
            {
                TalbPacketContext c = Ctx(TalbMix32(f), Seconds(0));
                c.dstLeafPort = slot;
                sw.Fill(1 + f % 4, 3000); // load must not move it
                NS_TEST_EXPECT_MSG_EQ(pin->SelectPath(c, cands),
                                      cands.ports[slot % 4],
                                      "slot " << slot << " flow " << f);
            }
        }
        // Partially allocated racks: destinations only on ports 0 and 4.
        TalbPacketContext toPort0 = Ctx(TalbMix32(1), Seconds(0));
        toPort0.dstLeafPort = 0;
        TalbPacketContext toPort4 = Ctx(TalbMix32(2), Seconds(0));
        toPort4.dstLeafPort = 4;
        NS_TEST_EXPECT_MSG_EQ(pin->SelectPath(toPort0, cands),
                              pin->SelectPath(toPort4, cands),
                              "ports 0 and 4 share an uplink");
        // Two live candidates (a failed uplink): the rule is over what is left.
        const uint32_t two[] = {cands.ports[1], cands.ports[3]};
        TalbPacketContext c = Ctx(0, Seconds(0));
        c.dstLeafPort = 3;
        NS_TEST_EXPECT_MSG_EQ(pin->SelectPath(c, TalbCandidates{two, 2}), two[1], "3 mod 2");
    }
};

/**
 * The switch gives the balancers each destination's leaf port (TalbPacketContext dstLeafPort)
 * and a RoCEv2 packet's destination QP: on a 2 x 4 fabric pinned traffic from host 0 to hosts
 * 4 and 6 (ports 0 and 2 of leaf 1, 2 spines) leaves leaf 0 on one uplink only.
 */
class TalbPinOnFabric : public TestCase
{
  public:
    TalbPinOnFabric()
        : TestCase(
              "TalbPinOnFabric: hosts on leaf ports 0 and 2, 2 spines: one uplink carries both")
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Transport", StringValue("rdma"));
        f->SetAttribute("HostsPerLeaf", UintegerValue(4));
        f->SetAttribute("Leaves", UintegerValue(2));
        f->SetAttribute("Spines", UintegerValue(2));
        f->SetLoadBalancer("pin");
        f->Install();
        std::vector<Ptr<TalbRdmaMessageChannel>> channels;
        for (uint32_t dst : {4u, 6u})
        {
            Ptr<TalbRdmaMessageChannel> ch = CreateObject<TalbRdmaMessageChannel>();
            ch->Open(f->GetRdmaNic(0), f->GetRdmaNic(dst), TalbRdmaMessageChannel::SINGLE, 3);
            ch->Send(OnePart(dst, 100000));
            channels.push_back(ch);
        }
        Simulator::Run();
        const TalbPortState& up0 = f->GetLeafSwitch(0)->GetPort(4);
        const TalbPortState& up1 = f->GetLeafSwitch(0)->GetPort(5);
        NS_TEST_EXPECT_MSG_GT(up0.txPackets, 40u, "uplink to spine 0 (port 0 mod 2 = 2 mod 2)");
        NS_TEST_EXPECT_MSG_EQ(up1.txPackets, 0u, "uplink to spine 1 idles");
        Simulator::Destroy();
    }
};

/**
 * Queue pairs sharing one source port: through ecmp leaf 0 sends the 8 queue pairs of one
 * connection up one uplink; through eecmp, on more than one (of 4).
 */
class TalbEEcmpOnFabric : public TestCase
{
  public:
    TalbEEcmpOnFabric(const std::string& lb)
        : TestCase("TalbEEcmpOnFabric: 8 queue pairs of one source port through " + lb),
          m_lb(lb)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeRdmaFabric(m_lb, 4);
        Ptr<TalbRdmaMessageChannel> ch = CreateObject<TalbRdmaMessageChannel>();
        TalbRdmaMessageChannel::Options options;
        options.queuePairs = 8;
        options.sharedSourcePort = true;
        ch->Open(f->GetRdmaNic(0), f->GetRdmaNic(2), TalbRdmaMessageChannel::SINGLE, 3, options);
        for (uint32_t k = 0; k < 8; ++k)
        {
            ch->Send(OnePart(k + 1, 50000));
        }
        Simulator::Run();
        uint32_t used = UplinksUsed(f, 2, 4, 10);
        if (m_lb == "ecmp")
        {
            NS_TEST_EXPECT_MSG_EQ(used, 1u, "ecmp: one 5-tuple, one uplink");
        }
        else
        {
            NS_TEST_EXPECT_MSG_GT(used, 1u, "eecmp: the destination QPs spread");
        }
        Simulator::Destroy();
    }

    std::string m_lb;
};

/**
 * PLB's count: 3 congested rounds (> 0.5 marked) in a row repath, not 2; an uncongested round
 * (0.5 is not above the threshold) restarts the count, and so does a repath.
 */
class TalbPlbRounds : public TestCase
{
  public:
    TalbPlbRounds()
        : TestCase("TalbPlbRounds: repath on the 3rd congested round in a row, not before")
    {
    }

  private:
    void DoRun() override
    {
        TalbPlb plb; // the paper's defaults
        NS_TEST_ASSERT_MSG_EQ(plb.GetConfig().rounds, 3u, "default rounds");
        NS_TEST_ASSERT_MSG_EQ(plb.GetConfig().markFraction, 0.5, "default fraction");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), false, "1st");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(1.0), false, "2nd");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.5), false, "0.5 is not congested");
        NS_TEST_EXPECT_MSG_EQ(plb.GetCongestedRounds(), 0u, "count restarted");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.6), false, "1st again");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.6), false, "2nd again");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.6), true, "3rd: repath");
        NS_TEST_EXPECT_MSG_EQ(plb.GetCongestedRounds(), 0u, "a repath restarts the count");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.6), false, "1st on the new path");
        NS_TEST_EXPECT_MSG_EQ(plb.GetRepaths(), 1u, "repaths");

        TalbPlb::Config one;
        one.rounds = 1;
        one.markFraction = 0;
        TalbPlb eager(one);
        NS_TEST_EXPECT_MSG_EQ(eager.EndRound(0), false, "nothing marked");
        NS_TEST_EXPECT_MSG_EQ(eager.EndRound(0.01), true, "K = 1");

        for (uint32_t port = 0xC000; port < 0xC000 + 64; ++port)
        {
            uint16_t next = TalbPlb::NextSourcePort(port, port * 7);
            NS_TEST_EXPECT_MSG_NE(next, port, "a repath changes the port");
            NS_TEST_EXPECT_MSG_EQ((next & 0xC000), 0xC000, "in the NIC's range");
            NS_TEST_EXPECT_MSG_EQ(next, TalbPlb::NextSourcePort(port, port * 7), "deterministic");
        }
    }
};

/**
 * PLB as Linux runs it on TCP (forceRounds 12): after 3 congested rounds a connection repaths
 * only once idle (IdleRepath), or at once after 12; IdleRepath before 3 does nothing.
 */
class TalbPlbIdleRounds : public TestCase
{
  public:
    TalbPlbIdleRounds()
        : TestCase("TalbPlbIdleRounds: idle repath after 3 congested rounds, forced after 12")
    {
    }

  private:
    void DoRun() override
    {
        TalbPlb::Config linux;
        linux.forceRounds = 12;
        TalbPlb plb(linux);
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), false, "1st");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), false, "2nd");
        NS_TEST_EXPECT_MSG_EQ(plb.IdleRepath(), false, "idle after 2: stay");
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), false, "3rd: no repath while in flight");
        NS_TEST_EXPECT_MSG_EQ(plb.GetCongestedRounds(), 3u, "still counting");
        NS_TEST_EXPECT_MSG_EQ(plb.IdleRepath(), true, "idle after 3: repath");
        NS_TEST_EXPECT_MSG_EQ(plb.GetCongestedRounds(), 0u, "a repath restarts the count");
        NS_TEST_EXPECT_MSG_EQ(plb.IdleRepath(), false, "not twice");
        for (uint32_t k = 1; k < 12; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), false, "round " << k << " of 12");
        }
        NS_TEST_EXPECT_MSG_EQ(plb.EndRound(0.9), true, "12th: forced");
        NS_TEST_EXPECT_MSG_EQ(plb.GetRepaths(), 2u, "repaths");
        TalbPlb rdma; // forceRounds 0: EndRound decides at 3, IdleRepath never
        rdma.EndRound(0.9);
        rdma.EndRound(0.9);
        NS_TEST_EXPECT_MSG_EQ(rdma.IdleRepath(), false, "RDMA's PLB does not wait for idle");
        NS_TEST_EXPECT_MSG_EQ(rdma.EndRound(0.9), true, "RDMA's 3rd round");
    }
};

/**
 * PLB on a channel, driven deterministically: two senders on one 10 Gb/s host link (incast)
 * draw CNPs in every round; with a round of one CnpInterval each CNP round is fully marked, so
 * a queue pair repaths after every 3rd round with data and never before; without PLB, never.
 */
class TalbPlbChannelRepaths : public TestCase
{
  public:
    TalbPlbChannelRepaths(bool plb)
        : TestCase(std::string("TalbPlbChannelRepaths: incast, PLB ") + (plb ? "on" : "off")),
          m_plb(plb)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = MakeRdmaFabric("ecmp", 2);
        std::vector<Ptr<TalbRdmaMessageChannel>> channels;
        std::vector<uint16_t> firstPorts;
        for (uint32_t src : {0u, 1u})
        {
            Ptr<TalbRdmaMessageChannel> ch = CreateObject<TalbRdmaMessageChannel>();
            TalbRdmaMessageChannel::Options options;
            options.plb = m_plb;
            options.plbRound = MicroSeconds(50);
            ch->Open(f->GetRdmaNic(src),
                     f->GetRdmaNic(2),
                     TalbRdmaMessageChannel::SINGLE,
                     3,
                     options);
            firstPorts.push_back(ch->GetQueuePair()->GetSourcePort());
            ch->Send(OnePart(src + 1, 2000000));
            channels.push_back(ch);
        }
        // Rounds end every 50 us from the first send: none can repath before the third ends.
        uint64_t early = 0;
        Simulator::Schedule(MicroSeconds(150) - NanoSeconds(1), [&]() {
            for (const auto& ch : channels)
            {
                early += ch->GetRepaths();
            }
        });
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(early, 0u, "a repath before the third round ended");
        uint64_t repaths = 0;
        uint64_t cnps = 0;
        for (uint32_t k = 0; k < 2; ++k)
        {
            Ptr<TalbRdmaQueuePair> qp = channels[k]->GetQueuePair();
            repaths += qp->GetStats().repaths;
            cnps += qp->GetStats().cnpsReceived;
            NS_TEST_EXPECT_MSG_EQ(qp->GetStats().repaths, channels[k]->GetRepaths(), "counters");
            if (qp->GetStats().repaths > 0)
            {
                NS_TEST_EXPECT_MSG_NE(qp->GetSourcePort(), firstPorts[k], "new source port");
            }
        }
        NS_TEST_ASSERT_MSG_GT(cnps, 6u, "the incast must draw CNPs");
        if (m_plb)
        {
            NS_TEST_EXPECT_MSG_GT(repaths, 0u, "PLB repaths under sustained marks");
            // At most one repath per 3 rounds with CNPs.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(repaths, cnps / 3, "not before 3 congested rounds");
        }
        else
        {
            NS_TEST_EXPECT_MSG_EQ(repaths, 0u, "PLB off: no repath");
        }
        Simulator::Destroy();
    }

    bool m_plb;
};

/// The suite.
class TalbQpPathsTestSuite : public TestSuite
{
  public:
    TalbQpPathsTestSuite()
        : TestSuite("talb-qp-paths", UNIT)
    {
        AddTestCase(new TalbQpScalingRoundRobin(false), TestCase::QUICK);
        AddTestCase(new TalbQpScalingRoundRobin(true), TestCase::QUICK);
        AddTestCase(new TalbQpScalingSplit(), TestCase::QUICK);
        AddTestCase(new TalbEEcmpDestQp(), TestCase::QUICK);
        AddTestCase(new TalbPinDestinationSlice(), TestCase::QUICK);
        AddTestCase(new TalbPinOnFabric(), TestCase::QUICK);
        AddTestCase(new TalbEEcmpOnFabric("ecmp"), TestCase::QUICK);
        AddTestCase(new TalbEEcmpOnFabric("eecmp"), TestCase::QUICK);
        AddTestCase(new TalbPlbRounds(), TestCase::QUICK);
        AddTestCase(new TalbPlbIdleRounds(), TestCase::QUICK);
        AddTestCase(new TalbPlbChannelRepaths(false), TestCase::QUICK);
        AddTestCase(new TalbPlbChannelRepaths(true), TestCase::QUICK);
    }
};

static TalbQpPathsTestSuite g_talbQpPathsTestSuite;
