// libnccl-net-talb.so driven through its exported tables as NCCL would: exports, properties,
// v10 and v11 transfers, label switching through libtalb-tensor, and malformed or vanishing peers.
#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "talb-net-frame.h"
#include "talb-net-handle.h"
#include "talb-tensor.h"

#include <arpa/inet.h>
#include <chrono>
#include <cstdarg>
#include <cstring>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>
#include <vector>

namespace
{

struct Seen
{
    talb_label label;
    uint32_t bytes;
};

void
Record(void* arg, const talb_label* label, uint32_t bytes)
{
    static_cast<std::vector<Seen>*>(arg)->push_back({*label, bytes});
}

/// What the plugin logged through NCCL's logger: level, subsystem flags, text.
struct Logged
{
    ncclDebugLogLevel level;
    unsigned long flags;
    std::string text;
};

std::vector<Logged> g_logged;

void
Logger(ncclDebugLogLevel level, unsigned long flags, const char*, int, const char* fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    g_logged.push_back({level, flags, text});
}

/// A raw TCP client of the listening socket in \p handle; -1 on failure.
int
RawConnect(const char* handle)
{
    talb_handle h;
    std::memcpy(&h, handle, sizeof(h));
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, reinterpret_cast<sockaddr*>(&h.addr), sizeof(h.addr)) != 0)
    {
        close(fd);
        return -1;
    }
    return fd;
}

/// The handshake a peer holding \p handle sends first.
std::vector<uint8_t>
Hello(const char* handle)
{
    talb_handle h;
    std::memcpy(&h, handle, sizeof(h));
    std::vector<uint8_t> hello(TALB_HELLO_LEN);
    talb_hello_encode(h.conn_id, hello.data());
    return hello;
}

