// talb-nccl-harness: drives libnccl-net-talb.so the way NCCL's proxy thread does (dlopen, init,
// listen/connect/accept, regMr, many isend/irecv in flight, test) without a GPU, and checks
// every payload byte and every label. See usage() for the command line.
#include "nccl/net_v11.h"
#include "talb-net-handle.h"
#include "talb-tensor.h"
#include "talb-text.h"

#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <sys/prctl.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace
{

const char* const kPluginLibrary = "libnccl-net-talb.so";
const uint32_t kJob = 1; // job id of the harness's tensors

void
usage(FILE* out)
{
    std::fprintf(
        out,
        "usage: talb-nccl-harness loopback [--messages=N] [--bytes=B] [--inflight=K] [--seed=S]\n"
        "       talb-nccl-harness recv --handle-file=F [--messages=N] [--bytes=B] [--seed=S]\n"
        "                              [--inflight=K] [--timeout=SEC] [--idle-sleep-us=U]\n"
        "                              [--flows=CSV [--scheme=NAME] [--ideal-mbps=R]\n"
        "                               [--base-rtt-us=T]]\n"
        "       talb-nccl-harness send --handle-file=F [--messages=N] [--bytes=B] [--seed=S]\n"
        "                              [--inflight=K] [--log=CSV] [--timeout=SEC]\n"
        "                              [--interval-us=I] [--stamp] [--idle-sleep-us=U]\n"
        "       talb-nccl-harness --help\n"
        "\n"
        "Drives the talb NCCL net plugin (%s, found like NCCL finds it) without a GPU.\n"
        "  loopback  both ends in this process over the plugin's device address\n"
        "  recv      listen, write the listen handle to F (via F.tmp + rename), accept, receive N\n"
        "            messages and verify them; prints 'received N messages, B bytes, 0 corrupt'\n"
        "  send      wait for F, connect, send N messages; message i carries tensor id\n"
        "            talb_make_tensor_id(1, i) and priority i %% 8 set through libtalb-tensor\n"
        "Options (defaults): --messages=100 --bytes=65536 --inflight=8 (1..32) --seed=1\n"
        "  --timeout=60 (seconds, recv/send) --log=CSV (send: message,tensor_id,priority,bytes)\n"
        "Payload of message i is a deterministic function of (seed, i). Every message is checked\n"
        "byte for byte, and its received label against the one sent.\n"
        "Flow completion times (the namespace testbed):\n"
        "  --interval-us=I  send: message i is due at I*i us after the first (open loop; 0: back\n"
        "                   to back). A message posted late (all K slots busy) keeps its due time\n"
        "  --stamp          send: the first 16 payload bytes carry the message's due time\n"
        "                   (CLOCK_MONOTONIC ns) and the sender's address; needs --bytes >= 16\n"
        "  --flows=CSV      recv: the senders stamp; one row per message in the simulator's\n"
        "                   flows.csv columns (src_port 0; fct = completion - due time; the "
        "stamp's\n"
        "                   16 bytes are not compared)\n"
        "  --scheme=NAME    recv: the scheme column (default testbed)\n"
        "  --ideal-mbps=R --base-rtt-us=T  recv: ideal FCT = T + wire bytes / R, wire bytes =\n"
        "                   16 + B + ceil((16 + B) / 1428) x 74 (Ethernet, IPv4, TaLB option, TCP\n"
        "                   with timestamps) (default 0 and 0: ideal_fct 0, slowdown 0)\n"
        "  --idle-sleep-us=U  sleep U us when a pass over the requests moved nothing (default 0:\n"
        "                   spin, as NCCL's proxy does; the testbed shares two cores)\n"
        "Exit status: 0 all intact, 1 failure (corruption, plugin error, timeout), 2 bad usage.\n"
        "Environment: TALB_NET_ADDR (device address), TALB_NET_DEBUG=1 (plugin logs).\n",
        kPluginLibrary);
}

struct Options
{
    std::string mode;
    uint64_t messages = 100;
    uint64_t bytes = 65536;
    uint64_t inflight = 8;
    uint64_t seed = 1;
    uint64_t timeout = 60;
    std::string handleFile;
    std::string logFile;
    uint64_t intervalUs = 0; // send: open-loop spacing of messages, 0 = back to back
    bool stamp = false;      // send: due time and address in the first 16 payload bytes
    uint64_t idleSleepUs = 0;
    std::string flowsFile; // recv: flows.csv
    std::string scheme = "testbed";
    uint64_t idealMbps = 0;
    uint64_t baseRttUs = 0;
};

constexpr uint64_t kStampBytes = 16;

// Returns 0 on success, 2 after printing what was wrong. One flat branch per option of the
// usage text: long, but read as a table.
int
parseArgs(int argc, char** argv, Options* o)
{
    if (argc < 2)
    {
        usage(stderr);
        return 2;
    }
    o->mode = argv[1];
    if (o->mode == "--help" || o->mode == "-h")
    {
        return 0;
    }
    if (o->mode != "loopback" && o->mode != "recv" && o->mode != "send")
    {
        std::fprintf(stderr, "talb-nccl-harness: unknown subcommand '%s'\n", argv[1]);
        usage(stderr);
        return 2;
    }
    for (int i = 2; i < argc; ++i)
    {
        std::string a = argv[i];
        size_t eq = a.find('=');
        std::string key = a.substr(0, eq);
        std::string val = eq == std::string::npos ? "" : a.substr(eq + 1);
        bool ok = eq != std::string::npos;
        if (a == "--help" || a == "-h")
        {
            o->mode = "--help";
            return 0;
        }
        else if (key == "--messages")
        {
            ok = ok && talb::ParseUnsigned(val, 0, UINT32_MAX, &o->messages);
        }
        else if (key == "--bytes")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 1u << 30, &o->bytes);
        }
        else if (key == "--inflight")
        {
            ok = ok && talb::ParseUnsigned(val, 0, NCCL_NET_MAX_REQUESTS, &o->inflight) &&
                 o->inflight > 0;
        }
        else if (key == "--seed")
        {
            ok = ok && talb::ParseUnsigned(val, 0, UINT64_MAX, &o->seed);
        }
        else if (key == "--timeout" && o->mode != "loopback")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 86400, &o->timeout) && o->timeout > 0;
        }
        else if (key == "--handle-file" && o->mode != "loopback")
        {
            o->handleFile = val;
            ok = ok && !val.empty();
        }
        else if (key == "--log" && o->mode == "send")
        {
            o->logFile = val;
            ok = ok && !val.empty();
        }
        else if (key == "--interval-us" && o->mode == "send")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 60000000, &o->intervalUs);
        }
        else if (a == "--stamp" && o->mode == "send")
        {
            o->stamp = true;
            ok = true;
        }
        else if (key == "--idle-sleep-us" && o->mode != "loopback")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 100000, &o->idleSleepUs);
        }
        else if (key == "--flows" && o->mode == "recv")
        {
            o->flowsFile = val;
            ok = ok && !val.empty();
        }
        else if (key == "--scheme" && o->mode == "recv")
        {
            o->scheme = val;
            ok = ok && !val.empty() && val.find_first_of(",\n\"") == std::string::npos;
        }
        else if (key == "--ideal-mbps" && o->mode == "recv")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 10000000, &o->idealMbps);
        }
        else if (key == "--base-rtt-us" && o->mode == "recv")
        {
            ok = ok && talb::ParseUnsigned(val, 0, 10000000, &o->baseRttUs);
        }
        else
        {
            std::fprintf(stderr,
                         "talb-nccl-harness: unknown option '%s' for %s\n",
                         a.c_str(),
                         o->mode.c_str());
            usage(stderr);
            return 2;
        }
        if (!ok)
        {
            std::fprintf(stderr, "talb-nccl-harness: bad value in '%s'\n", a.c_str());
            usage(stderr);
            return 2;
        }
    }
    if ((o->stamp || !o->flowsFile.empty()) && o->bytes < kStampBytes)
    {
        std::fprintf(stderr,
                     "talb-nccl-harness: --stamp and --flows need --bytes of at least %" PRIu64
                     "\n",
                     kStampBytes);
        return 2;
    }
    if (o->mode != "loopback" && o->handleFile.empty())
    {
        std::fprintf(stderr, "talb-nccl-harness: %s needs --handle-file=F\n", o->mode.c_str());
        usage(stderr);
        return 2;
    }
    // Output files are bad input too when they cannot be written: say so now (exit 2), not
    // after a peer has connected. Opening for append creates the file and keeps any content.
    for (const auto& out :
         {std::make_pair("--flows", &o->flowsFile), std::make_pair("--log", &o->logFile)})
    {
        FILE* f = out.second->empty() ? nullptr : std::fopen(out.second->c_str(), "a");
        if (!out.second->empty() && f == nullptr)
        {
            std::fprintf(stderr,
                         "talb-nccl-harness: %s: cannot write %s: %s\n",
                         out.first,
                         out.second->c_str(),
                         std::strerror(errno));
            return 2;
        }
        if (f != nullptr)
        {
            std::fclose(f);
        }
    }
    return 0;
}

