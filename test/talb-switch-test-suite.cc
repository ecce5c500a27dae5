// TalbSwitch: device-level forwarding without IPv4 on switches, all-pairs reachability (TaLB
// switches and the stock-routing fabric), and link failure.
#include "talb-test-fabric.h"

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <set>

using namespace ns3;

/// Every host reaches every other host with one UDP datagram; switches have no IPv4.
class TalbSwitchAllPairsTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbSwitchAllPairsTestCase(bool stock)
        : talbtest::SimulationTestCase(
              std::string("TalbSwitchAllPairs: 3 leaves x 2 hosts, 2 spines, ") +
              (stock ? "stock Ipv4GlobalRouting" : "TalbSwitch (no IPv4 on switches)")),
          m_stock(stock)
    {
    }

  private:
    void DoRun() override
    {
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("Leaves", UintegerValue(3));
        f->SetAttribute("HostsPerLeaf", UintegerValue(2));
        f->SetAttribute("StockRouting", BooleanValue(m_stock));
        f->SetLoadBalancer("ecmp");
        f->Install();
        uint32_t n = f->GetNHosts();
        for (uint32_t l = 0; l < 3; ++l)
        {
            NS_TEST_ASSERT_MSG_EQ(bool(f->GetLeafNode(l)->GetObject<Ipv4>()),
                                  m_stock,
                                  "leaf " << l << " IPv4 stack presence");
        }
        for (uint32_t s = 0; s < 2; ++s)
        {
            NS_TEST_ASSERT_MSG_EQ(bool(f->GetSpineNode(s)->GetObject<Ipv4>()),
                                  m_stock,
                                  "spine " << s << " IPv4 stack presence");
        }
        std::set<std::pair<uint32_t, uint32_t>> got; // (src address, dst host)
        std::vector<Ptr<Socket>> sockets;
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Socket> rx = Socket::CreateSocket(f->GetHost(i), UdpSocketFactory::GetTypeId());
            rx->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
            rx->SetRecvCallback(MakeBoundCallback(
                +[](std::set<std::pair<uint32_t, uint32_t>>* got, uint32_t me, Ptr<Socket> s) {
                    Address from;
                    while (Ptr<Packet> p = s->RecvFrom(from))
                    {
                        got->insert({InetSocketAddress::ConvertFrom(from).GetIpv4().Get(), me});
                    }
                },
                &got,
                i));
            sockets.push_back(rx);
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<Socket> tx = Socket::CreateSocket(f->GetHost(i), UdpSocketFactory::GetTypeId());
            tx->Bind();
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i != j)
                {
                    Simulator::Schedule(MicroSeconds(10 * (i * n + j)), [tx, f, j]() {
                        tx->SendTo(Create<Packet>(100),
                                   0,
                                   InetSocketAddress(f->GetHostAddress(j), 9));
                    });
                }
            }
            sockets.push_back(tx);
        }
        Simulator::Stop(MilliSeconds(10));
        Simulator::Run();
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                if (i != j)
                {
                    NS_TEST_EXPECT_MSG_EQ(got.count({f->GetHostAddress(i).Get(), j}),
                                          1,
                                          "host " << i << " did not reach host " << j);
                }
            }
        }
        if (!m_stock)
        {
            uint64_t forwarded = 0;
            for (uint32_t l = 0; l < 3; ++l)
            {
                const auto& st = f->GetLeafSwitch(l)->GetStats();
                NS_TEST_EXPECT_MSG_EQ(st.nReceived, st.nForwarded, "leaf " << l << " dropped");
                forwarded += st.nForwarded;
            }
            // Same leaf: 1 leaf hop; other leaf: 2 leaf hops (+ 1 spine hop).
            NS_TEST_EXPECT_MSG_EQ(forwarded, 6u * 1 + 24u * 2, "leaf forwarding count");
        }
    }

    bool m_stock;
};

