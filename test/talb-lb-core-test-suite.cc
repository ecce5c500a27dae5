// The ns-3 selectors against the decision core (model/lb/core) configured directly: both are
// driven with the same randomized packet sequence (flows, tensors of every priority, FIRST/LAST,
// idle gaps, queue changes, candidate subsets), each on its own copy of the port state and with
// the same RNG stream, and must choose the same port for every packet and report the same
// reroutes, evictions and table statistics. The selectors are wrappers of the core
// (TalbCorePolicyLb): this checks their attribute mapping, RNG streams and events. Before they
// were, the same suite held the core against the hand-written selectors, decision for decision.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/talb-core-policy-lb.h"
#include "ns3/talb-lb-core-drill.h"
#include "ns3/talb-lb-core-ecmp.h"
#include "ns3/talb-lb-core-letflow.h"
#include "ns3/talb-lb-core-rps.h"
#include "ns3/talb-lb-core-tensor-aware.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <random>

using namespace ns3;

namespace
{

constexpr uint32_t N_UPLINKS = 4;
constexpr int64_t STREAM = 23;
constexpr uint32_t SWITCH_ID = 7;

/// A leaf's port table without a switch: port 0 to a host, ports 1..4 uplinks of mixed rates.
struct Rig
{
    std::vector<TalbPortState> ports;

    Rig()
    {
        const char* rates[] = {"10Gbps", "10Gbps", "40Gbps", "10Gbps", "2500Mbps"};
        ports.resize(1 + N_UPLINKS);
        for (uint32_t p = 0; p < ports.size(); ++p)
        {
            Ptr<DropTailQueue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            q->SetMaxSize(QueueSize("1000000p"));
            ports[p].queue = q;
            ports[p].rate = DataRate(rates[p]);
            ports[p].uplink = p > 0;
            ports[p].peer = p > 0 ? p - 1 : 0;
        }
    }

    void Fill(uint32_t port, uint32_t bytes)
    {
        ports[port].queue->Enqueue(Create<Packet>(bytes));
    }

    void Drain(uint32_t port, uint32_t packets)
    {
        for (uint32_t i = 0; i < packets && ports[port].queue->Dequeue(); ++i)
        {
        }
    }

    /// What TalbSwitch does after a selection: the port's DRE counts the packet.
    void Sent(uint32_t port, uint32_t bytes, Time now)
    {
        ports[port].dre.Add(bytes, now);
    }
};

/// Counts the core's notifications like the ns-3 traces count theirs.
struct CountingEvents : public talb::lb::Events
{
    uint64_t reroutes{0};
    uint64_t evictions{0};
    uint64_t lastFrom{0};
    uint64_t lastTo{0};

    void Rerouted(const talb::lb::PacketInfo&, uint32_t from, uint32_t to) override
    {
        ++reroutes;
        lastFrom = from;
        lastTo = to;
    }

    void Evicted(uint32_t, uint32_t) override
    {
        ++evictions;
    }
};

/// One policy on both sides: an ns-3 selector on rig A, the core policy on rig B.
struct Pair
{
    Rig a;
    Rig b;
    Ptr<TalbLoadBalancer> ns3;
    TalbCorePortView view;
    TalbCoreRandom random;         //!< stream STREAM, as the selector's
    TalbCoreRandom fallbackRandom; //!< stream STREAM + 1, as TaLB's fallback's
    CountingEvents events;
    CountingEvents fallbackEvents;
    std::unique_ptr<talb::lb::Policy> core;
    std::unique_ptr<talb::lb::Policy> fallback;
    uint64_t ns3Evictions{0};
    uint64_t ns3FallbackReroutes{0};

    Pair()
        : view(&b.ports)
    {
        random.Create();
        fallbackRandom.Create();
        random.GetVariable()->SetStream(STREAM);
        fallbackRandom.GetVariable()->SetStream(STREAM + 1);
    }

