/*
 * What the plugin reads about its network interface from sysfs: the link speed, and the PCI
 * path NCCL's topology detection needs to place the NIC next to the right GPUs and NUMA node.
 * The sysfs root is a parameter so that tests can point it at a fake tree.
 */
#ifndef TALB_NET_DEVICE_H
#define TALB_NET_DEVICE_H

#ifdef __cplusplus
extern "C"
{
#endif

#define TALB_SYSFS_NET "/sys/class/net"

    /*
     * Returns the speed in Mbit/s that <sysfs_net>/<ifname>/speed reports, or fallback_mbps when
     * it reports none (virtual interfaces report -1 or nothing).
     */
    int talb_net_speed_mbps(const char* sysfs_net, const char* ifname, int fallback_mbps);

    /*
     * Returns the resolved path of <sysfs_net>/<ifname>/device (as NCCL's own socket transport
     * does), e.g. /sys/devices/pci0000:00/0000:00:03.0/virtio2, in memory the caller frees; NULL
     * when the interface has no device link: a virtual interface (lo, veth, bridge, tap) or no
     * such interface.
     */
    char* talb_net_pci_path(const char* sysfs_net, const char* ifname);

#ifdef __cplusplus
}
#endif

#endif /* TALB_NET_DEVICE_H */