// Payload of message i: splitmix64 stream keyed by (seed, i).
void
fillPayload(uint64_t seed, uint64_t i, uint8_t* buf, size_t len)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull ^ (i + 1) * 0xD1B54A32D192ED03ull;
    for (size_t off = 0; off < len; off += 8)
    {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        size_t n = len - off < 8 ? len - off : 8;
        std::memcpy(buf + off, &z, n);
    }
}

talb_label
expectedLabel(uint64_t i)
{
    return talb_label{talb_make_tensor_id(kJob, static_cast<uint32_t>(i)),
                      static_cast<uint8_t>(i % TALB_NUM_PRIORITIES),
                      0};
}

using Clock = std::chrono::steady_clock;

/// CLOCK_MONOTONIC in ns: one clock for every process of the machine (and its namespaces).
uint64_t
monotonicNs()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

/// The sender's stamp in the first kStampBytes of a message.
struct Stamp
{
    uint64_t dueNs;
    uint32_t address; // network order
};

void
writeStamp(uint8_t* buf, const Stamp& s)
{
    std::memset(buf, 0, kStampBytes);
    std::memcpy(buf, &s.dueNs, sizeof(s.dueNs));
    std::memcpy(buf + 8, &s.address, sizeof(s.address));
}

Stamp
readStamp(const uint8_t* buf)
{
    Stamp s;
    std::memcpy(&s.dueNs, buf, sizeof(s.dueNs));
    std::memcpy(&s.address, buf + 8, sizeof(s.address));
    return s;
}