    void MakeNs3(const std::string& name,
                 const std::vector<std::pair<std::string, std::string>>& attrs)
    {
        ObjectFactory f;
        f.SetTypeId(TalbLoadBalancer::GetRegistry().Get(name));
        for (const auto& [k, v] : attrs)
        {
            f.Set(k, StringValue(v));
        }
        ns3 = f.Create<TalbLoadBalancer>();
        TalbSwitchInfo info;
        info.switchId = SWITCH_ID;
        info.isLeaf = true;
        info.nLeaves = 2;
        info.nSpines = N_UPLINKS;
        ns3->Attach(info, &a.ports);
        ns3->AssignStreams(STREAM);
        ns3->TraceConnectWithoutContext("TableEvict",
                                        MakeBoundCallback(
                                            +[](uint64_t* n, uint32_t, uint32_t) { ++*n; },
                                            &ns3Evictions));
    }

    void BindCore(talb::lb::Policy* policy)
    {
        core.reset(policy);
        core->Bind(&view, &random, &events);
    }

    void BindFallback(talb::lb::Policy* policy)
    {
        fallback.reset(policy);
        fallback->Bind(&view, &fallbackRandom, &fallbackEvents);
    }
};

/// One packet of the driven sequence.
struct Step
{
    uint32_t flowHash;
    uint32_t size;
    bool labelled;
    talb_label label;
    Time now;
    std::vector<uint32_t> candidates;
};

/**
 * The randomized driver: flows carry consecutive tensors (random priority, length, FIRST on the
 * first packet, LAST on the last unless dropped), interleaved with unlabelled flows; time moves
 * by small steps with occasional idle gaps; queues fill and drain; a tenth of the packets see
 * only a subset of the uplinks (a failed link, another destination).
 */
class Driver
{
  public:
    explicit Driver(uint32_t seed)
        : m_rng(seed)
    {
        for (uint32_t f = 0; f < N_FLOWS; ++f)
        {
            m_flows[f].hash = static_cast<uint32_t>(m_rng());
            m_flows[f].labelled = f % 4 != 3;
            NewTensor(m_flows[f]);
        }
    }

    /// Mutates both rigs' queues the same way, then returns the next packet.
    Step Next(Rig& a, Rig& b)
    {
        uint32_t r = Uniform(1000);
        if (r < 5)
        {
            m_now += MicroSeconds(50 + Uniform(20000)); // idle: flowlets and tensors age out
        }
        else
        {
            m_now += NanoSeconds(Uniform(3000));
        }
        if (Uniform(10) < 3)
        {
            uint32_t port = 1 + Uniform(N_UPLINKS);
            uint32_t bytes = 64 + Uniform(9000);
            a.Fill(port, bytes);
            b.Fill(port, bytes);
        }
        if (Uniform(10) < 3)
        {
            uint32_t port = 1 + Uniform(N_UPLINKS);
            uint32_t packets = 1 + Uniform(4);
            a.Drain(port, packets);
            b.Drain(port, packets);
        }
        Flow& f = m_flows[Uniform(N_FLOWS)];
        Step s;
        s.flowHash = f.hash;
        s.size = 64 + Uniform(1437);
        s.labelled = f.labelled;
        s.label = talb_label{f.tensor, f.priority, 0};
        if (f.sent == 0)
        {
            s.label.flags |= TALB_FLAG_FIRST;
        }
        if (++f.sent == f.length)
        {
            if (Uniform(4) != 0) // a quarter of the tensors never show their LAST packet
            {
                s.label.flags |= TALB_FLAG_LAST;
            }
            NewTensor(f);
        }
        s.now = m_now;
        for (uint32_t p = 1; p <= N_UPLINKS; ++p)
        {
            s.candidates.push_back(p);
        }
        if (Uniform(10) == 0)
        {
            // A subset of 1..N-1 uplinks, in a shuffled order.
            std::shuffle(s.candidates.begin(), s.candidates.end(), m_rng);
            s.candidates.resize(1 + Uniform(N_UPLINKS - 1));
        }
        return s;
    }

  private:
    static constexpr uint32_t N_FLOWS = 24;

