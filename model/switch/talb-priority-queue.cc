#include "talb-priority-queue.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/ppp-header.h"
#include "ns3/string.h"
#include "ns3/talb-flow-label-tag.h"
#include "ns3/talb-parse.h"
#include "ns3/talb-tag.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPriorityQueue");

NS_OBJECT_ENSURE_REGISTERED(TalbPriorityQueue);

namespace
{
constexpr uint8_t IP_PROTO_TCP = 6;
constexpr uint8_t IP_PROTO_UDP = 17;
constexpr uint16_t PPP_PROTO_IPV4 = 0x0021;
// RoCEv2 (UDP port 4791): BTH opcodes of acknowledgements and congestion notifications.
constexpr uint16_t ROCE_UDP_PORT = 4791;
constexpr uint8_t ROCE_OP_ACK = 0x11;
constexpr uint8_t ROCE_OP_CNP = 0x81;
} // namespace

TypeId
TalbPriorityQueue::GetTypeId()
{
    static TypeId tid =
        AddEcnAttributes(AddSchedulingAttributes(TypeId("ns3::TalbPriorityQueue")
                                                     .SetParent<Queue<Packet>>()
                                                     .SetGroupName("Talb")
                                                     .AddConstructor<TalbPriorityQueue>()))
            .AddAttribute("BestEffortMaxBytes",
                          "Most bytes the best-effort class (untagged packets) may hold of the "
                          "shared buffer; 0: no cap (only MaxSize)",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbPriorityQueue::m_bestEffortMaxBytes),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("PushOut",
                          "A packet of a band that finds the port full (MaxSize) drops the "
                          "oldest queued packets of lower bands instead, the lowest band first, "
                          "where they make room (pFabric's drop rule, by band): an urgent packet "
                          "is not lost to a buffer that less urgent ones filled. Only for lossy "
                          "ports without a shared buffer (no PFC: a pushed-out packet is never "
                          "released to it); false: drop-tail",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbPriorityQueue::m_pushOut),
                          MakeBooleanChecker())
            .AddAttribute("FlowQueueing",
                          "Share each band (and the best-effort class) among its flows "
                          "(5-tuples) by deficit round robin, as Linux's fq qdisc shares a "
                          "host's link among its sockets; false: each band is one FIFO. Set "
                          "before the first packet",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbPriorityQueue::m_flowQueueing),
                          MakeBooleanChecker())
            .AddAttribute("MaxFlows",
                          "FlowQueueing: flows kept apart at once; further flows of a band "
                          "share one queue",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&TalbPriorityQueue::m_maxFlows),
                          MakeUintegerChecker<uint32_t>(1, 1 << 20))
            .AddTraceSource("ClassDrop",
                            "A packet refused (shared buffer full or class cap): the packet, "
                            "its class (0 training, 1 best effort), bytes each class held",
                            MakeTraceSourceAccessor(&TalbPriorityQueue::m_classDropTrace),
                            "ns3::TalbPriorityQueue::ClassDropTracedCallback");
    return tid;
}

