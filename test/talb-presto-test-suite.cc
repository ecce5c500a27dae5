// Presto through the switch: flowcell boundaries and round-robin order on synthetic ports, and
// on a two-leaf fabric what blind flowcell spraying does to one TCP connection: in order on
// equal paths, reordered (and retransmitted) when one path is slower.
#include "talb-test-fabric.h"
#include "talb-test-frames.h"
#include "talb-test-ports.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("TalbPrestoTestSuite");

using talbtest::TestPorts;

/// Flowcells of FlowcellBytes, round-robin from a per-flow offset; one Reroute per boundary.
class TalbPrestoFlowcellTestCase : public TestCase
{
  public:
    TalbPrestoFlowcellTestCase()
        : TestCase("TalbPrestoFlowcell: 16 KB cells of 1500 B packets go round-robin over 3 "
                   "uplinks from a per-flow offset")
    {
    }

  private:
    void DoRun() override
    {
        TestPorts sw(3);
        Ptr<TalbLoadBalancer> lb =
            CreateObjectWithAttributes<TalbPrestoLb>("FlowcellBytes", UintegerValue(16384));
        lb->Attach(sw.Info(true), &sw.ports);
        uint64_t reroutes = 0;
        lb->TraceConnectWithoutContext(
            "Reroute",
            MakeBoundCallback(
                +[](uint64_t* n, uint32_t, uint32_t, uint32_t, uint32_t) { ++*n; },
                &reroutes));
        std::map<uint32_t, uint32_t> starts;
        for (uint32_t flow = 1; flow <= 30; ++flow)
        {
            TalbPacketContext c;
            c.flowHash = TalbMix32(flow);
            c.size = 1500;
            c.dstLeaf = 1;
            uint32_t first = 0;
            // 10 packets (15000 B) fit a 16 KB cell; the 11th starts the next cell.
            for (uint32_t k = 0; k < 60; ++k)
            {
                c.now = MicroSeconds(k);
                uint32_t port = lb->SelectPath(c, sw.All());
                if (k == 0)
                {
                    first = port;
                    ++starts[port];
                }
                uint32_t cell = k / 10;
                NS_TEST_ASSERT_MSG_EQ(port,
                                      sw.uplinks[(first - 1 + cell) % 3],
                                      "flow " << flow << " packet " << k);
            }
        }
        NS_TEST_ASSERT_MSG_EQ(reroutes, 30u * 5, "one reroute per flowcell boundary");
        NS_TEST_ASSERT_MSG_EQ(lb->GetStats().nReroutes, reroutes, "stats vs trace");
        NS_TEST_ASSERT_MSG_EQ(starts.size(), 3u, "flows start at different offsets");
    }
};

/// One TCP connection over a two-leaf, two-spine fabric with Presto at the leaves.
class TalbPrestoFabricTestCase : public talbtest::SimulationTestCase
{
  public:
    /// \param slowRemote make the spine 1 - leaf 1 link 2.5 Gb/s (of 10)
    explicit TalbPrestoFabricTestCase(bool slowRemote)
        : talbtest::SimulationTestCase(
              slowRemote ? "TalbPrestoFabric: with a slow remote path one TCP flow is "
                           "still sprayed half-and-half, reordered, and delivered"
                         : "TalbPrestoFabric: on equal idle paths one TCP flow alternates "
                           "64 KB flowcells over both uplinks, nearly in order"),
          m_slowRemote(slowRemote)
    {
    }