    struct Flow
    {
        uint32_t hash{0};
        bool labelled{true};
        uint32_t tensor{0};
        uint8_t priority{0};
        uint32_t length{0};
        uint32_t sent{0};
    };

    uint32_t Uniform(uint32_t n)
    {
        return std::uniform_int_distribution<uint32_t>(0, n - 1)(m_rng);
    }

    void NewTensor(Flow& f)
    {
        f.tensor = talb_make_tensor_id(1, m_nextTensor++);
        f.priority = static_cast<uint8_t>(Uniform(TALB_NUM_PRIORITIES));
        f.length = 1 + Uniform(200);
        f.sent = 0;
    }

    std::mt19937 m_rng;
    Flow m_flows[N_FLOWS];
    uint32_t m_nextTensor{1};
    Time m_now{MicroSeconds(1)};
};

/**
 * Drives one policy pair through \p packets packets and checks every decision. The case is
 * parameterized by the ns-3 policy name and attributes; \p makeCore builds the matching core
 * policy (and its fallback) from the same values.
 */
class TalbLbCoreEquivalenceTestCase : public TestCase
{
  public:
    using Attrs = std::vector<std::pair<std::string, std::string>>;
    using CoreMaker = std::function<void(Pair&)>;

    TalbLbCoreEquivalenceTestCase(const std::string& what,
                                  const std::string& policy,
                                  const Attrs& attrs,
                                  CoreMaker makeCore,
                                  uint32_t packets = 60000)
        : TestCase("TalbLbCoreEquivalence: " + what + ": core = ns-3 selector on " +
                   std::to_string(packets) + " packets"),
          m_policy(policy),
          m_attrs(attrs),
          m_makeCore(makeCore),
          m_packets(packets)
    {
    }

