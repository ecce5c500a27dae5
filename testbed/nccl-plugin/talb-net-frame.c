/* Stream framing of the talb NCCL net plugin: see talb-net-frame.h. */
#include "talb-net-frame.h"

#include <errno.h>
#include <string.h>

int
talb_tx_init(struct talb_tx_frame* tx,
             const struct talb_label* label,
             const void* payload,
             uint32_t payload_len)
{
    struct talb_frame f;
    f.label = *label;
    f.payload_len = payload_len;
    int rc = talb_frame_encode(&f, tx->header, sizeof(tx->header));
    if (rc < 0)
    {
        return rc;
    }
    tx->payload = (const uint8_t*)payload;
    tx->payload_len = payload_len;
    tx->sent = 0;
    return TALB_WIRE_OK;
}

int
talb_tx_step(struct talb_tx_frame* tx, talb_writev_fn wr, void* ctx)
{
    const uint64_t total = TALB_FRAME_LEN + (uint64_t)tx->payload_len;
    while (tx->sent < total)
    {
        struct iovec iov[2];
        int n = 0;
        if (tx->sent < TALB_FRAME_LEN)
        {
            iov[n].iov_base = tx->header + tx->sent;
            iov[n].iov_len = TALB_FRAME_LEN - tx->sent;
            ++n;
        }
        uint64_t payload_off = tx->sent < TALB_FRAME_LEN ? 0 : tx->sent - TALB_FRAME_LEN;
        if (payload_off < tx->payload_len)
        {
            iov[n].iov_base = (void*)(tx->payload + payload_off);
            iov[n].iov_len = tx->payload_len - payload_off;
            ++n;
        }
        ssize_t w = wr(ctx, iov, n);
        if (w < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            return (errno == EAGAIN || errno == EWOULDBLOCK) ? TALB_IO_AGAIN : TALB_IO_ERROR;
        }
        if (w == 0)
        {
            return TALB_IO_AGAIN;
        }
        tx->sent += (uint64_t)w;
    }
    return TALB_IO_DONE;
}

void
talb_rx_init(struct talb_rx_parser* rx)
{
    rx->header_have = 0;
    rx->payload_have = 0;
    rx->frame.payload_len = 0;
    rx->wire_status = TALB_WIRE_OK;
    rx->failed = 0;
}

int
talb_rx_idle(const struct talb_rx_parser* rx)
{
    return rx->header_have == 0;
}

/* read_some's would-block result: distinct from every talb_io_status. */
#define READ_WOULD_BLOCK (-100)

/* Reads up to len bytes; maps the transport's result to a talb_io_status or a byte count. */
static ssize_t
read_some(talb_read_fn rd, void* ctx, void* buf, size_t len)
{
    for (;;)
    {
        ssize_t r = rd(ctx, buf, len);
        if (r > 0)
        {
            return r;
        }
        if (r == 0)
        {
            return TALB_IO_EOF;
        }
        if (errno == EINTR)
        {
            continue;
        }
        return (errno == EAGAIN || errno == EWOULDBLOCK) ? READ_WOULD_BLOCK : TALB_IO_ERROR;
    }
}

int
talb_rx_step(struct talb_rx_parser* rx, talb_read_fn rd, void* ctx, void* dst, size_t cap)
{
    /* Found by the plugin-rx fuzz target: a step after TALB_IO_TOO_LONG went on to read the
     * oversized payload into dst, past cap. */
    if (rx->failed != 0)
    {
        return rx->failed;
    }
    while (rx->header_have < TALB_FRAME_LEN)
    {
        ssize_t r =
            read_some(rd, ctx, rx->header + rx->header_have, TALB_FRAME_LEN - rx->header_have);
        if (r == READ_WOULD_BLOCK)
        {
            return TALB_IO_AGAIN;
        }
        if (r < 0)
        {
            return (int)r;
        }
        rx->header_have += (uint32_t)r;
        if (rx->header_have == TALB_FRAME_LEN)
        {
            int st = talb_frame_decode(rx->header, TALB_FRAME_LEN, &rx->frame);
            if (st < 0)
            {
                rx->wire_status = st;
                rx->failed = TALB_IO_BAD_FRAME;
                return TALB_IO_BAD_FRAME;
            }
            if (rx->frame.payload_len > cap)
            {
                rx->failed = TALB_IO_TOO_LONG;
                return TALB_IO_TOO_LONG;
            }
            rx->payload_have = 0;
        }
    }
    while (rx->payload_have < rx->frame.payload_len)
    {
        ssize_t r = read_some(rd,
                              ctx,
                              (uint8_t*)dst + rx->payload_have,
                              rx->frame.payload_len - rx->payload_have);
        if (r == READ_WOULD_BLOCK)
        {
            return TALB_IO_AGAIN;
        }
        if (r < 0)
        {
            return (int)r;
        }
        rx->payload_have += (uint32_t)r;
    }
    rx->header_have = 0;
    rx->payload_have = 0;
    return TALB_IO_DONE;
}

const char*
talb_io_strerror(int status)
{
    switch (status)
    {
    case TALB_IO_DONE:
        return "done";
    case TALB_IO_AGAIN:
        return "would block";
    case TALB_IO_EOF:
        return "peer closed the connection";
    case TALB_IO_ERROR:
        return "socket error";
    case TALB_IO_BAD_FRAME:
        return "malformed frame header";
    case TALB_IO_TOO_LONG:
        return "frame longer than the posted receive";
    default:
        return "unknown";
    }
}

void
talb_hello_encode(uint64_t conn_id, uint8_t out[TALB_HELLO_LEN])
{
    struct talb_frame f = {{0, TALB_NUM_PRIORITIES - 1, TALB_FLAG_FIRST | TALB_FLAG_LAST},
                           TALB_HELLO_PAYLOAD};
    talb_frame_encode(&f, out, TALB_FRAME_LEN);
    memcpy(out + TALB_FRAME_LEN, TALB_HELLO_MAGIC, 4);
    talb_put_be32(out + TALB_FRAME_LEN + 4, (uint32_t)(conn_id >> 32));
    talb_put_be32(out + TALB_FRAME_LEN + 8, (uint32_t)conn_id);
}

int
talb_hello_decode(const uint8_t in[TALB_HELLO_LEN], uint64_t* conn_id)
{
    struct talb_frame f;
    if (talb_frame_decode(in, TALB_FRAME_LEN, &f) != TALB_FRAME_LEN ||
        f.payload_len != TALB_HELLO_PAYLOAD || f.label.tensor_id != 0 ||
        memcmp(in + TALB_FRAME_LEN, TALB_HELLO_MAGIC, 4) != 0)
    {
        return TALB_WIRE_BAD_TYPE;
    }
    *conn_id = ((uint64_t)talb_get_be32(in + TALB_FRAME_LEN + 4) << 32) |
               talb_get_be32(in + TALB_FRAME_LEN + 8);
    return TALB_WIRE_OK;
}
