/*
 * libnccl-net-talb.so: an NCCL net plugin over kernel TCP that frames every isend with the TaLB
 * frame header (model/wire/talb-wire.h) so the host agent can tag the packets of each tensor.
 *
 * Shape: one device (the address in TALB_NET_ADDR, else the first UP non-loopback IPv4
 * interface, else 127.0.0.1), one non-blocking TCP socket per comm, host memory only
 * (NCCL_PTR_HOST). isend/irecv only queue a request; test() moves bytes. Requests of a comm
 * complete in the order they were posted, as NCCL's proxy expects of one connection.
 *
 * Only ncclNetPlugin_v11 and ncclNetPlugin_v10 are exported (-fvisibility=hidden elsewhere).
 */
#define _GNU_SOURCE
#include "nccl/net_v10.h"
#include "nccl/net_v11.h"
#include "talb-net-device.h"
#include "talb-net-frame.h"
#include "talb-net-handle.h"
#include "talb-tensor.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TALB_EXPORT __attribute__((visibility("default")))
#define PLUGIN_NAME "talb"

/* The largest isend a frame can describe (32-bit length); advertised as maxP2pBytes. */
#define TALB_MAX_MESSAGE (1u << 30)
#define TALB_DEFAULT_SPEED_MBPS 10000
#define TALB_STR_(x) #x
#define TALB_STR(x) TALB_STR_(x)

/* ---- logging ------------------------------------------------------------------------------- */

/* Process-wide: NCCL hands the logger to init() only. Written before any comm exists. */
static ncclDebugLogger_t g_logger = NULL;
static int g_debug = 0;

static void
talb_log(ncclDebugLogLevel level, int line, const char* fmt, ...)
{
    if (level > NCCL_LOG_WARN && !g_debug)
    {
        return;
    }
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (g_logger != NULL)
    {
        /* Warnings as NCCL_ALL, like NCCL's own WARN(): NCCL_DEBUG=WARN shows them whatever
         * NCCL_DEBUG_SUBSYS is; information as NET. */
        g_logger(level,
                 level == NCCL_LOG_WARN ? NCCL_ALL : NCCL_NET,
                 __FILE__,
                 line,
                 "NET/talb: %s",
                 msg);
    }
    else
    {
        fprintf(stderr, "talb-net: %s: %s\n", level == NCCL_LOG_WARN ? "warning" : "info", msg);
    }
}

#define TALB_WARN(...) talb_log(NCCL_LOG_WARN, __LINE__, __VA_ARGS__)
#define TALB_INFO(...) talb_log(NCCL_LOG_INFO, __LINE__, __VA_ARGS__)

/* ---- the device ----------------------------------------------------------------------------- */

struct talb_device
{
    struct sockaddr_in addr; /* port 0 */
    char ifname[IF_NAMESIZE];
    int speed_mbps;
    char* pci_path;      /* sysfs path of the NIC's PCI function; NULL for a virtual interface */
    ncclResult_t status; /* of the one-time resolution */
};

static struct talb_device g_dev;
static pthread_once_t g_dev_once = PTHREAD_ONCE_INIT;