/// This process's address as TALB_NET_ADDR gives it (network order), else 0.0.0.0.
uint32_t
ownAddress()
{
    const char* text = std::getenv("TALB_NET_ADDR");
    in_addr a{0};
    return text != nullptr && inet_pton(AF_INET, text, &a) == 1 ? a.s_addr : 0;
}

/// flows.csv rows for the receiver, in the simulator's columns (TalbOutputWriter::FLOW_COLUMNS).
class FlowWriter
{
  public:
    bool Open(const Options& o, const sockaddr_in& local)
    {
        m_o = &o;
        m_local = local;
        m_file = std::fopen(o.flowsFile.c_str(), "w");
        if (m_file == nullptr)
        {
            std::fprintf(stderr,
                         "talb-nccl-harness: cannot write %s: %s\n",
                         o.flowsFile.c_str(),
                         std::strerror(errno));
            return false;
        }
        std::fprintf(m_file,
                     "src_ip,dst_ip,src_port,dst_port,size_bytes,start_ns,fct_ns,ideal_fct_ns,"
                     "slowdown,job,iteration,tensor,priority,kind,scheme,seed\n");
        std::fflush(m_file);
        return true;
    }

    ~FlowWriter()
    {
        if (m_file != nullptr)
        {
            std::fclose(m_file);
        }
    }