  private:
    /// What the test sees of the flow.
    struct Seen
    {
        uint32_t lastUplink{UINT32_MAX};
        uint64_t runBytes{0};
        std::vector<uint64_t> runs; //!< bytes per run of packets on one uplink (leaf 0)
        uint64_t earlyCloses{0};    //!< runs that ended although the next packet fitted
        std::map<uint32_t, uint64_t> uplinkBytes;
        uint32_t highestEnd{0}; //!< highest sequence end arrived at leaf 1's host port
        uint64_t outOfOrder{0}; //!< data segments arriving below highestEnd
        uint64_t dataSegments{0};
        uint32_t highestSent{0};     //!< sender: highest sequence end sent
        uint64_t retransmissions{0}; //!< sender: segments below highestSent
        uint64_t recoveries{0};      //!< sender: entries into fast recovery (3 dup ACKs)
        uint64_t timeouts{0};        //!< sender: entries into loss state (RTO)
    };

    /// \return the IPv4 size of a packet the switch has just sent (with its PPP header)
    static uint32_t IpSize(Ptr<const Packet> p)
    {
        return p->GetSize() - PppHeader().GetSerializedSize();
    }

    static void LeafZero(Seen* s, Ptr<const Packet> p, uint32_t, uint32_t out)
    {
        if (out == 0)
        {
            return; // port 0 leads to the host
        }
        if (out != s->lastUplink && s->lastUplink != UINT32_MAX)
        {
            // A cell closes only when the next packet does not fit.
            s->earlyCloses += s->runBytes + IpSize(p) <= 65536;
            s->runs.push_back(s->runBytes);
            s->runBytes = 0;
        }
        s->lastUplink = out;
        s->runBytes += IpSize(p);
        s->uplinkBytes[out] += IpSize(p);
    }

    static void LeafOne(Seen* s, Ptr<const Packet> p, uint32_t, uint32_t out)
    {
        if (out != 0 || IpSize(p) < 500)
        {
            return;
        }
        talbtest::TcpFrame f = talbtest::StripTcpFrame(p);
        uint32_t seq = f.tcp.GetSequenceNumber().GetValue();
        uint32_t end = seq + f.payload->GetSize();
        ++s->dataSegments;
        if (seq < s->highestEnd)
        {
            ++s->outOfOrder;
        }
        s->highestEnd = std::max(s->highestEnd, end);
    }

    static void SenderTx(Seen* s, Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase>)
    {
        if (p->GetSize() == 0)
        {
            return;
        }
        uint32_t seq = h.GetSequenceNumber().GetValue();
        if (seq < s->highestSent)
        {
            ++s->retransmissions;
        }
        s->highestSent = std::max(s->highestSent, seq + p->GetSize());
    }

    static void SenderState(Seen* s,
                            TcpSocketState::TcpCongState_t,
                            TcpSocketState::TcpCongState_t now)
    {
        s->recoveries += now == TcpSocketState::CA_RECOVERY;
        s->timeouts += now == TcpSocketState::CA_LOSS;
    }

    static void ConnectSender(Seen* s, uint32_t node)
    {
        std::string base =
            "/NodeList/" + std::to_string(node) + "/$ns3::TcpL4Protocol/SocketList/*/";
        Config::ConnectWithoutContext(base + "Tx", MakeBoundCallback(&SenderTx, s));
        Config::ConnectWithoutContext(base + "CongState", MakeBoundCallback(&SenderState, s));
    }