static void
resolve_device(void)
{
    const char* dbg = getenv("TALB_NET_DEBUG");
    g_debug = dbg != NULL && dbg[0] != '\0' && strcmp(dbg, "0") != 0;

    memset(&g_dev, 0, sizeof(g_dev));
    g_dev.addr.sin_family = AF_INET;
    g_dev.status = ncclSuccess;
    const char* want = getenv("TALB_NET_ADDR");
    if (want != NULL && want[0] != '\0' && inet_pton(AF_INET, want, &g_dev.addr.sin_addr) != 1)
    {
        TALB_WARN("TALB_NET_ADDR='%s' is not an IPv4 address", want);
        g_dev.status = ncclInvalidArgument;
        return;
    }
    int explicit_addr = want != NULL && want[0] != '\0';

    struct ifaddrs* ifs = NULL;
    if (getifaddrs(&ifs) == 0)
    {
        for (struct ifaddrs* i = ifs; i != NULL; i = i->ifa_next)
        {
            if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
            {
                continue;
            }
            const struct sockaddr_in* a = (const struct sockaddr_in*)i->ifa_addr;
            int match = explicit_addr ? a->sin_addr.s_addr == g_dev.addr.sin_addr.s_addr
                                      : (i->ifa_flags & IFF_UP) && !(i->ifa_flags & IFF_LOOPBACK);
            if (match)
            {
                g_dev.addr.sin_addr = a->sin_addr;
                snprintf(g_dev.ifname, sizeof(g_dev.ifname), "%s", i->ifa_name);
                break;
            }
        }
        freeifaddrs(ifs);
    }
    if (g_dev.ifname[0] == '\0')
    {
        if (explicit_addr)
        {
            /* Bind will tell whether the address is usable; name the device after it. */
            snprintf(g_dev.ifname, sizeof(g_dev.ifname), "talb0");
        }
        else
        {
            g_dev.addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            snprintf(g_dev.ifname, sizeof(g_dev.ifname), "lo");
        }
    }
    /* Virtual interfaces (lo, veth) report no speed: assume a 10 Gb/s NIC. */
    g_dev.speed_mbps = talb_net_speed_mbps(TALB_SYSFS_NET, g_dev.ifname, TALB_DEFAULT_SPEED_MBPS);
    g_dev.pci_path = talb_net_pci_path(TALB_SYSFS_NET, g_dev.ifname);
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &g_dev.addr.sin_addr, text, sizeof(text));
    TALB_INFO("device 0 is %s (%s), %d Mbps, %s",
              g_dev.ifname,
              text,
              g_dev.speed_mbps,
              g_dev.pci_path != NULL ? g_dev.pci_path : "virtual (no PCI path)");
}

static ncclResult_t
device_ready(void)
{
    pthread_once(&g_dev_once, resolve_device);
    return g_dev.status;
}

/* The plugin has one device, 0: reject others, then make sure it is resolved. */
static ncclResult_t
device_check(int dev, const char* caller)
{
    if (dev != 0)
    {
        TALB_WARN("%s: no device %d", caller, dev);
        return ncclInvalidArgument;
    }
    return device_ready();
}

/* ---- objects -------------------------------------------------------------------------------- */

/* Per-communicator context of the v11 API. */
struct talb_ctx
{
    uint64_t comm_id;
    int traffic_class;
};

/* The v10 API has no context: its calls use this one. */
static struct talb_ctx g_v10_ctx = {0, -1};

_Static_assert(sizeof(struct talb_handle) <= NCCL_NET_HANDLE_MAXSIZE, "handle too large");

/* Connections accepted from the socket whose handshake is not complete yet. */
#define TALB_PENDING_MAX 16
#define TALB_HANDSHAKE_TIMEOUT_S 10

struct talb_pending
{
    int fd; /* -1: free slot */
    uint32_t have;
    uint8_t hello[TALB_HELLO_LEN];
    struct timespec since;
    char peer[INET_ADDRSTRLEN + 8]; /* address:port, for warnings */
};

struct talb_listen_comm
{
    int fd;
    uint64_t conn_id;
    struct talb_pending pending[TALB_PENDING_MAX];
};

struct talb_comm;

struct talb_request
{
    struct talb_comm* comm;
    int used;
    int done;
    uint32_t bytes;          /* bytes sent or received when done */
    struct talb_tx_frame tx; /* send */
    void* dst;               /* receive */
    size_t cap;
};

struct talb_comm
{
    int fd;
    int is_send;
    ncclResult_t error; /* sticky: once set, every call on this comm returns it */
    struct talb_request req[NCCL_NET_MAX_REQUESTS];
    uint32_t head; /* oldest request not yet complete */
    uint32_t tail; /* next request slot */
    struct talb_rx_parser rx;
    uint32_t last_tensor; /* sender: tensor of the previous frame, for TALB_FLAG_FIRST */
    int sent_any;
    uint64_t frames; /* frames moved, for logs */
};

struct talb_mr
{
    void* data;
    size_t size;
};

/* ---- sockets -------------------------------------------------------------------------------- */

static ssize_t
sock_read(void* ctx, void* buf, size_t len)
{
    return recv(*(int*)ctx, buf, len, 0);
}