    bool Enabled() const
    {
        return m_file != nullptr;
    }

    /// One message done at \p doneNs; its stamp from the payload.
    void Write(uint64_t i, const Stamp& stamp, uint64_t bytes, uint64_t doneNs)
    {
        char src[INET_ADDRSTRLEN];
        char dst[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &stamp.address, src, sizeof(src));
        inet_ntop(AF_INET, &m_local.sin_addr, dst, sizeof(dst));
        int64_t fct = static_cast<int64_t>(doneNs - stamp.dueNs);
        int64_t ideal = Ideal(bytes);
        talb_label l = expectedLabel(i);
        std::fprintf(m_file,
                     "%s,%s,0,%u,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%.6f,%u,%" PRIu64
                     ",%" PRIu64 ",%u,tensor,%s,%" PRIu64 "\n",
                     src,
                     dst,
                     ntohs(m_local.sin_port),
                     bytes,
                     stamp.dueNs,
                     fct,
                     ideal,
                     ideal > 0 ? static_cast<double>(fct) / ideal : 0.0,
                     kJob,
                     i / TALB_NUM_PRIORITIES,
                     i,
                     l.priority,
                     m_o->scheme.c_str(),
                     m_o->seed);
        std::fflush(m_file); // a run that is cut short keeps what it measured
    }

  private:
    /// Base RTT + the message's wire bytes at the ideal rate (documented in usage()).
    int64_t Ideal(uint64_t bytes) const
    {
        if (m_o->idealMbps == 0)
        {
            return 0;
        }
        const uint64_t stream = TALB_FRAME_LEN + bytes;
        const uint64_t wire = stream + (stream + 1427) / 1428 * 74;
        return static_cast<int64_t>(m_o->baseRttUs * 1000 +
                                    std::llround(wire * 8e3 / static_cast<double>(m_o->idealMbps)));
    }

    const Options* m_o = nullptr;
    sockaddr_in m_local{};
    FILE* m_file = nullptr;
};

class Plugin
{
  public:
    bool Load()
    {
        m_lib = dlopen(kPluginLibrary, RTLD_NOW | RTLD_LOCAL);
        if (m_lib == nullptr)
        {
            std::fprintf(stderr, "talb-nccl-harness: dlopen: %s\n", dlerror());
            return false;
        }
        net = static_cast<const ncclNet_v11_t*>(dlsym(m_lib, "ncclNetPlugin_v11"));
        if (net == nullptr)
        {
            std::fprintf(stderr, "talb-nccl-harness: no ncclNetPlugin_v11 in %s\n", kPluginLibrary);
            return false;
        }
        ncclNetCommConfig_v11_t config{-1};
        return Check(net->init(&ctx, 1, &config, nullptr, nullptr), "init");
    }

    ~Plugin()
    {
        if (net != nullptr && ctx != nullptr)
        {
            net->finalize(ctx);
        }
        if (m_lib != nullptr)
        {
            dlclose(m_lib);
        }
    }

    static bool Check(ncclResult_t rc, const char* what)
    {
        if (rc != ncclSuccess)
        {
            std::fprintf(stderr, "talb-nccl-harness: %s failed: ncclResult_t %d\n", what, rc);
            return false;
        }
        return true;
    }

    const ncclNet_v11_t* net = nullptr;
    void* ctx = nullptr;

  private:
    void* m_lib = nullptr;
};

struct RxLog
{
    std::vector<talb_label> labels;
};

void
recordRx(void* arg, const talb_label* label, uint32_t /* bytes */)
{
    static_cast<RxLog*>(arg)->labels.push_back(*label);
}

