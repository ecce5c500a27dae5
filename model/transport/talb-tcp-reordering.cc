#include "talb-tcp-reordering.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/tcp-header.h"
#include "ns3/tcp-socket-base.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbTcpReordering");
NS_OBJECT_ENSURE_REGISTERED(TalbTcpReordering);

TypeId
TalbTcpReordering::GetTypeId()
{
    static TypeId tid = TypeId("ns3::TalbTcpReordering")
                            .SetParent<Object>()
                            .SetGroupName("Talb")
                            .AddConstructor<TalbTcpReordering>();
    return tid;
}

TalbTcpReordering::TalbTcpReordering()
{
    NS_LOG_FUNCTION(this);
}

TalbTcpReordering::~TalbTcpReordering()
{
    NS_LOG_FUNCTION(this);
}

Ptr<TalbTcpReordering>
TalbTcpReordering::Install(Ptr<TcpSocketBase> socket, uint32_t maxReordering)
{
    NS_ABORT_MSG_UNLESS(socket, "TalbTcpReordering::Install: no TCP socket");
    UintegerValue segmentSize;
    socket->GetAttribute("SegmentSize", segmentSize);
    Ptr<TalbTcpReordering> r = CreateObject<TalbTcpReordering>();
    r->Configure(segmentSize.Get(), socket->GetRetxThresh(), maxReordering);
    r->m_socket = socket;
    bool connected =
        socket->TraceConnectWithoutContext("Tx",
                                           MakeCallback(&TalbTcpReordering::SegmentSent, r)) &&
        socket->TraceConnectWithoutContext("Rx",
                                           MakeCallback(&TalbTcpReordering::SegmentReceived, r)) &&
        socket->TraceConnectWithoutContext("RTT",
                                           MakeCallback(&TalbTcpReordering::RttChanged, r)) &&
        socket->TraceConnectWithoutContext("CongState",
                                           MakeCallback(&TalbTcpReordering::StateChanged, r));
    NS_ABORT_MSG_UNLESS(connected, "TalbTcpReordering::Install: the socket lacks a trace source");
    return r;
}

void
TalbTcpReordering::Configure(uint32_t segmentSize, uint32_t initial, uint32_t maxReordering)
{
    NS_LOG_FUNCTION(this << segmentSize << initial << maxReordering);
    NS_ABORT_MSG_IF(segmentSize == 0, "TalbTcpReordering: segment size 0");
    NS_ABORT_MSG_IF(initial == 0 || maxReordering < initial,
                    "TalbTcpReordering: the maximum reordering ("
                        << maxReordering << ") must be at least the initial threshold (" << initial
                        << ", at least 1)");
    m_segmentSize = segmentSize;
    m_initial = initial;
    m_max = maxReordering;
    m_threshold = initial;
    m_maxThreshold = initial;
}

uint32_t
TalbTcpReordering::GetThreshold() const
{
    return m_threshold;
}

uint64_t
TalbTcpReordering::GetRaises() const
{
    return m_raises;
}

uint32_t
TalbTcpReordering::GetMaxThreshold() const
{
    return m_maxThreshold;
}

void
TalbTcpReordering::Insert(Ranges* ranges, SequenceNumber32 start, SequenceNumber32 end, Time sent)
{
    if (!(start < end))
    {
        return;
    }
    // The first range that ends at or after start: everything before it stays.
    auto first = std::find_if(ranges->begin(), ranges->end(), [start](const Range& r) {
        return !(r.end < start);
    });
    auto last = first;
    Range merged{start, end, sent};
    while (last != ranges->end() && !(end < last->start))
    {
        merged.start = std::min(merged.start, last->start);
        merged.end = std::max(merged.end, last->end);
        merged.sent = std::min(merged.sent, last->sent);
        ++last;
    }
    if (first == last)
    {
        ranges->insert(first, merged);
        return;
    }
    *first = merged;
    ranges->erase(first + 1, last);
}

void
TalbTcpReordering::TrimBelow(Ranges* ranges, SequenceNumber32 una)
{
    auto keep =
        std::find_if(ranges->begin(), ranges->end(), [una](const Range& r) { return una < r.end; });
    ranges->erase(ranges->begin(), keep);
    if (!ranges->empty() && ranges->front().start < una)
    {
        ranges->front().start = una;
    }
}

SequenceNumber32
TalbTcpReordering::LowestOutside(const Ranges& ranges, SequenceNumber32 start, SequenceNumber32 end)
{
    SequenceNumber32 pos = start;
    for (const Range& r : ranges)
    {
        if (!(pos < r.end))
        {
            continue;
        }
        if (pos < r.start)
        {
            break;
        }
        pos = r.end;
    }
    return std::min(pos, end);
}

SequenceNumber32
TalbTcpReordering::LowestOriginal(SequenceNumber32 start, SequenceNumber32 end) const
{
    SequenceNumber32 pos = start;
    while (pos < end)
    {
        SequenceNumber32 next =
            LowestOutside(m_retransmitted, LowestOutside(m_sacked, pos, end), end);
        if (next == pos)
        {
            break;
        }
        pos = next;
    }
    return pos;
}

void
TalbTcpReordering::Sent(SequenceNumber32 start, SequenceNumber32 end, Time now)
{
    if (!m_started)
    {
        m_started = true;
        m_una = start;
        m_highSent = start;
        m_highSacked = start;
    }
    if (start < m_highSent)
    {
        NS_LOG_LOGIC("retransmission " << start << " with " << SackedAbove(start) / m_segmentSize
                                       << " segments SACKed above, threshold " << m_threshold);
        Insert(&m_retransmitted, std::max(start, m_una), std::min(end, m_highSent), now);
    }
    m_highSent = std::max(m_highSent, end);
}