static ssize_t
sock_writev(void* ctx, const struct iovec* iov, int iovcnt)
{
    struct msghdr m;
    memset(&m, 0, sizeof(m));
    m.msg_iov = (struct iovec*)iov;
    m.msg_iovlen = (size_t)iovcnt;
    return sendmsg(*(int*)ctx, &m, MSG_NOSIGNAL);
}

static void
set_nodelay(int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static struct talb_comm*
comm_new(int fd, int is_send)
{
    struct talb_comm* c = calloc(1, sizeof(*c));
    if (c == NULL)
    {
        return NULL;
    }
    c->fd = fd;
    c->is_send = is_send;
    c->error = ncclSuccess;
    talb_rx_init(&c->rx);
    return c;
}

/* Ends a comm's connection after an error: logged once, socket shut down and closed. */
static void
comm_fail(struct talb_comm* c, ncclResult_t code, const char* what)
{
    if (c->error != ncclSuccess)
    {
        return;
    }
    TALB_WARN("%s comm fd %d: %s after %llu frames; closing the connection",
              c->is_send ? "send" : "recv",
              c->fd,
              what,
              (unsigned long long)c->frames);
    c->error = code;
    if (c->fd >= 0)
    {
        shutdown(c->fd, SHUT_RDWR);
        close(c->fd);
        c->fd = -1;
    }
}

/* Moves bytes for the comm's requests, oldest first, until the socket would block. */
static void
comm_progress(struct talb_comm* c)
{
    while (c->error == ncclSuccess && c->head != c->tail)
    {
        struct talb_request* r = &c->req[c->head % NCCL_NET_MAX_REQUESTS];
        int st;
        if (c->is_send)
        {
            st = talb_tx_step(&r->tx, sock_writev, &c->fd);
            if (st == TALB_IO_DONE)
            {
                r->bytes = r->tx.payload_len;
            }
        }
        else
        {
            st = talb_rx_step(&c->rx, sock_read, &c->fd, r->dst, r->cap);
            if (st == TALB_IO_DONE)
            {
                r->bytes = c->rx.frame.payload_len;
                talb_notify_rx(&c->rx.frame.label, r->bytes);
            }
        }
        if (st == TALB_IO_AGAIN)
        {
            return;
        }
        if (st != TALB_IO_DONE)
        {
            char what[160];
            if (st == TALB_IO_BAD_FRAME)
            {
                snprintf(what,
                         sizeof(what),
                         "bad frame header (%s)",
                         talb_wire_strerror(c->rx.wire_status));
            }
            else if (st == TALB_IO_TOO_LONG)
            {
                snprintf(what,
                         sizeof(what),
                         "frame of %u bytes exceeds the posted receive of %zu bytes",
                         c->rx.frame.payload_len,
                         r->cap);
            }
            else if (st == TALB_IO_ERROR)
            {
                snprintf(what, sizeof(what), "%s (%s)", talb_io_strerror(st), strerror(errno));
            }
            else
            {
                snprintf(what, sizeof(what), "%s", talb_io_strerror(st));
            }
            comm_fail(c, st == TALB_IO_ERROR ? ncclSystemError : ncclRemoteError, what);
            return;
        }
        r->done = 1;
        ++c->frames;
        ++c->head;
    }
}

static struct talb_request*
request_alloc(struct talb_comm* c)
{
    struct talb_request* r = &c->req[c->tail % NCCL_NET_MAX_REQUESTS];
    if (r->used)
    {
        return NULL; /* all slots busy: NCCL retries later */
    }
    memset(r, 0, sizeof(*r));
    r->comm = c;
    r->used = 1;
    ++c->tail;
    return r;
}

/* ---- v11 API -------------------------------------------------------------------------------- */

static ncclResult_t
talb_init(void** ctx,
          uint64_t commId,
          ncclNetCommConfig_v11_t* config,
          ncclDebugLogger_t logFunction,
          ncclProfilerCallback_t profFunction)
{
    (void)profFunction; /* no net-defined profiler events */
    if (logFunction != NULL)
    {
        g_logger = logFunction;
    }
    ncclResult_t rc = device_ready();
    if (rc != ncclSuccess)
    {
        return rc;
    }
    struct talb_ctx* c = calloc(1, sizeof(*c));
    if (c == NULL)
    {
        return ncclSystemError;
    }
    c->comm_id = commId;
    c->traffic_class = config != NULL ? config->trafficClass : -1;
    *ctx = c;
    return ncclSuccess;
}

static ncclResult_t
talb_devices(int* ndev)
{
    *ndev = 1;
    return ncclSuccess;
}

static ncclResult_t
talb_get_properties(int dev, ncclNetProperties_v11_t* props)
{
    ncclResult_t rc = device_check(dev, "getProperties");
    if (rc != ncclSuccess)
    {
        return rc;
    }
    memset(props, 0, sizeof(*props));
    props->name = g_dev.ifname;
    /* The NIC's PCI function, so that NCCL's topology places it on its NUMA node next to its
     * GPUs; NULL for a virtual interface, which NCCL then places off-PCI. */
    props->pciPath = g_dev.pci_path;
    props->guid = 0;
    props->ptrSupport = NCCL_PTR_HOST; /* NCCL stages GPU data through host buffers */
    props->regIsGlobal = 0;            /* a registration belongs to its comm */
    props->forceFlush = 0;             /* host memory needs no flush */
    props->speed = g_dev.speed_mbps;   /* Mbit/s */
    props->port = 0;
    props->latency = 0; /* microseconds; 0 lets NCCL use its own estimate */
    props->maxComms = 65536;
    props->maxRecvs = 1; /* no grouped receives: irecv takes n == 1 */
    props->netDeviceType = NCCL_NET_DEVICE_HOST;
    props->netDeviceVersion = 0;
    props->vProps.ndevs = 1;
    props->vProps.devs[0] = 0;
    props->maxP2pBytes = TALB_MAX_MESSAGE; /* a frame's length field is 32-bit */
    props->maxCollBytes = TALB_MAX_MESSAGE;
    props->maxMultiRequestSize = 1; /* one request per isend/irecv */
    return ncclSuccess;
}

/* A connection id no other listen handle is likely to hold (64 random bits). */
static uint64_t
new_conn_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof(id), GRND_NONBLOCK) != (ssize_t)sizeof(id))
    {
        struct timespec t;
        clock_gettime(CLOCK_MONOTONIC, &t);
        static uint64_t counter;
        id = ((uint64_t)t.tv_nsec << 20) ^ (uint64_t)t.tv_sec ^ ((uint64_t)getpid() << 40) ^
             __atomic_add_fetch(&counter, 0x9e3779b97f4a7c15ull, __ATOMIC_RELAXED);
    }
    return id;
}