// One side's stream of messages: posts up to `inflight` requests, tests them in order.
class Stream
{
  public:
    Stream(const Plugin& p, void* comm, bool send, const Options& o, FlowWriter* flows = nullptr)
        : m_p(p),
          m_comm(comm),
          m_send(send),
          m_o(o),
          m_slots(o.inflight),
          m_flows(flows),
          m_address(ownAddress())
    {
        for (auto& s : m_slots)
        {
            s.buf.assign(o.bytes > 0 ? o.bytes : 1, 0);
        }
    }

    bool Register()
    {
        for (auto& s : m_slots)
        {
            if (!Plugin::Check(
                    m_p.net->regMr(m_comm, s.buf.data(), s.buf.size(), NCCL_PTR_HOST, &s.mr),
                    "regMr"))
            {
                return false;
            }
        }
        return true;
    }

    void Deregister()
    {
        for (auto& s : m_slots)
        {
            if (s.mr != nullptr)
            {
                m_p.net->deregMr(m_comm, s.mr);
                s.mr = nullptr;
            }
        }
    }

    /**
     * Posts what is due and tests what is posted; returns false on a plugin error.
     * \param progressed set when a request was posted or completed
     */
    bool Step(FILE* log, bool* progressed = nullptr)
    {
        uint64_t before = m_posted + m_completed;
        bool ok = Post(log) && TestPosted();
        if (progressed != nullptr)
        {
            *progressed = m_posted + m_completed != before;
        }
        return ok;
    }

    /// ns until the next message is due (0: now or nothing paced), for an idle sleep.
    uint64_t NsUntilDue() const
    {
        if (!m_send || m_o.intervalUs == 0 || m_posted >= m_o.messages || m_t0 == 0)
        {
            return 0;
        }
        uint64_t due = DueNs(m_posted);
        uint64_t now = monotonicNs();
        return due > now ? due - now : 0;
    }

  private:
    uint64_t DueNs(uint64_t i) const
    {
        return m_t0 + i * m_o.intervalUs * 1000;
    }

    bool Post(FILE* log)
    {
        if (m_send && m_t0 == 0)
        {
            m_t0 = monotonicNs();
        }
        while (m_posted < m_o.messages && m_posted - m_completed < m_o.inflight)
        {
            Slot& s = m_slots[m_posted % m_o.inflight];
            void* req = nullptr;
            if (m_send)
            {
                uint64_t due = m_o.intervalUs ? DueNs(m_posted) : monotonicNs();
                if (m_o.intervalUs && monotonicNs() < due)
                {
                    break; // open loop: not due yet
                }
                fillPayload(m_o.seed, m_posted, s.buf.data(), m_o.bytes);
                if (m_o.stamp)
                {
                    writeStamp(s.buf.data(), Stamp{due, m_address});
                }
                talb_label l = expectedLabel(m_posted);
                talb_set_tensor(l.tensor_id, l.priority);
                if (!Plugin::Check(
                        m_p.net->isend(m_comm, s.buf.data(), m_o.bytes, 0, s.mr, nullptr, &req),
                        "isend"))
                {
                    return false;
                }
                if (req != nullptr && log != nullptr)
                {
                    std::fprintf(log,
                                 "%" PRIu64 ",%" PRIu32 ",%u,%" PRIu64 "\n",
                                 m_posted,
                                 l.tensor_id,
                                 l.priority,
                                 m_o.bytes);
                    std::fflush(log);
                }
            }
            else
            {
                void* data = s.buf.data();
                size_t size = s.buf.size();
                int tag = 0;
                std::memset(s.buf.data(), 0xA5, s.buf.size());
                if (!Plugin::Check(
                        m_p.net->irecv(m_comm, 1, &data, &size, &tag, &s.mr, nullptr, &req),
                        "irecv"))
                {
                    return false;
                }
            }
            if (req == nullptr)
            {
                break; // plugin busy: try again after testing
            }
            s.req = req;
            ++m_posted;
        }
        return true;
    }