  private:
    void DoRun() override
    {
        RngSeedManager::SetSeed(3);
        RngSeedManager::SetRun(1);
        Pair pair;
        pair.MakeNs3(m_policy, m_attrs);
        m_makeCore(pair);
        Ptr<TalbTensorAwareLb> talbLb = DynamicCast<TalbTensorAwareLb>(pair.ns3);
        auto* talbCore = dynamic_cast<talb::lb::TensorAwareV1*>(pair.core.get());
        NS_TEST_ASSERT_MSG_EQ((talbLb == nullptr), (talbCore == nullptr), "policy kinds differ");

        Driver driver(1234);
        std::map<uint32_t, uint64_t> perPort;
        for (uint32_t i = 0; i < m_packets; ++i)
        {
            Step s = driver.Next(pair.a, pair.b);
            TalbCandidates candidates{s.candidates.data(), uint32_t(s.candidates.size())};

            TalbPacketContext ctx;
            ctx.flowHash = s.flowHash;
            ctx.size = s.size;
            ctx.srcLeaf = 0;
            ctx.dstLeaf = 1;
            ctx.hasLabel = s.labelled;
            ctx.label = s.label;
            ctx.now = s.now;
            pair.ns3->PacketIn(ctx);
            uint32_t ns3Port = pair.ns3->SelectPath(ctx, candidates);
            pair.ns3->PacketOut(ctx, ns3Port);
            pair.a.Sent(ns3Port, s.size, s.now);

            talb::lb::PacketInfo info;
            info.flowHash = s.flowHash;
            info.size = s.size;
            info.srcLeaf = 0;
            info.dstLeaf = 1;
            info.hasLabel = s.labelled;
            info.label = s.label;
            info.nowNs = TalbCoreNs(s.now);
            uint32_t corePort =
                pair.core->Select(info, talb::lb::Candidates{candidates.ports, candidates.count});
            pair.b.Sent(corePort, s.size, s.now);

            NS_TEST_ASSERT_MSG_EQ(
                corePort,
                ns3Port,
                "packet " << i << " (flow " << s.flowHash << ", tensor " << s.label.tensor_id
                          << ", priority " << unsigned(s.label.priority) << ", labelled "
                          << s.labelled << ") at " << s.now.GetNanoSeconds() << " ns");
            ++perPort[corePort];
        }
        // Every uplink was used: the sequence exercised real choices, not one port.
        NS_TEST_ASSERT_MSG_EQ(perPort.size(), N_UPLINKS, "not every uplink chosen");

        uint64_t ns3Reroutes = pair.ns3->GetStats().nReroutes;
        uint64_t coreReroutes = pair.events.reroutes;
        if (talbLb)
        {
            // TaLB's fallback is its own ns-3 object, counting its own reroutes.
            const auto& s = talbLb->GetTableStats();
            const auto& c = talbCore->GetTableStats();
            NS_TEST_ASSERT_MSG_EQ(c.nInserted, s.nInserted, "inserted");
            NS_TEST_ASSERT_MSG_EQ(c.nFreedOnLast, s.nFreedOnLast, "freed on LAST");
            NS_TEST_ASSERT_MSG_EQ(c.nAgedOut, s.nAgedOut, "aged out");
            NS_TEST_ASSERT_MSG_EQ(c.nEvicted, s.nEvicted, "evicted");
            NS_TEST_ASSERT_MSG_EQ(c.nMidTensorMoves, s.nMidTensorMoves, "mid-tensor moves");
            NS_TEST_ASSERT_MSG_EQ(c.nFallback, s.nFallback, "fallback");
            NS_TEST_ASSERT_MSG_EQ(pair.events.evictions, pair.ns3Evictions, "eviction events");
            NS_TEST_ASSERT_MSG_EQ(talbCore->HeldEntries(), talbLb->GetHeldEntries(), "held");
            // The sequence reached every branch of the table.
            NS_TEST_ASSERT_MSG_GT(s.nInserted, 0u, "no tensor placed");
            NS_TEST_ASSERT_MSG_GT(s.nFallback, 0u, "no unlabelled packet");
            NS_TEST_ASSERT_MSG_GT(s.nFreedOnLast, 0u, "no LAST packet freed an entry");
            NS_TEST_ASSERT_MSG_GT(s.nAgedOut, 0u, "no entry aged out");
            UintegerValue threshold;
            talbLb->GetAttribute("HighPriorityThreshold", threshold);
            if (threshold.Get() > 0)
            {
                NS_TEST_ASSERT_MSG_GT(s.nMidTensorMoves, 0u, "no high-priority tensor moved");
            }
            UintegerValue tableSize;
            talbLb->GetAttribute("TableSize", tableSize);
            if (tableSize.Get() <= 16)
            {
                NS_TEST_ASSERT_MSG_GT(s.nEvicted, 0u, "a 16-slot table never evicted");
            }
        }
        NS_TEST_ASSERT_MSG_EQ(coreReroutes, ns3Reroutes, "reroute events");
    }