static ncclResult_t
talb_listen(void* ctx, int dev, void* opaque_handle, void** listenComm)
{
    (void)ctx;
    *listenComm = NULL;
    ncclResult_t rc = device_check(dev, "listen");
    if (rc != ncclSuccess)
    {
        return rc;
    }
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
    {
        TALB_WARN("listen: socket: %s", strerror(errno));
        return ncclSystemError;
    }
    struct sockaddr_in a = g_dev.addr;
    a.sin_port = 0;
    socklen_t alen = sizeof(a);
    if (bind(fd, (struct sockaddr*)&a, sizeof(a)) != 0 || listen(fd, 64) != 0 ||
        getsockname(fd, (struct sockaddr*)&a, &alen) != 0)
    {
        char text[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &g_dev.addr.sin_addr, text, sizeof(text));
        TALB_WARN("listen on %s: %s", text, strerror(errno));
        close(fd);
        return ncclSystemError;
    }
    struct talb_listen_comm* l = calloc(1, sizeof(*l));
    if (l == NULL)
    {
        close(fd);
        return ncclSystemError;
    }
    l->fd = fd;
    l->conn_id = new_conn_id();
    for (int i = 0; i < TALB_PENDING_MAX; ++i)
    {
        l->pending[i].fd = -1;
    }
    struct talb_handle* h = (struct talb_handle*)opaque_handle;
    memset(opaque_handle, 0, NCCL_NET_HANDLE_MAXSIZE);
    h->magic = TALB_HANDLE_MAGIC;
    h->addr = a;
    h->conn_id = l->conn_id;
    h->stage_fd = -1;
    h->stage = 0;
    *listenComm = l;
    TALB_INFO("listening on port %u (fd %d)", ntohs(a.sin_port), fd);
    return ncclSuccess;
}