TypeId
TalbPriorityQueue::AddSchedulingAttributes(TypeId tid)
{
    return tid
        .AddAttribute(
            "Scheduling",
            "Dwrr: training class (strict tensor bands) and best-effort class "
            "(untagged) share the port by DWRR; Strict: one strict-priority order, "
            "untagged packets in UntaggedBand",
            EnumValue(TalbPriorityQueue::DWRR),
            MakeEnumAccessor(&TalbPriorityQueue::m_scheduling),
            MakeEnumChecker(TalbPriorityQueue::DWRR, "Dwrr", TalbPriorityQueue::STRICT, "Strict"))
        .AddAttribute(
            "BandFrom",
            "What a packet's band (and PFC priority) is taken from: Option (the "
            "TaLB option's priority, else the DSCP) or Dscp (the DSCP only, as a "
            "RoCE switch maps traffic classes; the option still reaches the "
            "balancers)",
            EnumValue(TalbPriorityQueue::OPTION),
            MakeEnumAccessor(&TalbPriorityQueue::m_bandFrom),
            MakeEnumChecker(TalbPriorityQueue::OPTION, "Option", TalbPriorityQueue::DSCP, "Dscp"))
        .AddAttribute("TrainingWeight",
                      "DWRR weight of the training class (byte share while both classes "
                      "are backlogged: TrainingWeight / (TrainingWeight + BestEffortWeight))",
                      UintegerValue(1),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_trainingWeight),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("BestEffortWeight",
                      "DWRR weight of the best-effort class (untagged traffic)",
                      UintegerValue(1),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_bestEffortWeight),
                      MakeUintegerChecker<uint32_t>(1, 1000))
        .AddAttribute("Quantum",
                      "DWRR bytes per unit of weight per round; at least the largest packet "
                      "(9216-byte MTU + PPP header) keeps a dequeue to one decision",
                      UintegerValue(9218),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_quantum),
                      MakeUintegerChecker<uint32_t>(64, 1 << 24))
        .AddAttribute("BandScheduling",
                      "Between tensor bands (the training class under Dwrr, every band under "
                      "Strict): Strict = the lowest non-empty band first (a busy band can "
                      "starve the ones behind it); Dwrr = bands below StrictBands first, the "
                      "others share the link by DWRR with BandWeights, as switches configure "
                      "traffic classes",
                      EnumValue(TalbPriorityQueue::STRICT_BANDS),
                      MakeEnumAccessor(&TalbPriorityQueue::m_bandScheduling),
                      MakeEnumChecker(TalbPriorityQueue::STRICT_BANDS,
                                      "Strict",
                                      TalbPriorityQueue::DWRR_BANDS,
                                      "Dwrr"))
        .AddAttribute("StrictBands",
                      "BandScheduling Dwrr: bands 0..StrictBands-1 are served strictly first "
                      "(band 0 holds ACKs and CNPs: ControlBand)",
                      UintegerValue(1),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_strictBands),
                      MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES))
        .AddAttribute("BandWeights",
                      "BandScheduling Dwrr: DWRR weight of each band 0..7 (1..1000, "
                      "comma-separated; a strict band's is unused)",
                      StringValue("1,1,1,1,1,1,1,1"),
                      MakeStringAccessor(&TalbPriorityQueue::SetBandWeights,
                                         &TalbPriorityQueue::GetBandWeights),
                      MakeStringChecker())
        .AddAttribute("ControlBand",
                      "Band of TCP segments without payload (ACK, SYN, FIN) and RoCEv2 "
                      "ACK/NAK/CNP packets, without a TaLB DSCP",
                      UintegerValue(0),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_controlBand),
                      MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1))
        .AddAttribute("UntaggedBand",
                      "Band of packets with neither a TaLB tag nor a TaLB DSCP (Strict); "
                      "under Dwrr, the band reported for the best-effort class (PFC)",
                      UintegerValue(TALB_NUM_PRIORITIES - 1),
                      MakeUintegerAccessor(&TalbPriorityQueue::m_untaggedBand),
                      MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1));
}

TypeId
TalbPriorityQueue::AddEcnAttributes(TypeId tid)
{
    return tid
        .AddAttribute("UseEcn",
                      "Mark ECN-capable packets CE above MarkThreshold",
                      BooleanValue(true),
                      MakeBooleanAccessor(&TalbPriorityQueue::m_useEcn),
                      MakeBooleanChecker())
        .AddAttribute("EcnPerBand",
                      "Compare the packet's band occupancy (true) or the port's, under DWRR "
                      "its class's, (false) "
                      "with MarkThreshold",
                      BooleanValue(false),
                      MakeBooleanAccessor(&TalbPriorityQueue::m_ecnPerBand),
                      MakeBooleanChecker())
        .AddAttribute("MarkThreshold",
                      "Occupancy at arrival from which ECN-capable packets are marked "
                      "(DCTCP's K; bytes or packets)",
                      QueueSizeValue(QueueSize("65p")),
                      MakeQueueSizeAccessor(&TalbPriorityQueue::m_markThreshold),
                      MakeQueueSizeChecker())
        .AddAttribute("EcnKmin",
                      "RED-like profile (DCQCN's Kmin): no marking at or below this "
                      "occupancy",
                      QueueSizeValue(QueueSize("0B")),
                      MakeQueueSizeAccessor(&TalbPriorityQueue::m_kmin),
                      MakeQueueSizeChecker())
        .AddAttribute("EcnKmax",
                      "RED-like profile (DCQCN's Kmax): every ECN-capable packet is marked "
                      "above this occupancy; 0 disables the profile (MarkThreshold applies)",
                      QueueSizeValue(QueueSize("0B")),
                      MakeQueueSizeAccessor(&TalbPriorityQueue::m_kmax),
                      MakeQueueSizeChecker())
        .AddAttribute("EcnPmax",
                      "RED-like profile (DCQCN's Pmax): marking probability reached at "
                      "EcnKmax",
                      DoubleValue(0.01),
                      MakeDoubleAccessor(&TalbPriorityQueue::m_pmax),
                      MakeDoubleChecker<double>(0, 1));
}

