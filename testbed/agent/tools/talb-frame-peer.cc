/*
 * talb-frame-peer: a plain TCP sender/receiver of TaLB frames ([16-byte header | payload], as
 * the NCCL net plugin writes them), with talb-nccl-harness's command line, so that the agent's
 * end-to-end test runs without NCCL. Message i is tensor talb_make_tensor_id(1, i), priority
 * i % 8, flags FIRST|LAST, payload a pseudo-random function of (seed, i).
 *
 *   talb-frame-peer recv --handle-file=F [--messages=N] [--bytes=B] [--seed=S] [--timeout=SEC]
 *   talb-frame-peer send --handle-file=F [--messages=N] [--bytes=B] [--seed=S] [--log=CSV]
 *                        [--timeout=SEC]
 *
 * recv listens on TALB_NET_ADDR (an IPv4 address, optionally :port; default 127.0.0.1), writes
 * "address port" to the handle file, accepts one connection and checks every frame; it prints
 * "received N messages, B bytes, C corrupt" and exits 0 only if all N arrived intact. send
 * reads the handle file (waiting for it), connects from TALB_NET_ADDR when set, sends the
 * frames, and exits 0 once the receiver has closed the connection.
 */
#include "talb-text.h"
#include "talb-wire.h"

#include <arpa/inet.h>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace
{

struct PeerOptions
{
    std::string mode;
    std::string handleFile;
    std::string log;
    uint32_t messages = 16;
    uint32_t bytes = 256 * 1024;
    uint64_t seed = 1;
    uint32_t timeout = 60;
};

[[noreturn]] void
Fail(const std::string& what)
{
    std::fprintf(stderr, "talb-frame-peer: %s\n", what.c_str());
    std::exit(2);
}

[[noreturn]] void
FailErrno(const std::string& what)
{
    Fail(what + ": " + std::strerror(errno));
}

void
OnAlarm(int)
{
    const char msg[] = "talb-frame-peer: timed out\n";
    ssize_t ignored = write(2, msg, sizeof(msg) - 1);
    (void)ignored;
    _exit(3);
}

uint64_t
ParseNumber(const std::string& name, const std::string& value, uint64_t lo, uint64_t hi)
{
    uint64_t v = 0;
    if (!talb::ParseUnsigned(value, lo, hi, &v))
    {
        Fail(name + ": '" + value + "' is not a number in " + std::to_string(lo) + ".." +
             std::to_string(hi));
    }
    return v;
}

PeerOptions
Parse(int argc, char** argv)
{
    const char* usage =
        "usage: talb-frame-peer recv|send --handle-file=F [--messages=N] [--bytes=B] [--seed=S]\n"
        "                       [--timeout=SEC] [--log=CSV (send)]\n";
    if (argc < 2 || (std::string(argv[1]) != "recv" && std::string(argv[1]) != "send"))
    {
        std::fprintf(stderr, "%s", usage);
        std::exit(2);
    }
    PeerOptions o;
    o.mode = argv[1];
    for (int i = 2; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        std::string name = arg.substr(0, eq);
        std::string value = eq == std::string::npos ? "" : arg.substr(eq + 1);
        if (eq == std::string::npos)
        {
            Fail("'" + arg + "': expected --name=value\n" + usage);
        }
        if (name == "--handle-file")
        {
            o.handleFile = value;
        }
        else if (name == "--log" && o.mode == "send")
        {
            o.log = value;
        }
        else if (name == "--messages")
        {
            o.messages = static_cast<uint32_t>(ParseNumber(name, value, 1, TALB_TENSOR_INDEX_MASK));
        }
        else if (name == "--bytes")
        {
            o.bytes = static_cast<uint32_t>(ParseNumber(name, value, 0, 1u << 30));
        }
        else if (name == "--seed")
        {
            o.seed = ParseNumber(name, value, 0, UINT64_MAX);
        }
        else if (name == "--timeout")
        {
            o.timeout = static_cast<uint32_t>(ParseNumber(name, value, 1, 86400));
        }
        else
        {
            Fail("unknown argument '" + arg + "'\n" + usage);
        }
    }
    if (o.handleFile.empty())
    {
        Fail(std::string("--handle-file is required\n") + usage);
    }
    return o;
}

/// TALB_NET_ADDR: "a.b.c.d" or "a.b.c.d:port".
sockaddr_in
NetAddr(const char* fallback)
{
    const char* env = std::getenv("TALB_NET_ADDR");
    std::string text = env != nullptr && *env != '\0' ? env : fallback;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    std::string host = text.substr(0, text.find(':'));
    if (text.find(':') != std::string::npos)
    {
        a.sin_port = htons(static_cast<uint16_t>(
            ParseNumber("TALB_NET_ADDR port", text.substr(text.find(':') + 1), 0, 65535)));
    }
    if (inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1)
    {
        Fail("TALB_NET_ADDR: '" + text + "' is not an IPv4 address[:port]");
    }
    return a;
}

/// Payload byte j of message i: xorshift64* of (seed, i), 8 bytes per step.
void
FillPayload(uint64_t seed, uint32_t message, std::vector<uint8_t>* out)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + message + 1;
    for (size_t j = 0; j < out->size(); j += 8)
    {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        uint64_t v = x * 0x2545F4914F6CDD1Dull;
        for (size_t k = 0; k < 8 && j + k < out->size(); ++k)
        {
            (*out)[j + k] = static_cast<uint8_t>(v >> (8 * k));
        }
    }
}