class TalbNetPlugin : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_lib = dlopen("libnccl-net-talb.so", RTLD_NOW | RTLD_LOCAL);
        ASSERT_NE(m_lib, nullptr) << dlerror();
        v11 = static_cast<const ncclNet_v11_t*>(dlsym(m_lib, "ncclNetPlugin_v11"));
        v10 = static_cast<const ncclNet_v10_t*>(dlsym(m_lib, "ncclNetPlugin_v10"));
        ASSERT_NE(v11, nullptr);
        ASSERT_NE(v10, nullptr);
        ncclNetCommConfig_v11_t config{-1};
        ASSERT_EQ(v11->init(&ctx, 42, &config, nullptr, nullptr), ncclSuccess);
        talb_tensor_reset();
        talb_set_rx_hook(Record, &seen);
    }

    void TearDown() override
    {
        talb_set_rx_hook(nullptr, nullptr);
        if (ctx != nullptr)
        {
            v11->finalize(ctx);
        }
        if (m_lib != nullptr)
        {
            dlclose(m_lib);
        }
    }

    // Connects a send comm to a recv comm through the v11 table.
    void Pair(void** send, void** recv, void** listen)
    {
        char handle[NCCL_NET_HANDLE_MAXSIZE];
        ASSERT_EQ(v11->listen(ctx, 0, handle, listen), ncclSuccess);
        *send = *recv = nullptr;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (*send == nullptr || *recv == nullptr)
        {
            if (*send == nullptr)
            {
                ASSERT_EQ(v11->connect(ctx, 0, handle, send, nullptr), ncclSuccess);
            }
            if (*recv == nullptr)
            {
                ASSERT_EQ(v11->accept(*listen, recv, nullptr), ncclSuccess);
            }
            ASSERT_LT(std::chrono::steady_clock::now(), deadline);
        }
    }

    // Waits for a request; returns the last test() result and the size it reported.
    ncclResult_t Wait(void* req, int* size)
    {
        int done = 0;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (!done)
        {
            ncclResult_t rc = v11->test(req, &done, size);
            if (rc != ncclSuccess)
            {
                return rc;
            }
            if (std::chrono::steady_clock::now() > deadline)
            {
                return ncclInProgress;
            }
        }
        return ncclSuccess;
    }

    // Sends one message of `n` bytes and receives it; returns the received bytes.
    std::vector<uint8_t> Transfer(void* send, void* recv, const std::vector<uint8_t>& msg)
    {
        std::vector<uint8_t> out(msg.size() + 16, 0);
        void *smr, *rmr, *sreq = nullptr, *rreq = nullptr;
        EXPECT_EQ(v11->regMr(send, (void*)msg.data(), msg.size(), NCCL_PTR_HOST, &smr),
                  ncclSuccess);
        EXPECT_EQ(v11->regMr(recv, out.data(), out.size(), NCCL_PTR_HOST, &rmr), ncclSuccess);
        void* data = out.data();
        size_t size = out.size();
        int tag = 0;
        EXPECT_EQ(v11->irecv(recv, 1, &data, &size, &tag, &rmr, nullptr, &rreq), ncclSuccess);
        EXPECT_EQ(v11->isend(send, (void*)msg.data(), msg.size(), 0, smr, nullptr, &sreq),
                  ncclSuccess);
        EXPECT_NE(sreq, nullptr);
        EXPECT_NE(rreq, nullptr);
        int ssize = -1, rsize = -1;
        EXPECT_EQ(Wait(sreq, &ssize), ncclSuccess);
        EXPECT_EQ(Wait(rreq, &rsize), ncclSuccess);
        EXPECT_EQ(ssize, (int)msg.size());
        EXPECT_EQ(rsize, (int)msg.size());
        v11->deregMr(send, smr);
        v11->deregMr(recv, rmr);
        out.resize(rsize > 0 ? rsize : 0);
        return out;
    }

    // A raw TCP client connected to a fresh listen comm (it sends the handshake of the handle,
    // as the plugin's connect() does), and the plugin's recv comm for it.
    void RawPeer(int* fd, void** recv, void** listen)
    {
        char handle[NCCL_NET_HANDLE_MAXSIZE];
        ASSERT_EQ(v11->listen(ctx, 0, handle, listen), ncclSuccess);
        *fd = RawConnect(handle);
        ASSERT_GE(*fd, 0);
        std::vector<uint8_t> hello = Hello(handle);
        ASSERT_EQ(send(*fd, hello.data(), hello.size(), 0), (ssize_t)hello.size());
        *recv = nullptr;
        auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (*recv == nullptr)
        {
            ASSERT_EQ(v11->accept(*listen, recv, nullptr), ncclSuccess);
            ASSERT_LT(std::chrono::steady_clock::now(), deadline);
        }
    }

    // Posts a receive on a raw peer's comm and returns what test() reports once it fails.
    ncclResult_t ReceiveExpectingFailure(void* recv, std::vector<uint8_t>& buf, void** req)
    {
        void* mr;
        EXPECT_EQ(v11->regMr(recv, buf.data(), buf.size(), NCCL_PTR_HOST, &mr), ncclSuccess);
        void* data = buf.data();
        size_t size = buf.size();
        int tag = 0;
        EXPECT_EQ(v11->irecv(recv, 1, &data, &size, &tag, &mr, nullptr, req), ncclSuccess);
        ncclResult_t rc = Wait(*req, nullptr);
        v11->deregMr(recv, mr);
        return rc;
    }

    const ncclNet_v11_t* v11 = nullptr;
    const ncclNet_v10_t* v10 = nullptr;
    void* ctx = nullptr;
    std::vector<Seen> seen;

  private:
    void* m_lib = nullptr;
};

