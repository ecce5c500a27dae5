#include "talb-switch-pipeline.h"

#include "talb-ipv4-edit.h"
#include "talb-packet-view.h"

#include <algorithm>

namespace talb
{

namespace
{

constexpr uint16_t kEtherIpv4 = 0x0800;
constexpr uint8_t kProtoUdp = 17;
constexpr uint16_t kRoceV2Port = 4791; ///< RoCEv2's UDP destination port

inline uint16_t
Be16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

inline uint32_t
Be32(const uint8_t* p)
{
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

/**
 * The IPv4 header's offset in a frame that ParseFrame found malformed, when at least its fixed
 * 20 bytes are there to read the destination from; -1 otherwise.
 */
int
FindIpv4(const uint8_t* frame, uint32_t len)
{
    uint32_t off = 12;
    for (int tags = 0; tags < 2 && len >= off + 2; ++tags)
    {
        uint16_t type = Be16(frame + off);
        if (type != 0x8100 && type != 0x88A8)
        {
            break;
        }
        off += 4;
    }
    if (len < off + 2 || Be16(frame + off) != kEtherIpv4)
    {
        return -1;
    }
    off += 2;
    return len >= off + 20 && (frame[off] >> 4) == 4 ? static_cast<int>(off) : -1;
}

} // namespace

bool
SwitchPipeline::Init(const SwitchConfig& config,
                     const PipelineConfig& pipeline,
                     const PolicyOptions& policy,
                     SwitchPort* ports,
                     std::string* error)
{
    m_config = pipeline;
    m_ports = ports;
    m_nPorts = static_cast<uint32_t>(config.ports.size());
    if (m_config.controlBand >= TALB_NUM_PRIORITIES || m_config.untaggedBand >= TALB_NUM_PRIORITIES)
    {
        *error = "bands are 0..7";
        return false;
    }
    for (uint32_t i = 0; i < m_nPorts; ++i)
    {
        const PortSpec& spec = config.ports[i];
        EgressConfig egress = pipeline.egress;
        egress.bestEffortBand = m_config.untaggedBand;
        if (spec.ecnBytes >= 0)
        {
            egress.ecnThresholdBytes = static_cast<uint64_t>(spec.ecnBytes);
        }
        if (spec.bufferBytes >= 0)
        {
            egress.bufferBytes = static_cast<uint64_t>(spec.bufferBytes);
        }
        if (!ports[i].queue.Init(egress))
        {
            *error = "port " + std::to_string(i) + ": " + EgressQueue::Check(egress);
            return false;
        }
        ports[i].rateBps = spec.rateBps ? spec.rateBps : pipeline.lineRateBps;
        uint64_t depth = std::max<uint64_t>(4ull * pipeline.maxFrameBytes,
                                            spec.rateBps / 8 * pipeline.shaperBurstUs / 1000000);
        ports[i].shaper.Configure(spec.rateBps, depth);
        ports[i].up = true;
        ports[i].heldBytes = 0;
    }
    std::vector<uint32_t> prefixes;
    std::vector<uint8_t> lengths;
    m_routes.clear();
    m_needSrcLeaf = false;
    for (const RouteSpec& r : config.routes)
    {
        Route route{};
        std::copy(r.ports.begin(), r.ports.end(), route.ports);
        route.count = static_cast<uint32_t>(r.ports.size());
        route.leaf = r.leaf;
        route.hostPort = r.hostPort;
        m_needSrcLeaf = m_needSrcLeaf || r.leaf != kNoLeaf;
        m_routes.push_back(route);
        prefixes.push_back(r.prefix);
        lengths.push_back(r.length);
    }
    m_table.Build(prefixes, lengths);
    m_view.SetPorts(ports);
    m_counters = PipelineCounters();
    // TaLB v2 counts untagged data flows at the band this switch queues them in.
    const PolicyKind* kind = FindPolicyKind(policy.name);
    for (const RouteSpec& r : config.routes)
    {
        if (kind && kind->needsHostPort && r.ports.size() > 1 && r.hostPort == kNoHostPort)
        {
            *error = "route " + FormatIpv4(r.prefix) + "/" + std::to_string(r.length) + " (line " +
                     std::to_string(r.line) + "): --lb=" + policy.name +
                     " pins by the destination host's port: give the host a /32 route with "
                     "hostport=N";
            return false;
        }
    }
    PolicyOptions options = policy;
    options.talb.v2.untaggedPriority = m_config.untaggedBand;
    m_ecnView.Init(ports, m_nPorts, policy.hermes.rateWindowNs);
    return m_policy.Build(options, m_nPorts, &m_view, &m_ecnView, this, error);
}

void
SwitchPipeline::Rerouted(const lb::PacketInfo& /* packet */, uint32_t /* from */, uint32_t /* to */)
{
    ++m_counters.reroutes;
}

void
SwitchPipeline::Evicted(uint32_t /* flowHash */, uint32_t /* tensorId */)
{
    ++m_counters.evictions;
}

/* 8< pipeline */
int
SwitchPipeline::Forward(uint8_t* frame, uint32_t len, void* item, int64_t nowNs)
{
    ++m_counters.rx;
    PacketView view;
    ParseResult parsed = ParseFrame(frame, len, &view);
    const bool readable = parsed == ParseResult::kTcp || parsed == ParseResult::kOtherIpv4;
    const int found = readable                            ? static_cast<int>(view.l3)
                      : parsed == ParseResult::kMalformed ? FindIpv4(frame, len)
                                                          : -1;
    if (found < 0)
    {
        ++m_counters.notIpv4;
        return -1;
    }
    if (!readable)
    {
        ++m_counters.malformed; // routed, unlabelled: fail-open
    }
    const uint32_t l3 = static_cast<uint32_t>(found);
    const uint8_t* ip = frame + l3;
    uint32_t src = Be32(ip + 12);
    uint32_t dst = Be32(ip + 16);
    int r = m_table.Lookup(dst);
    if (r == RouteTable::kNoRoute)
    {
        ++m_counters.noRoute;
        return -1;
    }
    const Route& route = m_routes[r];
    uint32_t live[kMaxSwitchPorts];
    uint32_t nLive = LivePorts(route, live);
    if (nLive == 0)
    {
        ++m_counters.noRoute;
        return -1;
    }

    lb::PacketInfo info;
    info.nowNs = nowNs;
    info.dstLeaf = route.leaf;
    info.dstLeafPort = route.hostPort == kNoHostPort ? 0 : route.hostPort;
    info.srcLeaf = lb::kNoPort;
    const Headers h =
        ReadHeaders(frame, len, l3, readable ? &view : nullptr, parsed == ParseResult::kTcp, &info);
    info.flowHash = lb::FlowHash(src, dst, h.ports, ip[9]);
    info.srcHost = src;
    info.dstHost = dst;
    if (m_needSrcLeaf)
    {
        int s = m_table.Lookup(src);
        info.srcLeaf = s == RouteTable::kNoRoute ? lb::kNoPort : m_routes[s].leaf;
    }

    uint32_t out = live[0];
    if (nLive > 1)
    {
        out = m_policy.Main().Select(info, lb::Candidates{live, nLive});
        ++m_counters.selections;
    }
    return Queue(frame, len, item, l3, out, info, h);
}

uint32_t
SwitchPipeline::LivePorts(const Route& route, uint32_t* live) const
{
    uint32_t nLive = 0;
    for (uint32_t i = 0; i < route.count; ++i)
    {
        live[nLive] = route.ports[i];
        nLive += m_ports[route.ports[i]].up ? 1 : 0;
    }
    return nLive;
}

SwitchPipeline::Headers
SwitchPipeline::ReadHeaders(const uint8_t* frame,
                            uint32_t len,
                            uint32_t l3,
                            const PacketView* view,
                            bool tcp,
                            lb::PacketInfo* info)
{
    const uint8_t* ip = frame + l3;
    Headers h;
    h.tos = ip[1];
    h.dscpPriority = talb_priority_from_dscp(h.tos >> 2);
    if (!view)
    {
        info->size = len - l3;
        return h;
    }
    info->size = view->ipTotalLen;
    if (tcp)
    {
        h.ports = (uint32_t(view->key.srcPort) << 16) | view->key.dstPort;
        h.pureControl = view->payloadLen == 0;
        info->tcpPayload = view->payloadLen;
        info->tcpSeqEnd = view->seq + view->payloadLen;
    }
    else if (ip[9] == kProtoUdp && (Be16(ip + 6) & 0x1FFF) == 0 &&
             len >= l3 + view->ipHeaderLen + 4)
    {
        const uint8_t* udp = ip + view->ipHeaderLen;
        h.ports = (uint32_t(Be16(udp)) << 16) | Be16(udp + 2);
        // RoCEv2 recovers from reordering by go-back-N (TaLB v2's safe moves).
        info->goBackN = Be16(udp + 2) == kRoceV2Port;
        // The BTH behind the UDP header: its destination QP (bytes 5-7), for E-ECMP's hash.
        if (info->goBackN && len >= l3 + view->ipHeaderLen + 8 + 12)
        {
            const uint8_t* bth = udp + 8;
            info->roceDstQp = (uint32_t(bth[5]) << 16) | (uint32_t(bth[6]) << 8) | bth[7];
        }
    }
    if (m_config.labels == LabelSource::kOption)
    {
        size_t at;
        int found = talb_ipv4_options_find(ip + 20, view->ipHeaderLen - 20, &at);
        if (found == TALB_WIRE_OK)
        {
            found = talb_option_decode(ip + 20 + at, view->ipHeaderLen - 20 - at, &info->label);
            info->hasLabel = found == TALB_OPT_LEN;
        }
        if (found != TALB_WIRE_NOT_FOUND && !info->hasLabel)
        {
            ++m_counters.malformed; // a broken option: routed without its label
        }
    }
    else if (h.dscpPriority >= 0)
    {
        // The DSCP carries the priority only: the flow stands for its tensor.
        info->hasLabel = true;
        info->label = talb_label{0, static_cast<uint8_t>(h.dscpPriority), 0};
    }
    return h;
}

int
SwitchPipeline::Queue(uint8_t* frame,
                      uint32_t len,
                      void* item,
                      uint32_t l3,
                      uint32_t out,
                      const lb::PacketInfo& info,
                      const Headers& h)
{
    uint8_t band = info.hasLabel && m_config.labels == LabelSource::kOption ? info.label.priority
                   : h.dscpPriority >= 0 ? static_cast<uint8_t>(h.dscpPriority)
                   : h.pureControl       ? m_config.controlBand
                                         : m_config.untaggedBand;
    bool ect = (h.tos & 0x3) == 1 || (h.tos & 0x3) == 2;
    SwitchPort& port = m_ports[out];
    port.dre.Add(info.size, info.nowNs);
    switch (port.queue.Enqueue(item, len, band, ect))
    {
    case EnqueueResult::kDropped:
        ++m_counters.queueDrops;
        return -1;
    case EnqueueResult::kMarked:
        SetEcnCe(frame + l3);
        ++m_counters.marked;
        break;
    case EnqueueResult::kQueued:
        break;
    }
    ++m_counters.queued;
    ++(info.hasLabel ? m_counters.labelled : m_counters.unlabelled);
    return static_cast<int>(out);
}

/* >8 pipeline */

} // namespace talb