    std::string m_policy;
    Attrs m_attrs;
    CoreMaker m_makeCore;
    uint32_t m_packets;
};

// ---- core policies built from the same values as the ns-3 attributes ---------------------------

TalbLbCoreEquivalenceTestCase::CoreMaker
Ecmp(uint32_t salt)
{
    return [salt](Pair& p) {
        auto* e = new talb::lb::Ecmp();
        e->Configure({salt, SWITCH_ID, TalbEcmpLb::GetRunKey()});
        p.BindCore(e);
    };
}

talb::lb::Policy*
NewLetFlow(int64_t timeoutNs, uint32_t tableSize)
{
    auto* l = new talb::lb::LetFlow();
    NS_ABORT_UNLESS(l->Configure({timeoutNs, tableSize}));
    return l;
}

talb::lb::Policy*
NewDrill(uint32_t samples, uint32_t memory)
{
    auto* d = new talb::lb::Drill();
    NS_ABORT_UNLESS(d->Configure({samples, memory}));
    return d;
}

/// TaLB with \p config and the fallback named \p fallback (ns-3 defaults for its parameters).
TalbLbCoreEquivalenceTestCase::CoreMaker
TensorAware(talb::lb::TensorAwareV1::Config config, const std::string& fallback)
{
    return [config, fallback](Pair& p) {
        if (fallback == "ecmp")
        {
            auto* e = new talb::lb::Ecmp();
            e->Configure({0, SWITCH_ID, TalbEcmpLb::GetRunKey()});
            p.BindFallback(e);
        }
        else if (fallback == "rps")
        {
            p.BindFallback(new talb::lb::Rps());
        }
        else if (fallback == "drill")
        {
            p.BindFallback(NewDrill(2, 1));
        }
        else
        {
            p.BindFallback(NewLetFlow(500000, 4096));
        }
        auto* t = new talb::lb::TensorAwareV1();
        NS_ABORT_UNLESS(t->Configure(config, 1 + N_UPLINKS));
        t->SetFallback(p.fallback.get());
        p.BindCore(t);
    };
}

talb::lb::TensorAwareV1::Config
TalbConfig(uint8_t threshold,
           double margin,
           int64_t idleNs,
           uint32_t tableSize,
           uint32_t probeLimit)
{
    talb::lb::TensorAwareV1::Config c;
    c.highThreshold = threshold;
    c.moveMarginBytes = margin;
    c.idleTimeoutNs = idleNs;
    c.tableSize = tableSize;
    c.probeLimit = probeLimit;
    return c;
}

TalbLbCoreEquivalenceTestCase::Attrs
TalbAttrs(uint8_t threshold,
          double margin,
          const std::string& idle,
          uint32_t tableSize,
          uint32_t probeLimit,
          const std::string& fallback)
{
    return {{"Version", "1"},
            {"HighPriorityThreshold", std::to_string(threshold)},
            {"MoveMargin", std::to_string(margin)},
            {"IdleTimeout", idle},
            {"TableSize", std::to_string(tableSize)},
            {"ProbeLimit", std::to_string(probeLimit)},
            {"Fallback", fallback}};
}

} // namespace

//// The core's DRE reproduces ns-3's TalbDre bit for bit, given ns-3's value of one ns in seconds
/// (which its int64x64 arithmetic makes a few ulps below 1e-9).
class TalbLbCoreDreTestCase : public TestCase
{
  public:
    TalbLbCoreDreTestCase()
        : TestCase("TalbLbCoreDre: core DRE = TalbDre bit for bit over 100000 random adds")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_ASSERT_MSG_EQ(Time(1).GetNanoSeconds(), 1, "the simulator's resolution is 1 ns");
        TalbDre ns3Dre;
        ns3Dre.Configure(MicroSeconds(20), 0.1);
        talb::lb::Dre coreDre;
        NS_TEST_ASSERT_MSG_EQ(coreDre.Configure(20000, 0.1, Time(1).GetSeconds()),
                              true,
                              "configure");
        std::mt19937 rng(5);
        Time now = MicroSeconds(3);
        DataRate rate("10Gbps");
        for (int i = 0; i < 100000; ++i)
        {
            now += NanoSeconds(rng() % (i % 100 == 0 ? 200000 : 3000));
            uint32_t bytes = rng() % 9000;
            ns3Dre.Add(bytes, now);
            coreDre.Add(bytes, now.GetNanoSeconds());
            if (rng() % 3 == 0)
            {
                NS_TEST_ASSERT_MSG_EQ(coreDre.Bytes(now.GetNanoSeconds()),
                                      ns3Dre.GetBytes(now),
                                      "bytes at " << now);
                NS_TEST_ASSERT_MSG_EQ(coreDre.Utilization(now.GetNanoSeconds(), rate.GetBitRate()),
                                      ns3Dre.GetUtilization(now, rate),
                                      "utilisation at " << now);
                NS_TEST_ASSERT_MSG_EQ(
                    +coreDre.Quantized(now.GetNanoSeconds(), rate.GetBitRate(), 3),
                    +ns3Dre.GetQuantized(now, rate, 3),
                    "quantized at " << now);
            }
        }
    }
};

/// Every row of a core policy's settings table is an attribute of its balancer: the row's name,
/// the Config's default, a checker that takes the row's range and refuses values past it, and a
/// value that reaches the balancer's Config (read back through the attribute).
class TalbLbCoreAttributesTestCase : public TestCase
{
  public:
    TalbLbCoreAttributesTestCase()
        : TestCase("TalbLbCoreAttributes: each settings row is an attribute with its default "
                   "and range")
    {
    }

