#include "talb-output-writer.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/system-path.h"
#include "ns3/talb-background-traffic.h"

#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <exception>
#include <fstream>
#include <numeric>
#include <set>
#include <unistd.h>

#ifndef TALB_VERSION
#define TALB_VERSION "unknown"
#endif

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("TalbOutputWriter");
NS_OBJECT_ENSURE_REGISTERED(TalbOutputWriter);

namespace
{
/// Pending rows are written once they pass this many bytes, whatever the interval.
constexpr std::size_t FLUSH_BYTES = 1 << 20;

/// Writers with open files; an error that aborts the run (NS_ABORT_MSG, an uncaught exception:
/// std::terminate) still writes their pending rows.
std::set<TalbOutputWriter*>&
OpenWriters()
{
    static std::set<TalbOutputWriter*> writers;
    return writers;
}

std::terminate_handler g_previousTerminate = nullptr;
bool g_terminateInstalled = false;

void
FlushOpenWritersAndTerminate()
{
    for (TalbOutputWriter* w : OpenWriters())
    {
        w->FlushRows();
    }
    (g_previousTerminate ? g_previousTerminate : std::abort)();
}

// flows.csv has a row per message (millions in a large run): its fields are formatted with
// std::to_chars, which writes what printf's %d, %u and %.6f would, without parsing a format.
template <typename Integer>
void
AppendInt(std::string& s, Integer v)
{
    char buf[24];
    s.append(buf, std::to_chars(buf, buf + sizeof(buf), v).ptr);
}

void
AppendIpv4(std::string& s, uint32_t a)
{
    for (int shift = 24; shift >= 0; shift -= 8)
    {
        AppendInt(s, (a >> shift) & 0xffu);
        if (shift)
        {
            s.push_back('.');
        }
    }
}

void
AppendFixed6(std::string& s, double v)
{
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, 6);
    if (r.ec == std::errc())
    {
        s.append(buf, r.ptr);
        return;
    }
    std::string wide(std::snprintf(nullptr, 0, "%.6f", v) + 1, '\0');
    std::snprintf(wide.data(), wide.size(), "%.6f", v);
    s.append(wide.c_str());
}

/**
 * \return \p text as one CSV field (RFC 4180): quoted, with its quotes doubled, where it holds a
 * comma, quote or line break (a trace's operation names do: "ncclKernel_AllReduce(ncclDevComm*,
 * unsigned long, ...)"); else as it is.
 */
std::string
CsvField(const std::string& text)
{
    if (text.find_first_of(",\"\r\n") == std::string::npos)
    {
        return text;
    }
    std::string out = "\"";
    for (char c : text)
    {
        out += c;
        if (c == '"')
        {
            out += '"';
        }
    }
    return out + "\"";
}

/// printf into \p s (the rare rows: tensors and iterations).
void
AppendFormat(std::string& s, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    va_list again;
    va_copy(again, args);
    int n = std::vsnprintf(nullptr, 0, format, args);
    va_end(args);
    std::size_t at = s.size();
    s.resize(at + n + 1);
    std::vsnprintf(s.data() + at, n + 1, format, again);
    va_end(again);
    s.resize(at + n);
}
} // namespace

const char* const TalbOutputWriter::FCT_TXT = "fct.txt";

const char* const TalbOutputWriter::FLOW_COLUMNS =
    "src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,slowdown,job,"
    "iteration,tensor,priority,kind,scheme,seed";
const char* const TalbOutputWriter::TENSOR_COLUMNS =
    "job,iteration,tensor,name,bytes,priority,ready_ns,done_ns,comm_ns,scheme,seed,wire_bytes";
const char* const TalbOutputWriter::ITERATION_COLUMNS =
    "job,worker,iteration,start_ns,end_ns,compute_ns,exposed_comm_ns,scheme,seed";
const char* const TalbOutputWriter::COLLECTIVE_COLUMNS =
    "job,iteration,operation,group,type,class,bytes,priority,start_ns,end_ns,ideal_ns,scheme,"
    "seed";
const char* const TalbOutputWriter::LINK_DROP_COLUMNS =
    "time_ns,leaf,spine,direction,cause,src_ip,src_port,dst_ip,dst_port,job,tensor,priority,"
    "scheme,seed";
const char* const TalbOutputWriter::PATH_COLUMNS =
    "node,port,next_hop,src_ip,src_port,dst_ip,dst_port,job,tensor,priority,start_ns,end_ns,"
    "packets,bytes,scheme,seed";