TalbPriorityQueue::TalbPriorityQueue()
    : NS_LOG_TEMPLATE_DEFINE("TalbPriorityQueue"),
      m_scheduling(DWRR),
      m_bandFrom(OPTION),
      m_trainingWeight(1),
      m_bestEffortWeight(1),
      m_quantum(9218),
      m_controlBand(0),
      m_untaggedBand(TALB_NUM_PRIORITIES - 1),
      m_useEcn(true),
      m_ecnPerBand(false),
      m_pmax(0.01),
      m_bandPackets{},
      m_bandBytes{},
      m_trainingPackets(0),
      m_servingBestEffort(false),
      m_deficit{0, 0},
      m_bandScheduling(STRICT_BANDS),
      m_strictBands(1),
      m_bandDrrReady(false),
      m_nMarked(0),
      m_bestEffortMaxBytes(0),
      m_classBytes{},
      m_pushOut(false),
      m_flowQueueing(false),
      m_maxFlows(1024),
      m_flowsReady(false)
{
    NS_LOG_FUNCTION(this);
    m_bandWeight.fill(1);
}

TalbPriorityQueue::~TalbPriorityQueue()
{
    NS_LOG_FUNCTION(this);
}

TalbPriorityQueue::Parsed
TalbPriorityQueue::Parse(Ptr<const Packet> item)
{
    // PPP (2) + IPv4 with options (60) + the TCP header's first 13 bytes, on the stack.
    uint8_t buf[2 + 60 + 13];
    uint32_t n = item->CopyData(buf, sizeof(buf));
    Parsed out;
    uint32_t off = 0;
    if (n >= 2 && ((buf[0] << 8) | buf[1]) == PPP_PROTO_IPV4)
    {
        off = 2;
    }
    if (n < off + 20 || (buf[off] >> 4) != 4)
    {
        return out;
    }
    uint32_t ihl = (buf[off] & 0x0F) * 4u;
    if (ihl < 20 || n < off + ihl)
    {
        return out;
    }
    out.ipv4 = true;
    out.ipOffset = off;
    out.tos = buf[off + 1];
    out.protocol = buf[off + 9];
    out.src = (uint32_t(buf[off + 12]) << 24) | (buf[off + 13] << 16) | (buf[off + 14] << 8) |
              buf[off + 15];
    out.dst = (uint32_t(buf[off + 16]) << 24) | (buf[off + 17] << 16) | (buf[off + 18] << 8) |
              buf[off + 19];
    if ((out.protocol == IP_PROTO_TCP || out.protocol == IP_PROTO_UDP) && n >= off + ihl + 4)
    {
        out.srcPort = static_cast<uint16_t>((buf[off + ihl] << 8) | buf[off + ihl + 1]);
        out.dstPort = static_cast<uint16_t>((buf[off + ihl + 2] << 8) | buf[off + ihl + 3]);
        out.rocev2 = out.protocol == IP_PROTO_UDP && out.dstPort == ROCE_UDP_PORT;
    }
    uint32_t totalLen = (buf[off + 2] << 8) | buf[off + 3];
    if (buf[off + 9] == IP_PROTO_TCP && n >= off + ihl + 13)
    {
        uint32_t tcpLen = (buf[off + ihl + 12] >> 4) * 4u;
        out.tcpSeq = (uint32_t(buf[off + ihl + 4]) << 24) | (buf[off + ihl + 5] << 16) |
                     (buf[off + ihl + 6] << 8) | buf[off + ihl + 7];
        out.tcpPayload = totalLen > ihl + tcpLen ? totalLen - ihl - tcpLen : 0;
        out.control = out.tcpPayload == 0;
    }
    else if (buf[off + 9] == IP_PROTO_UDP && n >= off + ihl + 9 &&
             ((buf[off + ihl + 2] << 8) | buf[off + ihl + 3]) == ROCE_UDP_PORT)
    {
        uint8_t opcode = buf[off + ihl + 8];
        if (n >= off + ihl + 16)
        {
            // BTH: opcode, flags, P_Key (2), reserved, destination QP (3 bytes).
            out.destQp = (uint32_t(buf[off + ihl + 13]) << 16) |
                         (uint32_t(buf[off + ihl + 14]) << 8) | buf[off + ihl + 15];
        }
        out.control = opcode == ROCE_OP_ACK || opcode == ROCE_OP_CNP;
    }
    return out;
}