/**
 * Four TCP bulk flows of \p size bytes between the two leaves of \p f (hosts 0 <-> 2, 1 <-> 3),
 * started 10-13 us in. \return their sinks, in flow order
 */
std::vector<Ptr<TalbBulkSink>>
InstallCrossLeafBulk(Ptr<TalbLeafSpineHelper> f, uint64_t size)
{
    std::vector<Ptr<TalbBulkSink>> sinks;
    uint32_t pairs[4][2] = {{0, 2}, {1, 3}, {2, 0}, {3, 1}};
    for (uint32_t k = 0; k < 4; ++k)
    {
        uint16_t port = 7000 + k;
        TalbBulkSinkHelper sink(InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.push_back(DynamicCast<TalbBulkSink>(sink.Install(f->GetHost(pairs[k][1])).Get(0)));
        BulkSendHelper bulk("ns3::TcpSocketFactory",
                            InetSocketAddress(f->GetHostAddress(pairs[k][1]), port));
        bulk.SetAttribute("MaxBytes", UintegerValue(size));
        bulk.Install(f->GetHost(pairs[k][0])).Start(MicroSeconds(10 + k));
    }
    return sinks;
}

/// A leaf-spine link fails mid-run: it carries nothing afterwards and every flow completes.
class TalbSwitchLinkFailureTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbSwitchLinkFailureTestCase(std::string lb)
        : talbtest::SimulationTestCase(
              "TalbSwitchLinkFailure: " + lb +
              ", link leaf 0 - spine 1 fails at 2 ms, 4 TCP flows of 2 MB complete"),
          m_lb(lb)
    {
    }

  private:
    void DoRun() override
    {
        TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
        f->SetLoadBalancer(m_lb);
        Time failAt = MilliSeconds(2);
        f->SetLinkFailure(0, 1, failAt);
        f->Install();
        f->AssignStreams(1);
        const uint64_t size = 2000000;
        std::vector<Ptr<TalbBulkSink>> sinks = InstallCrossLeafBulk(f, size);
        // Packets entering the failed link's devices (MacTx), before and after the failure.
        uint64_t before = 0;
        uint64_t after = 0;
        auto count = +[](uint64_t* b, uint64_t* a, Time t, Ptr<const Packet>) {
            ++*(Simulator::Now() < t ? b : a);
        };
        f->GetUplinkDevice(0, 1)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(count, &before, &after, failAt));
        f->GetDownlinkDevice(1, 0)->TraceConnectWithoutContext(
            "MacTx",
            MakeBoundCallback(count, &before, &after, failAt));
        Simulator::Stop(MilliSeconds(100));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(before, 0u, "the link carried nothing before failing");
        NS_TEST_ASSERT_MSG_EQ(after, 0u, "the failed link carried packets");
        NS_TEST_ASSERT_MSG_EQ(f->IsLinkUp(0, 1), false, "link state");
        NS_TEST_ASSERT_MSG_EQ(f->GetLeafSwitch(0)->GetRoute(2).size(), 1, "leaf 0 candidates");
        NS_TEST_ASSERT_MSG_EQ(f->GetLeafSwitch(1)->GetRoute(0).size(), 1, "leaf 1 candidates");
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(sinks[k]->GetTotalRx(), size, "flow " << k << " incomplete");
        }
    }

    std::string m_lb;
};

/**
 * A failure the switches detect 3 ms late (FailureDetection): from the failure at 2 ms until
 * 5 ms they keep both candidates and send into the dead link (a blackhole, counted as failed
 * link drops); from 5 ms on the link is out of their routes and carries nothing, and every flow
 * completes.
 */
class TalbSwitchLinkFailureDetectionTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbSwitchLinkFailureDetectionTestCase()
        : talbtest::SimulationTestCase(
              "TalbSwitchLinkFailureDetection: ecmp, link leaf 0 - spine 1 fails at 2 ms, "
              "withdrawn 3 ms later; a blackhole in between, 4 TCP flows of 2 MB complete")
    {
    }

  private:
    struct Counts
    {
        Time failAt;
        Time withdrawnAt;
        uint64_t blackholed{0}; //!< packets sent into the link between the two
        uint64_t afterwards{0}; //!< packets sent into the link once withdrawn
    };

    static void Count(Counts* c, Ptr<const Packet>)
    {
        Time now = Simulator::Now();
        if (now >= c->withdrawnAt)
        {
            ++c->afterwards;
        }
        else if (now >= c->failAt)
        {
            ++c->blackholed;
        }
    }

    void DoRun() override
    {
        TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
        f->SetAttribute("FailureDetection", TimeValue(MilliSeconds(3)));
        f->SetLoadBalancer("ecmp");
        Counts c;
        c.failAt = MilliSeconds(2);
        c.withdrawnAt = MilliSeconds(5);
        f->SetLinkFailure(0, 1, c.failAt);
        f->Install();
        f->AssignStreams(1);
        const uint64_t size = 2000000;
        std::vector<Ptr<TalbBulkSink>> sinks = InstallCrossLeafBulk(f, size);
        f->GetUplinkDevice(0, 1)->TraceConnectWithoutContext("MacTx",
                                                             MakeBoundCallback(&Count, &c));
        f->GetDownlinkDevice(1, 0)->TraceConnectWithoutContext("MacTx",
                                                               MakeBoundCallback(&Count, &c));
        std::vector<std::pair<bool, size_t>> seen; // link state, leaf 0's candidates to leaf 1
        for (double ms : {4.9, 5.1})
        {
            Simulator::Schedule(MicroSeconds(ms * 1000), [&seen, f]() {
                seen.emplace_back(f->IsLinkUp(0, 1), f->GetLeafSwitch(0)->GetRoute(2).size());
            });
        }
        Simulator::Stop(MilliSeconds(200));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(seen.size(), 2u, "probes");
        NS_TEST_EXPECT_MSG_EQ(seen[0].first, false, "the link is down at 4.9 ms");
        NS_TEST_EXPECT_MSG_EQ(seen[0].second, 2u, "still routed to at 4.9 ms");
        NS_TEST_EXPECT_MSG_EQ(seen[1].second, 1u, "withdrawn at 5.1 ms");
        NS_TEST_EXPECT_MSG_GT(c.blackholed, 0u, "nothing was sent into the undetected failure");
        NS_TEST_EXPECT_MSG_EQ(c.afterwards, 0u, "the withdrawn link carried packets");
        NS_TEST_EXPECT_MSG_GT(f->GetFailedLinkDrops(), 0u, "failed link drops");
        NS_TEST_EXPECT_MSG_EQ(f->GetLinkLossDrops(), 0u, "a failure is no random loss");
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(sinks[k]->GetTotalRx(), size, "flow " << k << " incomplete");
        }
    }
};

/**
 * A flapping leaf-spine link: down for 2 ms from 2 ms on, up for 2 ms, down again, ...; it
 * carries nothing while down, carries traffic again once up (routes restored) and every flow
 * completes.
 */
class TalbSwitchLinkFlapTestCase : public talbtest::SimulationTestCase
{
  public:
    TalbSwitchLinkFlapTestCase(std::string lb)
        : talbtest::SimulationTestCase("TalbSwitchLinkFlap: " + lb +
                                       ", link leaf 0 - spine 1 down 2 ms, up 2 ms, from 2 ms on, "
                                       "4 TCP flows of 10 MB complete"),
          m_lb(lb)
    {
    }

  private:
    struct Counts
    {
        Time start;
        Time period; //!< down + up
        Time down;
        uint64_t before{0}; //!< packets before the first failure
        uint64_t whileDown{0};
        uint64_t whileUp{0}; //!< after the first failure, in up phases
    };

