#include "talb-rdma-transport.h"

#include "talb-rdma-message-channel.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbRdmaTransport");
NS_OBJECT_ENSURE_REGISTERED(TalbRdmaTransport);
TALB_REGISTER_PLUGIN(TalbTransport, TalbRdmaTransport, "rdma");

TypeId
TalbRdmaTransport::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbRdmaTransport")
            .SetParent<TalbTransport>()
            .SetGroupName("Talb")
            .AddConstructor<TalbRdmaTransport>()
            .AddAttribute("QueuePairs",
                          "Queue pairs per channel: Single (one, messages in order) or "
                          "PerPriority (one per tensor priority, a message one SEND per run of "
                          "parts of one priority)",
                          EnumValue(TalbRdmaMessageChannel::SINGLE),
                          MakeEnumAccessor(&TalbRdmaTransport::m_queuePairs),
                          MakeEnumChecker(TalbRdmaMessageChannel::PER_PRIORITY,
                                          "PerPriority",
                                          TalbRdmaMessageChannel::SINGLE,
                                          "Single"))
            .AddAttribute("TrafficClass",
                          "Traffic class (DSCP, switch band, PFC priority) of the queue pairs' "
                          "packets: Tensor (each packet's tensor priority) or Fixed (FixedClass "
                          "for all, as NCCL_IB_TC; the TaLB option keeps the tensor's priority)",
                          EnumValue(TalbRdmaTransport::FIXED),
                          MakeEnumAccessor(&TalbRdmaTransport::m_trafficClass),
                          MakeEnumChecker(TalbRdmaTransport::TENSOR,
                                          "Tensor",
                                          TalbRdmaTransport::FIXED,
                                          "Fixed"))
            .AddAttribute("FixedClass",
                          "The priority (band, PFC priority; DSCP from TaLB's table) of every "
                          "queue pair with TrafficClass Fixed; 3 is RoCE's customary one",
                          UintegerValue(3),
                          MakeUintegerAccessor(&TalbRdmaTransport::m_fixedClass),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1))
            .AddAttribute("QueuePairsPerConnection",
                          "Queue pairs per lane (the one of Single, each priority's of "
                          "PerPriority), their SENDs round-robin, as NCCL_IB_QPS_PER_CONNECTION; "
                          "1: no scaling",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TalbRdmaTransport::m_qpsPerConnection),
                          MakeUintegerChecker<uint32_t>(1, 64))
            .AddAttribute("SharedSourcePort",
                          "Every queue pair of a connection takes its first queue pair's UDP "
                          "source port (a NIC whose entropy is per connection): only E-ECMP, "
                          "hashing the destination QP, then tells them apart",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbRdmaTransport::m_sharedSourcePort),
                          MakeBooleanChecker())
            .AddAttribute("SplitMessages",
                          "Queue-pair scaling: cut each SEND into QueuePairsPerConnection SENDs of "
                          "equal size, one per queue pair (NCCL_IB_SPLIT_DATA_ON_QPS=1), instead "
                          "of sending whole SENDs round-robin",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbRdmaTransport::m_splitMessages),
                          MakeBooleanChecker())
            .AddAttribute("Plb",
                          "PLB: a queue pair takes a new UDP source port after PlbRounds "
                          "consecutive PlbRound rounds whose CNP-estimated marked fraction "
                          "exceeded PlbMarkFraction",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbRdmaTransport::m_plb),
                          MakeBooleanChecker())
            .AddAttribute("PlbRounds",
                          "PLB: congested rounds in a row that trigger a repath (PLB paper: 3)",
                          UintegerValue(TalbPlb::Config().rounds),
                          MakeUintegerAccessor(&TalbRdmaTransport::m_plbRounds),
                          MakeUintegerChecker<uint32_t>(1, 1000))
            .AddAttribute("PlbMarkFraction",
                          "PLB: a round is congested when its marked fraction exceeds this "
                          "(PLB paper: 0.5)",
                          DoubleValue(TalbPlb::Config().markFraction),
                          MakeDoubleAccessor(&TalbRdmaTransport::m_plbMarkFraction),
                          MakeDoubleChecker<double>(0, 0.999))
            .AddAttribute("PlbRound",
                          "PLB: length of a round (about one round-trip time under load; at "
                          "least the NICs' CnpInterval so a congested round can show a CNP)",
                          TimeValue(TalbRdmaMessageChannel::Options().plbRound),
                          MakeTimeAccessor(&TalbRdmaTransport::m_plbRound),
                          MakeTimeChecker(NanoSeconds(1)));
    return tid;
}

TalbRdmaTransport::TalbRdmaTransport()
    : m_queuePairs(TalbRdmaMessageChannel::SINGLE),
      m_trafficClass(FIXED),
      m_fixedClass(3)
{
    NS_LOG_FUNCTION(this);
}

TalbRdmaTransport::~TalbRdmaTransport()
{
    NS_LOG_FUNCTION(this);
}

Ptr<TalbMessageChannel>
TalbRdmaTransport::DoConnect(Ptr<Node> from, Ptr<Node> to)
{
    Ptr<TalbRdmaNic> src = from->GetObject<TalbRdmaNic>();
    Ptr<TalbRdmaNic> dst = to->GetObject<TalbRdmaNic>();
    NS_ABORT_MSG_UNLESS(src && dst,
                        "TalbRdmaTransport: node " << (src ? to : from)->GetId()
                                                   << " has no TalbRdmaNic (build the fabric "
                                                      "with Transport rdma)");
    TalbRdmaMessageChannel::Options options;
    options.queuePairs = m_qpsPerConnection;
    options.sharedSourcePort = m_sharedSourcePort;
    options.splitMessages = m_splitMessages;
    options.plb = m_plb;
    options.plbConfig.rounds = m_plbRounds;
    options.plbConfig.markFraction = m_plbMarkFraction;
    options.plbRound = m_plbRound;
    Ptr<TalbRdmaMessageChannel> channel = CreateObject<TalbRdmaMessageChannel>();
    channel->Open(src,
                  dst,
                  static_cast<TalbRdmaMessageChannel::QueuePairMode>(m_queuePairs),
                  m_trafficClass == FIXED ? m_fixedClass
                                          : TalbRdmaQueuePair::TRAFFIC_CLASS_OF_LABEL,
                  options);
    return channel;
}

} // namespace ns3
