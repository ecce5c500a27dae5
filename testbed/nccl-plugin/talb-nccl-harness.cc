// talb-nccl-harness: drives libnccl-net-talb.so the way NCCL's proxy thread does (dlopen, init,
// listen/connect/accept, regMr, many isend/irecv in flight, test) without a GPU, and checks
// every payload byte and every label. See usage() for the command line.
#include "nccl/net_v11.h"
#include "talb-tensor.h"
#include "talb-text.h"

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <string>
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
        "                              [--inflight=K] [--timeout=SEC]\n"
        "       talb-nccl-harness send --handle-file=F [--messages=N] [--bytes=B] [--seed=S]\n"
        "                              [--inflight=K] [--log=CSV] [--timeout=SEC]\n"
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
};

// Returns 0 on success, 2 after printing what was wrong.
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
    if (o->mode != "loopback" && o->handleFile.empty())
    {
        std::fprintf(stderr, "talb-nccl-harness: %s needs --handle-file=F\n", o->mode.c_str());
        usage(stderr);
        return 2;
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
    Stream(const Plugin& p, void* comm, bool send, const Options& o)
        : m_p(p),
          m_comm(comm),
          m_send(send),
          m_o(o),
          m_slots(o.inflight)
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

    // Posts and tests; returns false on a plugin error.
    bool Step(FILE* log)
    {
        while (m_posted < m_o.messages && m_posted - m_completed < m_o.inflight)
        {
            Slot& s = m_slots[m_posted % m_o.inflight];
            void* req = nullptr;
            if (m_send)
            {
                fillPayload(m_o.seed, m_posted, s.buf.data(), m_o.bytes);
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
        if (m_expected.size() < m_o.bytes)
        {
            m_expected.resize(m_o.bytes);
        }
        fillPayload(m_o.seed, m_completed, m_expected.data(), m_o.bytes);
        if (size < 0 || static_cast<uint64_t>(size) != m_o.bytes ||
            (m_o.bytes > 0 && std::memcmp(s.buf.data(), m_expected.data(), m_o.bytes) != 0))
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
    Stream rcv(p, recvComm, false, o);
    bool ok = rcv.Register();
    while (ok && !rcv.Done())
    {
        ok = rcv.Step(nullptr);
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
            ok = tx.Step(log);
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
    if (o.mode == "loopback")
    {
        return runLoopback(o);
    }
    return o.mode == "recv" ? runRecv(o) : runSend(o);
}
