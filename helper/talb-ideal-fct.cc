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
    uint64_t packets = (r.sizeBytes + m_mssBytes - 1) / m_mssBytes;
    uint64_t wire = r.sizeBytes + packets * m_headerBytes;
    uint32_t first = static_cast<uint32_t>(std::min<uint64_t>(r.sizeBytes, m_mssBytes));
    return m_fabric->GetBaseRtt(src, dst, first + m_headerBytes, 66) +
           m_fabric->GetBottleneckRate(src, dst).CalculateBytesTxTime(wire);
}

} // namespace ns3