TypeId
TalbOutputWriter::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::TalbOutputWriter")
            .SetParent<Object>()
            .SetGroupName("Talb")
            .AddConstructor<TalbOutputWriter>()
            .AddAttribute("FlushInterval",
                          "Wall-clock time between writes of the rows gathered meanwhile (0: "
                          "every row at once, 10 % more CPU for a 64-host RDMA iteration)",
                          TimeValue(Seconds(1)),
                          MakeTimeAccessor(&TalbOutputWriter::m_flushInterval),
                          MakeTimeChecker(Seconds(0)))
            .AddAttribute("FctTxt",
                          "Also write each flow as a line of fct.txt in HPCC's format (its "
                          "simulation/scratch/third.cc, qp_finish): source and destination "
                          "IPv4 as 8 hexadecimal digits, source and destination port, size in "
                          "bytes, start, FCT and ideal FCT in ns; space-separated, no header; "
                          "HPCC's and ConWeave's FCT analysis scripts read it",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbOutputWriter::m_writeFctTxt),
                          MakeBooleanChecker())
            .AddAttribute("PathsCsv",
                          "Also write paths.csv: each stay of a flow on a switch's egress port "
                          "as the load balancers chose it (TalbPathRecorder; one row per "
                          "packet or few for per-packet schemes)",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TalbOutputWriter::m_writePaths),
                          MakeBooleanChecker());
    return tid;
}

TalbOutputWriter::TalbOutputWriter()
{
    NS_LOG_FUNCTION(this);
}

TalbOutputWriter::~TalbOutputWriter()
{
    Close();
}

void
TalbOutputWriter::DoDispose()
{
    Close();
    m_ideal = IdealFctCallback();
    Object::DoDispose();
}

void
TalbOutputWriter::Close()
{
    OpenWriters().erase(this);
    if (m_pathRecorder)
    {
        // Its open stays are measurements too.
        m_pathRecorder->Finish();
        m_pathRecorder->SetSink(TalbPathRecorder::RecordCallback());
        m_pathRecorder = nullptr;
    }
    for (CsvFile* f : Files())
    {
        if (f->file)
        {
            Flush(*f);
            std::fclose(f->file);
            f->file = nullptr;
        }
    }
}

void
TalbOutputWriter::Flush(CsvFile& f)
{
    if (!f.pending.empty())
    {
        std::fwrite(f.pending.data(), 1, f.pending.size(), f.file);
        f.pending.clear();
    }
    std::fflush(f.file);
}

void
TalbOutputWriter::FlushRows()
{
    for (CsvFile* f : Files())
    {
        if (f->file)
        {
            Flush(*f);
        }
    }
}

void
TalbOutputWriter::RowAdded(CsvFile& f)
{
    auto now = std::chrono::steady_clock::now();
    if (f.pending.size() < FLUSH_BYTES && now < m_nextFlush)
    {
        return;
    }
    FlushRows();
    m_nextFlush = now + std::chrono::nanoseconds(m_flushInterval.GetNanoSeconds());
}

std::string
TalbOutputWriter::AllocatorName()
{
    Dl_info info;
    void* (*allocate)(std::size_t) = &std::malloc;
    if (dladdr(reinterpret_cast<void*>(allocate), &info) == 0 || info.dli_fname == nullptr)
    {
        return "unknown";
    }
    std::string path = info.dli_fname;
    return path.substr(path.find_last_of('/') + 1);
}

