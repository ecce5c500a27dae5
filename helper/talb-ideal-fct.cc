#include "talb-ideal-fct.h"

#include "talb-host-config.h"

#include "ns3/talb-nvlink-port.h"
#include "ns3/talb-pfc-net-device.h"
#include "ns3/talb-rdma-nic.h"

#include <algorithm>

namespace ns3
{

TalbIdealFct::TalbIdealFct(Ptr<TalbLeafSpineHelper> fabric, uint32_t mtu)
    : m_fabric(fabric)
{
    for (uint32_t i = 0; i < fabric->GetNHosts(); ++i)
    {
        m_hostOf[fabric->GetHostAddress(i).Get()] = i;
    }
    // Per packet: IP + TCP with timestamps + PPP, or IP + UDP + BTH + ICRC + Ethernet + PHY.
    m_mssBytes = mtu - TalbHostConfig::HEADER_BYTES;
    m_headerBytes = 52 + 2;
    if (fabric->IsRdma())
    {
        m_mssBytes = fabric->GetRdmaNic(0)->GetMtu();
        m_headerBytes = fabric->GetRdmaHelper()->GetDeviceMtu() - m_mssBytes +
                        TalbPfcNetDevice::ETHERNET_HEADER_BYTES + 24;
    }
}

Time
TalbIdealFct::Ideal(const TalbFlowRecord& r) const
{
    uint32_t src = m_hostOf.at(r.src.Get());
    uint32_t dst = m_hostOf.at(r.dst.Get());
    if (r.nvlink)
    {
        // Alone on the sender's idle NVLink port: its bytes at the port's rate, then latency.
        Ptr<TalbNvlinkPort> port = m_fabric->GetHost(src)->GetObject<TalbNvlinkPort>();
        return port->GetDataRate().CalculateBytesTxTime(r.sizeBytes) + port->GetLatency();
    }
    uint64_t packets = std::max<uint64_t>(1, (r.sizeBytes + m_mssBytes - 1) / m_mssBytes);
    // The last packet crosses every hop and its acknowledgement comes back (the base RTT of
    // its size); every full packet before it passes the bottleneck ahead of it, each in the
    // whole nanoseconds a device takes for it (CalculateBytesTxTime per packet, as the devices
    // count it: the exact bytes / rate would exceed their sum by up to 1 ns a packet).
    uint32_t last = static_cast<uint32_t>(r.sizeBytes - (packets - 1) * m_mssBytes) + m_headerBytes;
    Time full =
        m_fabric->GetBottleneckRate(src, dst).CalculateBytesTxTime(m_mssBytes + m_headerBytes);
    return m_fabric->GetBaseRtt(src, dst, last, m_headerBytes) +
           full * static_cast<int64_t>(packets - 1);
}

} // namespace ns3
