#include "talb-rdma-helper.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/talb-int-tag.h"
#include "ns3/talb-rdma-nic.h"
#include "ns3/talb-roce-header.h"
#include "ns3/uinteger.h"

#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaHelper");

NS_OBJECT_ENSURE_REGISTERED(TalbRdmaHelper);

TypeId
TalbRdmaHelper::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbRdmaHelper")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbRdmaHelper>()
            .AddAttribute("Pfc",
                          "Priority flow control on the switches (false: lossy, drop-tail)",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbRdmaHelper::m_pfcEnabled),
                          MakeBooleanChecker())
            .AddAttribute("EcnKmin",
                          "Switch queues' RED-like marking starts above this occupancy "
                          "at EcnReferenceRate (TalbPriorityQueue EcnKmin; DCQCN paper: 5 KB)",
                          QueueSizeValue(QueueSize("5KB")),
                          MakeQueueSizeAccessor(&TalbRdmaHelper::m_kmin),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnKmax",
                          "... and marks every packet above this one (DCQCN paper: 200 KB)",
                          QueueSizeValue(QueueSize("200KB")),
                          MakeQueueSizeAccessor(&TalbRdmaHelper::m_kmax),
                          MakeQueueSizeChecker())
            .AddAttribute("EcnReferenceRate",
                          "Port rate EcnKmin and EcnKmax are given for: a port of rate R gets "
                          "them times R / this (0: as given at any rate)",
                          DataRateValue(DataRate("40Gbps")),
                          MakeDataRateAccessor(&TalbRdmaHelper::m_ecnReferenceRate),
                          MakeDataRateChecker())
            .AddAttribute("EcnPmax",
                          "... with probability rising to this at EcnKmax (DCQCN paper: 1 %)",
                          DoubleValue(0.01),
                          MakeDoubleAccessor(&TalbRdmaHelper::m_pmax),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("BandFrom",
                          "What the fabric's queues take a packet's band and PFC priority from "
                          "(TalbPriorityQueue BandFrom): Dscp, as RoCE switches map traffic "
                          "classes, or Option (the TaLB option's priority first)",
                          EnumValue(TalbPriorityQueue::DSCP),
                          MakeEnumAccessor(&TalbRdmaHelper::m_bandFrom),
                          MakeEnumChecker(TalbPriorityQueue::DSCP,
                                          "Dscp",
                                          TalbPriorityQueue::OPTION,
                                          "Option"));
    return tid;
}

TalbRdmaHelper::TalbRdmaHelper()
    : m_pfcEnabled(true),
      m_ecnReferenceRate(DataRate("40Gbps")),
      m_pmax(0.01),
      m_bandFrom(TalbPriorityQueue::DSCP)
{
    m_nic.SetTypeId(TalbRdmaNic::GetTypeId());
    // The NIC's RateControl default (DCQCN unless Config::SetDefault or the scenario's rdmaCc
    // changed it), so that attribute works whether or not the NIC is made by this helper.
    TypeId::AttributeInformation info;
    NS_ABORT_UNLESS(TalbRdmaNic::GetTypeId().LookupAttributeByName("RateControl", &info));
    m_rateControl.SetTypeId(DynamicCast<const TypeIdValue>(info.initialValue)->Get());
    m_pfc.SetTypeId(TalbPfc::GetTypeId());
}

TalbRdmaHelper::~TalbRdmaHelper()
{
}

void
TalbRdmaHelper::SetNicAttribute(const std::string& name, const AttributeValue& value)
{
    m_nic.Set(name, value);
}

void
TalbRdmaHelper::SetPfcAttribute(const std::string& name, const AttributeValue& value)
{
    m_pfc.Set(name, value);
}

void
TalbRdmaHelper::DoSetRateControl(ObjectFactory factory)
{
    NS_ABORT_MSG_UNLESS(factory.GetTypeId().IsChildOf(TalbRdmaRateControl::GetTypeId()),
                        "TalbRdmaHelper::SetRateControl: " << factory.GetTypeId().GetName()
                                                           << " is not a TalbRdmaRateControl");
    m_rateControl = factory;
}

void
TalbRdmaHelper::SetRateControlAttribute(const std::string& name, const AttributeValue& value)
{
    m_rateControl.Set(name, value);
}

void
TalbRdmaHelper::OfferBaseRtt(Time rtt)
{
    TypeId::AttributeInformation info;
    if (!m_rateControl.GetTypeId().LookupAttributeByName("BaseRtt", &info))
    {
        return;
    }
    TimeValue current;
    m_rateControl.Create<TalbRdmaRateControl>()->GetAttribute("BaseRtt", current);
    if (current.Get().IsZero())
    {
        m_rateControl.Set("BaseRtt", TimeValue(rtt));
    }
}

bool
TalbRdmaHelper::UsesTelemetry() const
{
    return m_rateControl.Create<TalbRdmaRateControl>()->UsesTelemetry();
}

uint32_t
TalbRdmaHelper::GetPayloadMtu() const
{
    UintegerValue mtu;
    m_nic.Create<TalbRdmaNic>()->GetAttribute("Mtu", mtu);
    return static_cast<uint32_t>(mtu.Get());
}

uint32_t
TalbRdmaHelper::GetDeviceMtu() const
{
    // A rate control that reads in-band telemetry pads each data packet with INT's header.
    uint32_t telemetry = UsesTelemetry() ? TalbIntTag::WIRE_BYTES : 0;
    return GetPayloadMtu() + TalbRoceHeader::BASE_BYTES + TalbRoceHeader::TRAILER_BYTES + telemetry;
}

void
TalbRdmaHelper::ConfigureQueue(Ptr<TalbPriorityQueue> queue, DataRate rate) const
{
    // Thresholds in bytes mean a queueing delay: keep the delay when the rate changes.
    double scale = m_ecnReferenceRate.GetBitRate() == 0
                       ? 1.0
                       : double(rate.GetBitRate()) / double(m_ecnReferenceRate.GetBitRate());
    auto scaled = [scale](const QueueSize& q) {
        return QueueSize(q.GetUnit(), static_cast<uint32_t>(std::llround(q.GetValue() * scale)));
    };
    queue->SetAttribute("EcnKmin", QueueSizeValue(scaled(m_kmin)));
    queue->SetAttribute("EcnKmax", QueueSizeValue(scaled(m_kmax)));
    queue->SetAttribute("EcnPmax", DoubleValue(m_pmax));
    queue->SetAttribute("BandFrom", EnumValue(m_bandFrom));
}

Ptr<TalbRdmaNic>
TalbRdmaHelper::InstallNic(Ptr<Node> node, Ptr<TalbPfcNetDevice> device, Ipv4Address address) const
{
    Ptr<TalbRdmaNic> nic = m_nic.Create<TalbRdmaNic>();
    nic->SetRateControlFactory(m_rateControl);
    nic->Install(node, device, address);
    node->AggregateObject(nic);
    return nic;
}

Ptr<TalbPfc>
TalbRdmaHelper::CreatePfc() const
{
    return m_pfcEnabled ? m_pfc.Create<TalbPfc>() : nullptr;
}

bool
TalbRdmaHelper::IsPfcEnabled() const
{
    return m_pfcEnabled;
}

} // namespace ns3