bool
TalbOutputWriter::WriteRunJson(const std::string& folder, const RunInfo& info, std::string* error)
{
    // Through a temporary file and a rename: a run killed at any point leaves the previous
    // run.json or the new one, never half of one.
    std::string path = SystemPath::Append(folder, "run.json");
    std::string tmp = path + ".tmp";
    std::ofstream json(tmp);
    if (!json)
    {
        *error = "cannot create " + tmp + ": " + std::strerror(errno);
        return false;
    }
    json << "{\"talb_version\": \"" << TALB_VERSION << "\", \"scheme\": \"" << info.scheme
         << "\", \"seed\": " << info.seed << ", \"lb\": \"" << info.lb
         << "\", \"complete\": " << (info.complete ? "true" : "false")
         << ", \"sim_seconds\": " << info.simSeconds << ", \"wall_seconds\": " << info.wallSeconds
         << ", \"run_wall_seconds\": " << info.runWallSeconds
         << ", \"run_cpu_seconds\": " << info.runCpuSeconds << ", \"allocator\": \""
         << AllocatorName() << "\", \"events\": " << info.events
         << ", \"packet_hops\": " << info.packetHops
         << ", \"delivered_packets\": " << info.deliveredPackets
         << ", \"rdma_retransmitted_packets\": " << info.rdma.retransmittedPackets
         << ", \"rdma_retransmitted_bytes\": " << info.rdma.retransmittedBytes
         << ", \"rdma_naks\": " << info.rdma.naks << ", \"rdma_timeouts\": " << info.rdma.timeouts
         << ", \"rdma_out_of_order\": " << info.rdma.outOfOrder
         << ", \"rdma_out_of_order_placed\": " << info.rdma.placed
         << ", \"rdma_plb_repaths\": " << info.rdma.plbRepaths
         << ", \"tcp_retransmitted_segments\": " << info.tcp.retransmittedSegments
         << ", \"tcp_retransmitted_bytes\": " << info.tcp.retransmittedBytes
         << ", \"tcp_timeouts\": " << info.tcp.timeouts
         << ", \"tcp_plb_repaths\": " << info.tcp.plbRepaths
         << ", \"tcp_idle_restarts\": " << info.tcp.idleRestarts
         << ", \"tcp_reordering_raises\": " << info.tcp.reorderingRaises
         << ", \"tcp_loss_probes\": " << info.tcp.lossProbes
         << ", \"tcp_probe_losses\": " << info.tcp.probeLosses
         << ", \"tcp_rack_losses\": " << info.tcp.rackLosses
         << ", \"path_selections\": " << info.paths.selections
         << ", \"reroutes\": " << info.paths.reroutes << ", \"lb_counters\": {";
    for (size_t i = 0; i < info.paths.policy.size(); ++i)
    {
        json << (i ? ", " : "") << "\"" << info.paths.policy[i].first
             << "\": " << info.paths.policy[i].second;
    }
    json << "}";
    if (info.ranks > 1)
    {
        json << ", \"ranks\": " << info.ranks
             << ", \"remote_packet_hops\": " << info.remotePacketHops;
    }
    auto writeClass = [&json](const char* name, const ClassCounters& c) {
        json << "\"" << name << "\": {\"enqueued_packets\": " << c.enqueuedPackets
             << ", \"enqueued_bytes\": " << c.enqueuedBytes
             << ", \"dequeued_packets\": " << c.dequeuedPackets
             << ", \"dequeued_bytes\": " << c.dequeuedBytes
             << ", \"dropped_packets\": " << c.droppedPackets
             << ", \"dropped_bytes\": " << c.droppedBytes << ", \"cap_drops\": " << c.capDrops
             << ", \"pushed_out\": " << c.pushedOut << ", \"marked_packets\": " << c.markedPackets
             << ", \"peak_port_bytes\": " << c.peakBytes << ", \"other_class_bytes_at_drop\": "
             << (c.droppedPackets ? double(c.otherBytesAtDrops) / c.droppedPackets : 0.0) << "}";
    };
    const SwitchCounters& sw = info.switches;
    json << ", \"switch_classes\": {";
    writeClass("training", sw.training);
    json << ", ";
    writeClass("best_effort", sw.bestEffort);
    // hopDropsByPriority's order
    const char* hopNames[] = {"leaf_up", "spine_down", "leaf_down"};
    json << ", \"device_drops\": " << sw.deviceDrops << ", \"device_drops_by_hop\": {";
    for (uint32_t hop = 0; hop < sw.hopDropsByPriority.size(); ++hop)
    {
        const auto& drops = sw.hopDropsByPriority[hop];
        json << (hop ? ", \"" : "\"") << hopNames[hop]
             << "\": " << std::accumulate(drops.begin(), drops.end(), uint64_t{0});
    }
    json << "}, \"device_drops_by_priority\": {";
    for (uint32_t hop = 0; hop < sw.hopDropsByPriority.size(); ++hop)
    {
        json << (hop ? "}, \"" : "\"") << hopNames[hop] << "\": {";
        for (uint32_t k = 0; k < TALB_NUM_PRIORITIES; ++k)
        {
            json << (k ? ", \"" : "\"") << k << "\": " << sw.hopDropsByPriority[hop][k];
        }
        json << ", \"untagged\": " << sw.hopDropsByPriority[hop][TALB_NUM_PRIORITIES];
    }
    json << "}}"
         << ", \"link_loss_drops\": " << sw.linkLossDrops
         << ", \"failed_link_drops\": " << sw.failedLinkDrops << "}";
    if (sw.pfc.installed)
    {
        const PfcCounters& p = sw.pfc;
        json << ", \"pfc\": {\"pause_starts\": " << p.pauseStarts
             << ", \"pauses_sent\": " << p.pausesSent << ", \"resumes\": " << p.resumes
             << ", \"pausing_at_end\": " << p.pausingAtEnd
             << ", \"headroom_drops\": " << p.headroomDrops
             << ", \"charged_bytes_at_end\": " << p.chargedBytesAtEnd
             << ", \"queued_bytes_at_end\": " << p.queuedBytesAtEnd
             << ", \"max_charge_bytes\": " << p.maxChargeBytes
             << ", \"within_headroom\": " << (p.withinHeadroom ? "true" : "false") << "}";
    }
    if (sw.sharedBuffer.installed)
    {
        const SharedBufferCounters& b = sw.sharedBuffer;
        json << ", \"shared_buffer\": {\"threshold_drops\": " << b.thresholdDrops
             << ", \"full_drops\": " << b.fullDrops << ", \"dropped_bytes\": " << b.droppedBytes
             << ", \"peak_bytes\": " << b.peakBytes
             << ", \"over_committed_switches\": " << b.overCommitted << "}";
    }
    json << ", \"lb_profile\": \"" << info.lbProfile << "\"";
    json << ", \"parameters\": " << info.parametersJson;
    if (!info.slowdownJson.empty())
    {
        json << ", \"background_slowdown\": " << info.slowdownJson;
    }
    if (!info.jobsJson.empty())
    {
        json << ", \"jobs\": " << info.jobsJson;
    }
    json << "}\n";
    json.close();
    if (!json || std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        *error = "cannot write " + path + ": " + std::strerror(errno);
        std::remove(tmp.c_str());
        return false;
    }
    return true;
}

