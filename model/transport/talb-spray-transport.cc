#include "talb-spray-transport.h"

#include "talb-rdma-message-channel.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbSprayTransport");
NS_OBJECT_ENSURE_REGISTERED(TalbSprayTransport);
TALB_REGISTER_PLUGIN(TalbTransport, TalbSprayTransport, "spray");

TypeId
TalbSprayTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbSprayTransport")
            .SetParent<TalbTransport>()
            .SetGroupName("Talb")
            .AddConstructor<TalbSprayTransport>()
            .AddAttribute("FixedClass",
                          "The priority (band, PFC priority; DSCP from TaLB's table) of every "
                          "queue pair's packets; the TaLB option keeps each tensor's priority",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TalbSprayTransport::m_fixedClass),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1));
    return tid;
}

TalbSprayTransport::TalbSprayTransport()
    : m_fixedClass(3)
{
    NS_LOG_FUNCTION(this);
}

TalbSprayTransport::~TalbSprayTransport()
{
    NS_LOG_FUNCTION(this);
}

Ptr<TalbMessageChannel>
TalbSprayTransport::DoConnect(Ptr<Node> from, Ptr<Node> to)
{
    for (const auto& node : {from, to})
    {
        Ptr<TalbRdmaNic> nic = node->GetObject<TalbRdmaNic>();
        NS_ABORT_MSG_UNLESS(nic,
                            "TalbSprayTransport: node " << node->GetId()
                                                        << " has no TalbRdmaNic (build the "
                                                           "fabric with Transport rdma)");
        StringValue policy;
        nic->GetAttribute("EntropyPolicy", policy);
        NS_ABORT_MSG_UNLESS(
            nic->GetRecovery() == TalbRdmaNic::SELECTIVE_REPEAT && !policy.Get().empty(),
            "TalbSprayTransport: the NIC of node "
                << node->GetId() << " needs Recovery SelectiveRepeat and an EntropyPolicy");
    }
    Ptr<TalbRdmaMessageChannel> channel = CreateObject<TalbRdmaMessageChannel>();
    channel->Open(from->GetObject<TalbRdmaNic>(),
                  to->GetObject<TalbRdmaNic>(),
                  TalbRdmaMessageChannel::SINGLE,
                  m_fixedClass);
    return channel;
}

} // namespace ns3