TalbPriorityQueue::PacketInfo
TalbPriorityQueue::Read(Ptr<const Packet> item)
{
    PacketInfo info;
    info.headers = Parse(item);
    TalbTag tag;
    if (item->PeekPacketTag(tag))
    {
        info.tagged = true;
        info.label = tag.GetLabel();
    }
    if (info.headers.protocol == 6 && TalbFlowLabelTag::IsInUse())
    {
        TalbFlowLabelTag flowLabel;
        if (item->PeekPacketTag(flowLabel))
        {
            info.flowLabel = flowLabel.label;
        }
    }
    return info;
}

uint8_t
TalbPriorityQueue::TaggedBand(const PacketInfo& info) const
{
    if (m_bandFrom == OPTION && info.tagged)
    {
        return info.label.priority;
    }
    const Parsed& parsed = info.headers;
    if (parsed.ipv4)
    {
        int prio = talb_priority_from_dscp(parsed.tos >> 2);
        if (prio >= 0)
        {
            return static_cast<uint8_t>(prio);
        }
        if (parsed.control)
        {
            return m_controlBand;
        }
    }
    return NONE;
}

uint8_t
TalbPriorityQueue::ClassOf(Ptr<const Packet> item, uint8_t slot) const
{
    if (slot == BEST_EFFORT)
    {
        return BEST_EFFORT_CLASS;
    }
    // Strict: untagged packets share UntaggedBand's band with tagged ones; only that band
    // needs a second look.
    if (m_scheduling == STRICT && slot == m_untaggedBand && TaggedBand(Read(item)) == NONE)
    {
        return BEST_EFFORT_CLASS;
    }
    return TRAINING_CLASS;
}

void
TalbPriorityQueue::CountDrop(Ptr<const Packet> item, uint8_t cls, bool cap)
{
    ClassStats& c = m_classStats[cls];
    ++c.droppedPackets;
    c.droppedBytes += item->GetSize();
    c.capDrops += cap;
    c.otherBytesAtDrops += m_classBytes[1 - cls];
    m_classDropTrace(item, cls, m_classBytes[TRAINING_CLASS], m_classBytes[BEST_EFFORT_CLASS]);
}

uint8_t
TalbPriorityQueue::Classify(Ptr<const Packet> item) const
{
    return BandOfSlot(ClassifySlot(item));
}

uint8_t
TalbPriorityQueue::ClassifySlot(Ptr<const Packet> item) const
{
    return ClassifySlot(Read(item));
}

uint8_t
TalbPriorityQueue::ClassifySlot(const PacketInfo& info) const
{
    uint8_t band = TaggedBand(info);
    if (band != NONE)
    {
        return band;
    }
    return m_scheduling == DWRR ? BEST_EFFORT : m_untaggedBand;
}

uint8_t
TalbPriorityQueue::BandOfSlot(uint8_t slot) const
{
    NS_ASSERT(slot < NUM_SLOTS);
    return slot == BEST_EFFORT ? m_untaggedBand : slot;
}

uint8_t
TalbPriorityQueue::GetUntaggedBand() const
{
    return m_untaggedBand;
}

int64_t
TalbPriorityQueue::AssignStreams(int64_t stream)
{
    if (!m_uniform)
    {
        m_uniform = CreateObject<UniformRandomVariable>();
    }
    m_uniform->SetStream(stream);
    return 1;
}

bool
TalbPriorityQueue::ShouldMark(uint8_t slot)
{
    // Under DWRR each class is a queue of its own with its own share of the link, so a packet is
    // marked on its class's backlog: counting the whole port let best-effort backlog mark every
    // training packet, and DCTCP then held the training connections at one segment per RTT while
    // DWRR had half the link for them.
    bool perClass = m_scheduling == DWRR && !m_ecnPerBand;
    bool bestEffort = slot == BEST_EFFORT;
    auto occupancy = [this, slot, perClass, bestEffort](const QueueSize& limit) -> uint32_t {
        if (limit.GetUnit() == QueueSizeUnit::BYTES)
        {
            if (perClass)
            {
                return m_classBytes[bestEffort ? BEST_EFFORT_CLASS : TRAINING_CLASS];
            }
            return m_ecnPerBand ? m_bandBytes[slot] : GetNBytes();
        }
        if (perClass)
        {
            return bestEffort ? m_bandPackets[BEST_EFFORT] : m_trainingPackets;
        }
        return m_ecnPerBand ? m_bandPackets[slot] : GetNPackets();
    };
    // Each threshold read once: QueueSize's accessors are calls into libns3-network, and this
    // runs for every ECN-capable packet a port queues.
    uint32_t kmax = m_kmax.GetValue();
    if (kmax == 0)
    {
        return occupancy(m_markThreshold) >= m_markThreshold.GetValue();
    }
    uint32_t q = occupancy(m_kmax);
    uint32_t kmin = m_kmin.GetValue();
    if (q <= kmin)
    {
        return false;
    }
    if (q > kmax)
    {
        return true;
    }
    // The RNG is made on first use, so queues that never use the profile draw no stream.
    if (!m_uniform)
    {
        m_uniform = CreateObject<UniformRandomVariable>();
    }
    double p = m_pmax * double(q - kmin) / (kmax - kmin);
    return m_uniform->GetValue() < p;
}