TEST_F(TalbNetPlugin, ExportsOnlyTheNetTables)
{
    void* lib = dlopen("libnccl-net-talb.so", RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(lib, nullptr);
    EXPECT_EQ(dlsym(lib, "talb_isend"), nullptr);
    EXPECT_EQ(dlsym(lib, "talb_rx_step"), nullptr);
    EXPECT_EQ(dlsym(lib, "ncclNetPlugin_v9"), nullptr);
    EXPECT_STREQ(v11->name, "talb");
    EXPECT_STREQ(v10->name, "talb");
    dlclose(lib);
}

TEST_F(TalbNetPlugin, PropertiesDescribeOneHostMemoryDevice)
{
    int n = 0;
    ASSERT_EQ(v11->devices(&n), ncclSuccess);
    EXPECT_EQ(n, 1);
    ncclNetProperties_v11_t p;
    std::memset(&p, 0xFF, sizeof(p));
    ASSERT_EQ(v11->getProperties(0, &p), ncclSuccess);
    EXPECT_NE(p.name, nullptr);
    EXPECT_EQ(p.ptrSupport, NCCL_PTR_HOST);
    EXPECT_EQ(p.maxRecvs, 1);
    EXPECT_GT(p.speed, 0);
    EXPECT_EQ(p.vProps.ndevs, 1);
    EXPECT_EQ(p.maxP2pBytes, size_t{1} << 30);
    EXPECT_EQ(p.maxMultiRequestSize, 1);
    EXPECT_EQ(p.netDeviceType, NCCL_NET_DEVICE_HOST);
    EXPECT_EQ(p.pciPath, nullptr) << "the tests run on 127.0.0.1 (lo): a virtual interface";
    EXPECT_EQ(v11->getProperties(1, &p), ncclInvalidArgument);

    ncclNetProperties_v10_t q;
    ASSERT_EQ(v10->getProperties(0, &q), ncclSuccess);
    EXPECT_STREQ(q.name, p.name);
    EXPECT_EQ(q.ptrSupport, NCCL_PTR_HOST);
    EXPECT_EQ(q.maxCollBytes, p.maxCollBytes);
}

TEST_F(TalbNetPlugin, V10TableTransfersOverTheSameConnectionLogic)
{
    ASSERT_EQ(v10->init(nullptr, nullptr), ncclSuccess);
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    void *listen, *send = nullptr, *recv = nullptr;
    ASSERT_EQ(v10->listen(0, handle, &listen), ncclSuccess);
    ncclNetCommConfig_v10_t config{-1};
    for (int i = 0; i < 100000 && (send == nullptr || recv == nullptr); ++i)
    {
        if (send == nullptr)
        {
            ASSERT_EQ(v10->connect(0, &config, handle, &send, nullptr), ncclSuccess);
        }
        if (recv == nullptr)
        {
            ASSERT_EQ(v10->accept(listen, &recv, nullptr), ncclSuccess);
        }
    }
    ASSERT_NE(send, nullptr);
    ASSERT_NE(recv, nullptr);
    std::vector<uint8_t> msg(100000);
    for (size_t i = 0; i < msg.size(); ++i)
    {
        msg[i] = static_cast<uint8_t>(i * 7);
    }
    talb_set_tensor(talb_make_tensor_id(3, 9), 2);
    EXPECT_EQ(Transfer(send, recv, msg), msg);
    ASSERT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen[0].label.tensor_id, talb_make_tensor_id(3, 9));
    EXPECT_EQ(seen[0].label.priority, 2);
    EXPECT_EQ(seen[0].bytes, msg.size());
    EXPECT_EQ(v10->closeSend(send), ncclSuccess);
    EXPECT_EQ(v10->closeRecv(recv), ncclSuccess);
    EXPECT_EQ(v10->closeListen(listen), ncclSuccess);
}

