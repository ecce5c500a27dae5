// The plugin's sysfs reads on a fake /sys/class/net: a physical NIC gets its PCI path (as
// NCCL's socket transport resolves it), a virtual interface none; speeds with a fallback.
#include "talb-net-device.h"

#include <climits>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace
{

class TalbNetDevice : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        char tmpl[] = "/tmp/talb-sysfs-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        root = tmpl;
        // A PCI NIC: net/eth9/device -> ../../devices/pci0000:00/0000:00:03.0
        Mkdirs(root + "/devices/pci0000:00/0000:00:03.0");
        Mkdirs(root + "/net/eth9");
        ASSERT_EQ(
            symlink("../../devices/pci0000:00/0000:00:03.0", (root + "/net/eth9/device").c_str()),
            0);
        std::ofstream(root + "/net/eth9/speed") << "25000\n";
        // A veth: no device link, speed -1.
        Mkdirs(root + "/net/veth9");
        std::ofstream(root + "/net/veth9/speed") << "-1\n";
    }

    void TearDown() override
    {
        std::string cmd = "rm -rf '" + root + "'";
        ASSERT_EQ(std::system(cmd.c_str()), 0);
    }

    static void Mkdirs(const std::string& path)
    {
        std::string cmd = "mkdir -p '" + path + "'";
        ASSERT_EQ(std::system(cmd.c_str()), 0);
    }

    std::string root;
};

} // namespace

TEST_F(TalbNetDevice, PhysicalNicHasItsPciPathVirtualHasNone)
{
    std::string net = root + "/net";
    char* pci = talb_net_pci_path(net.c_str(), "eth9");
    ASSERT_NE(pci, nullptr);
    char want[PATH_MAX];
    ASSERT_NE(realpath((root + "/devices/pci0000:00/0000:00:03.0").c_str(), want), nullptr);
    EXPECT_STREQ(pci, want);
    free(pci);
    EXPECT_EQ(talb_net_pci_path(net.c_str(), "veth9"), nullptr);
    EXPECT_EQ(talb_net_pci_path(net.c_str(), "nosuch0"), nullptr);
    // The real loopback interface is virtual on every Linux machine.
    EXPECT_EQ(talb_net_pci_path(TALB_SYSFS_NET, "lo"), nullptr);
}

TEST_F(TalbNetDevice, SpeedFromSysfsElseTheFallback)
{
    std::string net = root + "/net";
    EXPECT_EQ(talb_net_speed_mbps(net.c_str(), "eth9", 10000), 25000);
    EXPECT_EQ(talb_net_speed_mbps(net.c_str(), "veth9", 10000), 10000);
    EXPECT_EQ(talb_net_speed_mbps(net.c_str(), "nosuch0", 1234), 1234);
}