talb_frame
FrameOf(uint32_t message, uint32_t bytes)
{
    return talb_frame{{talb_make_tensor_id(1, message),
                       static_cast<uint8_t>(message % TALB_NUM_PRIORITIES),
                       TALB_FLAG_FIRST | TALB_FLAG_LAST},
                      bytes};
}

/// Reads exactly len bytes; false on EOF before them.
bool
ReadAll(int fd, uint8_t* buf, size_t len)
{
    while (len > 0)
    {
        ssize_t n = read(fd, buf, len);
        if (n == 0)
        {
            return false;
        }
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            FailErrno("read");
        }
        buf += n;
        len -= static_cast<size_t>(n);
    }
    return true;
}

void
WriteAll(int fd, const uint8_t* buf, size_t len)
{
    while (len > 0)
    {
        ssize_t n = write(fd, buf, len);
        if (n < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            FailErrno("write");
        }
        buf += n;
        len -= static_cast<size_t>(n);
    }
}

int
Receive(const PeerOptions& o)
{
    sockaddr_in addr = NetAddr("127.0.0.1");
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (listener < 0 || bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
        listen(listener, 1) != 0)
    {
        FailErrno("listen on TALB_NET_ADDR");
    }
    socklen_t alen = sizeof(addr);
    getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &alen);
    char host[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &addr.sin_addr, host, sizeof(host));
    std::string tmp = o.handleFile + ".tmp";
    {
        std::ofstream f(tmp);
        f << host << " " << ntohs(addr.sin_port) << "\n";
        if (!f)
        {
            Fail("cannot write the handle file " + o.handleFile);
        }
    }
    if (std::rename(tmp.c_str(), o.handleFile.c_str()) != 0)
    {
        FailErrno("rename " + tmp);
    }
    int fd = accept(listener, nullptr, nullptr);
    if (fd < 0)
    {
        FailErrno("accept");
    }
    close(listener);

    uint64_t received = 0;
    uint64_t bytes = 0;
    uint64_t corrupt = 0;
    std::vector<uint8_t> payload;
    std::vector<uint8_t> want;
    for (uint32_t i = 0; i < o.messages; ++i)
    {
        uint8_t header[TALB_FRAME_LEN];
        if (!ReadAll(fd, header, sizeof(header)))
        {
            break;
        }
        talb_frame f;
        talb_frame expected = FrameOf(i, o.bytes);
        int rc = talb_frame_decode(header, sizeof(header), &f);
        if (rc < 0 || f.label.tensor_id != expected.label.tensor_id ||
            f.label.priority != expected.label.priority || f.payload_len != o.bytes)
        {
            std::fprintf(stderr,
                         "talb-frame-peer: message %u: bad frame header (%s)\n",
                         i,
                         rc < 0 ? talb_wire_strerror(rc) : "fields differ");
            ++corrupt;
            break; // the stream cannot be followed past a bad header
        }
        payload.resize(f.payload_len);
        want.resize(f.payload_len);
        if (!ReadAll(fd, payload.data(), payload.size()))
        {
            break;
        }
        FillPayload(o.seed, i, &want);
        ++received;
        bytes += payload.size();
        if (payload != want)
        {
            std::fprintf(stderr, "talb-frame-peer: message %u: payload differs\n", i);
            ++corrupt;
        }
    }
    close(fd);
    std::printf("received %lu messages, %lu bytes, %lu corrupt\n", received, bytes, corrupt);
    return received == o.messages && corrupt == 0 ? 0 : 1;
}

