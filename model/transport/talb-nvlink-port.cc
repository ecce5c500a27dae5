#include "talb-nvlink-port.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbNvlinkPort");
NS_OBJECT_ENSURE_REGISTERED(TalbNvlinkPort);

TypeId
TalbNvlinkPort::GetTypeId()
{
    // Defaults: an H100 / H200 SXM GPU's NVLink 4 (18 links, 900 GB/s both directions
    // together: 450 GB/s each way) through NVSwitch; the latency is a round figure (doc/talb.rst,
    // "GPU servers and rails", says where each comes from).
    static TypeId tid =
        TypeId("ns3::TalbNvlinkPort")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbNvlinkPort>()
            .AddAttribute("DataRate",
                          "Egress rate of the GPU on the intra-server interconnect, one "
                          "direction (NVLink 4 of an H100/H200 SXM: 450 GB/s = 3600 Gb/s)",
                          DataRateValue(DataRate(DEFAULT_RATE)),
                          MakeDataRateAccessor(&TalbNvlinkPort::m_rate),
                          MakeDataRateChecker())
            .AddAttribute("Latency",
                          "Time from a message's last byte leaving the GPU to its arrival at "
                          "the peer GPU",
                          TimeValue(Time(DEFAULT_LATENCY)),
                          MakeTimeAccessor(&TalbNvlinkPort::m_latency),
                          MakeTimeChecker(Seconds(0)));
    return tid;
}

TalbNvlinkPort::TalbNvlinkPort()
{
    NS_LOG_FUNCTION(this);
}

TalbNvlinkPort::~TalbNvlinkPort()
{
    NS_LOG_FUNCTION(this);
}

void
TalbNvlinkPort::SetGpu(uint32_t server, uint32_t gpu, Ipv4Address address)
{
    m_server = server;
    m_gpu = gpu;
    m_address = address;
}

uint32_t
TalbNvlinkPort::GetServer() const
{
    return m_server;
}

uint32_t
TalbNvlinkPort::GetGpu() const
{
    return m_gpu;
}

Ipv4Address
TalbNvlinkPort::GetAddress() const
{
    return m_address;
}

DataRate
TalbNvlinkPort::GetDataRate() const
{
    return m_rate;
}

Time
TalbNvlinkPort::GetLatency() const
{
    return m_latency;
}

Time
TalbNvlinkPort::Transmit(uint64_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    Time start = std::max(Simulator::Now(), m_busyUntil);
    m_busyUntil = start + m_rate.CalculateBytesTxTime(bytes);
    m_txBytes += bytes;
    return m_busyUntil + m_latency;
}

uint64_t
TalbNvlinkPort::GetTxBytes() const
{
    return m_txBytes;
}

} // namespace ns3