  private:
    template <class C>
    void Check(TypeId tid, const talb::lb::SettingTable<C>& table)
    {
        using talb::lb::SettingKind;
        const C defaults{};
        for (const talb::lb::Setting<C>& s : table)
        {
            const std::string what = tid.GetName() + "::" + s.attribute;
            TypeId::AttributeInformation info;
            NS_TEST_ASSERT_MSG_EQ(tid.LookupAttributeByName(s.attribute, &info), true, what);
            Ptr<AttributeValue> expected =
                TalbCoreAttributes::MakeValue(s.field.kind, s.field.get(defaults));
            NS_TEST_EXPECT_MSG_EQ(info.initialValue->SerializeToString(info.checker),
                                  expected->SerializeToString(info.checker),
                                  what << ": default");
            const bool bounded = s.field.kind == SettingKind::kUnsigned ||
                                 s.field.kind == SettingKind::kReal ||
                                 s.field.kind == SettingKind::kTimeNs;
            if (bounded)
            {
                NS_TEST_EXPECT_MSG_EQ(
                    info.checker->Check(*TalbCoreAttributes::MakeValue(s.field.kind, s.min)),
                    true,
                    what << ": min");
                if (s.max < talb::lb::kNoMax)
                {
                    NS_TEST_EXPECT_MSG_EQ(
                        info.checker->Check(*TalbCoreAttributes::MakeValue(
                            s.field.kind,
                            s.max + (s.field.kind == SettingKind::kReal ? 0.5 : 1))),
                        false,
                        what << ": above max");
                }
            }
        }
    }

    void DoRun() override
    {
        Check(TalbEcmpLb::GetTypeId(), talb::lb::Ecmp::Settings());
        Check(TalbLetFlowLb::GetTypeId(), talb::lb::LetFlow::Settings());
        Check(TalbDrillLb::GetTypeId(), talb::lb::Drill::Settings());
        Check(TalbPrestoLb::GetTypeId(), talb::lb::Presto::Settings());
        Check(TalbHermesLb::GetTypeId(), talb::lb::Hermes::Settings());
        Check(TalbTensorAwareLb::GetTypeId(), talb::lb::TensorAwareConfig::Settings());
        // A value set through the attribute is the Config's, read back through it.
        ObjectFactory f("ns3::TalbTensorAwareLb");
        f.Set("MaxReorder", StringValue("18000"));
        f.Set("Spray", StringValue("Never"));
        f.Set("IdleTimeout", StringValue("250us"));
        Ptr<TalbLoadBalancer> lb = f.Create<TalbLoadBalancer>();
        DoubleValue reorder;
        EnumValue spray;
        TimeValue idle;
        lb->GetAttribute("MaxReorder", reorder);
        lb->GetAttribute("Spray", spray);
        lb->GetAttribute("IdleTimeout", idle);
        NS_TEST_EXPECT_MSG_EQ(reorder.Get(), 18000, "MaxReorder");
        NS_TEST_EXPECT_MSG_EQ(spray.Get(), int(talb::lb::TensorAwareV2::Spray::kNever), "Spray");
        NS_TEST_EXPECT_MSG_EQ(idle.Get(), MicroSeconds(250), "IdleTimeout");
    }
};

/// The switch's flow hash and the core's FlowHash() agree (the testbed switch uses the core's).
class TalbLbCoreFlowHashTestCase : public TestCase
{
  public:
    TalbLbCoreFlowHashTestCase()
        : TestCase("TalbLbCoreFlowHash: core Mix32 and FlowHash = TalbMix32 and TalbSwitch's hash")
    {
    }

