// Tests of the plug-in registries: every family (load balancers, schedulers, collectives,
// transports) resolves its short names and its members' TypeId names, and answers a bad name
// with a message instead of aborting.
#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <string>

using namespace ns3;

namespace
{

/// One family: its registry and the short names it must hold.
struct Family
{
    const char* label;
    TalbRegistry* registry;
    std::map<std::string, TypeId> members;
};

std::vector<Family>
Families()
{
    return {
        {"load balancer",
         &TalbLoadBalancer::GetRegistry(),
         {{"conga", TalbCongaLb::GetTypeId()},
          {"conweave", TalbConWeaveLb::GetTypeId()},
          {"drill", TalbDrillLb::GetTypeId()},
          {"ecmp", TalbEcmpLb::GetTypeId()},
          {"hermes", TalbHermesLb::GetTypeId()},
          {"letflow", TalbLetFlowLb::GetTypeId()},
          {"presto", TalbPrestoLb::GetTypeId()},
          {"rps", TalbRpsLb::GetTypeId()},
          {"talb", TalbTensorAwareLb::GetTypeId()}}},
        {"scheduler",
         &TalbCommScheduler::GetRegistry(),
         {{"ascwfbp", TalbAscWfbpScheduler::GetTypeId()},
          {"bytescheduler", TalbByteScheduler::GetTypeId()},
          {"fusion", TalbFusionScheduler::GetTypeId()},
          {"sparse", TalbSparseScheduler::GetTypeId()},
          {"usbyte", TalbUsByteScheduler::GetTypeId()},
          {"wfbp", TalbWfbpScheduler::GetTypeId()}}},
        {"collective",
         &TalbCollective::GetRegistry(),
         {{"ps", TalbParameterServer::GetTypeId()}, {"ring", TalbRingAllReduce::GetTypeId()}}},
        {"transport",
         &TalbTransport::GetRegistry(),
         {{"rdma", TalbRdmaTransport::GetTypeId()}, {"tcp", TalbTcpTransport::GetTypeId()}}},
    };
}

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

/// Every registered short name and every member's TypeId name resolves to the member.
class TalbRegistryNamesTestCase : public TestCase
{
  public:
    TalbRegistryNamesTestCase()
        : TestCase("TalbRegistryNames: short names and TypeId names resolve in every family")
    {
    }

  private:
    void DoRun() override
    {
        for (const auto& f : Families())
        {
            std::string joined;
            for (const auto& m : f.members)
            {
                joined += (joined.empty() ? "" : ", ") + m.first;
                TypeId tid;
                std::string error;
                NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup(m.first, &tid, &error), true, m.first);
                NS_TEST_EXPECT_MSG_EQ(tid, m.second, f.label << " " << m.first);
                NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup(m.second.GetName(), &tid, &error),
                                      true,
                                      m.second.GetName());
                NS_TEST_EXPECT_MSG_EQ(tid, m.second, m.second.GetName());
                NS_TEST_EXPECT_MSG_EQ(f.registry->GetShortName(m.second), m.first, "back");
            }
            NS_TEST_EXPECT_MSG_EQ(f.registry->GetNames(), joined, f.label << " names, sorted");
            NS_TEST_EXPECT_MSG_EQ(f.registry->GetFamily(), f.label, "family label");
        }
    }
};

/// Unknown names (typos, prefixes of a valid name) fail without aborting, naming the input and
/// listing every valid name.
class TalbRegistryUnknownNameTestCase : public TestCase
{
  public:
    TalbRegistryUnknownNameTestCase()
        : TestCase("TalbRegistryUnknownName: unknown names fail with the valid names listed")
    {
    }

  private:
    void DoRun() override
    {
        // "byte" is a substring of "bytescheduler": it must not pass as one.
        const std::map<std::string, std::string> bad = {{"load balancer", "ecm"},
                                                        {"scheduler", "byte"},
                                                        {"collective", "allreduce"},
                                                        {"transport", "rdm"}};
        for (const auto& f : Families())
        {
            const std::string& name = bad.at(f.label);
            TypeId tid;
            std::string error;
            NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup(name, &tid, &error), false, name);
            NS_TEST_EXPECT_MSG_EQ(
                Contains(error, "unknown " + std::string(f.label) + " '" + name + "'"),
                true,
                error);
            for (const auto& m : f.members)
            {
                NS_TEST_EXPECT_MSG_EQ(Contains(error, m.first),
                                      true,
                                      error << " lists " << m.first);
            }
            NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup("", &tid, &error), false, "empty name");
        }
    }
};

/// A TypeId of another family, the abstract base itself and a TypeId outside talb fail.
class TalbRegistryWrongFamilyTestCase : public TestCase
{
  public:
    TalbRegistryWrongFamilyTestCase()
        : TestCase("TalbRegistryWrongFamily: TypeIds of another family or abstract bases fail")
    {
    }

  private:
    void DoRun() override
    {
        TypeId tid;
        std::string error;
        NS_TEST_EXPECT_MSG_EQ(
            TalbCommScheduler::GetRegistry().Lookup("ns3::TalbRingAllReduce", &tid, &error),
            false,
            "a collective is not a scheduler");
        NS_TEST_EXPECT_MSG_EQ(Contains(error, "not a ns3::TalbCommScheduler"), true, error);
        NS_TEST_EXPECT_MSG_EQ(Contains(error, "bytescheduler"), true, error);
        NS_TEST_EXPECT_MSG_EQ(TalbCollective::GetRegistry().Lookup("ns3::TalbEcmpLb", &tid, &error),
                              false,
                              "a load balancer is not a collective");
        NS_TEST_EXPECT_MSG_EQ(
            TalbLoadBalancer::GetRegistry().Lookup("ns3::TalbLoadBalancer", &tid, &error),
            false,
            "the abstract base");
        NS_TEST_EXPECT_MSG_EQ(Contains(error, "abstract"), true, error);
        NS_TEST_EXPECT_MSG_EQ(TalbTransport::GetRegistry().Lookup("ns3::Node", &tid, &error),
                              false,
                              "a TypeId outside talb");
    }
};

/// The registries: one suite for the four plug-in families.
class TalbRegistryTestSuite : public TestSuite
{
  public:
    TalbRegistryTestSuite()
        : TestSuite("talb-registry", UNIT)
    {
        AddTestCase(new TalbRegistryNamesTestCase, TestCase::QUICK);
        AddTestCase(new TalbRegistryUnknownNameTestCase, TestCase::QUICK);
        AddTestCase(new TalbRegistryWrongFamilyTestCase, TestCase::QUICK);
    }
};

static TalbRegistryTestSuite g_talbRegistryTestSuite; //!< the suite's instance