    bool TestPosted()
    {
        while (m_completed < m_posted)
        {
            Slot& s = m_slots[m_completed % m_o.inflight];
            int done = 0;
            int size = -1;
            if (!Plugin::Check(m_p.net->test(s.req, &done, &size), "test"))
            {
                return false;
            }
            if (!done)
            {
                break;
            }
            if (!m_send)
            {
                Verify(s, size);
            }
            m_bytes += static_cast<uint64_t>(size);
            ++m_completed;
        }
        return true;
    }

  public:
    bool Done() const
    {
        return m_completed == m_o.messages;
    }

    uint64_t completed() const
    {
        return m_completed;
    }

    uint64_t bytes() const
    {
        return m_bytes;
    }

    uint64_t corrupt() const
    {
        return m_corrupt;
    }

  private:
    struct Slot
    {
        std::vector<uint8_t> buf;
        void* mr = nullptr;
        void* req = nullptr;
    };

    void Verify(const Slot& s, int size)
    {
        uint64_t doneNs = monotonicNs();
        if (m_expected.size() < m_o.bytes)
        {
            m_expected.resize(m_o.bytes);
        }
        fillPayload(m_o.seed, m_completed, m_expected.data(), m_o.bytes);
        // A stamped message: its first bytes are the sender's stamp, not the payload function.
        uint64_t skip = m_flows != nullptr && m_flows->Enabled() ? kStampBytes : 0;
        bool intact =
            size >= 0 && static_cast<uint64_t>(size) == m_o.bytes &&
            (m_o.bytes <= skip ||
             std::memcmp(s.buf.data() + skip, m_expected.data() + skip, m_o.bytes - skip) == 0);
        if (intact && skip > 0)
        {
            m_flows->Write(m_completed, readStamp(s.buf.data()), m_o.bytes, doneNs);
        }
        if (!intact)
        {
            if (m_corrupt < 5)
            {
                std::fprintf(stderr,
                             "talb-nccl-harness: message %" PRIu64 " corrupt (%d bytes)\n",
                             m_completed,
                             size);
            }
            ++m_corrupt;
        }
    }

    const Plugin& m_p;
    void* m_comm;
    bool m_send;
    const Options& m_o;
    std::vector<Slot> m_slots;
    FlowWriter* m_flows;
    uint32_t m_address; // stamped as the sender's
    uint64_t m_t0 = 0;  // sender: the first message's due time
    std::vector<uint8_t> m_expected;
    uint64_t m_posted = 0;
    uint64_t m_completed = 0;
    uint64_t m_bytes = 0;
    uint64_t m_corrupt = 0;
};

// Counts received labels that differ from the ones message i was sent with.
uint64_t
checkLabels(const RxLog& rx, uint64_t messages)
{
    uint64_t bad = 0;
    for (uint64_t i = 0; i < messages; ++i)
    {
        talb_label want = expectedLabel(i);
        if (i >= rx.labels.size() || rx.labels[i].tensor_id != want.tensor_id ||
            rx.labels[i].priority != want.priority)
        {
            if (bad < 5)
            {
                std::fprintf(stderr, "talb-nccl-harness: message %" PRIu64 " mislabelled\n", i);
            }
            ++bad;
        }
    }
    return bad;
}

void
idleSleep(uint64_t ns)
{
    timespec t{static_cast<time_t>(ns / 1000000000ull), static_cast<long>(ns % 1000000000ull)};
    nanosleep(&t, nullptr);
}

bool
expired(Clock::time_point deadline)
{
    return Clock::now() > deadline;
}

bool
writeHandleFile(const std::string& path, const char* handle)
{
    std::string tmp = path + ".tmp";
    FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr ||
        std::fwrite(handle, 1, NCCL_NET_HANDLE_MAXSIZE, f) != NCCL_NET_HANDLE_MAXSIZE ||
        std::fclose(f) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0)
    {
        std::fprintf(stderr,
                     "talb-nccl-harness: cannot write %s: %s\n",
                     path.c_str(),
                     std::strerror(errno));
        return false;
    }
    return true;
}

