// Tests of the plug-in registries: every family (load balancers, schedulers, collectives,
// transports, entropy policies, RDMA rate controls) resolves its short names and its members'
// TypeId names, and answers a bad name with a message instead of aborting. The members are not
// listed here: they are what ns-3 knows of each family (every constructible subclass of its base),
// so a new plug-in needs no edit here, and one that forgets TALB_REGISTER_PLUGIN fails.
#include "ns3/core-module.h"
#include "ns3/talb-module.h"
#include "ns3/test.h"

#include <map>
#include <string>

using namespace ns3;

namespace
{

/// One family: its registry and its abstract base.
struct Family
{
    const char* label;
    TalbRegistry* registry;
    TypeId base;
};

std::vector<Family>
Families()
{
    return {
        {"load balancer", &TalbLoadBalancer::GetRegistry(), TalbLoadBalancer::GetTypeId()},
        {"scheduler", &TalbCommScheduler::GetRegistry(), TalbCommScheduler::GetTypeId()},
        {"collective", &TalbCollective::GetRegistry(), TalbCollective::GetTypeId()},
        {"transport", &TalbTransport::GetRegistry(), TalbTransport::GetTypeId()},
        {"entropy policy", &TalbEntropyPolicy::GetRegistry(), TalbEntropyPolicy::GetTypeId()},
        {"rate control", &TalbRdmaRateControl::GetRegistry(), TalbRdmaRateControl::GetTypeId()},
    };
}

/**
 * \return the members of \p f as ns-3 knows them, by TypeId name: every constructible subclass
 * of its base in the module's group, except the test suites' own (TypeIds named ns3::TalbTest*)
 */
std::map<std::string, TypeId>
Members(const Family& f)
{
    std::map<std::string, TypeId> members;
    for (uint16_t i = 0; i < TypeId::GetRegisteredN(); ++i)
    {
        TypeId t = TypeId::GetRegistered(i);
        if (t.IsChildOf(f.base) && t != f.base && t.HasConstructor() &&
            t.GetGroupName() == "Talb" && t.GetName().rfind("ns3::TalbTest", 0) != 0)
        {
            members.emplace(t.GetName(), t);
        }
    }
    return members;
}

bool
Contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

} // namespace

/// Every member of a family has a short name; it and the TypeId name resolve to the member, and
/// the registry holds no other name.
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
            const std::map<std::string, TypeId> members = Members(f);
            NS_TEST_EXPECT_MSG_GT(members.size(), 1, f.label << ": no members");
            std::map<std::string, TypeId> byShortName;
            for (const auto& [name, member] : members)
            {
                const std::string shortName = f.registry->GetShortName(member);
                NS_TEST_EXPECT_MSG_NE(shortName, name, name << " has no short name");
                byShortName.emplace(shortName, member);
                TypeId tid;
                std::string error;
                NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup(shortName, &tid, &error), true, shortName);
                NS_TEST_EXPECT_MSG_EQ(tid, member, f.label << " " << shortName);
                NS_TEST_EXPECT_MSG_EQ(f.registry->Lookup(name, &tid, &error), true, name);
                NS_TEST_EXPECT_MSG_EQ(tid, member, name);
            }
            std::string joined;
            for (const auto& m : byShortName)
            {
                joined += (joined.empty() ? "" : ", ") + m.first;
            }
            NS_TEST_EXPECT_MSG_EQ(f.registry->GetNames(), joined, f.label << " names, sorted");
            NS_TEST_EXPECT_MSG_EQ(f.registry->GetShortNames().size(),
                                  members.size(),
                                  f.label << ": a name for something that is no member");
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
                                                        {"transport", "rdm"},
                                                        {"entropy policy", "rep"},
                                                        {"rate control", "dcqc"}};
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
            for (const auto& m : Members(f))
            {
                const std::string shortName = f.registry->GetShortName(m.second);
                NS_TEST_EXPECT_MSG_EQ(Contains(error, shortName),
                                      true,
                                      error << " lists " << shortName);
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