void
TalbTcpReordering::RttSampled(Time rtt)
{
    if (rtt.IsStrictlyPositive())
    {
        m_minRtt = std::min(m_minRtt, rtt);
    }
}

uint32_t
TalbTcpReordering::Acked(SequenceNumber32 ack, const TcpOptionSack::SackList& blocks, Time now)
{
    if (!m_started)
    {
        return m_threshold;
    }
    const SequenceNumber32 priorFack = std::max(m_highSacked, m_una);
    SequenceNumber32 late = priorFack; // the lowest byte this ACK shows arrived late

    // Newly delivered bytes sent once only.
    auto original = [this, &late](SequenceNumber32 start, SequenceNumber32 end) {
        SequenceNumber32 first = LowestOriginal(start, end);
        if (first < end)
        {
            late = std::min(late, first);
        }
    };
    // A retransmitted range answered sooner than any round trip: its original arrived.
    auto answeredEarly = [this, now, &late](SequenceNumber32 start, SequenceNumber32 end) {
        for (const Range& r : m_retransmitted)
        {
            if (!(r.start < end))
            {
                break;
            }
            if (start < r.end && m_minRtt != Time::Max() && now - r.sent < m_minRtt)
            {
                SequenceNumber32 from = std::max(start, r.start);
                SequenceNumber32 news = LowestOutside(m_sacked, from, std::min(end, r.end));
                if (news < std::min(end, r.end))
                {
                    late = std::min(late, news);
                }
            }
        }
    };

    SequenceNumber32 una = m_una;
    if (m_una < ack && !(m_highSent < ack))
    {
        una = ack;
        original(m_una, ack);
        answeredEarly(m_una, ack);
    }
    for (const TcpOptionSack::SackBlock& b : blocks)
    {
        SequenceNumber32 start = std::max(b.first, una);
        SequenceNumber32 end = std::min(b.second, m_highSent);
        if (!(start < end))
        {
            continue; // below the cumulative ACK (a DSACK) or beyond what was sent
        }
        original(start, end);
        answeredEarly(start, end);
    }
    if (late < priorFack)
    {
        Sample(late, priorFack);
    }

    m_una = una;
    for (const TcpOptionSack::SackBlock& b : blocks)
    {
        SequenceNumber32 start = std::max(b.first, una);
        SequenceNumber32 end = std::min(b.second, m_highSent);
        if (start < end)
        {
            Insert(&m_sacked, start, end, now);
            m_highSacked = std::max(m_highSacked, end);
        }
    }
    TrimBelow(&m_sacked, m_una);
    TrimBelow(&m_retransmitted, m_una);
    m_highSacked = std::max(m_highSacked, m_una);
    return m_threshold;
}

void
TalbTcpReordering::Sample(SequenceNumber32 late, SequenceNumber32 highest)
{
    const uint32_t distance = highest - late;
    const uint32_t segments = (distance + m_segmentSize - 1) / m_segmentSize;
    NS_LOG_LOGIC("late byte " << late << " below " << highest << ": " << segments << " segments");
    if (segments > m_threshold && m_threshold < m_max)
    {
        m_threshold = std::min(segments, m_max);
        m_maxThreshold = std::max(m_maxThreshold, m_threshold);
        ++m_raises;
        Apply();
    }
}

uint64_t
TalbTcpReordering::SackedAbove(SequenceNumber32 seq) const
{
    uint64_t sacked = 0;
    for (const Range& r : m_sacked)
    {
        if (seq < r.end)
        {
            sacked += r.end - std::max(r.start, seq);
        }
    }
    return sacked;
}

void
TalbTcpReordering::StateChanged(TcpSocketState::TcpCongState_t from,
                                TcpSocketState::TcpCongState_t to)
{
    if (to != TcpSocketState::CA_LOSS || m_threshold == m_initial ||
        !(from == TcpSocketState::CA_OPEN || from == TcpSocketState::CA_DISORDER))
    {
        return;
    }
    const uint64_t sacked = SackedAbove(m_una);
    if (sacked >= uint64_t(m_initial) * m_segmentSize)
    {
        NS_LOG_LOGIC("timeout with " << sacked << " bytes SACKed: threshold back to " << m_initial);
        m_threshold = m_initial;
        Apply();
    }
}

void
TalbTcpReordering::Apply()
{
    if (m_socket)
    {
        m_socket->SetRetxThresh(m_threshold);
    }
}

void
TalbTcpReordering::SegmentSent(Ptr<const Packet> segment,
                               const TcpHeader& header,
                               Ptr<const TcpSocketBase> /* socket */)
{
    const uint32_t size = segment->GetSize();
    if (size > 0)
    {
        Sent(header.GetSequenceNumber(), header.GetSequenceNumber() + size, Simulator::Now());
    }
}

void
TalbTcpReordering::SegmentReceived(Ptr<const Packet> /* segment */,
                                   const TcpHeader& header,
                                   Ptr<const TcpSocketBase> /* socket */)
{
    if (!(header.GetFlags() & TcpHeader::ACK))
    {
        return;
    }
    static const TcpOptionSack::SackList noBlocks;
    Ptr<const TcpOptionSack> sack =
        DynamicCast<const TcpOptionSack>(header.GetOption(TcpOption::SACK));
    Acked(header.GetAckNumber(), sack ? sack->GetSackList() : noBlocks, Simulator::Now());
}

void
TalbTcpReordering::RttChanged(Time /* from */, Time to)
{
    RttSampled(to);
}

} // namespace ns3