bool
readHandleFile(const std::string& path, char* handle, Clock::time_point deadline)
{
    while (!expired(deadline))
    {
        std::ifstream in(path, std::ios::binary);
        if (in)
        {
            in.read(handle, NCCL_NET_HANDLE_MAXSIZE);
            if (in.gcount() == NCCL_NET_HANDLE_MAXSIZE)
            {
                return true;
            }
            std::fprintf(stderr,
                         "talb-nccl-harness: %s is not a talb listen handle\n",
                         path.c_str());
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::fprintf(stderr, "talb-nccl-harness: timed out waiting for %s\n", path.c_str());
    return false;
}

int
runLoopback(const Options& o)
{
    Plugin p;
    if (!p.Load())
    {
        return 1;
    }
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    void* listenComm = nullptr;
    if (!Plugin::Check(p.net->listen(p.ctx, 0, handle, &listenComm), "listen"))
    {
        return 1;
    }
    void* sendComm = nullptr;
    void* recvComm = nullptr;
    auto deadline = Clock::now() + std::chrono::seconds(30);
    while (sendComm == nullptr || recvComm == nullptr)
    {
        if (sendComm == nullptr &&
            !Plugin::Check(p.net->connect(p.ctx, 0, handle, &sendComm, nullptr), "connect"))
        {
            return 1;
        }
        if (recvComm == nullptr &&
            !Plugin::Check(p.net->accept(listenComm, &recvComm, nullptr), "accept"))
        {
            return 1;
        }
        if (expired(deadline))
        {
            std::fprintf(stderr, "talb-nccl-harness: connection setup timed out\n");
            return 1;
        }
    }
    RxLog rx;
    talb_set_rx_hook(recordRx, &rx);
    Stream tx(p, sendComm, true, o);
    Stream rcv(p, recvComm, false, o);
    bool ok = tx.Register() && rcv.Register();
    deadline = Clock::now() + std::chrono::seconds(300);
    while (ok && !(tx.Done() && rcv.Done()))
    {
        ok = tx.Step(nullptr) && rcv.Step(nullptr);
        if (expired(deadline))
        {
            std::fprintf(stderr, "talb-nccl-harness: loopback timed out\n");
            ok = false;
        }
    }
    talb_set_rx_hook(nullptr, nullptr);
    uint64_t mislabelled = checkLabels(rx, rcv.completed());
    tx.Deregister();
    rcv.Deregister();
    p.net->closeSend(sendComm);
    p.net->closeRecv(recvComm);
    p.net->closeListen(listenComm);
    std::printf("loopback: sent %" PRIu64 " and received %" PRIu64 " messages, %" PRIu64
                " bytes, %" PRIu64 " corrupt, %" PRIu64 " mislabelled\n",
                tx.completed(),
                rcv.completed(),
                rcv.bytes(),
                rcv.corrupt(),
                mislabelled);
    return ok && rcv.Done() && rcv.corrupt() == 0 && mislabelled == 0 ? 0 : 1;
}

int
runRecv(const Options& o)
{
    Plugin p;
    if (!p.Load())
    {
        return 1;
    }
    auto deadline = Clock::now() + std::chrono::seconds(o.timeout);
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    void* listenComm = nullptr;
    if (!Plugin::Check(p.net->listen(p.ctx, 0, handle, &listenComm), "listen") ||
        !writeHandleFile(o.handleFile, handle))
    {
        return 1;
    }
    void* recvComm = nullptr;
    while (recvComm == nullptr)
    {
        if (!Plugin::Check(p.net->accept(listenComm, &recvComm, nullptr), "accept"))
        {
            return 1;
        }
        if (recvComm == nullptr)
        {
            if (expired(deadline))
            {
                std::fprintf(stderr, "talb-nccl-harness: timed out waiting for the sender\n");
                p.net->closeListen(listenComm);
                return 1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    RxLog rx;
    talb_set_rx_hook(recordRx, &rx);
    FlowWriter flows;
    talb_handle local;
    std::memcpy(&local, handle, sizeof(local));
    if (!o.flowsFile.empty() && !flows.Open(o, local.addr))
    {
        return 1;
    }
    Stream rcv(p, recvComm, false, o, &flows);
    bool ok = rcv.Register();
    while (ok && !rcv.Done())
    {
        bool progressed = false;
        ok = rcv.Step(nullptr, &progressed);
        if (!progressed && o.idleSleepUs > 0)
        {
            idleSleep(o.idleSleepUs * 1000);
        }
        if (expired(deadline))
        {
            std::fprintf(stderr, "talb-nccl-harness: timed out after %" PRIu64 " s\n", o.timeout);
            ok = false;
        }
    }
    talb_set_rx_hook(nullptr, nullptr);
    uint64_t mislabelled = checkLabels(rx, rcv.completed());
    rcv.Deregister();
    p.net->closeRecv(recvComm);
    p.net->closeListen(listenComm);
    std::printf("received %" PRIu64 " messages, %" PRIu64 " bytes, %" PRIu64 " corrupt\n",
                rcv.completed(),
                rcv.bytes(),
                rcv.corrupt());
    std::printf("labels: %" PRIu64 " mislabelled\n", mislabelled);
    return ok && rcv.Done() && rcv.corrupt() == 0 && mislabelled == 0 ? 0 : 1;
}

int
runSend(const Options& o)
{
    FILE* log = nullptr;
    if (!o.logFile.empty())
    {
        log = std::fopen(o.logFile.c_str(), "w");
        if (log == nullptr)
        {
            std::fprintf(stderr,
                         "talb-nccl-harness: cannot write %s: %s\n",
                         o.logFile.c_str(),
                         std::strerror(errno));
            return 1;
        }
        std::fprintf(log, "message,tensor_id,priority,bytes\n");
    }
    Plugin p;
    auto deadline = Clock::now() + std::chrono::seconds(o.timeout);
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    void* sendComm = nullptr;
    bool ok = p.Load() && readHandleFile(o.handleFile, handle, deadline);
    while (ok && sendComm == nullptr)
    {
        ok = Plugin::Check(p.net->connect(p.ctx, 0, handle, &sendComm, nullptr), "connect");
        if (ok && sendComm == nullptr)
        {
            if (expired(deadline))
            {
                std::fprintf(stderr, "talb-nccl-harness: timed out connecting\n");
                ok = false;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    }
    uint64_t sent = 0;
    uint64_t bytes = 0;
    if (ok)
    {
        Stream tx(p, sendComm, true, o);
        ok = tx.Register();
        while (ok && !tx.Done())
        {
            bool progressed = false;
            ok = tx.Step(log, &progressed);
            if (!progressed && o.idleSleepUs > 0)
            {
                uint64_t due = tx.NsUntilDue();
                idleSleep(due > 0 && due < o.idleSleepUs * 1000 ? due : o.idleSleepUs * 1000);
            }
            if (expired(deadline))
            {
                std::fprintf(stderr,
                             "talb-nccl-harness: timed out after %" PRIu64 " s\n",
                             o.timeout);
                ok = false;
            }
        }
        sent = tx.completed();
        bytes = tx.bytes();
        tx.Deregister();
        p.net->closeSend(sendComm);
    }
    if (log != nullptr)
    {
        std::fclose(log);
    }
    std::printf("sent %" PRIu64 " messages, %" PRIu64 " bytes\n", sent, bytes);
    return ok && sent == o.messages ? 0 : 1;
}

} // namespace

int
main(int argc, char** argv)
{
    Options o;
    int rc = parseArgs(argc, argv, &o);
    if (rc != 0)
    {
        return rc;
    }
    if (o.mode == "--help")
    {
        usage(stdout);
        return 0;
    }
    if (o.idleSleepUs > 0)
    {
        prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); // sleeps of a few us, not the default 50 us
    }
    if (o.mode == "loopback")
    {
        return runLoopback(o);
    }
    return o.mode == "recv" ? runRecv(o) : runSend(o);
}