static ncclResult_t
talb_connect(void* ctx,
             int dev,
             void* opaque_handle,
             void** sendComm,
             ncclNetDeviceHandle_v11_t** sendDevComm)
{
    (void)ctx;
    (void)sendDevComm; /* no device offload: left untouched */
    *sendComm = NULL;
    struct talb_handle* h = (struct talb_handle*)opaque_handle;
    if (dev != 0 || h->magic != TALB_HANDLE_MAGIC)
    {
        TALB_WARN("connect: not a talb handle (device %d)", dev);
        return ncclInvalidArgument;
    }
    if (h->stage == 0)
    {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
        {
            TALB_WARN("connect: socket: %s", strerror(errno));
            return ncclSystemError;
        }
        set_nodelay(fd);
        if (connect(fd, (struct sockaddr*)&h->addr, sizeof(h->addr)) != 0 && errno != EINPROGRESS)
        {
            TALB_WARN("connect to port %u: %s", ntohs(h->addr.sin_port), strerror(errno));
            close(fd);
            return ncclSystemError;
        }
        h->stage_fd = fd;
        h->stage = 1;
    }
    if (h->stage == 1)
    {
        struct pollfd p = {h->stage_fd, POLLOUT, 0};
        if (poll(&p, 1, 0) == 0)
        {
            return ncclSuccess; /* still connecting: NCCL calls again */
        }
        int err = 0;
        socklen_t len = sizeof(err);
        if (getsockopt(h->stage_fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)
        {
            TALB_WARN("connect to port %u: %s",
                      ntohs(h->addr.sin_port),
                      strerror(err ? err : errno));
            close(h->stage_fd);
            h->stage_fd = -1;
            h->stage = 0;
            return ncclRemoteError;
        }
        h->stage = 2;
        h->hello_sent = 0;
    }
    /* The handshake goes out before the comm exists: the peer's accept() waits for it. */
    uint8_t hello[TALB_HELLO_LEN];
    talb_hello_encode(h->conn_id, hello);
    while (h->hello_sent < TALB_HELLO_LEN)
    {
        ssize_t w =
            send(h->stage_fd, hello + h->hello_sent, TALB_HELLO_LEN - h->hello_sent, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        {
            return ncclSuccess; /* NCCL calls again */
        }
        if (w <= 0)
        {
            TALB_WARN("connect to port %u: handshake: %s",
                      ntohs(h->addr.sin_port),
                      strerror(errno));
            close(h->stage_fd);
            h->stage_fd = -1;
            h->stage = 0;
            return ncclRemoteError;
        }
        h->hello_sent += (uint32_t)w;
    }
    struct talb_comm* c = comm_new(h->stage_fd, 1);
    if (c == NULL)
    {
        return ncclSystemError;
    }
    h->stage_fd = -1;
    h->stage = 0;
    *sendComm = c;
    TALB_INFO("connected to port %u (fd %d)", ntohs(h->addr.sin_port), c->fd);
    return ncclSuccess;
}

static double
seconds_since(const struct timespec* t)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (now.tv_nsec - t->tv_nsec) * 1e-9;
}

static void
pending_drop(struct talb_pending* p, const char* why)
{
    TALB_WARN("refused a connection from %s: %s", p->peer, why);
    shutdown(p->fd, SHUT_RDWR);
    close(p->fd);
    p->fd = -1;
}

/* Takes every connection waiting on the listening socket into a free pending slot. */
static ncclResult_t
pending_take(struct talb_listen_comm* l)
{
    for (;;)
    {
        struct sockaddr_in from;
        socklen_t from_len = sizeof(from);
        int fd = accept4(l->fd, (struct sockaddr*)&from, &from_len, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
        {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR || errno == ECONNABORTED)
            {
                return ncclSuccess; /* nobody (more) yet */
            }
            TALB_WARN("accept: %s", strerror(errno));
            return ncclSystemError;
        }
        struct talb_pending* slot = NULL;
        struct talb_pending* oldest = NULL;
        for (int i = 0; i < TALB_PENDING_MAX; ++i)
        {
            struct talb_pending* p = &l->pending[i];
            if (p->fd < 0)
            {
                slot = slot != NULL ? slot : p;
            }
            else if (oldest == NULL || seconds_since(&p->since) > seconds_since(&oldest->since))
            {
                oldest = p;
            }
        }
        if (slot == NULL)
        {
            pending_drop(oldest, "too many connections without a handshake");
            slot = oldest;
        }
        slot->fd = fd;
        slot->have = 0;
        clock_gettime(CLOCK_MONOTONIC, &slot->since);
        char addr[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &from.sin_addr, addr, sizeof(addr));
        snprintf(slot->peer, sizeof(slot->peer), "%s:%u", addr, ntohs(from.sin_port));
    }
}

/*
 * Accepts a connection only once it has shown the handshake of this listen handle (magic and
 * connection id, see talb-net-frame.h). Anything else that connects -- a port scan, a stray peer
 * of another run -- is refused with a warning, and never becomes a comm NCCL would read frames
 * from. Non-blocking, like the rest: a NULL comm means "call again".
 */
static ncclResult_t
talb_accept(void* listenComm, void** recvComm, ncclNetDeviceHandle_v11_t** recvDevComm)
{
    (void)recvDevComm;
    *recvComm = NULL;
    struct talb_listen_comm* l = (struct talb_listen_comm*)listenComm;
    ncclResult_t rc = pending_take(l);
    if (rc != ncclSuccess)
    {
        return rc;
    }
    for (int i = 0; i < TALB_PENDING_MAX; ++i)
    {
        struct talb_pending* p = &l->pending[i];
        if (p->fd < 0)
        {
            continue;
        }
        ssize_t r = recv(p->fd, p->hello + p->have, TALB_HELLO_LEN - p->have, 0);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR))
        {
            pending_drop(p, r == 0 ? "closed before its handshake" : strerror(errno));
            continue;
        }
        if (r < 0)
        {
            if (seconds_since(&p->since) > TALB_HANDSHAKE_TIMEOUT_S)
            {
                pending_drop(p, "no handshake within " TALB_STR(TALB_HANDSHAKE_TIMEOUT_S) " s");
            }
            continue;
        }
        p->have += (uint32_t)r;
        if (p->have < TALB_HELLO_LEN)
        {
            continue;
        }
        uint64_t id = 0;
        if (talb_hello_decode(p->hello, &id) != TALB_WIRE_OK)
        {
            pending_drop(p, "not a talb handshake");
            continue;
        }
        if (id != l->conn_id)
        {
            char why[96];
            snprintf(why,
                     sizeof(why),
                     "handshake for another listener (connection id %016llx, this one %016llx)",
                     (unsigned long long)id,
                     (unsigned long long)l->conn_id);
            pending_drop(p, why);
            continue;
        }
        set_nodelay(p->fd);
        struct talb_comm* c = comm_new(p->fd, 0);
        if (c == NULL)
        {
            return ncclSystemError; /* the slot keeps the connection: NCCL may call again */
        }
        TALB_INFO("accepted a connection from %s (fd %d)", p->peer, p->fd);
        p->fd = -1;
        *recvComm = c;
        return ncclSuccess;
    }
    return ncclSuccess;
}