void
TalbOutputWriter::MergeFolders(const std::vector<std::string>& parts, const std::string& folder)
{
    SystemPath::MakeDirectories(folder);
    // The files with a header line; fct.txt has none.
    const std::array<const char*, 6> withHeader = {"flows.csv",
                                                   "tensors.csv",
                                                   "iterations.csv",
                                                   "collectives.csv",
                                                   "link_drops.csv",
                                                   "paths.csv"};
    for (const char* name : withHeader)
    {
        // paths.csv (PathsCsv) only where the run wrote it.
        if (std::string(name) == "paths.csv" &&
            (parts.empty() || !std::ifstream(SystemPath::Append(parts[0], name))))
        {
            continue;
        }
        std::string path = SystemPath::Append(folder, name);
        std::ofstream out(path, std::ios::trunc);
        NS_ABORT_MSG_IF(!out, "TalbOutputWriter: cannot create " << path);
        bool first = true;
        for (const auto& part : parts)
        {
            std::string from = SystemPath::Append(part, name);
            std::ifstream in(from);
            NS_ABORT_MSG_IF(!in, "TalbOutputWriter: cannot read " << from);
            std::string line;
            for (bool header = true; std::getline(in, line); header = false)
            {
                if (!header || first)
                {
                    out << line << '\n';
                }
            }
            first = false;
        }
        NS_ABORT_MSG_IF(!out.flush(), "TalbOutputWriter: cannot write " << path);
    }
    // fct.txt (FctTxt) has no header: the parts' lines, in order.
    if (!parts.empty() && std::ifstream(SystemPath::Append(parts[0], FCT_TXT)))
    {
        std::ofstream out(SystemPath::Append(folder, FCT_TXT), std::ios::trunc);
        for (const auto& part : parts)
        {
            out << std::ifstream(SystemPath::Append(part, FCT_TXT)).rdbuf();
        }
    }
    for (const auto& part : parts)
    {
        for (const char* name : withHeader)
        {
            std::remove(SystemPath::Append(part, name).c_str());
        }
        std::remove(SystemPath::Append(part, FCT_TXT).c_str());
        ::rmdir(part.c_str());
    }
}

