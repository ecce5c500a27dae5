#include "talb-priority-queue.h"

#include "talb-tag.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/ppp-header.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbPriorityQueue");

NS_OBJECT_ENSURE_REGISTERED(TalbPriorityQueue);

namespace
{
constexpr uint8_t IP_PROTO_TCP = 6;
constexpr uint16_t PPP_PROTO_IPV4 = 0x0021;
} // namespace

TypeId
TalbPriorityQueue::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbPriorityQueue")
            .SetParent<Queue<Packet>>()
            .SetGroupName("Talb")
            .AddConstructor<TalbPriorityQueue>()
            .AddAttribute("ControlBand",
                          "Band of TCP segments without payload (ACK, SYN, FIN) and no DSCP",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TalbPriorityQueue::m_controlBand),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1))
            .AddAttribute("UntaggedBand",
                          "Band of packets with neither a TaLB tag nor a TaLB DSCP",
                          UintegerValue(TALB_NUM_PRIORITIES - 1),
                          MakeUintegerAccessor(&TalbPriorityQueue::m_untaggedBand),
                          MakeUintegerChecker<uint8_t>(0, TALB_NUM_PRIORITIES - 1))
            .AddAttribute("UseEcn",
                          "Mark ECN-capable packets CE above MarkThreshold",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TalbPriorityQueue::m_useEcn),
                          MakeBooleanChecker())
            .AddAttribute("EcnPerBand",
                          "Compare the packet's band occupancy (true) or the port's (false) "
                          "with MarkThreshold",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbPriorityQueue::m_ecnPerBand),
                          MakeBooleanChecker())
            .AddAttribute("MarkThreshold",
                          "Occupancy at arrival from which ECN-capable packets are marked "
                          "(DCTCP's K; bytes or packets)",
                          QueueSizeValue(QueueSize("65p")),
                          MakeQueueSizeAccessor(&TalbPriorityQueue::m_markThreshold),
                          MakeQueueSizeChecker());
    return tid;
}

TalbPriorityQueue::TalbPriorityQueue()
    : NS_LOG_TEMPLATE_DEFINE("TalbPriorityQueue"),
      m_controlBand(0),
      m_untaggedBand(TALB_NUM_PRIORITIES - 1),
      m_useEcn(true),
      m_ecnPerBand(false),
      m_bandPackets{},
      m_bandBytes{},
      m_nMarked(0)
{
    NS_LOG_FUNCTION(this);
}

TalbPriorityQueue::~TalbPriorityQueue()
{
    NS_LOG_FUNCTION(this);
}

TalbPriorityQueue::Parsed
TalbPriorityQueue::Parse(Ptr<const Packet> item) const
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
    uint32_t totalLen = (buf[off + 2] << 8) | buf[off + 3];
    if (buf[off + 9] == IP_PROTO_TCP && n >= off + ihl + 13)
    {
        uint32_t tcpLen = (buf[off + ihl + 12] >> 4) * 4u;
        out.pureTcpControl = totalLen <= ihl + tcpLen;
    }
    return out;
}

uint8_t
TalbPriorityQueue::BandOf(Ptr<const Packet> item, const Parsed& parsed) const
{
    TalbTag tag;
    if (item->PeekPacketTag(tag))
    {
        return tag.GetPriority();
    }
    if (parsed.ipv4)
    {
        int prio = talb_priority_from_dscp(parsed.tos >> 2);
        if (prio >= 0)
        {
            return static_cast<uint8_t>(prio);
        }
        if (parsed.pureTcpControl)
        {
            return m_controlBand;
        }
    }
    return m_untaggedBand;
}

uint8_t
TalbPriorityQueue::Classify(Ptr<const Packet> item) const
{
    return BandOf(item, Parse(item));
}

bool
TalbPriorityQueue::OverThreshold(uint8_t band) const
{
    if (m_markThreshold.GetUnit() == QueueSizeUnit::BYTES)
    {
        return (m_ecnPerBand ? m_bandBytes[band] : GetNBytes()) >= m_markThreshold.GetValue();
    }
    return (m_ecnPerBand ? m_bandPackets[band] : GetNPackets()) >= m_markThreshold.GetValue();
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
    NS_LOG_FUNCTION(this << item);
    Parsed parsed = Parse(item);
    uint8_t band = BandOf(item, parsed);
    uint8_t ecn = parsed.tos & 0x3;
    if (m_useEcn && (ecn == Ipv4Header::ECN_ECT0 || ecn == Ipv4Header::ECN_ECT1) &&
        OverThreshold(band))
    {
        MarkCe(item, parsed);
    }
    // Insert in front of the first packet of the next non-empty lower-priority band.
    ConstIterator pos = GetContainer().end();
    for (uint8_t b = band + 1; b < TALB_NUM_PRIORITIES; ++b)
    {
        if (m_bandPackets[b] > 0)
        {
            pos = m_head[b];
            break;
        }
    }
    Iterator inserted;
    if (!DoEnqueue(pos, item, inserted))
    {
        return false;
    }
    if (m_bandPackets[band] == 0)
    {
        m_head[band] = inserted;
    }
    ++m_bandPackets[band];
    m_bandBytes[band] += item->GetSize();
    return true;
}

uint8_t
TalbPriorityQueue::FirstBand() const
{
    for (uint8_t b = 0; b < TALB_NUM_PRIORITIES; ++b)
    {
        if (m_bandPackets[b] > 0)
        {
            return b;
        }
    }
    return TALB_NUM_PRIORITIES;
}

void
TalbPriorityQueue::HeadLeft(uint32_t size)
{
    uint8_t band = FirstBand();
    NS_ASSERT(band < TALB_NUM_PRIORITIES && m_bandBytes[band] >= size);
    --m_bandPackets[band];
    m_bandBytes[band] -= size;
}

Ptr<Packet>
TalbPriorityQueue::Dequeue()
{
    NS_LOG_FUNCTION(this);
    uint8_t band = FirstBand();
    if (band == TALB_NUM_PRIORITIES)
    {
        return nullptr;
    }
    // The head of the container is the head of the lowest non-empty band.
    auto next = std::next(m_head[band]);
    Ptr<Packet> item = DoDequeue(GetContainer().begin());
    HeadLeft(item->GetSize());
    if (m_bandPackets[band] > 0)
    {
        m_head[band] = next;
    }
    return item;
}

Ptr<Packet>
TalbPriorityQueue::Remove()
{
    NS_LOG_FUNCTION(this);
    uint8_t band = FirstBand();
    if (band == TALB_NUM_PRIORITIES)
    {
        return nullptr;
    }
    auto next = std::next(m_head[band]);
    Ptr<Packet> item = DoRemove(GetContainer().begin());
    HeadLeft(item->GetSize());
    if (m_bandPackets[band] > 0)
    {
        m_head[band] = next;
    }
    return item;
}

Ptr<const Packet>
TalbPriorityQueue::Peek() const
{
    NS_LOG_FUNCTION(this);
    return DoPeek(GetContainer().begin());
}

uint32_t
TalbPriorityQueue::GetBandBytes(uint8_t band) const
{
    NS_ASSERT(band < TALB_NUM_PRIORITIES);
    return m_bandBytes[band];
}

uint32_t
TalbPriorityQueue::GetBandPackets(uint8_t band) const
{
    NS_ASSERT(band < TALB_NUM_PRIORITIES);
    return m_bandPackets[band];
}

uint64_t
TalbPriorityQueue::GetMarkedCount() const
{
    return m_nMarked;
}

} // namespace ns3