// 8< labelling-test
TEST_F(TalbNetPlugin, QueuedLabelsSwitchOnlyWhenActivated)
{
    void *send, *recv, *listen;
    Pair(&send, &recv, &listen);
    std::vector<uint8_t> msg(64, 1);
    // Enqueued labels do not apply until activated: the first send is unlabelled.
    EXPECT_EQ(talb_enqueue_tensor(talb_make_tensor_id(1, 10), 0), 0);
    EXPECT_EQ(talb_enqueue_tensor(talb_make_tensor_id(1, 11), 5), 1);
    Transfer(send, recv, msg);
    EXPECT_EQ(talb_activate_next(), 0);
    Transfer(send, recv, msg); // every isend of collective 0 carries its label ...
    Transfer(send, recv, msg);
    talb_activate_next_host_fn(nullptr);
    Transfer(send, recv, msg);           // ... until the stream reaches collective 1
    EXPECT_EQ(talb_activate_next(), -1); // FIFO empty: label unchanged
    Transfer(send, recv, msg);
    ASSERT_EQ(seen.size(), 5u);
    EXPECT_EQ(seen[0].label.tensor_id, TALB_UNLABELLED_TENSOR);
    EXPECT_EQ(seen[0].label.priority, TALB_UNLABELLED_PRIORITY);
    EXPECT_EQ(seen[1].label.tensor_id, talb_make_tensor_id(1, 10));
    EXPECT_EQ(seen[2].label.tensor_id, talb_make_tensor_id(1, 10));
    EXPECT_EQ(seen[3].label.tensor_id, talb_make_tensor_id(1, 11));
    EXPECT_EQ(seen[3].label.priority, 5);
    EXPECT_EQ(seen[4].label.tensor_id, talb_make_tensor_id(1, 11));
    // FIRST marks the first frame of each tensor on the connection.
    EXPECT_EQ(seen[0].label.flags, TALB_FLAG_FIRST);
    EXPECT_EQ(seen[1].label.flags, TALB_FLAG_FIRST);
    EXPECT_EQ(seen[2].label.flags, 0);
    EXPECT_EQ(seen[3].label.flags, TALB_FLAG_FIRST);
    EXPECT_EQ(seen[4].label.flags, 0);
    v11->closeSend(send);
    v11->closeRecv(recv);
    v11->closeListen(listen);
}

// >8 labelling-test

TEST_F(TalbNetPlugin, RegistryRejectsBadPrioritiesAndBoundsItsQueue)
{
    EXPECT_EQ(talb_set_tensor(1, TALB_NUM_PRIORITIES), -1);
    EXPECT_EQ(talb_enqueue_tensor(1, 200), -1);
    for (int i = 0; i < TALB_TENSOR_QUEUE_CAPACITY; ++i)
    {
        ASSERT_EQ(talb_enqueue_tensor(i, 1), i);
    }
    EXPECT_EQ(talb_enqueue_tensor(1, 1), -1);
    EXPECT_EQ(talb_tensor_queue_length(), (uint32_t)TALB_TENSOR_QUEUE_CAPACITY);
    talb_label l;
    EXPECT_EQ(talb_activate_next(), 0);
    EXPECT_EQ(talb_current_tensor(&l), 0);
    EXPECT_EQ(l.tensor_id, 0u);
    EXPECT_EQ(l.priority, 1);
}

TEST_F(TalbNetPlugin, MalformedPeerGetsAnErrorAndACleanClose)
{
    int fd;
    void *recv, *listen;
    RawPeer(&fd, &recv, &listen);
    uint8_t bad[TALB_FRAME_LEN] = {'B', 'A', 'D', '!', 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4};
    ASSERT_EQ(send(fd, bad, sizeof(bad), 0), (ssize_t)sizeof(bad));
    std::vector<uint8_t> buf(64);
    void* req;
    EXPECT_EQ(ReceiveExpectingFailure(recv, buf, &req), ncclRemoteError);
    int done = 1;
    EXPECT_EQ(v11->test(req, &done, nullptr), ncclRemoteError) << "the error is sticky";
    EXPECT_EQ(done, 0);
    void* again = nullptr;
    void* data = buf.data();
    size_t size = buf.size();
    int tag = 0;
    EXPECT_EQ(v11->irecv(recv, 1, &data, &size, &tag, nullptr, nullptr, &again), ncclRemoteError);
    // The plugin closed its end: the peer reads end of stream (or a reset), never hangs.
    char c;
    EXPECT_LE(::recv(fd, &c, 1, 0), 0);
    close(fd);
    EXPECT_EQ(v11->closeRecv(recv), ncclSuccess);
    EXPECT_EQ(v11->closeListen(listen), ncclSuccess);
}