void
TalbOutputWriter::Open(const std::string& folder)
{
    Close();
    SystemPath::MakeDirectories(folder);
    auto open = [&folder](const char* name, const char* header) {
        std::string path = SystemPath::Append(folder, name);
        std::FILE* f = std::fopen(path.c_str(), "w");
        NS_ABORT_MSG_IF(!f, "TalbOutputWriter: cannot create " << path);
        std::fprintf(f, "%s\n", header);
        std::fflush(f);
        return CsvFile{f, std::string()};
    };
    m_flows = open("flows.csv", FLOW_COLUMNS);
    m_tensors = open("tensors.csv", TENSOR_COLUMNS);
    m_iterations = open("iterations.csv", ITERATION_COLUMNS);
    if (m_writeFctTxt)
    {
        std::string path = SystemPath::Append(folder, FCT_TXT);
        m_fctTxt.file = std::fopen(path.c_str(), "w");
        NS_ABORT_MSG_IF(!m_fctTxt.file, "TalbOutputWriter: cannot create " << path);
    }
    m_collectives = open("collectives.csv", COLLECTIVE_COLUMNS);
    m_linkDrops = open("link_drops.csv", LINK_DROP_COLUMNS);
    if (m_writePaths)
    {
        m_paths = open("paths.csv", PATH_COLUMNS);
    }
    m_nextFlush = std::chrono::steady_clock::now();
    if (!g_terminateInstalled)
    {
        g_previousTerminate = std::set_terminate(&FlushOpenWritersAndTerminate);
        g_terminateInstalled = true;
    }
    OpenWriters().insert(this);
}

void
TalbOutputWriter::SetScheme(const std::string& scheme)
{
    NS_ABORT_MSG_IF(scheme.empty() || scheme.find_first_of(",\n\"") != std::string::npos,
                    "TalbOutputWriter: scheme '" << scheme << "' must be a non-empty CSV word");
    m_scheme = scheme;
}

void
TalbOutputWriter::SetSeed(uint64_t seed)
{
    m_seed = seed;
}

void
TalbOutputWriter::SetIdealFct(DataRate bottleneck, Time baseRtt, uint32_t mss, uint32_t headerBytes)
{
    NS_ABORT_MSG_IF(bottleneck.GetBitRate() == 0 || mss == 0,
                    "TalbOutputWriter::SetIdealFct: rate and MSS must be positive");
    m_bottleneck = bottleneck;
    m_baseRtt = baseRtt;
    m_mss = mss;
    m_headerBytes = headerBytes;
    m_ideal = MakeCallback(&TalbOutputWriter::IdealFromModel, this);
}

void
TalbOutputWriter::SetIdealFctCallback(IdealFctCallback cb)
{
    m_ideal = cb;
}

Time
TalbOutputWriter::IdealFromModel(const TalbFlowRecord& r) const
{
    uint64_t packets = (r.sizeBytes + m_mss - 1) / m_mss;
    uint64_t wire = r.sizeBytes + packets * m_headerBytes;
    return m_baseRtt + m_bottleneck.CalculateBytesTxTime(wire);
}

void
TalbOutputWriter::ConnectJob(Ptr<TalbTrainingJob> job)
{
    job->TraceConnectWithoutContext("FlowDone", MakeCallback(&TalbOutputWriter::WriteFlow, this));
    job->TraceConnectWithoutContext("TensorDone",
                                    MakeCallback(&TalbOutputWriter::WriteTensor, this));
    job->TraceConnectWithoutContext("IterationDone",
                                    MakeCallback(&TalbOutputWriter::WriteIteration, this));
}

void
TalbOutputWriter::ConnectGraphJob(Ptr<TalbGraphJob> job)
{
    job->TraceConnectWithoutContext("FlowDone", MakeCallback(&TalbOutputWriter::WriteFlow, this));
    job->TraceConnectWithoutContext("IterationDone",
                                    MakeCallback(&TalbOutputWriter::WriteIteration, this));
    job->TraceConnectWithoutContext("CollectiveDone",
                                    MakeCallback(&TalbOutputWriter::WriteCollective, this));
}

void
TalbOutputWriter::ConnectBackground(const ApplicationContainer& apps)
{
    for (auto it = apps.Begin(); it != apps.End(); ++it)
    {
        NS_ABORT_MSG_IF(!DynamicCast<TalbBackgroundTraffic>(*it),
                        "TalbOutputWriter::ConnectBackground: not a TalbBackgroundTraffic");
        (*it)->TraceConnectWithoutContext("FlowDone",
                                          MakeCallback(&TalbOutputWriter::WriteFlow, this));
    }
}