void
TalbPriorityQueue::MarkCe(Ptr<Packet> item, const Parsed& parsed)
{
    PppHeader ppp;
    if (parsed.ipOffset == 2)
    {
        item->RemoveHeader(ppp);
    }
    Ipv4Header ip;
    item->RemoveHeader(ip);
    ip.SetEcn(Ipv4Header::ECN_CE);
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    item->AddHeader(ip);
    if (parsed.ipOffset == 2)
    {
        item->AddHeader(ppp);
    }
    ++m_nMarked;
}

bool
TalbPriorityQueue::Enqueue(Ptr<Packet> item)
{
    return Enqueue(item, Read(item));
}

bool
TalbPriorityQueue::Enqueue(Ptr<Packet> item, const PacketInfo& info)
{
    // No NS_LOG_FUNCTION here and in DequeueUnpaused: once per packet-hop (Debian's libns3 keeps
    // the NS_LOG checks).
    const Parsed& parsed = info.headers;
    if (!m_bandDrrReady)
    {
        const char* error = m_bandDrr.Configure(m_strictBands, m_bandWeight.data(), m_quantum);
        NS_ABORT_MSG_IF(error, "TalbPriorityQueue: " << error);
        m_bandDrrReady = true;
    }
    uint8_t band = TaggedBand(info);
    uint8_t slot = band != NONE ? band : (m_scheduling == DWRR ? BEST_EFFORT : m_untaggedBand);
    uint8_t cls = band != NONE ? TRAINING_CLASS : BEST_EFFORT_CLASS;
    uint32_t size = item->GetSize();
    if (cls == BEST_EFFORT_CLASS && m_bestEffortMaxBytes > 0 &&
        m_classBytes[BEST_EFFORT_CLASS] + size > m_bestEffortMaxBytes)
    {
        CountDrop(item, cls, true);
        DropBeforeEnqueue(item);
        return false;
    }
    if (m_pushOut && slot < TALB_NUM_PRIORITIES && WouldOverflow(1, size))
    {
        PushOut(slot, size);
    }
    if (m_shared && !((m_losslessBands >> BandOfSlot(slot)) & 1) &&
        !m_shared->AdmitLossy(GetNBytes(), size))
    {
        CountDrop(item, cls, false);
        DropBeforeEnqueue(item);
        return false;
    }
    uint8_t ecn = parsed.tos & 0x3;
    if (m_useEcn && (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1) &&
        ShouldMark(slot))
    {
        MarkCe(item, parsed);
        ++m_classStats[cls].markedPackets;
    }
    // Insert in front of the first packet of the next non-empty slot behind this one, or
    // (FlowQueueing) right behind the last packet of the packet's flow.
    ConstIterator pos = GetContainer().end();
    TalbFlowQueues::Key key;
    TalbFlowQueues::Place place{};
    if (m_flowQueueing)
    {
        if (!m_flowsReady)
        {
            m_flows.Init(NUM_SLOTS, m_maxFlows, m_quantum);
            m_flowsReady = true;
        }
        key.src = parsed.src;
        key.dst = parsed.dst;
        key.srcPort = parsed.srcPort;
        key.dstPort = parsed.dstPort;
        key.protocol = parsed.protocol;
        key.slot = slot;
        place = m_flows.Find(key);
    }
    if (place.queued)
    {
        pos = std::next(place.behind);
    }
    else
    {
        for (uint8_t b = slot + 1; b < NUM_SLOTS; ++b)
        {
            if (m_bandPackets[b] > 0)
            {
                pos = m_head[b];
                break;
            }
        }
    }
    Iterator inserted;
    if (!DoEnqueue(pos, item, inserted))
    {
        CountDrop(item, cls, false);
        return false;
    }
    if (m_flowQueueing)
    {
        m_flows.Append(key, place, inserted);
    }
    if (m_shared)
    {
        m_shared->Charge(size);
    }
    ClassStats& c = m_classStats[cls];
    ++c.enqueuedPackets;
    c.enqueuedBytes += size;
    m_classBytes[cls] += size;
    c.peakBytes = std::max(c.peakBytes, m_classBytes[cls]);
    if (m_bandPackets[slot] == 0)
    {
        m_head[slot] = inserted;
    }
    ++m_bandPackets[slot];
    m_bandBytes[slot] += item->GetSize();
    if (slot != BEST_EFFORT)
    {
        ++m_trainingPackets;
    }
    return true;
}