int
Send(const PeerOptions& o)
{
    std::string host;
    unsigned port = 0;
    for (;;)
    {
        std::ifstream f(o.handleFile);
        if (f >> host >> port)
        {
            break;
        }
        usleep(50 * 1000); // the receiver has not written it yet; the alarm bounds the wait
    }
    sockaddr_in peer{};
    peer.sin_family = AF_INET;
    peer.sin_port = htons(static_cast<uint16_t>(port));
    if (inet_pton(AF_INET, host.c_str(), &peer.sin_addr) != 1)
    {
        Fail("handle file " + o.handleFile + ": '" + host + "' is not an IPv4 address");
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (std::getenv("TALB_NET_ADDR") != nullptr)
    {
        sockaddr_in local = NetAddr("0.0.0.0");
        if (bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof(local)) != 0)
        {
            FailErrno("bind to TALB_NET_ADDR");
        }
    }
    if (connect(fd, reinterpret_cast<sockaddr*>(&peer), sizeof(peer)) != 0)
    {
        FailErrno("connect to " + host + ":" + std::to_string(port));
    }
    FILE* log = nullptr;
    if (!o.log.empty())
    {
        log = std::fopen(o.log.c_str(), "w");
        if (log == nullptr)
        {
            FailErrno("open --log " + o.log);
        }
        std::fprintf(log, "message,tensor_id,priority,bytes\n");
        std::fflush(log);
    }
    std::vector<uint8_t> payload(o.bytes);
    for (uint32_t i = 0; i < o.messages; ++i)
    {
        talb_frame f = FrameOf(i, o.bytes);
        uint8_t header[TALB_FRAME_LEN];
        talb_frame_encode(&f, header, sizeof(header));
        FillPayload(o.seed, i, &payload);
        WriteAll(fd, header, sizeof(header));
        WriteAll(fd, payload.data(), payload.size());
        if (log != nullptr)
        {
            std::fprintf(log, "%u,%u,%u,%u\n", i, f.label.tensor_id, f.label.priority, o.bytes);
            std::fflush(log);
        }
    }
    shutdown(fd, SHUT_WR);
    uint8_t sink;
    while (read(fd, &sink, 1) > 0)
    {
    }
    close(fd);
    if (log != nullptr)
    {
        std::fclose(log);
    }
    std::printf("sent %u messages, %lu bytes\n",
                o.messages,
                static_cast<uint64_t>(o.messages) * o.bytes);
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    PeerOptions o = Parse(argc, argv);
    std::signal(SIGALRM, OnAlarm);
    alarm(o.timeout);
    return o.mode == "recv" ? Receive(o) : Send(o);
}