  private:
    void DoRun() override
    {
        std::mt19937 rng(9);
        for (int i = 0; i < 10000; ++i)
        {
            uint32_t src = rng();
            uint32_t dst = rng();
            uint32_t ports = rng();
            uint8_t proto = rng() % 2 ? 6 : 17;
            NS_TEST_ASSERT_MSG_EQ(talb::lb::Mix32(src), TalbMix32(src), "Mix32");
            // TalbSwitch::Receive's formula.
            uint32_t ns3Hash =
                TalbMix32(src ^ TalbMix32(dst ^ TalbMix32(ports ^ (uint32_t(proto) << 24))));
            NS_TEST_ASSERT_MSG_EQ(talb::lb::FlowHash(src, dst, ports, proto), ns3Hash, "hash");
        }
    }
};

class TalbLbCoreTestSuite : public TestSuite
{
  public:
    TalbLbCoreTestSuite()
        : TestSuite("talb-lb-core", UNIT)
    {
        using T = TalbLbCoreEquivalenceTestCase;
        using V1 = talb::lb::TensorAwareV1;
        AddTestCase(new TalbLbCoreDreTestCase, TestCase::QUICK);
        AddTestCase(new TalbLbCoreFlowHashTestCase, TestCase::QUICK);
        AddTestCase(new TalbLbCoreAttributesTestCase, TestCase::QUICK);
        AddTestCase(new T("ecmp, derived salt", "ecmp", {}, Ecmp(0)), TestCase::QUICK);
        AddTestCase(new T("ecmp, salt 12345", "ecmp", {{"Salt", "12345"}}, Ecmp(12345)),
                    TestCase::QUICK);
        AddTestCase(new T("rps", "rps", {}, [](Pair& p) { p.BindCore(new talb::lb::Rps()); }),
                    TestCase::QUICK);
        AddTestCase(new T("letflow, 500us, 4096 slots",
                          "letflow",
                          {},
                          [](Pair& p) { p.BindCore(NewLetFlow(500000, 4096)); }),
                    TestCase::QUICK);
        AddTestCase(new T("letflow, 2us, 16 slots",
                          "letflow",
                          {{"FlowletTimeout", "2us"}, {"TableSize", "16"}},
                          [](Pair& p) { p.BindCore(NewLetFlow(2000, 16)); }),
                    TestCase::QUICK);
        for (auto [d, m] : {std::pair<uint32_t, uint32_t>{2, 1}, {1, 0}, {3, 2}, {16, 8}})
        {
            AddTestCase(new T("drill d=" + std::to_string(d) + " m=" + std::to_string(m),
                              "drill",
                              {{"Samples", std::to_string(d)}, {"Memory", std::to_string(m)}},
                              [d = d, m = m](Pair& p) { p.BindCore(NewDrill(d, m)); }),
                        TestCase::QUICK);
        }
        AddTestCase(new T("talb v1 defaults",
                          "talb",
                          {{"Version", "1"}, {"Fallback", "letflow"}},
                          TensorAware(V1::Config(), "letflow")),
                    TestCase::QUICK);
        for (const char* fb : {"ecmp", "rps", "drill"})
        {
            AddTestCase(new T(std::string("talb, fallback ") + fb,
                              "talb",
                              {{"Version", "1"}, {"Fallback", fb}},
                              TensorAware(V1::Config(), fb)),
                        TestCase::QUICK);
        }
        AddTestCase(new T("talb, 16 slots, probe 4, idle 50us (evictions, aging)",
                          "talb",
                          TalbAttrs(4, 15000, "50us", 16, 4, "letflow"),
                          TensorAware(TalbConfig(4, 15000, 50000, 16, 4), "letflow")),
                    TestCase::QUICK);
        AddTestCase(new T("talb, all high, margin 0",
                          "talb",
                          TalbAttrs(8, 0, "10ms", 4096, 8, "letflow"),
                          TensorAware(TalbConfig(8, 0, 10000000, 4096, 8), "letflow")),
                    TestCase::QUICK);
        AddTestCase(new T("talb, all low",
                          "talb",
                          TalbAttrs(0, 15000, "10ms", 4096, 8, "ecmp"),
                          TensorAware(TalbConfig(0, 15000, 10000000, 4096, 8), "ecmp")),
                    TestCase::QUICK);
    }
};

static TalbLbCoreTestSuite g_talbLbCoreTestSuite;