uint8_t
TalbPriorityQueue::FirstBand(uint8_t pausedMask) const
{
    for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
    {
        if (m_bandPackets[b] > 0 && !(pausedMask & (1u << b)))
        {
            return b;
        }
    }
    return NONE;
}

std::string
TalbPriorityQueue::ParseBandWeights(const std::string& text,
                                    std::array<uint32_t, TALB_NUM_PRIORITIES>* weights)
{
    int bad = talb::lb::BandDrr::ParseWeights(text.c_str(), weights->data());
    if (bad == talb::lb::BandDrr::kWeightsOk)
    {
        return "";
    }
    if (bad == talb::lb::BandDrr::kWeightsCount)
    {
        return "'" + text + "' has " + std::to_string(TalbParse::Split(text, ',').size()) +
               " weights, not one per band (" + std::to_string(TALB_NUM_PRIORITIES) + ")";
    }
    return "'" + text + "': band " + std::to_string(bad) + "'s weight '" +
           TalbParse::Split(text, ',')[bad] + "' is not a whole number from 1 to 1000";
}

void
TalbPriorityQueue::SetBandWeights(std::string text)
{
    std::string error = ParseBandWeights(text, &m_bandWeight);
    NS_ABORT_MSG_UNLESS(error.empty(), "TalbPriorityQueue::BandWeights: " << error);
}

std::string
TalbPriorityQueue::GetBandWeights() const
{
    std::string text;
    for (uint32_t w : m_bandWeight)
    {
        text += (text.empty() ? "" : ",") + std::to_string(w);
    }
    return text;
}

uint8_t
TalbPriorityQueue::TensorBand(uint8_t pausedMask) const
{
    if (m_bandScheduling == STRICT_BANDS)
    {
        return FirstBand(pausedMask);
    }
    uint32_t ready = 0;
    for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
    {
        ready |= uint32_t(m_bandPackets[b] > 0) << b;
    }
    uint8_t band = m_bandDrr.Next(ready & ~uint32_t(pausedMask),
                                  [this](uint8_t b) { return (*Front(b))->GetSize(); });
    return band == talb::lb::BandDrr::kNone ? NONE : band;
}

uint8_t
TalbPriorityQueue::Pick(uint8_t pausedMask) const
{
    uint8_t training = TensorBand(pausedMask);
    bool bestEffort = m_bandPackets[BEST_EFFORT] > 0 && !(pausedMask & (1u << m_untaggedBand));
    if (!bestEffort)
    {
        return training;
    }
    if (training == NONE)
    {
        return BEST_EFFORT;
    }
    // Both classes can send: the class whose turn it is keeps it while its deficit covers its
    // head packet; otherwise the turn passes (TakeHead adds the next class's quantum).
    uint8_t current = m_servingBestEffort ? BEST_EFFORT : training;
    uint8_t other = m_servingBestEffort ? training : BEST_EFFORT;
    uint32_t headBytes = (*Front(current))->GetSize();
    return m_deficit[m_servingBestEffort] >= int64_t(headBytes) ? current : other;
}

TalbPriorityQueue::Iterator
TalbPriorityQueue::Front(uint8_t slot) const
{
    return m_flowQueueing ? m_flows.Front(slot) : m_head[slot];
}