static ncclResult_t
talb_reg_mr(void* comm, void* data, size_t size, int type, void** mhandle)
{
    (void)comm;
    if (type != NCCL_PTR_HOST)
    {
        TALB_WARN("regMr: memory type %d unsupported (host memory only)", type);
        return ncclInternalError;
    }
    struct talb_mr* mr = calloc(1, sizeof(*mr));
    if (mr == NULL)
    {
        return ncclSystemError;
    }
    mr->data = data;
    mr->size = size;
    *mhandle = mr;
    return ncclSuccess;
}

static ncclResult_t
talb_dereg_mr(void* comm, void* mhandle)
{
    (void)comm;
    free(mhandle);
    return ncclSuccess;
}

/* Fails when [data, data+size) lies outside the registration (a caller bug, not the peer's). */
static int
mr_covers(const struct talb_mr* mr, const void* data, size_t size)
{
    if (mr == NULL)
    {
        return 1; /* NCCL always registers; a NULL handle is tolerated for tools */
    }
    const uint8_t* lo = (const uint8_t*)mr->data;
    const uint8_t* p = (const uint8_t*)data;
    return p >= lo && size <= mr->size && (size_t)(p - lo) <= mr->size - size;
}

static ncclResult_t
talb_isend(void* sendComm,
           void* data,
           size_t size,
           int tag,
           void* mhandle,
           void* phandle,
           void** request)
{
    (void)tag;     /* one connection per peer: order identifies the message */
    (void)phandle; /* no net-defined profiler events */
    *request = NULL;
    struct talb_comm* c = (struct talb_comm*)sendComm;
    if (c->error != ncclSuccess)
    {
        return c->error;
    }
    if (size > TALB_MAX_MESSAGE || !mr_covers((const struct talb_mr*)mhandle, data, size))
    {
        TALB_WARN("isend: %zu bytes at %p outside the registration or above %u bytes",
                  size,
                  data,
                  TALB_MAX_MESSAGE);
        return ncclInvalidArgument;
    }
    struct talb_request* r = request_alloc(c);
    if (r == NULL)
    {
        return ncclSuccess;
    }
    struct talb_label label;
    talb_current_tensor(&label);
    label.flags = (!c->sent_any || label.tensor_id != c->last_tensor) ? TALB_FLAG_FIRST : 0;
    c->sent_any = 1;
    c->last_tensor = label.tensor_id;
    if (talb_tx_init(&r->tx, &label, data, (uint32_t)size) != TALB_WIRE_OK)
    {
        /* The registry validates priorities, so this is unreachable short of memory damage. */
        r->used = 0;
        --c->tail;
        return ncclInternalError;
    }
    if (g_debug)
    {
        TALB_INFO("isend fd %d: %zu bytes, tensor 0x%08x priority %u",
                  c->fd,
                  size,
                  label.tensor_id,
                  label.priority);
    }
    *request = r;
    return ncclSuccess;
}

