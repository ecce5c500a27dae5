/* sysfs facts about the plugin's interface: see talb-net-device.h. */
#define _GNU_SOURCE
#include "talb-net-device.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

int
talb_net_speed_mbps(const char* sysfs_net, const char* ifname, int fallback_mbps)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/speed", sysfs_net, ifname);
    FILE* f = fopen(path, "r");
    int speed = -1;
    if (f != NULL)
    {
        if (fscanf(f, "%d", &speed) != 1)
        {
            speed = -1;
        }
        fclose(f);
    }
    return speed > 0 ? speed : fallback_mbps;
}

char*
talb_net_pci_path(const char* sysfs_net, const char* ifname)
{
    char path[PATH_MAX];
    snprintf(path, sizeof(path), "%s/%s/device", sysfs_net, ifname);
    return realpath(path, NULL); /* NULL when the link does not exist */
}