void
TalbOutputWriter::WriteFlow(const TalbFlowRecord& r)
{
    NS_ABORT_MSG_IF(!m_flows.file, "TalbOutputWriter: Open() was not called");
    NS_ABORT_MSG_IF(m_ideal.IsNull(),
                    "TalbOutputWriter: no ideal-FCT model (SetIdealFct or SetIdealFctCallback)");
    int64_t fct = (r.end - r.start).GetNanoSeconds();
    int64_t ideal = m_ideal(r).GetNanoSeconds();
    std::string& row = m_flows.pending;
    AppendIpv4(row, r.src.Get());
    row.push_back(',');
    AppendIpv4(row, r.dst.Get());
    for (uint64_t v : {uint64_t(r.srcPort), uint64_t(r.dstPort), r.sizeBytes})
    {
        row.push_back(',');
        AppendInt(row, v);
    }
    for (int64_t v : {r.start.GetNanoSeconds(), fct, ideal})
    {
        row.push_back(',');
        AppendInt(row, v);
    }
    row.push_back(',');
    AppendFixed6(row, ideal > 0 ? double(fct) / ideal : 0.0);
    for (int32_t v : {r.job, r.iteration, r.tensor, r.priority})
    {
        row.push_back(',');
        AppendInt(row, v);
    }
    if (m_fctTxt.file && !r.nvlink) // NVLink messages never enter the fabric
    {
        // HPCC's qp_finish: "%08x %08x %u %u %lu %lu %lu %lu\n" (its times in ns, as ours).
        AppendFormat(m_fctTxt.pending,
                     "%08x %08x %u %u %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 "\n",
                     r.src.Get(),
                     r.dst.Get(),
                     unsigned(r.srcPort),
                     unsigned(r.dstPort),
                     r.sizeBytes,
                     r.start.GetNanoSeconds(),
                     fct,
                     ideal);
    }
    row.append(r.background ? ",background," : r.nvlink ? ",nvlink," : ",tensor,");
    row.append(m_scheme);
    row.push_back(',');
    AppendInt(row, m_seed);
    row.push_back('\n');
    ++m_flowRows;
    RowAdded(m_flows);
}

void
TalbOutputWriter::WriteTensor(const TalbTensorRecord& r)
{
    NS_ABORT_MSG_IF(!m_tensors.file, "TalbOutputWriter: Open() was not called");
    AppendFormat(m_tensors.pending,
                 "%u,%u,%u,%s,%" PRIu64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRIu64
                 ",%" PRIu64 "\n",
                 r.job,
                 r.iteration,
                 r.tensor,
                 CsvField(r.name).c_str(),
                 r.bytes,
                 unsigned(r.priority),
                 r.ready.GetNanoSeconds(),
                 r.done.GetNanoSeconds(),
                 (r.done - r.ready).GetNanoSeconds(),
                 m_scheme.c_str(),
                 m_seed,
                 r.wireBytes);
    ++m_tensorRows;
    RowAdded(m_tensors);
}

void
TalbOutputWriter::WriteIteration(const TalbIterationRecord& r)
{
    NS_ABORT_MSG_IF(!m_iterations.file, "TalbOutputWriter: Open() was not called");
    AppendFormat(m_iterations.pending,
                 "%u,%u,%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRIu64 "\n",
                 r.job,
                 r.worker,
                 r.iteration,
                 r.start.GetNanoSeconds(),
                 r.end.GetNanoSeconds(),
                 r.compute.GetNanoSeconds(),
                 (r.end - r.start - r.compute).GetNanoSeconds(),
                 m_scheme.c_str(),
                 m_seed);
    ++m_iterationRows;
    RowAdded(m_iterations);
}

void
TalbOutputWriter::WriteCollective(const TalbCollectiveRecord& r)
{
    NS_ABORT_MSG_IF(!m_collectives.file, "TalbOutputWriter: Open() was not called");
    AppendFormat(m_collectives.pending,
                 "%u,%u,%s,%s,%s,%s,%" PRIu64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%" PRIu64
                 "\n",
                 r.job,
                 r.iteration,
                 CsvField(r.operation).c_str(),
                 CsvField(r.group).c_str(),
                 r.type.c_str(),
                 r.cls.c_str(),
                 r.bytes,
                 unsigned(r.priority),
                 r.start.GetNanoSeconds(),
                 r.end.GetNanoSeconds(),
                 r.ideal.GetNanoSeconds(),
                 m_scheme.c_str(),
                 m_seed);
    ++m_collectiveRows;
    RowAdded(m_collectives);
}