static ncclResult_t
talb_irecv(void* recvComm,
           int n,
           void** data,
           size_t* sizes,
           int* tags,
           void** mhandles,
           void** phandles,
           void** request)
{
    (void)tags;
    (void)phandles;
    *request = NULL;
    struct talb_comm* c = (struct talb_comm*)recvComm;
    if (c->error != ncclSuccess)
    {
        return c->error;
    }
    if (n != 1)
    {
        TALB_WARN("irecv: %d grouped receives requested, maxRecvs is 1", n);
        return ncclInvalidArgument;
    }
    if (!mr_covers(mhandles != NULL ? (const struct talb_mr*)mhandles[0] : NULL, data[0], sizes[0]))
    {
        TALB_WARN("irecv: buffer of %zu bytes outside its registration", sizes[0]);
        return ncclInvalidArgument;
    }
    struct talb_request* r = request_alloc(c);
    if (r == NULL)
    {
        return ncclSuccess;
    }
    r->dst = data[0];
    r->cap = sizes[0];
    *request = r;
    return ncclSuccess;
}

static ncclResult_t
talb_iflush(void* recvComm, int n, void** data, int* sizes, void** mhandles, void** request)
{
    (void)recvComm;
    (void)n;
    (void)data;
    (void)sizes;
    (void)mhandles;
    /* NCCL flushes only GPU-direct receives; this plugin never offers NCCL_PTR_CUDA. */
    *request = NULL;
    TALB_WARN("iflush called although the plugin supports host memory only");
    return ncclInternalError;
}

static ncclResult_t
talb_test(void* request, int* done, int* sizes)
{
    struct talb_request* r = (struct talb_request*)request;
    struct talb_comm* c = r->comm;
    *done = 0;
    if (!r->done)
    {
        comm_progress(c);
    }
    if (r->done)
    {
        *done = 1;
        if (sizes != NULL)
        {
            sizes[0] = (int)r->bytes;
        }
        r->used = 0;
        return ncclSuccess;
    }
    return c->error;
}

static ncclResult_t
talb_close_comm(void* comm)
{
    struct talb_comm* c = (struct talb_comm*)comm;
    if (c == NULL)
    {
        return ncclSuccess;
    }
    if (c->fd >= 0)
    {
        close(c->fd);
    }
    free(c);
    return ncclSuccess;
}

static ncclResult_t
talb_close_listen(void* listenComm)
{
    struct talb_listen_comm* l = (struct talb_listen_comm*)listenComm;
    if (l != NULL)
    {
        for (int i = 0; i < TALB_PENDING_MAX; ++i)
        {
            if (l->pending[i].fd >= 0)
            {
                close(l->pending[i].fd);
            }
        }
        close(l->fd);
        free(l);
    }
    return ncclSuccess;
}