Ptr<Packet>
TalbPriorityQueue::TakeHead(uint8_t slot, bool remove)
{
    auto pos = Front(slot);
    if (m_scheduling == DWRR)
    {
        bool bestEffort = slot == BEST_EFFORT;
        int64_t quantum = int64_t(m_quantum) * (bestEffort ? m_bestEffortWeight : m_trainingWeight);
        if (bestEffort != m_servingBestEffort)
        {
            m_servingBestEffort = bestEffort; // a new visit: one quantum
            m_deficit[bestEffort] += quantum;
        }
        // The class is alone (or a packet exceeds the quantum): new rounds of its own. With
        // Quantum at least the largest packet this runs at most once.
        while (m_deficit[bestEffort] < int64_t((*pos)->GetSize()))
        {
            m_deficit[bestEffort] += quantum;
        }
        m_deficit[bestEffort] -= (*pos)->GetSize();
    }
    if (m_bandScheduling == DWRR_BANDS && m_bandDrr.IsDrrBand(slot))
    {
        m_bandDrr.Charge(slot, (*pos)->GetSize());
    }
    return Detach(slot, remove);
}

Ptr<Packet>
TalbPriorityQueue::Detach(uint8_t slot, bool remove)
{
    auto pos = Front(slot);
    auto next = std::next(pos);
    bool slotHead = pos == m_head[slot];
    uint8_t cls = ClassOf(*pos, slot);
    Ptr<Packet> item = remove ? DoRemove(pos) : DoDequeue(pos);
    NS_ASSERT(m_bandPackets[slot] > 0 && m_bandBytes[slot] >= item->GetSize());
    NS_ASSERT(m_classBytes[cls] >= item->GetSize());
    m_classBytes[cls] -= item->GetSize();
    if (m_shared)
    {
        m_shared->Release(item->GetSize());
    }
    if (remove)
    {
        CountDrop(item, cls, false);
    }
    else
    {
        ++m_classStats[cls].dequeuedPackets;
        m_classStats[cls].dequeuedBytes += item->GetSize();
    }
    --m_bandPackets[slot];
    m_bandBytes[slot] -= item->GetSize();
    if (m_flowQueueing)
    {
        m_flows.PopFront(slot, item->GetSize(), next);
    }
    // A slot's packets stay contiguous in the list, so the slot's next packet follows its
    // first one.
    if (m_bandPackets[slot] > 0 && slotHead)
    {
        m_head[slot] = next;
    }
    if (slot != BEST_EFFORT)
    {
        --m_trainingPackets;
    }
    if (slot < TALB_NUM_PRIORITIES && m_bandPackets[slot] == 0)
    {
        m_bandDrr.Forfeit(slot);
    }
    // An emptied class forfeits its deficit (DRR): idle time earns no credit.
    if (slot == BEST_EFFORT ? m_bandPackets[slot] == 0 : m_trainingPackets == 0)
    {
        m_deficit[slot == BEST_EFFORT] = 0;
    }
    return item;
}

void
TalbPriorityQueue::PushOut(uint8_t slot, uint32_t size)
{
    const QueueSize max = GetMaxSize();
    const bool bytes = max.GetUnit() == QueueSizeUnit::BYTES;
    auto fits = [&](uint64_t queued, uint32_t packets) {
        return bytes ? queued + size <= max.GetValue() : packets + 1 <= max.GetValue();
    };
    const auto [lowerBytes, lowerPackets] = LowerBands(slot);
    // Where even every lower packet would not make room the arrival is refused anyway: they stay.
    if (!fits(GetNBytes() - lowerBytes, GetNPackets() - lowerPackets))
    {
        NS_LOG_LOGIC("band " << +slot << ": " << lowerBytes << " bytes below, no room");
        return;
    }
    NS_LOG_LOGIC("band " << +slot << " pushes out of " << lowerBytes << " bytes below");
    for (uint8_t b = TALB_NUM_PRIORITIES - 1; b > slot && !fits(GetNBytes(), GetNPackets()); --b)
    {
        while (m_bandPackets[b] > 0 && !fits(GetNBytes(), GetNPackets()))
        {
            ++m_classStats[ClassOf(*Front(b), b)].pushedOut;
            Detach(b, true); // DoRemove traces it dropped (Queue's DropAfterDequeue)
        }
    }
}

std::pair<uint64_t, uint32_t>
TalbPriorityQueue::LowerBands(uint8_t slot) const
{
    uint64_t bytes = 0;
    uint32_t packets = 0;
    for (uint8_t b = slot + 1; b < TALB_NUM_PRIORITIES; ++b)
    {
        bytes += m_bandBytes[b];
        packets += m_bandPackets[b];
    }
    return {bytes, packets};
}

void
TalbPriorityQueue::SetSharedBuffer(Ptr<TalbSharedBuffer> buffer, uint8_t losslessBands)
{
    NS_ABORT_MSG_IF(GetNPackets() > 0, "TalbPriorityQueue::SetSharedBuffer on a busy queue");
    m_shared = buffer;
    m_losslessBands = losslessBands;
}