TEST_F(TalbNetPlugin, FrameLongerThanThePostedReceiveIsRejected)
{
    int fd;
    void *recv, *listen;
    RawPeer(&fd, &recv, &listen);
    talb_frame f{{7, 1, 0}, 1000};
    uint8_t h[TALB_FRAME_LEN];
    ASSERT_EQ(talb_frame_encode(&f, h, sizeof(h)), TALB_FRAME_LEN);
    ASSERT_EQ(send(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
    std::vector<uint8_t> buf(100);
    void* req;
    EXPECT_EQ(ReceiveExpectingFailure(recv, buf, &req), ncclRemoteError);
    close(fd);
    v11->closeRecv(recv);
    v11->closeListen(listen);
}

TEST_F(TalbNetPlugin, PeerClosingMidFrameIsARemoteError)
{
    int fd;
    void *recv, *listen;
    RawPeer(&fd, &recv, &listen);
    talb_frame f{{7, 1, 0}, 50};
    uint8_t h[TALB_FRAME_LEN + 20] = {};
    ASSERT_EQ(talb_frame_encode(&f, h, sizeof(h)), TALB_FRAME_LEN);
    ASSERT_EQ(send(fd, h, sizeof(h), 0), (ssize_t)sizeof(h));
    close(fd);
    std::vector<uint8_t> buf(100);
    void* req;
    EXPECT_EQ(ReceiveExpectingFailure(recv, buf, &req), ncclRemoteError);
    v11->closeRecv(recv);
    v11->closeListen(listen);
}

TEST_F(TalbNetPlugin, RejectsWhatNcclNeverAsksOfAHostOnlyPlugin)
{
    void *send, *recv, *listen;
    Pair(&send, &recv, &listen);
    char buf[16];
    void* mr = nullptr;
    EXPECT_EQ(v11->regMr(send, buf, sizeof(buf), NCCL_PTR_CUDA, &mr), ncclInternalError);
    ASSERT_EQ(v11->regMr(recv, buf, sizeof(buf), NCCL_PTR_HOST, &mr), ncclSuccess);
    void* datas[2] = {buf, buf + 8};
    size_t sizes[2] = {8, 8};
    int tags[2] = {0, 0};
    void* mrs[2] = {mr, mr};
    void* req = nullptr;
    EXPECT_EQ(v11->irecv(recv, 2, datas, sizes, tags, mrs, nullptr, &req), ncclInvalidArgument);
    size_t tooBig = 17;
    EXPECT_EQ(v11->irecv(recv, 1, datas, &tooBig, tags, mrs, nullptr, &req), ncclInvalidArgument);
    v11->deregMr(recv, mr);
    v11->closeSend(send);
    v11->closeRecv(recv);
    v11->closeListen(listen);
}

TEST_F(TalbNetPlugin, BusyCommReturnsNoRequestInsteadOfBlocking)
{
    void *send, *recv, *listen;
    Pair(&send, &recv, &listen);
    std::vector<uint8_t> msg(8, 3);
    void* mr;
    ASSERT_EQ(v11->regMr(send, msg.data(), msg.size(), NCCL_PTR_HOST, &mr), ncclSuccess);
    std::vector<void*> reqs;
    for (int i = 0; i < NCCL_NET_MAX_REQUESTS; ++i)
    {
        void* r = nullptr;
        ASSERT_EQ(v11->isend(send, msg.data(), msg.size(), 0, mr, nullptr, &r), ncclSuccess);
        ASSERT_NE(r, nullptr);
        reqs.push_back(r);
    }
    void* r = reinterpret_cast<void*>(1);
    EXPECT_EQ(v11->isend(send, msg.data(), msg.size(), 0, mr, nullptr, &r), ncclSuccess);
    EXPECT_EQ(r, nullptr);
    for (void* q : reqs)
    {
        EXPECT_EQ(Wait(q, nullptr), ncclSuccess);
    }
    v11->deregMr(send, mr);
    v11->closeSend(send);
    v11->closeRecv(recv);
    v11->closeListen(listen);
}

// 8< stray-test
TEST_F(TalbNetPlugin, StrayConnectionsAreRefusedWhileTheRealOneProceeds)
{
    ncclNetCommConfig_v11_t config{-1};
    void* logCtx = nullptr;
    ASSERT_EQ(v11->init(&logCtx, 43, &config, Logger, nullptr), ncclSuccess);
    g_logged.clear();
    char handle[NCCL_NET_HANDLE_MAXSIZE];
    void* listen = nullptr;
    ASSERT_EQ(v11->listen(ctx, 0, handle, &listen), ncclSuccess);
    char other[NCCL_NET_HANDLE_MAXSIZE];
    void* otherListen = nullptr;
    ASSERT_EQ(v11->listen(ctx, 0, other, &otherListen), ncclSuccess);

    // Three strays reach the listener before the real peer: one speaks another protocol, one
    // holds another listener's handle, one says nothing at all.
    int http = RawConnect(handle);
    int wrong = RawConnect(handle);
    int silent = RawConnect(handle);
    ASSERT_GE(http, 0);
    ASSERT_GE(wrong, 0);
    ASSERT_GE(silent, 0);
    const char get[] = "GET / HTTP/1.0\r\nHost: x\r\n\r\n";
    ASSERT_EQ(send(http, get, TALB_HELLO_LEN, 0), (ssize_t)TALB_HELLO_LEN);
    std::vector<uint8_t> foreign = Hello(other);
    ASSERT_EQ(send(wrong, foreign.data(), foreign.size(), 0), (ssize_t)foreign.size());

    void* send = nullptr;
    void* recv = nullptr;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (send == nullptr || recv == nullptr)
    {
        if (send == nullptr)
        {
            ASSERT_EQ(v11->connect(ctx, 0, handle, &send, nullptr), ncclSuccess);
        }
        if (recv == nullptr)
        {
            ASSERT_EQ(v11->accept(listen, &recv, nullptr), ncclSuccess);
        }
        ASSERT_LT(std::chrono::steady_clock::now(), deadline);
    }
    // The accepted comm is the real peer's: a message goes through intact.
    std::vector<uint8_t> msg(5000);
    for (size_t i = 0; i < msg.size(); ++i)
    {
        msg[i] = static_cast<uint8_t>(i * 13);
    }
    EXPECT_EQ(Transfer(send, recv, msg), msg);
    void* none = nullptr;
    EXPECT_EQ(v11->accept(listen, &none, nullptr), ncclSuccess);
    EXPECT_EQ(none, nullptr) << "a stray became a comm";

    // The two that spoke were closed: they read end of stream (or a reset).
    for (int fd : {http, wrong})
    {
        timeval tv{5, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
        char c;
        EXPECT_LE(::recv(fd, &c, 1, 0), 0);
        close(fd);
    }
    // Each refusal is a warning through NCCL's logger, flagged NCCL_ALL: NCCL_DEBUG=WARN shows it.
    int notTalb = 0;
    int otherListener = 0;
    for (const Logged& l : g_logged)
    {
        if (l.level != NCCL_LOG_WARN)
        {
            continue;
        }
        EXPECT_EQ(l.flags, NCCL_ALL) << l.text;
        EXPECT_EQ(l.text.rfind("NET/talb: refused a connection from 127.0.0.1:", 0), 0u) << l.text;
        notTalb += l.text.find("not a talb handshake") != std::string::npos;
        otherListener += l.text.find("handshake for another listener") != std::string::npos;
    }
    EXPECT_EQ(notTalb, 1);
    EXPECT_EQ(otherListener, 1);
    close(silent); // still pending: closed with the listen comm
    v11->closeSend(send);
    v11->closeRecv(recv);
    v11->closeListen(listen);
    v11->closeListen(otherListen);
    v11->finalize(logCtx);
}

// >8 stray-test

} // namespace