static ncclResult_t
talb_finalize(void* ctx)
{
    free(ctx);
    return ncclSuccess;
}

/* ---- v10 adapters --------------------------------------------------------------------------- */

static ncclResult_t
talb_init_v10(ncclDebugLogger_t logFunction, ncclProfilerCallback_t profFunction)
{
    (void)profFunction;
    if (logFunction != NULL)
    {
        g_logger = logFunction;
    }
    return device_ready();
}

static ncclResult_t
talb_get_properties_v10(int dev, ncclNetProperties_v10_t* props)
{
    ncclNetProperties_v11_t p;
    ncclResult_t rc = talb_get_properties(dev, &p);
    if (rc != ncclSuccess)
    {
        return rc;
    }
    props->name = p.name;
    props->pciPath = p.pciPath;
    props->guid = p.guid;
    props->ptrSupport = p.ptrSupport;
    props->regIsGlobal = p.regIsGlobal;
    props->forceFlush = p.forceFlush;
    props->speed = p.speed;
    props->port = p.port;
    props->latency = p.latency;
    props->maxComms = p.maxComms;
    props->maxRecvs = p.maxRecvs;
    props->netDeviceType = p.netDeviceType;
    props->netDeviceVersion = p.netDeviceVersion;
    props->vProps.ndevs = p.vProps.ndevs;
    memcpy(props->vProps.devs, p.vProps.devs, sizeof(props->vProps.devs));
    props->maxP2pBytes = p.maxP2pBytes;
    props->maxCollBytes = p.maxCollBytes;
    return ncclSuccess;
}

static ncclResult_t
talb_listen_v10(int dev, void* handle, void** listenComm)
{
    return talb_listen(&g_v10_ctx, dev, handle, listenComm);
}

static ncclResult_t
talb_connect_v10(int dev,
                 ncclNetCommConfig_v10_t* config,
                 void* handle,
                 void** sendComm,
                 ncclNetDeviceHandle_v10_t** sendDevComm)
{
    (void)config;
    return talb_connect(&g_v10_ctx, dev, handle, sendComm, sendDevComm);
}

/* ---- exported tables ------------------------------------------------------------------------ */

/* 8< plugin-tables */
TALB_EXPORT const ncclNet_v11_t ncclNetPlugin_v11 = {
    .name = PLUGIN_NAME,
    .init = talb_init,
    .devices = talb_devices,
    .getProperties = talb_get_properties,
    .listen = talb_listen,
    .connect = talb_connect,
    .accept = talb_accept,
    .regMr = talb_reg_mr,
    .regMrDmaBuf = NULL, /* no NCCL_PTR_DMABUF */
    .deregMr = talb_dereg_mr,
    .isend = talb_isend,
    .irecv = talb_irecv,
    .iflush = talb_iflush,
    .test = talb_test,
    .closeSend = talb_close_comm,
    .closeRecv = talb_close_comm,
    .closeListen = talb_close_listen,
    .getDeviceMr = NULL,   /* no device offload */
    .irecvConsumed = NULL, /* no device offload */
    .makeVDevice = NULL,   /* one device, nothing to merge */
    .finalize = talb_finalize,
    .setNetAttr = NULL, /* no tunable attributes */
};

TALB_EXPORT const ncclNet_v10_t ncclNetPlugin_v10 = {
    .name = PLUGIN_NAME,
    .init = talb_init_v10,
    .devices = talb_devices,
    .getProperties = talb_get_properties_v10,
    .listen = talb_listen_v10,
    .connect = talb_connect_v10,
    .accept = talb_accept,
    .regMr = talb_reg_mr,
    .regMrDmaBuf = NULL,
    .deregMr = talb_dereg_mr,
    .isend = talb_isend,
    .irecv = talb_irecv,
    .iflush = talb_iflush,
    .test = talb_test,
    .closeSend = talb_close_comm,
    .closeRecv = talb_close_comm,
    .closeListen = talb_close_listen,
    .getDeviceMr = NULL,
    .irecvConsumed = NULL,
    .makeVDevice = NULL,
};
/* >8 plugin-tables */