void
TalbOutputWriter::WritePath(const TalbPathRecord& r)
{
    NS_ABORT_MSG_IF(!m_paths.file, "TalbOutputWriter: paths.csv is not open (PathsCsv)");
    AppendFormat(m_paths.pending,
                 "%s,%u,%s,%u.%u.%u.%u,%u,%u.%u.%u.%u,%u,%d,%" PRId64 ",%d,%" PRId64 ",%" PRId64
                 ",%" PRIu64 ",%" PRIu64 ",%s,%" PRIu64 "\n",
                 r.node.c_str(),
                 r.port,
                 r.nextHop.c_str(),
                 (r.src.Get() >> 24) & 0xff,
                 (r.src.Get() >> 16) & 0xff,
                 (r.src.Get() >> 8) & 0xff,
                 r.src.Get() & 0xff,
                 unsigned(r.srcPort),
                 (r.dst.Get() >> 24) & 0xff,
                 (r.dst.Get() >> 16) & 0xff,
                 (r.dst.Get() >> 8) & 0xff,
                 r.dst.Get() & 0xff,
                 unsigned(r.dstPort),
                 r.job,
                 r.tensor,
                 r.priority,
                 r.start.GetNanoSeconds(),
                 r.end.GetNanoSeconds(),
                 r.packets,
                 r.bytes,
                 m_scheme.c_str(),
                 m_seed);
    RowAdded(m_paths);
}

void
TalbOutputWriter::WriteLinkDrop(const TalbLinkDropRecord& r)
{
    const TalbPriorityQueue::Parsed& h = r.packet.headers;
    const talb_label& label = r.packet.label;
    std::string& row = m_linkDrops.pending;
    AppendFormat(row,
                 "%" PRId64 ",%u,%u,%s,%s,",
                 r.time.GetNanoSeconds(),
                 r.leaf,
                 r.spine,
                 r.towardSpine ? "up" : "down",
                 r.failed ? "failed" : "loss");
    // A frame that is not IPv4 (a PFC pause) parses as zeros: 0.0.0.0, port 0.
    AppendIpv4(row, h.src);
    row.push_back(',');
    AppendInt(row, h.srcPort);
    row.push_back(',');
    AppendIpv4(row, h.dst);
    row.push_back(',');
    AppendInt(row, h.dstPort);
    row.push_back(',');
    bool tagged = r.packet.tagged;
    AppendFormat(row,
                 "%d,%" PRId64 ",%d,%s,%" PRIu64 "\n",
                 tagged ? int32_t(talb_job_of(label.tensor_id)) : -1,
                 tagged ? int64_t(label.tensor_id & TALB_TENSOR_INDEX_MASK) : int64_t(-1),
                 tagged ? int32_t(label.priority) : -1,
                 m_scheme.c_str(),
                 m_seed);
    RowAdded(m_linkDrops);
}

std::array<TalbOutputWriter::CsvFile*, 7>
TalbOutputWriter::Files()
{
    return {&m_flows, &m_tensors, &m_iterations, &m_fctTxt, &m_collectives, &m_linkDrops, &m_paths};
}

bool
TalbOutputWriter::WritesPaths() const
{
    return m_writePaths;
}

void
TalbOutputWriter::ConnectPaths(Ptr<TalbPathRecorder> recorder)
{
    NS_ABORT_MSG_IF(!m_paths.file, "TalbOutputWriter: paths.csv is not open (PathsCsv)");
    m_pathRecorder = recorder;
    recorder->SetSink(MakeCallback(&TalbOutputWriter::WritePath, this));
}

uint64_t
TalbOutputWriter::GetCollectiveRows() const
{
    return m_collectiveRows;
}

uint64_t
TalbOutputWriter::GetFlowRows() const
{
    return m_flowRows;
}

uint64_t
TalbOutputWriter::GetTensorRows() const
{
    return m_tensorRows;
}

uint64_t
TalbOutputWriter::GetIterationRows() const
{
    return m_iterationRows;
}

} // namespace ns3
