#include "talb-tagger.h"

#include "talb-ipv4-edit.h"

namespace talb
{

namespace
{
constexpr uint32_t kIpv4FixedLen = 20;
} // namespace

TaggerConfig::TaggerConfig()
{
    for (uint8_t p = 0; p < TALB_NUM_PRIORITIES; ++p)
    {
        dscp[p] = talb_dscp_from_priority(p);
    }
}

Tagger::Tagger(const TaggerConfig& config)
    : m_config(config),
      m_flows(config.maxFlows)
{
}

int
Tagger::Outbound(uint8_t* frame, uint32_t len, uint32_t headroom)
{
    OutboundCounters& c = m_counters.out;
    ++c.packets;
    ++m_clock;
    PacketView v;
    switch (ParseFrame(frame, len, &v))
    {
    case ParseResult::kTcp:
        break;
    case ParseResult::kMalformed:
        ++c.malformed;
        return 0;
    default:
        ++c.passthrough;
        return 0;
    }

    SeqTracker* tracker = nullptr;
    if (v.tcpFlags & kTcpRst)
    {
        m_flows.Erase(v.key);
        ++c.passthrough;
        return 0;
    }
    if (v.tcpFlags & kTcpSyn)
    {
        bool evicted;
        tracker = m_flows.Insert(v.key, m_clock, &evicted);
        m_counters.evicted += evicted;
        tracker->Start(v.seq);
    }
    if (v.tcpFlags & kTcpFin)
    {
        m_flows.Close(v.key);
    }
    if (v.payloadLen == 0)
    {
        ++c.passthrough;
        return 0;
    }
    if (tracker == nullptr)
    {
        tracker = m_flows.Find(v.key, m_clock);
        if (tracker == nullptr)
        {
            ++c.untracked;
            return 0;
        }
    }

    talb_label label;
    switch (tracker->Classify(v.seq, frame + v.payload, v.payloadLen, &label))
    {
    case SeqTracker::Verdict::kLabelled:
        break;
    case SeqTracker::Verdict::kMalformed:
        ++c.malformed;
        return 0;
    default:
        ++c.untracked;
        return 0;
    }

    uint8_t* ip = frame + v.l3;
    uint8_t dscp = m_config.dscp[label.priority];
    if (m_config.dscpOnly)
    {
        SetDscp(ip, dscp);
        ++c.tagged;
        return 0;
    }
    // The option goes where the options list ends: after the last option, before an EOL.
    size_t listEnd = v.ipHeaderLen - kIpv4FixedLen;
    if (v.ipHeaderLen > kIpv4FixedLen)
    {
        int rc =
            talb_ipv4_options_find(ip + kIpv4FixedLen, v.ipHeaderLen - kIpv4FixedLen, &listEnd);
        if (rc == TALB_WIRE_OK)
        {
            ++c.passthrough; // labelled upstream: leave it as it is
            return 0;
        }
        if (rc == TALB_WIRE_BAD_OPTIONS)
        {
            ++c.malformed;
            return 0;
        }
    }
    if (v.ipTotalLen + TALB_OPT_LEN > m_config.mtu ||
        v.ipHeaderLen + TALB_OPT_LEN > kIpv4MaxHeaderLen || headroom < TALB_OPT_LEN)
    {
        SetDscp(ip, dscp);
        ++c.oversize;
        return 0;
    }
    uint8_t option[TALB_OPT_LEN];
    talb_option_encode(&label, option, sizeof(option));
    InsertOption(frame, v.l3, v.ipHeaderLen, listEnd, option, dscp);
    ++c.tagged;
    return -TALB_OPT_LEN;
}

int
Tagger::Inbound(uint8_t* frame, uint32_t len)
{
    InboundCounters& c = m_counters.in;
    ++c.packets;
    PacketView v;
    switch (ParseFrame(frame, len, &v))
    {
    case ParseResult::kTcp:
    case ParseResult::kOtherIpv4:
        break;
    case ParseResult::kMalformed:
        ++c.malformed;
        return 0;
    default:
        ++c.passthrough;
        return 0;
    }
    if (v.ipHeaderLen == kIpv4FixedLen)
    {
        ++c.passthrough;
        return 0;
    }
    const uint8_t* options = frame + v.l3 + kIpv4FixedLen;
    size_t at;
    int rc = talb_ipv4_options_find(options, v.ipHeaderLen - kIpv4FixedLen, &at);
    if (rc == TALB_WIRE_NOT_FOUND)
    {
        ++c.passthrough;
        return 0;
    }
    if (rc != TALB_WIRE_OK || options[at + 1] != TALB_OPT_LEN)
    {
        ++c.malformed;
        return 0;
    }
    RemoveOption(frame, v.l3, v.ipHeaderLen, at);
    ++c.stripped;
    return TALB_OPT_LEN;
}

const TaggerCounters&
Tagger::Counters() const
{
    return m_counters;
}

const TaggerConfig&
Tagger::Config() const
{
    return m_config;
}

const FlowTable&
Tagger::Flows() const
{
    return m_flows;
}

} // namespace talb