Ptr<TalbSharedBuffer>
TalbPriorityQueue::GetSharedBuffer() const
{
    return m_shared;
}

Ptr<Packet>
TalbPriorityQueue::TakeNext(uint8_t pausedMask, uint8_t* band, uint8_t* slot, bool remove)
{
    uint8_t s = Pick(pausedMask);
    if (slot)
    {
        *slot = s;
    }
    if (s == NONE)
    {
        *band = TALB_NUM_PRIORITIES;
        return nullptr;
    }
    *band = BandOfSlot(s);
    return TakeHead(s, remove);
}

Ptr<Packet>
TalbPriorityQueue::Dequeue()
{
    NS_LOG_FUNCTION(this);
    uint8_t band;
    return TakeNext(0, &band, nullptr, false);
}

Ptr<Packet>
TalbPriorityQueue::DequeueUnpaused(uint8_t pausedMask, uint8_t* band, uint8_t* slot)
{
    return TakeNext(pausedMask, band, slot, false);
}

Ptr<Packet>
TalbPriorityQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    uint8_t band;
    return TakeNext(0, &band, nullptr, true);
}

Ptr<const Packet>
TalbPriorityQueue::Peek() const
{
    NS_LOG_FUNCTION(this);
    uint8_t slot = Pick(0);
    return slot == NONE ? nullptr : DoPeek(Front(slot));
}

uint32_t
TalbPriorityQueue::GetBandBytes(uint8_t band) const
{
    NS_ASSERT(band < TALB_NUM_PRIORITIES);
    return m_bandBytes[band];
}

uint64_t
TalbPriorityQueue::GetBytesAtOrAbove(uint8_t priority) const
{
    uint64_t bytes = 0;
    for (uint8_t b = 0; b <= priority && b < TALB_NUM_PRIORITIES; ++b)
    {
        bytes += m_bandBytes[b];
    }
    return bytes;
}

uint64_t
TalbPriorityQueue::GetRoomBytes(uint8_t priority) const
{
    // Enqueue's refusals of a tagged packet, in its order: MaxSize (with what PushOut would
    // free below the band), then the shared buffer's threshold for a lossy band.
    const uint8_t band = std::min<uint8_t>(priority, TALB_NUM_PRIORITIES - 1);
    uint64_t queuedBytes = GetNBytes();
    uint32_t queuedPackets = GetNPackets();
    if (m_pushOut)
    {
        const auto [lowerBytes, lowerPackets] = LowerBands(band);
        queuedBytes -= lowerBytes;
        queuedPackets -= lowerPackets;
    }
    const QueueSize max = GetMaxSize();
    uint64_t room = UNKNOWN_ROOM;
    if (max.GetUnit() == QueueSizeUnit::BYTES)
    {
        room = max.GetValue() > queuedBytes ? max.GetValue() - queuedBytes : 0;
    }
    else if (queuedPackets >= max.GetValue())
    {
        room = 0;
    }
    if (m_shared && !((m_losslessBands >> band) & 1))
    {
        const uint64_t threshold = m_shared->GetQueueThreshold();
        const uint64_t share = threshold > GetNBytes() ? threshold - GetNBytes() : 0;
        room = std::min({room, share, m_shared->GetFreeBytes()});
    }
    return room;
}

uint32_t
TalbPriorityQueue::GetBandPackets(uint8_t band) const
{
    NS_ASSERT(band < TALB_NUM_PRIORITIES);
    return m_bandPackets[band];
}

uint32_t
TalbPriorityQueue::GetBestEffortBytes() const
{
    return m_bandBytes[BEST_EFFORT];
}

uint32_t
TalbPriorityQueue::GetBestEffortPackets() const
{
    return m_bandPackets[BEST_EFFORT];
}

uint64_t
TalbPriorityQueue::GetMarkedCount() const
{
    return m_nMarked;
}

const TalbPriorityQueue::ClassStats&
TalbPriorityQueue::GetClassStats(uint8_t cls) const
{
    NS_ABORT_MSG_UNLESS(cls < NUM_CLASSES, "TalbPriorityQueue: no traffic class " << +cls);
    return m_classStats[cls];
}

uint32_t
TalbPriorityQueue::GetClassBytes(uint8_t cls) const
{
    NS_ABORT_MSG_UNLESS(cls < NUM_CLASSES, "TalbPriorityQueue: no traffic class " << +cls);
    return m_classBytes[cls];
}

} // namespace ns3