    static void Count(Counts* c, Ptr<const Packet>)
    {
        Time now = Simulator::Now();
        if (now < c->start)
        {
            ++c->before;
            return;
        }
        int64_t phase = (now - c->start).GetNanoSeconds() % c->period.GetNanoSeconds();
        ++(phase < c->down.GetNanoSeconds() ? c->whileDown : c->whileUp);
    }

    void DoRun() override
    {
        TalbHostConfig::ApplyDefaults(1500); // the helper's default Mtu
        Ptr<TalbLeafSpineHelper> f = CreateObject<TalbLeafSpineHelper>();
        f->SetAttribute("FabricRate", DataRateValue(DataRate("10Gbps")));
        f->SetLoadBalancer(m_lb);
        Counts c;
        c.start = MilliSeconds(2);
        c.down = MilliSeconds(2);
        c.period = MilliSeconds(4);
        f->SetLinkFlap(0, 1, c.start, c.down, c.period - c.down);
        f->Install();
        f->AssignStreams(1);
        const uint64_t size = 10000000;
        std::vector<Ptr<TalbBulkSink>> sinks = InstallCrossLeafBulk(f, size);
        f->GetUplinkDevice(0, 1)->TraceConnectWithoutContext("MacTx",
                                                             MakeBoundCallback(&Count, &c));
        f->GetDownlinkDevice(1, 0)->TraceConnectWithoutContext("MacTx",
                                                               MakeBoundCallback(&Count, &c));
        // Link state and leaf 0's candidates towards leaf 1 (hosts 2, 3) mid-phase.
        std::vector<std::pair<bool, size_t>> seen;
        for (double ms : {3.0, 5.0, 7.0, 9.0})
        {
            Simulator::Schedule(MicroSeconds(ms * 1000), [&seen, f]() {
                seen.emplace_back(f->IsLinkUp(0, 1), f->GetLeafSwitch(0)->GetRoute(2).size());
            });
        }
        Simulator::Stop(MilliSeconds(200));
        Simulator::Run();
        NS_TEST_ASSERT_MSG_GT(c.before, 0u, "the link carried nothing before failing");
        NS_TEST_ASSERT_MSG_EQ(c.whileDown, 0u, "the link carried packets while down");
        NS_TEST_ASSERT_MSG_GT(c.whileUp, 0u, "the link carried nothing once back up");
        NS_TEST_ASSERT_MSG_EQ(seen.size(), 4u, "checks ran");
        for (size_t i = 0; i < seen.size(); ++i)
        {
            bool up = i % 2 == 1; // 3 ms down, 5 ms up, 7 ms down, 9 ms up
            NS_TEST_EXPECT_MSG_EQ(seen[i].first, up, "link state at check " << i);
            NS_TEST_EXPECT_MSG_EQ(seen[i].second, up ? 2u : 1u, "candidates at check " << i);
        }
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(sinks[k]->GetTotalRx(), size, "flow " << k << " incomplete");
        }
    }

    std::string m_lb;
};

/// The talb-switch suite.
class TalbSwitchTestSuite : public TestSuite
{
  public:
    TalbSwitchTestSuite()
        : TestSuite("talb-switch", UNIT)
    {
        AddTestCase(new TalbSwitchAllPairsTestCase(false), TestCase::QUICK);
        AddTestCase(new TalbSwitchAllPairsTestCase(true), TestCase::QUICK);
        for (const char* lb : {"ecmp", "rps", "letflow", "drill", "conga", "talb"})
        {
            AddTestCase(new TalbSwitchLinkFailureTestCase(lb), TestCase::QUICK);
        }
        for (const char* lb : {"ecmp", "drill", "talb"})
        {
            AddTestCase(new TalbSwitchLinkFlapTestCase(lb), TestCase::QUICK);
        }
        AddTestCase(new TalbSwitchLinkFailureDetectionTestCase(), TestCase::QUICK);
    }
};

static TalbSwitchTestSuite g_talbSwitchTestSuite;