    void DoRun() override
    {
        const uint64_t bytes = 4000000;
        TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Leaves", UintegerValue(2));
        f->SetAttribute("Spines", UintegerValue(2));
        f->SetAttribute("HostsPerLeaf", UintegerValue(1));
        f->SetAttribute("HostRate", DataRateValue(DataRate("10Gbps")));
        f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
        f->SetLoadBalancer("presto");
        if (m_slowRemote)
        {
            f->SetLinkRate(1, 1, DataRate("2500Mbps"));
        }
        f->Install();
        f->AssignStreams(5);
        TalbBulkSinkHelper sinkHelper(InetSocketAddress(Ipv4Address::GetAny(), 5000));
        Ptr<TalbBulkSink> sink =
            DynamicCast<TalbBulkSink>(sinkHelper.Install(f->GetHost(1)).Get(0));
        BulkSendHelper bulk("ns3::TcpSocketFactory", InetSocketAddress(f->GetHostAddress(1), 5000));
        bulk.SetAttribute("MaxBytes", UintegerValue(bytes));
        bulk.Install(f->GetHost(0)).Start(MicroSeconds(10));

        Seen s;
        f->GetLeafSwitch(0)->TraceConnectWithoutContext("Forward",
                                                        MakeBoundCallback(&LeafZero, &s));
        f->GetLeafSwitch(1)->TraceConnectWithoutContext("Forward", MakeBoundCallback(&LeafOne, &s));
        Simulator::Schedule(MicroSeconds(11), &ConnectSender, &s, f->GetHost(0)->GetId());
        Simulator::Stop(MilliSeconds(50));
        Simulator::Run();
        s.runs.push_back(s.runBytes);

        NS_TEST_ASSERT_MSG_EQ(sink->GetTotalRx(), bytes, "the flow did not complete");
        NS_TEST_ASSERT_MSG_EQ(s.uplinkBytes.size(), 2u, "one flow uses both uplinks");
        NS_LOG_INFO((m_slowRemote ? "slow remote" : "equal paths")
                    << ": " << s.runs.size() << " runs, " << s.dataSegments << " segments, "
                    << s.outOfOrder << " out of order, " << s.retransmissions << " retransmitted, "
                    << s.recoveries << " fast recoveries, " << s.timeouts
                    << " timeouts, uplink bytes " << s.uplinkBytes.begin()->second << " / "
                    << s.uplinkBytes.rbegin()->second);
        // Every flowcell boundary is a run boundary: runs hold at most 64 KB of IP bytes, and
        // a run ends only when its next packet would not fit (leaf 0's uplinks carry only this
        // flow's host 0 -> host 1 direction, so every byte counted is a byte of its cells).
        NS_TEST_ASSERT_MSG_GT(s.runs.size(), 4000000u / 65536, "too few flowcells");
        for (size_t i = 0; i < s.runs.size(); ++i)
        {
            NS_TEST_ASSERT_MSG_LT_OR_EQ(s.runs[i], 65536u, "run " << i << " exceeds a flowcell");
        }
        NS_TEST_ASSERT_MSG_EQ(s.earlyCloses, 0u, "a flowcell closed before it was full");
        uint64_t total = s.uplinkBytes.begin()->second + s.uplinkBytes.rbegin()->second;
        uint64_t minor = std::min(s.uplinkBytes.begin()->second, s.uplinkBytes.rbegin()->second);
        // Presto is oblivious: half the cells go to the slow path as well.
        NS_TEST_ASSERT_MSG_GT(minor, total * 45 / 100, "cells not split evenly");
        if (m_slowRemote)
        {
            NS_TEST_ASSERT_MSG_GT(s.outOfOrder, 0u, "a 4x slower path must reorder");
        }
        else
        {
            // Equal idle paths keep the cells nearly in order: a handful of segments overtaken
            // at cell boundaries, never three duplicate ACKs.
            NS_TEST_ASSERT_MSG_LT(s.outOfOrder, s.dataSegments / 100, "equal paths reordered");
            NS_TEST_ASSERT_MSG_EQ(s.retransmissions, 0u, "equal idle paths retransmitted");
            NS_TEST_ASSERT_MSG_EQ(s.recoveries, 0u, "equal idle paths caused fast recovery");
        }
        Simulator::Destroy();
        Config::Reset();
    }

    bool m_slowRemote;
};

class TalbPrestoTestSuite : public TestSuite
{
  public:
    TalbPrestoTestSuite()
        : TestSuite("talb-presto", UNIT)
    {
        AddTestCase(new TalbPrestoFlowcellTestCase, TestCase::QUICK);
        AddTestCase(new TalbPrestoFabricTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbPrestoFabricTestCase(true), TestCase::QUICK);
    }
};

static TalbPrestoTestSuite g_talbPrestoTestSuite;
